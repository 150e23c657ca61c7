//! State the tools of one registry share: the configuration and what each session set.

// The session's variables are read by the families that run commands and written by
// `env_set`; a build with only the file family has no use for them.
#![cfg_attr(not(feature = "system"), allow(dead_code))]

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};

use crate::ToolsConfig;

/// Shared by every built-in tool of one [`builtin`](crate::builtin) call.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) config: ToolsConfig,
    /// Variables set with `env_set`, per session: added to the environment of every
    /// command the session runs, never to this process's.
    env: Mutex<HashMap<String, BTreeMap<String, String>>>,
}

impl Shared {
    pub(crate) fn new(config: ToolsConfig) -> Self {
        Self {
            config,
            env: Mutex::default(),
        }
    }

    /// The variables `session_id` set.
    pub(crate) fn session_env(&self, session_id: &str) -> BTreeMap<String, String> {
        let env = self.env.lock().unwrap_or_else(PoisonError::into_inner);
        env.get(session_id).cloned().unwrap_or_default()
    }

    /// Set (or, with `None`, unset) a variable for `session_id`.
    pub(crate) fn set_session_env(&self, session_id: &str, name: &str, value: Option<String>) {
        let mut env = self.env.lock().unwrap_or_else(PoisonError::into_inner);
        let vars = env.entry(session_id.to_owned()).or_default();
        match value {
            Some(value) => {
                vars.insert(name.to_owned(), value);
            }
            None => {
                vars.remove(name);
            }
        }
    }
}

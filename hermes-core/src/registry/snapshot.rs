use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;
use jsonschema::Validator;
use serde_json::Value;
use tokio::sync::OnceCell;
use tokio_util::task::TaskTracker;

use crate::dispatch::Defaults;
use crate::{Error, Tool, ToolError, ToolSpec};

/// Whether a registered tool can serve calls.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Availability {
    /// `setup` has not run yet; it will before the first call.
    NotStarted,
    /// `setup` succeeded.
    Ready,
    /// `setup` failed; every call gets this reason.
    Unavailable {
        /// The setup error.
        reason: String,
    },
}

/// One registration: the tool, its compiled schema, its lifecycle state.
///
/// Calls in flight hold an `Arc<Entry>`. When the last one is dropped (the registry
/// moved on and every call ended), `teardown` is scheduled on the registry's tracker.
pub(crate) struct Entry {
    tool: Arc<dyn Tool>,
    validator: Validator,
    defaults: Defaults,
    setup: OnceCell<Result<(), String>>,
    teardowns: TaskTracker,
    /// Where the tool came from when it was registered as part of a source (a YAML
    /// file...); see `Registry::swap_source`.
    source: Option<Arc<str>>,
}

impl Entry {
    pub(crate) fn new(
        tool: Arc<dyn Tool>,
        teardowns: TaskTracker,
        source: Option<Arc<str>>,
    ) -> Result<Self, Error> {
        let spec = tool.spec();
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(spec.parameters())
            .map_err(|err| Error::InvalidSchema {
                tool: spec.name().to_owned(),
                reason: err.to_string(),
            })?;
        let defaults = Defaults::of(spec.name(), spec.parameters(), &validator)?;
        Ok(Self {
            tool,
            validator,
            defaults,
            setup: OnceCell::new(),
            teardowns,
            source,
        })
    }

    /// The source the tool was registered from, if any.
    pub(crate) fn source(&self) -> Option<&Arc<str>> {
        self.source.as_ref()
    }

    pub(crate) fn tool(&self) -> &Arc<dyn Tool> {
        &self.tool
    }

    pub(crate) fn spec(&self) -> &ToolSpec {
        self.tool.spec()
    }

    pub(crate) fn validator(&self) -> &Validator {
        &self.validator
    }

    pub(crate) fn defaults(&self) -> &Defaults {
        &self.defaults
    }

    /// Run `setup` once; later calls see its result.
    pub(crate) async fn ensure_ready(&self) -> Result<(), ToolError> {
        let outcome = self
            .setup
            .get_or_init(|| async {
                match AssertUnwindSafe(self.tool.setup()).catch_unwind().await {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(err)) => Err(err.full_message()),
                    Err(_panic) => Err("its setup panicked".to_owned()),
                }
            })
            .await;
        outcome.clone().map_err(|reason| ToolError::Unavailable {
            tool: self.spec().name().to_owned(),
            reason,
        })
    }

    /// Whether `setup` ran and succeeded.
    pub(crate) fn is_ready(&self) -> bool {
        matches!(self.setup.get(), Some(Ok(())))
    }

    pub(crate) fn availability(&self) -> Availability {
        match self.setup.get() {
            None => Availability::NotStarted,
            Some(Ok(())) => Availability::Ready,
            Some(Err(reason)) => Availability::Unavailable {
                reason: reason.clone(),
            },
        }
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        if !matches!(self.setup.get(), Some(Ok(()))) {
            return;
        }
        let tool = Arc::clone(&self.tool);
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                self.teardowns
                    .spawn_on(async move { tool.teardown().await }, &runtime);
            }
            Err(_) => tracing::warn!(
                tool = tool.spec().name(),
                "no tokio runtime at the end of the tool's registration; its teardown did not run"
            ),
        }
    }
}

impl fmt::Debug for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.spec().name())
            .field("availability", &self.availability())
            .finish_non_exhaustive()
    }
}

/// Tool names by FNV-1a: names are short, and every call hashes one, so SipHash's
/// flood resistance (the keys are ours; a lookup cannot grow the map) is not worth its cost.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct NameHasher(u64);

impl Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let mut hash = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &byte in bytes {
            hash = (hash ^ u64::from(byte)).wrapping_mul(PRIME);
        }
        self.0 = hash;
    }
}

/// The registry's map: name to registration.
pub(crate) type Entries = HashMap<String, Arc<Entry>, BuildHasherDefault<NameHasher>>;

/// An immutable view of the registry. Swapped whole on every change.
#[derive(Debug, Default)]
pub(crate) struct Snapshot {
    pub(crate) entries: Entries,
    /// OpenAI function objects, sorted by name, built once per snapshot.
    pub(crate) schemas: Arc<[Value]>,
}

impl Snapshot {
    pub(crate) fn new(entries: Entries) -> Self {
        let mut names: Vec<&String> = entries.keys().collect();
        names.sort();
        let schemas = names
            .into_iter()
            .filter_map(|name| entries.get(name))
            .map(|entry| entry.spec().schema())
            .collect();
        Self { entries, schemas }
    }

    /// Registered names, sorted.
    pub(crate) fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.entries.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }
}

//! [`ProcessTable`]: the background processes of every session, by handle. A session
//! sees only its own handles; each may hold a bounded number. Dropping the table (the
//! tool set going away) kills every process it holds.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hermes_core::ToolError;

use super::background::Background;
use crate::common::process::Program;

/// How many handles one session may hold at once.
pub(crate) const MAX_PER_SESSION: usize = 16;
/// How many handles all sessions together may hold at once.
pub(crate) const MAX_TOTAL: usize = 256;

/// The background processes, by handle.
#[derive(Debug, Default)]
pub(crate) struct ProcessTable {
    entries: Mutex<BTreeMap<String, Arc<Background>>>,
    next_id: AtomicU64,
}

impl ProcessTable {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    fn entries(&self) -> MutexGuard<'_, BTreeMap<String, Arc<Background>>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Start `program` for `session_id` under a new handle.
    ///
    /// # Errors
    ///
    /// A message for the model when the session (or the table) holds as many handles as
    /// it may, or the program cannot be started.
    pub(crate) fn start(
        &self,
        session_id: &str,
        command: &str,
        program: &Program,
    ) -> Result<Arc<Background>, ToolError> {
        let mut entries = self.entries();
        let held = entries
            .values()
            .filter(|entry| entry.session_id() == session_id)
            .count();
        if held >= MAX_PER_SESSION {
            return Err(ToolError::failed(format!(
                "this session already holds {held} background processes, the most it may; \
                 stop one with process_kill (an exited one is released once process_output \
                 reported its exit) and try again"
            )));
        }
        if entries.len() >= MAX_TOTAL {
            return Err(ToolError::failed(format!(
                "{MAX_TOTAL} background processes are running for all sessions, the most \
                 there may be; stop one with process_kill or wait"
            )));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let handle = format!("proc-{id}");
        let background = Arc::new(Background::start(
            handle.clone(),
            session_id,
            command,
            program,
        )?);
        entries.insert(handle, Arc::clone(&background));
        Ok(background)
    }

    /// The process behind `handle`, if `session_id` holds it.
    ///
    /// # Errors
    ///
    /// "unknown handle" for a handle this session does not hold (another session's
    /// included), listing the ones it does.
    pub(crate) fn get(&self, session_id: &str, handle: &str) -> Result<Arc<Background>, ToolError> {
        let entries = self.entries();
        if let Some(entry) = entries
            .get(handle)
            .filter(|entry| entry.session_id() == session_id)
        {
            return Ok(Arc::clone(entry));
        }
        let held: Vec<&str> = entries
            .values()
            .filter(|entry| entry.session_id() == session_id)
            .map(|entry| entry.handle())
            .collect();
        let held = if held.is_empty() {
            "it holds none".to_owned()
        } else {
            format!("it holds {}", held.join(", "))
        };
        Err(ToolError::failed(format!(
            "unknown handle `{handle}` in this session ({held}); handles come from \
             process_start and are released once process_output reported the exit or \
             process_kill stopped the process"
        )))
    }

    /// The process of `session_id` whose id is `pid`.
    pub(crate) fn by_pid(&self, session_id: &str, pid: u32) -> Option<Arc<Background>> {
        self.entries()
            .values()
            .find(|entry| entry.session_id() == session_id && entry.pid() == pid)
            .cloned()
    }

    /// The handles `session_id` holds, by process id.
    pub(crate) fn handles_of(&self, session_id: &str) -> BTreeMap<u32, String> {
        self.entries()
            .values()
            .filter(|entry| entry.session_id() == session_id)
            .map(|entry| (entry.pid(), entry.handle().to_owned()))
            .collect()
    }

    /// Forget `handle`; its process is killed once no call uses it any more.
    pub(crate) fn release(&self, handle: &str) {
        let released = self.entries().remove(handle);
        drop(released);
    }
}

impl Drop for ProcessTable {
    fn drop(&mut self) {
        // Calls still holding a process keep it; its group goes now all the same.
        for entry in self.entries().values() {
            entry.stop();
        }
    }
}

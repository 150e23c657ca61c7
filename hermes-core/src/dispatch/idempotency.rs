//! Step 5: `write` calls run once per idempotency key; a repeat gets the first result.

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::fmt::Write as _;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio::sync::OnceCell;

use crate::ToolError;

/// The argument that, when a tool's schema declares it, carries an explicit key.
pub const IDEMPOTENCY_KEY_ARG: &str = "idempotency_key";

/// Where the results of successful `write` calls are kept, by session and key.
///
/// The dispatcher asks it before running a `write` call and records the result after a
/// success; failures are never recorded, so a failed call runs again when repeated.
/// Implementations must bound their size. [`MemoryIdempotencyStore`] is the default;
/// `hermes-permissions` keeps keys in its per-session state.
pub trait IdempotencyStore: Send + Sync + fmt::Debug + 'static {
    /// The recorded result of the call with this key in this session.
    fn get(&self, session_id: &str, key: &str) -> Option<String>;
    /// Record the result of a successful call.
    fn put(&self, session_id: &str, key: String, content: String);
}

/// An in-memory [`IdempotencyStore`] holding at most `capacity` results, oldest evicted
/// first.
#[derive(Debug)]
pub struct MemoryIdempotencyStore {
    capacity: usize,
    state: Mutex<Bounded>,
}

#[derive(Debug, Default)]
struct Bounded {
    results: HashMap<Slot, String>,
    order: VecDeque<Slot>,
}

impl MemoryIdempotencyStore {
    /// A store of at most `capacity` results (at least one).
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            state: Mutex::default(),
        }
    }
}

impl IdempotencyStore for MemoryIdempotencyStore {
    fn get(&self, session_id: &str, key: &str) -> Option<String> {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state
            .results
            .get(&(session_id.to_owned(), key.to_owned()))
            .cloned()
    }

    fn put(&self, session_id: &str, key: String, content: String) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let slot = (session_id.to_owned(), key);
        if state.results.insert(slot.clone(), content).is_none() {
            state.order.push_back(slot);
        }
        while state.order.len() > self.capacity {
            let Some(oldest) = state.order.pop_front() else {
                break;
            };
            state.results.remove(&oldest);
        }
    }
}

/// A session and a key.
type Slot = (String, String);

/// Runs each key at most once at a time, and at most once after a success.
#[derive(Debug)]
pub(crate) struct Idempotency {
    store: Arc<dyn IdempotencyStore>,
    /// Calls in flight, so an identical call arriving meanwhile waits for the first.
    in_flight: Mutex<HashMap<Slot, Arc<OnceCell<String>>>>,
}

impl Idempotency {
    pub(crate) fn new(store: Arc<dyn IdempotencyStore>) -> Self {
        Self {
            store,
            in_flight: Mutex::default(),
        }
    }

    /// Run `call` unless a call with this key already succeeded in this session; returns
    /// the content and whether it was replayed. Cancel-safe: a dropped first caller lets
    /// a waiting one run the call.
    pub(crate) async fn run_once<F, Fut>(
        &self,
        session_id: &str,
        key: String,
        call: F,
    ) -> Result<(String, bool), ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<String, ToolError>>,
    {
        if let Some(content) = self.store.get(session_id, &key) {
            return Ok((content, true));
        }
        let slot = (session_id.to_owned(), key);
        let cell = Arc::clone(
            self.in_flight
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(slot.clone())
                .or_default(),
        );
        let mut ran = false;
        let outcome = cell
            .get_or_try_init(|| {
                ran = true;
                call()
            })
            .await
            .cloned();
        if ran {
            self.in_flight
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&slot);
            if let Ok(content) = &outcome {
                self.store.put(session_id, slot.1, content.clone());
            }
        }
        outcome.map(|content| (content, !ran))
    }
}

/// The key of a call: the explicit `idempotency_key` argument if there is one, else
/// the tool and its canonical arguments when the tool `replays` repeats; `None` when the
/// call should simply run.
pub(crate) fn key(tool: &str, args: &Value, replays: bool) -> Option<String> {
    let mut key = format!("{tool}\u{0}");
    match args.get(IDEMPOTENCY_KEY_ARG) {
        Some(Value::String(explicit)) => {
            key.push_str("key:");
            key.push_str(explicit);
        }
        _ if replays => {
            key.push_str("args:");
            write_canonical(&mut key, args);
        }
        _ => return None,
    }
    Some(key)
}

/// JSON with object keys sorted at every level, whatever order serde_json keeps.
pub(crate) fn write_canonical(out: &mut String, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_unstable_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (name, member)) in members.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{}:", Value::String(name.clone()));
                write_canonical(out, member);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(out, item);
            }
            out.push(']');
        }
        scalar => {
            let _ = write!(out, "{scalar}");
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn key_ignores_member_order() {
        let key = |tool, args| key(tool, &args, true);
        let a = key("write", json!({"path": "a", "body": {"x": 1, "y": [1, 2]}}));
        let b = key("write", json!({"body": {"y": [1, 2], "x": 1}, "path": "a"}));
        assert_eq!(a, b);
        let other_path = key("write", json!({"path": "b", "body": {"x": 1, "y": [1, 2]}}));
        let other_tool = key("other", json!({"path": "a", "body": {"x": 1, "y": [1, 2]}}));
        assert_ne!(a, other_path);
        assert_ne!(a, other_tool);
    }

    #[test]
    fn explicit_key_wins_and_works_without_replays() {
        let a = key("t", &json!({"idempotency_key": "k1", "n": 1}), true);
        let b = key("t", &json!({"idempotency_key": "k1", "n": 2}), false);
        assert_eq!(a, b);
        assert!(a.is_some());
        assert_eq!(key("t", &json!({"n": 1}), false), None);
    }

    #[tokio::test]
    async fn failures_are_not_remembered_and_capacity_evicts() {
        let once = Idempotency::new(Arc::new(MemoryIdempotencyStore::new(2)));
        let failed = once
            .run_once("s", "k".into(), || async { Err(ToolError::failed("boom")) })
            .await;
        assert!(failed.is_err());
        let first = once
            .run_once("s", "k".into(), || async { Ok("one".to_owned()) })
            .await;
        assert_eq!(first.unwrap(), ("one".to_owned(), false));
        let again = once
            .run_once("s", "k".into(), || async { Ok("two".to_owned()) })
            .await;
        assert_eq!(again.unwrap(), ("one".to_owned(), true));
        let other_session = once
            .run_once("t", "k".into(), || async { Ok("t".to_owned()) })
            .await;
        assert_eq!(other_session.unwrap(), ("t".to_owned(), false));
        once.run_once("s", "b".into(), || async { Ok(String::new()) })
            .await
            .unwrap();
        let evicted = once
            .run_once("s", "k".into(), || async { Ok("three".to_owned()) })
            .await;
        assert_eq!(evicted.unwrap(), ("three".to_owned(), false));
    }
}

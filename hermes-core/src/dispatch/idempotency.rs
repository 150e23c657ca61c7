//! Step 5: `write` calls run once per idempotency key; a repeat gets the first result.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio::sync::OnceCell;

use crate::ToolError;

/// The argument that, when a tool's schema declares it, carries an explicit key.
pub const IDEMPOTENCY_KEY_ARG: &str = "idempotency_key";

/// Results of successful `write` calls by key, oldest evicted first.
///
/// Only successes are kept: a call that failed (timed out, say) runs again when repeated.
/// Two identical calls in flight at once run the tool once; the second waits.
#[derive(Debug)]
pub(crate) struct IdempotencyCache {
    capacity: usize,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    cells: HashMap<String, Arc<OnceCell<String>>>,
    order: VecDeque<String>,
}

impl IdempotencyCache {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity,
            state: Mutex::default(),
        }
    }

    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Run `call` unless a call with this key already succeeded; returns the content
    /// and whether it was replayed. Cancel-safe: a dropped first caller lets a waiting
    /// one run the call.
    pub(crate) async fn run_once<F, Fut>(
        &self,
        key: String,
        call: F,
    ) -> Result<(String, bool), ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<String, ToolError>>,
    {
        let cell = self.cell(key);
        let mut ran = false;
        let content = cell
            .get_or_try_init(|| {
                ran = true;
                call()
            })
            .await?;
        Ok((content.clone(), !ran))
    }

    fn cell(&self, key: String) -> Arc<OnceCell<String>> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(cell) = state.cells.get(&key) {
            return Arc::clone(cell);
        }
        while state.order.len() >= self.capacity {
            let Some(oldest) = state.order.pop_front() else {
                break;
            };
            state.cells.remove(&oldest);
        }
        let cell = Arc::new(OnceCell::new());
        state.cells.insert(key.clone(), Arc::clone(&cell));
        state.order.push_back(key);
        cell
    }
}

/// The key of a call: the explicit `idempotency_key` argument if there is one, else the
/// tool and its canonical arguments; always within the session.
pub(crate) fn key(session_id: &str, tool: &str, args: &Value) -> String {
    let mut key = format!("{session_id}\u{0}{tool}\u{0}");
    match args.get(IDEMPOTENCY_KEY_ARG) {
        Some(Value::String(explicit)) => {
            key.push_str("key:");
            key.push_str(explicit);
        }
        _ => {
            key.push_str("args:");
            write_canonical(&mut key, args);
        }
    }
    key
}

/// JSON with object keys sorted at every level, whatever order serde_json keeps.
fn write_canonical(out: &mut String, value: &Value) {
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
    fn key_ignores_member_order_and_respects_session() {
        let a = key(
            "s1",
            "write",
            &json!({"path": "a", "body": {"x": 1, "y": [1, 2]}}),
        );
        let b = key(
            "s1",
            "write",
            &json!({"body": {"y": [1, 2], "x": 1}, "path": "a"}),
        );
        assert_eq!(a, b);
        assert_ne!(
            a,
            key(
                "s2",
                "write",
                &json!({"path": "a", "body": {"x": 1, "y": [1, 2]}})
            )
        );
        assert_ne!(
            a,
            key(
                "s1",
                "write",
                &json!({"path": "b", "body": {"x": 1, "y": [1, 2]}})
            )
        );
    }

    #[test]
    fn explicit_key_wins() {
        let a = key("s", "t", &json!({"idempotency_key": "k1", "n": 1}));
        let b = key("s", "t", &json!({"idempotency_key": "k1", "n": 2}));
        assert_eq!(a, b);
    }

    #[tokio::test]
    async fn failures_are_not_remembered_and_capacity_evicts() {
        let cache = IdempotencyCache::new(2);
        let failed = cache
            .run_once("k".into(), || async { Err(ToolError::failed("boom")) })
            .await;
        assert!(failed.is_err());
        let first = cache
            .run_once("k".into(), || async { Ok("one".to_owned()) })
            .await
            .unwrap();
        assert_eq!(first, ("one".to_owned(), false));
        let again = cache
            .run_once("k".into(), || async { Ok("two".to_owned()) })
            .await
            .unwrap();
        assert_eq!(again, ("one".to_owned(), true));
        for other in ["a", "b"] {
            cache
                .run_once(other.into(), || async { Ok(String::new()) })
                .await
                .unwrap();
        }
        let evicted = cache
            .run_once("k".into(), || async { Ok("three".to_owned()) })
            .await
            .unwrap();
        assert_eq!(evicted, ("three".to_owned(), false));
    }
}

//! Running a query: on a thread of its own (jaq's values are not `Send`, and its
//! evaluator recurses, so the thread gets a large stack), bounded in outputs, bytes and
//! time.
//!
//! jaq cannot be interrupted inside the computation of one output. The deadline is
//! checked between outputs; past it (or when the call is cancelled or dropped) the call
//! gives up and the thread is told to stop at its next output. Threads still running
//! after being abandoned are counted, and new queries are refused while
//! [`MAX_RUNAWAY`] of them are, so a few runaway filters cannot pile up.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hermes_core::ToolContext;
use jaq_core::{Ctx, RcIter};
use jaq_json::Val;
use serde_json::{Map, Number, Value};
use tokio::sync::oneshot;

use super::filter;

/// The stack of a query thread, reserved not committed: room for deep values and
/// recursive filters.
const STACK_BYTES: usize = 64 * 1024 * 1024;
/// The deepest output converted to JSON.
const MAX_OUTPUT_DEPTH: usize = 256;
/// How many abandoned queries may still be running before new ones are refused.
const MAX_RUNAWAY: usize = 2;

/// What a query may produce.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Outputs kept at most.
    pub(super) max_outputs: usize,
    /// Bytes of compact JSON kept at most, over all outputs.
    pub(super) max_bytes: usize,
    /// How long the query may run.
    pub(super) time: Duration,
}

/// The outputs of a query.
#[derive(Debug, PartialEq)]
pub(super) struct Outputs {
    /// The outputs kept, in order.
    pub(super) values: Vec<Value>,
    /// Why outputs were left out, when some were.
    pub(super) cut: Option<String>,
}

/// Why a query failed.
#[derive(Debug, PartialEq)]
pub(super) enum QueryError {
    /// The filter does not compile.
    Compile(String),
    /// The filter raised an error.
    Runtime {
        /// jaq's message.
        message: String,
        /// The 1-based input it raised on.
        input: usize,
        /// Outputs produced before it.
        outputs: usize,
    },
    /// An output cannot be written as JSON.
    Output(String),
    /// The query ran past its time.
    TimedOut(Duration),
    /// The call was cancelled.
    Cancelled,
    /// Too many abandoned queries are still running, or no thread could be started.
    Busy(String),
}

/// The abandoned query threads still running, shared by the calls of one tool.
#[derive(Debug, Default)]
pub(super) struct Runaways(Arc<AtomicUsize>);

/// The state of one query, shared by the call and its thread.
#[derive(Debug)]
struct Ticket {
    state: AtomicU8,
    runaways: Arc<AtomicUsize>,
}

const RUNNING: u8 = 0;
const FINISHED: u8 = 1;
const ABANDONED: u8 = 2;

impl Ticket {
    /// The thread is done: if the call had given up on it, it is no longer a runaway.
    fn finish(&self) {
        if self
            .state
            .compare_exchange(RUNNING, FINISHED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            self.runaways.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// The call gives up: the thread, if still running, is a runaway until it ends.
    fn abandon(&self) {
        // Counted first, so the thread's `finish` can never decrement before this.
        self.runaways.fetch_add(1, Ordering::AcqRel);
        if self
            .state
            .compare_exchange(RUNNING, ABANDONED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            self.runaways.fetch_sub(1, Ordering::AcqRel);
        }
    }

    fn is_abandoned(&self) -> bool {
        self.state.load(Ordering::Acquire) == ABANDONED
    }
}

/// Abandons its query when dropped before the query ended (a timeout, a cancellation,
/// the call's future dropped).
#[derive(Debug)]
struct AbandonOnDrop {
    ticket: Arc<Ticket>,
    ended: bool,
}

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        if !self.ended {
            self.ticket.abandon();
        }
    }
}

/// Run the filter `code` on each of `inputs`, within `limits`.
///
/// # Errors
///
/// A [`QueryError`] when the filter does not compile or fails, the query runs too long
/// or the call is cancelled.
pub(super) async fn run(
    code: String,
    inputs: Vec<Value>,
    limits: Limits,
    runaways: &Runaways,
    ctx: &ToolContext,
) -> Result<Outputs, QueryError> {
    let running = runaways.0.load(Ordering::Acquire);
    if running >= MAX_RUNAWAY {
        return Err(QueryError::Busy(format!(
            "{running} earlier queries are still running past their time limit; wait a little, and use simpler filters"
        )));
    }
    let ticket = Arc::new(Ticket {
        state: AtomicU8::new(RUNNING),
        runaways: Arc::clone(&runaways.0),
    });
    let (sender, receiver) = oneshot::channel();
    let worker = Arc::clone(&ticket);
    let deadline = Instant::now() + limits.time;
    std::thread::Builder::new()
        .name("hermes-json-query".to_owned())
        .stack_size(STACK_BYTES)
        .spawn(move || {
            let outcome = evaluate(&code, inputs, limits, || {
                worker.is_abandoned() || Instant::now() >= deadline
            });
            worker.finish();
            // The call may have given up; then nobody listens.
            let _ = sender.send(outcome);
        })
        .map_err(|error| QueryError::Busy(format!("cannot start the query: {error}")))?;
    let mut guard = AbandonOnDrop {
        ticket,
        ended: false,
    };
    let outcome = tokio::select! {
        outcome = receiver => {
            guard.ended = true;
            outcome.unwrap_or_else(|_| Err(QueryError::Output("the query stopped unexpectedly".to_owned())))
        }
        () = tokio::time::sleep(limits.time) => Err(QueryError::TimedOut(limits.time)),
        () = ctx.cancellation().cancelled() => Err(QueryError::Cancelled),
    };
    drop(guard);
    outcome
}

/// Compile `code` and run it on each input, until `stop` says to stop.
fn evaluate(
    code: &str,
    inputs: Vec<Value>,
    limits: Limits,
    stop: impl Fn() -> bool,
) -> Result<Outputs, QueryError> {
    let filter = filter::compile(code).map_err(QueryError::Compile)?;
    let mut values = Vec::new();
    let mut bytes = 0;
    let none = RcIter::new(core::iter::empty());
    for (index, input) in inputs.into_iter().enumerate() {
        let outputs = filter.run((Ctx::new([], &none), Val::from(input)));
        for output in outputs {
            if stop() {
                return Err(QueryError::TimedOut(limits.time));
            }
            let value = output.map_err(|error| QueryError::Runtime {
                message: error.to_string(),
                input: index + 1,
                outputs: values.len(),
            })?;
            if values.len() == limits.max_outputs {
                return Ok(Outputs {
                    values,
                    cut: Some(format!(
                        "only the first {} outputs are shown; raise `max_outputs` or narrow the filter",
                        limits.max_outputs
                    )),
                });
            }
            let value = to_json(value, 0).map_err(QueryError::Output)?;
            bytes += serde_json::to_string(&value).map_or(0, |text| text.len());
            if bytes > limits.max_bytes {
                return Ok(Outputs {
                    cut: Some(format!(
                        "the outputs after the first {} are left out: together they pass {} bytes; narrow the filter",
                        values.len(),
                        limits.max_bytes
                    )),
                    values,
                });
            }
            values.push(value);
        }
    }
    Ok(Outputs { values, cut: None })
}

/// `value` as JSON. Numbers that no JSON number holds (infinite, NaN) become `null`, as
/// jq prints them.
fn to_json(value: Val, depth: usize) -> Result<Value, String> {
    if depth > MAX_OUTPUT_DEPTH {
        return Err(format!(
            "an output nests deeper than {MAX_OUTPUT_DEPTH} levels; narrow the filter"
        ));
    }
    Ok(match value {
        Val::Null => Value::Null,
        Val::Bool(flag) => Value::Bool(flag),
        Val::Int(int) => Value::Number(Number::from(int as i64)),
        Val::Float(float) => Number::from_f64(float).map_or(Value::Null, Value::Number),
        Val::Num(text) => text
            .parse::<Number>()
            .ok()
            .or_else(|| text.parse::<f64>().ok().and_then(Number::from_f64))
            .map_or(Value::Null, Value::Number),
        Val::Str(text) => Value::String(text.to_string()),
        Val::Arr(items) => Value::Array(
            items
                .iter()
                .map(|item| to_json(item.clone(), depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Val::Obj(members) => {
            let mut object = Map::new();
            for (key, member) in members.iter() {
                object.insert(key.to_string(), to_json(member.clone(), depth + 1)?);
            }
            Value::Object(object)
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn limits() -> Limits {
        Limits {
            max_outputs: 5,
            max_bytes: 1000,
            time: Duration::from_secs(10),
        }
    }

    fn query(code: &str, input: Value) -> Result<Outputs, QueryError> {
        evaluate(code, vec![input], limits(), || false)
    }

    #[test]
    fn runs_filters() {
        let outputs = query(
            ".items[] | select(.n > 1) | .name",
            json!({"items": [
                {"name": "a", "n": 1}, {"name": "b", "n": 2}, {"name": "c", "n": 3}
            ]}),
        )
        .unwrap();
        assert_eq!(outputs.values, [json!("b"), json!("c")]);
        assert_eq!(outputs.cut, None);
        let numbers = query("[1.5, 3, 1e1000, 12345678901234567890]", Value::Null).unwrap();
        assert_eq!(numbers.values[0][0], json!(1.5));
        assert_eq!(numbers.values[0][1], json!(3));
    }

    #[test]
    fn bounds_outputs_and_bytes() {
        let many = query("range(100)", Value::Null).unwrap();
        assert_eq!(many.values.len(), 5);
        assert!(many.cut.unwrap().contains("first 5 outputs"));
        let big = query("[range(1000)]", Value::Null).unwrap();
        assert!(big.values.is_empty());
        assert!(big.cut.unwrap().contains("1000 bytes"));
        let deep = query("reduce range(300) as $i (0; [.])", Value::Null).unwrap_err();
        assert!(matches!(deep, QueryError::Output(message) if message.contains("deeper")));
    }

    #[test]
    fn runtime_errors_say_which_input() {
        let error = evaluate(
            ".a + 1",
            vec![json!({"a": 1}), json!({"a": "x"})],
            limits(),
            || false,
        )
        .unwrap_err();
        match error {
            QueryError::Runtime {
                input,
                outputs,
                message,
            } => {
                assert_eq!((input, outputs), (2, 1));
                assert!(message.contains("cannot"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        let refused = query("env", Value::Null).unwrap_err();
        assert!(
            matches!(refused, QueryError::Runtime { message, .. } if message.contains("not available"))
        );
    }

    #[tokio::test]
    async fn a_query_past_its_time_is_abandoned() {
        let runaways = Runaways::default();
        let limits = Limits {
            time: Duration::from_millis(200),
            max_outputs: usize::MAX,
            max_bytes: usize::MAX,
        };
        let error = run(
            "range(1e12) | null".to_owned(),
            vec![Value::Null],
            limits,
            &runaways,
            &ToolContext::new("t"),
        )
        .await
        .unwrap_err();
        assert_eq!(error, QueryError::TimedOut(Duration::from_millis(200)));
        let stopped = evaluate("range(1e12)", vec![Value::Null], limits, || true).unwrap_err();
        assert_eq!(stopped, QueryError::TimedOut(Duration::from_millis(200)));
    }
}

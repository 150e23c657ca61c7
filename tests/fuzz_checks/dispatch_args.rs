//! Argument repair, coercion and validation, through the public gateway: a fuzzed
//! argument string sent as a call to a tool with a many-typed schema never panics; the
//! report is a success, or an error whose content is `{"error": {"kind", "message"}}`;
//! and a tool that ran received arguments valid under its schema.
//!
//! Input: `[repairs, arguments..]`; bits 0 to 2 of `repairs` switch the name, JSON and
//! type repairs off.

use std::sync::{Arc, LazyLock, Mutex};

use hermes_core::{
    Dispatcher, Registry, Repairs, RunContext, Tool, ToolCall, ToolContext, ToolFuture, ToolOutput,
    ToolSpec,
};
use serde_json::{Value, json};

/// What the probe tool answers.
const ANSWER: &str = "ran";

/// The schema: every JSON type, an enum with a default, a nested object.
fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "title": {"type": "string", "minLength": 1, "maxLength": 200},
            "count": {"type": "integer", "minimum": 0, "maximum": 1000},
            "ratio": {"type": "number"},
            "enabled": {"type": "boolean", "default": false},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 20},
            "mode": {"type": "string", "enum": ["fast", "careful"], "default": "fast"},
            "target": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "depth": {"type": "integer", "default": 1},
                    "sizes": {"type": "array", "items": {"type": "number"}}
                },
                "required": ["path"],
                "additionalProperties": false
            }
        },
        "required": ["title", "count"],
        "additionalProperties": false
    })
}

/// A tool that keeps the arguments it was given.
struct Probe {
    spec: ToolSpec,
    seen: Arc<Mutex<Option<Value>>>,
}

impl Tool for Probe {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn run<'a>(&'a self, args: Value, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        *self.seen.lock().unwrap() = Some(args);
        ToolFuture::ready(Ok(ToolOutput::text(ANSWER)))
    }
}

/// One dispatcher per repair setting, the probe's slot, and the compiled schema.
struct Bench {
    dispatchers: Vec<Dispatcher>,
    seen: Arc<Mutex<Option<Value>>>,
    validator: jsonschema::Validator,
}

static BENCH: LazyLock<Bench> = LazyLock::new(|| {
    let seen = Arc::new(Mutex::new(None));
    let spec = ToolSpec::builder("probe", "Keeps its arguments.")
        .parameters(schema())
        .build()
        .unwrap();
    let registry = Registry::new();
    registry
        .register(Probe {
            spec,
            seen: Arc::clone(&seen),
        })
        .unwrap();
    let dispatchers = (0..8u8)
        .map(|bits| {
            let mut repairs = Repairs::all();
            repairs.names = bits & 1 == 0;
            repairs.json = bits & 2 == 0;
            repairs.types = bits & 4 == 0;
            Dispatcher::builder(registry.clone())
                .repairs(repairs)
                .build()
                .unwrap()
        })
        .collect();
    Bench {
        dispatchers,
        seen,
        validator: jsonschema::validator_for(&schema()).unwrap(),
    }
});

/// Check one input.
pub(crate) fn check(data: &[u8]) {
    let Some((&bits, arguments)) = data.split_first() else {
        return;
    };
    let bench = &*BENCH;
    let dispatcher = &bench.dispatchers[usize::from(bits & 7)];
    let arguments = String::from_utf8_lossy(arguments);
    let call = ToolCall::new("call_fuzz", "probe", arguments.as_ref());
    *bench.seen.lock().unwrap() = None;
    let report = super::runtime().block_on(dispatcher.dispatch(&call, &RunContext::new()));
    let seen = bench.seen.lock().unwrap().take();
    assert_eq!(report.message.tool_call_id, "call_fuzz");
    if report.is_success() {
        assert_eq!(report.message.content, ANSWER);
        let args = seen.expect("a successful call ran the tool");
        assert!(
            bench.validator.is_valid(&args),
            "the tool ran with arguments its schema refuses: {args}"
        );
        return;
    }
    assert!(report.error.is_some(), "a failed report carries its error");
    if let Some(args) = seen {
        // The tool may have run and failed; it never fails here, so it did not run.
        panic!("the tool ran but the report is a failure: {args}");
    }
    let content: Value = serde_json::from_str(&report.message.content).unwrap_or_else(|error| {
        panic!(
            "the error content is not JSON ({error}); {} bytes, starting {:?}",
            report.message.content.len(),
            report.message.content.chars().take(200).collect::<String>()
        )
    });
    let kind = content.pointer("/error/kind").and_then(Value::as_str);
    let message = content.pointer("/error/message").and_then(Value::as_str);
    assert!(
        kind.is_some_and(|kind| !kind.is_empty()) && message.is_some(),
        "the error content lacks error.kind or error.message: {content}"
    );
}

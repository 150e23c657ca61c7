//! One `add(a, b)` call, from the argument string `{"a":2,"b":3}` to the serialized tool
//! message, through the full gateway, beside a hand-written baseline doing the minimum
//! (HashMap lookup, serde_json parse, compiled jsonschema validation, typed call,
//! serialization). Same run, same machine: compare the ratio, not the nanoseconds.
//!
//! Two gateway cases: `add` as a synchronous `Tool` (answers inside `run`, no future
//! boxed), and `add` as an async `TypedTool` (one boxed future per call). A third,
//! `gateway_sync_telemetry`, is the first with a `TelemetryCollector` observing every
//! call (the cost on the calling task: building the record and queueing it; the
//! writer thread works on the other core, and what does not fit in its queue is
//! dropped and counted, printed at the end).
//!
//! `cargo bench --bench dispatch`; figures in BENCHMARKS.md.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use hermes::telemetry::TelemetryCollector;
use hermes::{
    Dispatcher, Message, Registry, RunContext, Tool, ToolCall, ToolContext, ToolError, ToolFuture,
    ToolOutput, ToolSpec, TypedTool, parse_args,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

const ARGS: &str = r#"{"a":2,"b":3}"#;

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

fn add(args: &AddArgs) -> i64 {
    args.a + args.b
}

/// `add` as a synchronous tool.
struct SyncAdd(ToolSpec);

impl Tool for SyncAdd {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn run<'a>(&'a self, args: Value, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::ready(
            parse_args::<AddArgs>(args).and_then(|args| ToolOutput::json(&add(&args))),
        )
    }
}

/// `add` as an async typed tool.
struct Add(ToolSpec);

impl TypedTool for Add {
    type Args = AddArgs;
    type Output = i64;

    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    async fn call(&self, args: AddArgs, _ctx: &ToolContext) -> Result<i64, ToolError> {
        Ok(add(&args))
    }
}

fn add_spec() -> ToolSpec {
    ToolSpec::builder("add", "Add two integers.")
        .parameters_for::<AddArgs>()
        .build()
        .unwrap()
}

/// The baseline's registry: a name to a compiled validator and a function.
type Handler = fn(&AddArgs) -> i64;

fn baseline(tools: &HashMap<String, (jsonschema::Validator, Handler)>, call: &ToolCall) -> String {
    let (validator, handler) = tools.get(call.name()).expect("known tool");
    let args: Value = serde_json::from_str(call.arguments()).expect("valid JSON");
    assert!(validator.is_valid(&args));
    let args: AddArgs = serde_json::from_value(args).expect("typed args");
    let content = serde_json::to_string(&handler(&args)).expect("serializable");
    serde_json::to_string(&Message::tool(call.id.clone(), call.name(), content)).expect("message")
}

fn bench_dispatch(c: &mut Criterion) {
    let call = ToolCall::new("call_1", "add", ARGS);
    let mut group = c.benchmark_group("dispatch_add");

    let spec = add_spec();
    let validator = jsonschema::validator_for(spec.parameters()).unwrap();
    let mut tools: HashMap<String, (jsonschema::Validator, Handler)> = HashMap::new();
    tools.insert("add".to_owned(), (validator, add as Handler));
    assert_eq!(
        baseline(&tools, &call),
        r#"{"role":"tool","tool_call_id":"call_1","name":"add","content":"5"}"#
    );
    group.bench_function("baseline", |b| {
        b.iter(|| baseline(&tools, black_box(&call)))
    });

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let scratch = std::env::temp_dir().join(format!("hermes-bench-{}", std::process::id()));
    let telemetry = TelemetryCollector::open(scratch.join("telemetry.db")).unwrap();
    let cases: [(&str, Arc<dyn Tool>, Option<&TelemetryCollector>); 3] = [
        ("gateway_sync_tool", Arc::new(SyncAdd(add_spec())), None),
        ("gateway_async_tool", Arc::new(Add(add_spec())), None),
        (
            "gateway_sync_telemetry",
            Arc::new(SyncAdd(add_spec())),
            Some(&telemetry),
        ),
    ];
    for (name, tool, observer) in cases {
        let registry = Registry::new();
        registry.register_arc(tool).unwrap();
        let mut dispatcher = Dispatcher::builder(registry);
        if let Some(observer) = observer {
            dispatcher = dispatcher.observer(observer.clone());
        }
        let dispatcher = dispatcher.build().unwrap();
        let run = RunContext::new();
        let gateway = || async {
            let report = dispatcher.dispatch(black_box(&call), &run).await;
            serde_json::to_string(&report.into_message()).expect("message")
        };
        assert_eq!(
            runtime.block_on(gateway()),
            r#"{"role":"tool","tool_call_id":"call_1","name":"add","content":"5"}"#
        );
        // One block_on per batch, so the runtime's entry cost is not counted per call.
        group.bench_function(name, |b| {
            b.iter_custom(|iters| {
                runtime.block_on(async {
                    let start = Instant::now();
                    for _ in 0..iters {
                        black_box(gateway().await);
                    }
                    start.elapsed()
                })
            });
        });
    }
    group.finish();
    telemetry.flush().unwrap();
    #[allow(clippy::print_stdout, reason = "a figure for BENCHMARKS.md")]
    {
        println!(
            "telemetry: {} records dropped (queue full), {} failed writes",
            telemetry.dropped(),
            telemetry.failed_writes()
        );
    }
    drop(telemetry);
    let _ = std::fs::remove_dir_all(scratch);
}

criterion_group!(benches, bench_dispatch);
criterion_main!(benches);

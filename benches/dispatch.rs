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

mod common;

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use common::{ARGS, AddArgs, Baseline, EXPECTED, SyncAdd, add, add_spec, runtime};
use criterion::{Criterion, criterion_group, criterion_main};
use hermes::telemetry::TelemetryCollector;
use hermes::{
    Dispatcher, Registry, RunContext, Tool, ToolCall, ToolContext, ToolError, ToolSpec, TypedTool,
};

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

fn bench_dispatch(c: &mut Criterion) {
    let call = ToolCall::new("call_1", "add", ARGS);
    let mut group = c.benchmark_group("dispatch_add");

    let baseline = Baseline::new();
    assert_eq!(baseline.call(&call), EXPECTED);
    group.bench_function("baseline", |b| b.iter(|| baseline.call(black_box(&call))));

    let runtime = runtime();
    let scratch = std::env::temp_dir().join(format!("hermes-bench-{}", std::process::id()));
    let telemetry = TelemetryCollector::open(scratch.join("telemetry.db")).unwrap();
    let cases: [(&str, Arc<dyn Tool>, Option<&TelemetryCollector>); 3] = [
        ("gateway_sync_tool", Arc::new(SyncAdd::named("add")), None),
        ("gateway_async_tool", Arc::new(Add(add_spec("add"))), None),
        (
            "gateway_sync_telemetry",
            Arc::new(SyncAdd::named("add")),
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
        assert_eq!(runtime.block_on(gateway()), EXPECTED);
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

//! The gateway at work, each case beside a hand-written baseline in the same run:
//!
//! - `gateway_full`: one call of a tool with a path argument through everything a
//!   deployment turns on: lookup, JSON parse, schema validation, the permission engine
//!   (a profile with one path rule: the path is normalised and matched), invoke,
//!   serialization, a telemetry record; then the same with a JSONL audit trail (one
//!   `write` per call). The baseline does lookup, parse, compiled validation, the call
//!   and serialization, nothing else.
//! - `registry_size`: one call with 1, 50 and 500 tools registered (lookup must not
//!   grow); `tools_1` is the group's baseline.
//! - `parallel_calls`: the 8 calls of one assistant message (`dispatch_all`), against
//!   8 baseline calls one after the other.
//!
//! `cargo bench --bench gateway && scripts/bench-ratios`; figures in BENCHMARKS.md.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use common::{Baseline, SyncAdd, runtime};
use criterion::{Criterion, criterion_group, criterion_main};
use hermes::telemetry::TelemetryCollector;
use hermes::telemetry::audit::{AuditTrail, JsonlAudit};
use hermes::{
    Access, ArgKind, Dispatcher, Message, Registry, RunContext, Tool, ToolCall, ToolContext,
    ToolFuture, ToolOutput, ToolSpec, parse_args,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

const PATH_ARGS: &str = r#"{"path":"notes/today.md"}"#;

#[derive(Deserialize, JsonSchema)]
struct PathArgs {
    path: String,
}

fn path_len(args: &PathArgs) -> usize {
    args.path.len()
}

/// A read tool with a path argument: what the permission engine's path rule judges.
struct PathLen(ToolSpec);

impl Tool for PathLen {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn run<'a>(&'a self, args: Value, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::ready(
            parse_args::<PathArgs>(args).and_then(|args| ToolOutput::json(&path_len(&args))),
        )
    }
}

fn path_spec() -> ToolSpec {
    ToolSpec::builder("path_len", "The length of a path.")
        .parameters_for::<PathArgs>()
        .permission("file:read")
        .arg_kind("path", ArgKind::Path(Access::Read))
        .build()
        .unwrap()
}

fn path_baseline(validator: &jsonschema::Validator, call: &ToolCall) -> String {
    let args: Value = serde_json::from_str(call.arguments()).expect("valid JSON");
    assert!(validator.is_valid(&args));
    let args: PathArgs = serde_json::from_value(args).expect("typed args");
    let content = serde_json::to_string(&path_len(&args)).expect("serializable");
    serde_json::to_string(&Message::tool(call.id.clone(), call.name(), content)).expect("message")
}

/// Time `iters` awaits of `f` inside one `block_on`.
fn timed<F, Fut>(runtime: &tokio::runtime::Runtime, iters: u64, f: F) -> std::time::Duration
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = String>,
{
    runtime.block_on(async {
        let start = Instant::now();
        for _ in 0..iters {
            black_box(f().await);
        }
        start.elapsed()
    })
}

fn bench_full(c: &mut Criterion) {
    let mut group = c.benchmark_group("gateway_full");
    let call = ToolCall::new("call_1", "path_len", PATH_ARGS);
    let spec = path_spec();
    let mut by_name = HashMap::new();
    by_name.insert(
        "path_len",
        jsonschema::validator_for(spec.parameters()).unwrap(),
    );
    let expected = path_baseline(&by_name["path_len"], &call);
    group.bench_function("baseline", |b| {
        b.iter(|| {
            let validator = by_name.get(black_box(&call).name()).unwrap();
            path_baseline(validator, &call)
        })
    });

    let scratch = tempfile::tempdir().unwrap();
    let workspace = common::Workspace::with_files(&["notes/today.md"]);
    let root = workspace.root();
    let engine = common::reader_engine(&root, &[format!("{root}/**")]);
    let telemetry = TelemetryCollector::open(scratch.path().join("telemetry.db")).unwrap();
    let audit = Arc::new(AuditTrail::new(
        JsonlAudit::open(scratch.path().join("audit.jsonl")).unwrap(),
    ));
    let runtime = runtime();
    for (name, with_audit) in [
        ("gateway_policy_telemetry", false),
        ("gateway_policy_telemetry_audit", true),
    ] {
        let registry = Registry::new();
        registry.register(PathLen(path_spec())).unwrap();
        let mut builder = Dispatcher::builder(registry)
            .policy(engine.clone())
            .observer(telemetry.clone());
        if with_audit {
            builder = builder.observer_arc(audit.clone());
        }
        let dispatcher = builder.build().unwrap();
        let run = RunContext::new();
        let gateway = || async {
            let report = dispatcher.dispatch(black_box(&call), &run).await;
            serde_json::to_string(&report.into_message()).expect("message")
        };
        assert_eq!(runtime.block_on(gateway()), expected);
        group.bench_function(name, |b| {
            b.iter_custom(|iters| timed(&runtime, iters, gateway))
        });
    }
    group.finish();
    telemetry.flush().unwrap();
    #[allow(clippy::print_stdout, reason = "a figure for BENCHMARKS.md")]
    {
        println!(
            "gateway_full: telemetry records dropped (queue full): {}",
            telemetry.dropped()
        );
    }
}

fn bench_registry_size(c: &mut Criterion) {
    let mut group = c.benchmark_group("registry_size");
    let runtime = runtime();
    for (name, size) in [("baseline", 1), ("tools_50", 50), ("tools_500", 500)] {
        let registry = Registry::new();
        for i in 0..size {
            registry
                .register(SyncAdd::named(&format!("add_{i:03}")))
                .unwrap();
        }
        // The middle of the sorted names: no first-entry luck.
        let target = format!("add_{:03}", size / 2);
        let call = ToolCall::new("call_1", target.as_str(), common::ARGS);
        let dispatcher = Dispatcher::new(registry);
        let run = RunContext::new();
        let gateway = || async {
            let report = dispatcher.dispatch(black_box(&call), &run).await;
            serde_json::to_string(&report.into_message()).expect("message")
        };
        assert!(runtime.block_on(gateway()).ends_with(r#""content":"5"}"#));
        group.bench_function(name, |b| {
            b.iter_custom(|iters| timed(&runtime, iters, gateway))
        });
    }
    group.finish();
}

fn bench_parallel(c: &mut Criterion) {
    let mut group = c.benchmark_group("parallel_calls");
    // Distinct arguments: identical calls in one message would run once.
    let calls: Vec<ToolCall> = (0..8)
        .map(|i| ToolCall::new(format!("call_{i}"), "add", format!(r#"{{"a":{i},"b":3}}"#)))
        .collect();
    let baseline = Baseline::new();
    group.bench_function("baseline", |b| {
        b.iter(|| baseline.call_all(black_box(&calls)))
    });
    let registry = Registry::new();
    registry.register(SyncAdd::named("add")).unwrap();
    let dispatcher = Dispatcher::new(registry);
    let run = RunContext::new();
    let runtime = runtime();
    let gateway = || async {
        let reports = dispatcher.dispatch_all(black_box(&calls), &run).await;
        let messages: Vec<String> = reports
            .into_iter()
            .map(|report| serde_json::to_string(&report.into_message()).expect("message"))
            .collect();
        messages.join("\n")
    };
    assert_eq!(runtime.block_on(gateway()).lines().count(), 8);
    group.bench_function("gateway_8_in_one_message", |b| {
        b.iter_custom(|iters| timed(&runtime, iters, gateway))
    });
    group.finish();
}

criterion_group!(benches, bench_full, bench_registry_size, bench_parallel);
criterion_main!(benches);

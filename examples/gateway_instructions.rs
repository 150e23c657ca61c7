//! Instructions per call: the gateway against the hand-written baseline of
//! `benches/dispatch.rs`, counted by callgrind, which gives the same figure on a busy
//! machine as on an idle one (wall time does not). `scripts/bench-instructions` builds
//! this in release and runs it under `valgrind --tool=callgrind`, collecting only
//! inside `baseline_calls` and `gateway_calls`.
//!
//! Run alone it just makes the calls: `cargo run --release --example
//! gateway_instructions -- 100000`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/common/mod.rs"]
mod common;

use std::hint::black_box;

use common::{Baseline, EXPECTED, SyncAdd};
use hermes::{Dispatcher, Registry, RunContext, ToolCall};

/// `calls` baseline calls.
#[inline(never)]
fn baseline_calls(baseline: &Baseline, call: &ToolCall, calls: u64) {
    for _ in 0..calls {
        black_box(baseline.call(black_box(call)));
    }
}

/// `calls` calls through the gateway (default policy, a synchronous tool), each
/// serialized as the tool message, inside one `block_on`.
#[inline(never)]
fn gateway_calls(
    runtime: &tokio::runtime::Runtime,
    dispatcher: &Dispatcher,
    call: &ToolCall,
    calls: u64,
) {
    let run = RunContext::new();
    runtime.block_on(async {
        for _ in 0..calls {
            let report = dispatcher.dispatch(black_box(call), &run).await;
            black_box(serde_json::to_string(&report.into_message()).expect("message"));
        }
    });
}

fn main() {
    let calls: u64 = std::env::args()
        .nth(1)
        .map_or(100_000, |arg| arg.parse().expect("a number of calls"));
    let call = ToolCall::new("call_1", "add", common::ARGS);
    let baseline = Baseline::new();
    assert_eq!(baseline.call(&call), EXPECTED);
    let registry = Registry::new();
    registry.register(SyncAdd::named("add")).unwrap();
    let dispatcher = Dispatcher::new(registry);
    let runtime = common::runtime();
    // One call of each outside the counted functions: what happens once per process
    // (the clock's calibration, lazy statics, the first allocations) is not per call.
    let warm = runtime.block_on(dispatcher.dispatch(&call, &RunContext::new()));
    assert_eq!(
        serde_json::to_string(&warm.into_message()).unwrap(),
        EXPECTED
    );
    baseline_calls(&baseline, &call, calls);
    gateway_calls(&runtime, &dispatcher, &call, calls);
}

//! Registry hot swap under load: one call through the gateway while another thread
//! swaps the registry's tools in and out without pause (as a YAML reload or an MCP
//! server's `tools/list_changed` would, only far more often). The baseline is the same
//! call with nobody swapping. Calls in flight keep the tool they started with; a swap
//! never blocks a call.
//!
//! `cargo bench --bench hot_swap && scripts/bench-ratios`; figures in BENCHMARKS.md.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use common::{ARGS, SyncAdd, runtime};
use criterion::{Criterion, criterion_group, criterion_main};
use hermes::{Dispatcher, Registry, RunContext, Tool, ToolCall};

fn bench_swap(c: &mut Criterion) {
    let mut group = c.benchmark_group("hot_swap");
    let registry = Registry::new();
    registry.register(SyncAdd::named("add")).unwrap();
    // A source of 20 other tools, swapped for a fresh copy again and again.
    let source: Vec<Arc<dyn Tool>> = (0..20)
        .map(|i| Arc::new(SyncAdd::named(&format!("reloaded_{i:02}"))) as Arc<dyn Tool>)
        .collect();
    registry.swap_source("tools.yaml", source.clone()).unwrap();
    let dispatcher = Dispatcher::new(registry.clone());
    let call = ToolCall::new("call_1", "add", ARGS);
    let run = RunContext::new();
    let runtime = runtime();
    let gateway = || async {
        let report = dispatcher.dispatch(black_box(&call), &run).await;
        serde_json::to_string(&report.into_message()).expect("message")
    };
    let timed = |iters: u64| {
        runtime.block_on(async {
            let start = Instant::now();
            for _ in 0..iters {
                black_box(gateway().await);
            }
            start.elapsed()
        })
    };
    group.bench_function("baseline", |b| b.iter_custom(timed));

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicU64::new(0));
    let swapper = {
        let (stop, swaps, registry) = (stop.clone(), swaps.clone(), registry.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                registry.swap_source("tools.yaml", source.clone()).unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    group.bench_function("during_swaps", |b| b.iter_custom(timed));
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    group.finish();
    #[allow(clippy::print_stdout, reason = "a figure for BENCHMARKS.md")]
    {
        println!(
            "hot_swap: {} swaps of 20 tools ran beside the calls",
            swaps.load(Ordering::Relaxed)
        );
    }
}

criterion_group!(benches, bench_swap);
criterion_main!(benches);

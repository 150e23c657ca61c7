//! One agent round: the model (a backend answering at once with the same 3 tool calls)
//! and the 3 calls through the gateway, their results appended to the transcript. The
//! baseline makes the same 3 calls by hand (lookup, parse, validate, call, serialize)
//! and collects the messages.
//!
//! `cargo bench --bench agent_round && scripts/bench-ratios`; figures in BENCHMARKS.md.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::hint::black_box;
use std::time::Instant;

use async_trait::async_trait;
use common::{Baseline, SyncAdd, runtime};
use criterion::{Criterion, criterion_group, criterion_main};
use hermes::{
    Agent, AssistantMessage, ChatRequest, ChatResponse, LlmBackend, LlmError, Registry, RunStatus,
    ToolCall,
};

/// A backend that answers every request with the same message, at once.
#[derive(Debug)]
struct Repeat(ChatResponse);

#[async_trait]
impl LlmBackend for Repeat {
    async fn complete(&self, _request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        Ok(self.0.clone())
    }
}

fn calls() -> Vec<ToolCall> {
    (0..3)
        .map(|i| ToolCall::new(format!("call_{i}"), "add", format!(r#"{{"a":{i},"b":3}}"#)))
        .collect()
}

fn bench_round(c: &mut Criterion) {
    let mut group = c.benchmark_group("agent_round");
    let calls = calls();
    let baseline = Baseline::new();
    group.bench_function("baseline", |b| {
        b.iter(|| baseline.call_all(black_box(&calls)))
    });

    let registry = Registry::new();
    registry.register(SyncAdd::named("add")).unwrap();
    let answer = ChatResponse::new(AssistantMessage {
        content: None,
        tool_calls: calls.clone(),
    });
    let agent = Agent::builder()
        .backend(Repeat(answer))
        .registry(registry)
        .max_rounds(1)
        .build()
        .unwrap();
    let runtime = runtime();
    let outcome = runtime.block_on(agent.run("add"));
    assert_eq!(outcome.status, RunStatus::MaxRounds);
    assert_eq!(outcome.messages.len(), 2 + 1 + 3);
    group.bench_function("agent_round_3_calls", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(agent.run("add").await);
                }
                start.elapsed()
            })
        })
    });
    group.finish();
}

criterion_group!(benches, bench_round);
criterion_main!(benches);

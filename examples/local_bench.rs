//! In-process model against the llama-cpp-python server, same model, same prompt:
//! time to first token, decode speed, peak memory.
//!
//! Shows: the in-process backend and the Hermes completions backend rendering the same
//! ChatML prompt for SmolLM2-135M, streamed, greedy, with the same answer length.
//! Needs: `--features local`, the model (`HERMES_MODEL_PATH=$(scripts/fetch-model)`)
//! and the server (`HERMES_TEST_BASE_URL=$(scripts/local-model)`); `scripts/bench-local`
//! sets both and reads the server's peak memory.
//! Prints: one JSON line per backend: median time to first token (ms), median decode
//! rate (tokens/s) over the runs, and this process's peak RSS (MiB) after the
//! in-process runs.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example prints its results"
)]

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use hermes::llm::{HermesBackend, LocalBackend};
use hermes::{ChatDelta, ChatRequest, LlmBackend, Message};
use serde_json::json;

const RUNS: usize = 5;
const TOKENS: u32 = 128;
const PROMPT: &str =
    "Write a short story about a lighthouse keeper who finds a message in a bottle.";

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::var("HERMES_MODEL_PATH")
        .map_err(|_| "set HERMES_MODEL_PATH=$(scripts/fetch-model)")?;
    let local = LocalBackend::builder()
        .model_path(path)
        .threads(2)
        .max_tokens(TOKENS)
        .build()?;
    report("in_process", &measure(&local).await?, Some(peak_rss_mib()?));
    if let Ok(url) = std::env::var("HERMES_TEST_BASE_URL") {
        let server = HermesBackend::builder()
            .base_url(url)
            .model("smollm2")
            .temperature(0.0)
            .max_tokens(TOKENS)
            .build()?;
        report("llama_cpp_python_server", &measure(&server).await?, None);
    } else {
        eprintln!("HERMES_TEST_BASE_URL is not set: the server side is skipped");
    }
    Ok(())
}

/// One streamed answer: time to the first text, and the decode rate after it.
struct Run {
    first: Duration,
    tokens_per_second: f64,
}

async fn measure(backend: &dyn LlmBackend) -> Result<Vec<Run>, Box<dyn std::error::Error>> {
    let messages = [Message::user(PROMPT)];
    // One warm-up run (page cache, allocator), not counted.
    let mut runs = Vec::new();
    for index in 0..=RUNS {
        let start = Instant::now();
        let mut stream = backend.stream(ChatRequest::new(&messages, &[])).await?;
        let mut first = None;
        let mut counted = None;
        // A server that streams no usage: one text piece per token, as both send them.
        let mut pieces = 0;
        while let Some(delta) = stream.next().await {
            match delta? {
                ChatDelta::Text(_) => {
                    pieces += 1;
                    first.get_or_insert_with(|| start.elapsed());
                }
                ChatDelta::Usage(usage) => counted = Some(usage.completion_tokens),
                _ => {}
            }
        }
        let tokens = counted.unwrap_or(pieces);
        let total = start.elapsed();
        let first = first.ok_or("the model wrote no text")?;
        let decode = (total - first).as_secs_f64();
        if index > 0 && tokens > 1 && decode > 0.0 {
            runs.push(Run {
                first,
                tokens_per_second: (tokens - 1) as f64 / decode,
            });
        }
    }
    Ok(runs)
}

fn report(name: &str, runs: &[Run], peak_rss_mib: Option<f64>) {
    let median = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let first_ms = median(
        runs.iter()
            .map(|run| run.first.as_secs_f64() * 1000.0)
            .collect(),
    );
    let rate = median(runs.iter().map(|run| run.tokens_per_second).collect());
    println!(
        "{}",
        json!({
            "backend": name,
            "runs": runs.len(),
            "time_to_first_token_ms": (first_ms * 10.0).round() / 10.0,
            "decode_tokens_per_s": (rate * 10.0).round() / 10.0,
            "peak_rss_mib": peak_rss_mib.map(|mib| (mib * 10.0).round() / 10.0),
        })
    );
}

/// This process's peak resident memory (VmHWM), in MiB.
fn peak_rss_mib() -> Result<f64, Box<dyn std::error::Error>> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    let kib: f64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or("no VmHWM in /proc/self/status")?;
    Ok(kib / 1024.0)
}

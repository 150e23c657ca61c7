//! Quickstart: an agent with the `calc` tool, answered by a real model.
//!
//! Shows: registering a tool, choosing a backend, running the agent, reading the trace.
//! Needs: nothing. Built with `--features local`, the model runs in this process
//! (SmolLM2-135M from `HERMES_MODEL_PATH`, or fetched once by `scripts/fetch-model`):
//! offline, no server. With `HERMES_BASE_URL` (and `HERMES_MODEL`, `HERMES_API_KEY`) set
//! it uses that OpenAI-compatible server instead; without either it starts a small
//! local server with `scripts/local-model` (SmolLM2-135M on 127.0.0.1; the first time
//! installs llama-cpp-python, a few minutes) and stops it at the end. `--scripted` runs
//! offline with a scripted model.
//! Prints: the trace (rounds, the call, its result), the answer, the token usage.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example prints its results"
)]

use std::process::Command;
use std::sync::Arc;

use hermes::llm::OpenAiBackend;
use hermes::{
    Agent, LlmBackend, Message, Registry, ScriptedBackend, ScriptedTurn, ToolCall, ToolChoice,
    demo::Calc,
};

const QUESTION: &str = "A laptop costs 1250 with 20% off, paid over 12 months. \
                        What is the monthly payment? Use the calc tool.";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. The tools the model may call.
    let registry = Registry::new();
    registry.register(Calc::new())?;

    // 2. A model: any backend is a value behind the same trait.
    let (backend, local) = backend()?;

    // 3. The agent. The first round must call `calc`; then the model answers (`none`:
    //    a 135M model would otherwise keep calling tools; a capable one can keep `auto`).
    let agent = Agent::builder()
        .backend_arc(backend)
        .registry(registry)
        .tool_choice(ToolChoice::Function("calc".into()))
        .then_tool_choice(ToolChoice::None)
        .max_rounds(4)
        .build()?;
    let outcome = agent.run(QUESTION).await;

    print!("{}", outcome.trace());
    for message in &outcome.messages {
        if let Message::Tool(result) = message {
            println!("tool result [{}]: {}", result.tool_call_id, result.content);
        }
    }
    println!("\nstatus: {}", outcome.status);
    println!("answer: {}", outcome.answer.as_deref().unwrap_or("(none)"));
    println!(
        "usage:  {} prompt + {} completion tokens",
        outcome.usage.prompt_tokens, outcome.usage.completion_tokens
    );
    if let Some(error) = &outcome.error {
        println!("error:  {error}");
    }
    if local {
        let _ = Command::new(script()).arg("stop").status();
    }
    Ok(())
}

/// The backend, and whether this example started a local server.
fn backend() -> Result<(Arc<dyn LlmBackend>, bool), Box<dyn std::error::Error>> {
    if std::env::args().any(|arg| arg == "--scripted") {
        let scripted = ScriptedBackend::new([
            ScriptedTurn::tool_calls([ToolCall::new(
                "call_1",
                "calc",
                r#"{"expression": "1250 * 0.8 / 12"}"#,
            )]),
            ScriptedTurn::text("About 83.33 a month."),
        ]);
        return Ok((Arc::new(scripted), false));
    }
    if std::env::var_os("HERMES_BASE_URL").is_some() {
        eprintln!("using HERMES_BASE_URL");
        return Ok((Arc::new(OpenAiBackend::from_env()?), false));
    }
    #[cfg(feature = "local")]
    return Ok((in_process()?, false));
    #[cfg(not(feature = "local"))]
    server()
}

/// SmolLM2 inside this process (feature `local`): from `HERMES_MODEL_PATH`, or fetched
/// by `scripts/fetch-model`.
#[cfg(feature = "local")]
fn in_process() -> Result<Arc<dyn LlmBackend>, Box<dyn std::error::Error>> {
    let path = match std::env::var("HERMES_MODEL_PATH") {
        Ok(path) if !path.is_empty() => path,
        _ => {
            eprintln!("HERMES_MODEL_PATH is not set: fetching SmolLM2-135M (scripts/fetch-model)");
            let output = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/fetch-model"))
                .output()?;
            if !output.status.success() {
                return Err(format!(
                    "scripts/fetch-model failed:\n{}",
                    String::from_utf8_lossy(&output.stderr)
                )
                .into());
            }
            String::from_utf8(output.stdout)?.trim().to_owned()
        }
    };
    eprintln!("running {path} in process");
    let backend = hermes::llm::LocalBackend::builder()
        .model_path(path)
        .max_tokens(256)
        .build()?;
    Ok(Arc::new(backend))
}

/// The local model server, started here when none runs.
#[cfg_attr(feature = "local", allow(dead_code))]
fn server() -> Result<(Arc<dyn LlmBackend>, bool), Box<dyn std::error::Error>> {
    let already = Command::new(script()).arg("status").output()?;
    if already.status.success() {
        let url = String::from_utf8(already.stdout)?.trim().to_owned();
        eprintln!("using the local model already running at {url}");
        return Ok((local_backend(url)?, false));
    }
    eprintln!("HERMES_BASE_URL is not set: starting the local model (scripts/local-model)");
    let output = Command::new(script()).output()?;
    if !output.status.success() {
        return Err(format!(
            "scripts/local-model failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    let url = String::from_utf8(output.stdout)?.trim().to_owned();
    eprintln!("local model at {url}");
    Ok((local_backend(url)?, true))
}

/// The local SmolLM2 server, at temperature 0.
fn local_backend(url: String) -> Result<Arc<dyn LlmBackend>, hermes::llm::Error> {
    let backend = OpenAiBackend::builder()
        .base_url(url)
        .model("smollm2")
        .temperature(0.0)
        .max_tokens(128)
        .build()?;
    Ok(Arc::new(backend))
}

fn script() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/local-model").to_owned()
}

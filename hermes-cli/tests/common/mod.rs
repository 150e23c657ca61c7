//! Running the `hermes` binary, shared by the CLI tests.
#![allow(dead_code, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output};

use serde_json::Value;

/// Run `hermes` with `args`, logs off, and a HERMES_HOME without tool files (so what
/// the user registered on this machine cannot change the output).
pub(crate) fn hermes(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hermes"))
        .args(args)
        .env(
            "HERMES_HOME",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/hermes-home-without-tools"),
        )
        .env_remove("HERMES_LOG")
        .output()
        .expect("hermes runs")
}

/// Its stdout as one JSON document.
pub(crate) fn stdout_json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "stdout is not JSON ({err}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The value of `var`, set up by `hint`; `None`, with a loud note, when it is unset,
/// and a failure when CI is set (CI must run every test).
pub(crate) fn required_env(var: &str, hint: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(value) if !value.trim().is_empty() => Some(value),
        _ if std::env::var_os("CI").is_some() => panic!("CI is set but {var} is not ({hint})"),
        _ => {
            #[allow(clippy::print_stderr, reason = "a skipped test says so")]
            {
                eprintln!("\n*** SKIPPED: this test needs {var} ({hint}). ***\n");
            }
            None
        }
    }
}

/// The local model server's URL (HERMES_TEST_BASE_URL, from scripts/local-model).
pub(crate) fn model_url() -> Option<String> {
    required_env("HERMES_TEST_BASE_URL", "scripts/local-model")
}

/// The venv python with the official MCP SDK (HERMES_MCP_PYTHON, from scripts/mcp-peers).
pub(crate) fn mcp_python() -> Option<String> {
    required_env("HERMES_MCP_PYTHON", "eval \"$(scripts/mcp-peers)\"")
}

/// `hermes run` against the local model at `url`, offered only `tool` and made to call
/// it in round 1 (then to answer), greedily: the start of the argument list.
pub(crate) fn forced_call<'a>(url: &'a str, tool: &'a str) -> Vec<&'a str> {
    vec![
        "run",
        "--base-url",
        url,
        "--model",
        "smollm2",
        "--temperature",
        "0",
        "--tools",
        tool,
        "--tool-choice",
        tool,
        "--then-tool-choice",
        "none",
    ]
}

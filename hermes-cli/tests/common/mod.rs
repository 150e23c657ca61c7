//! Running the `hermes` binary, shared by the CLI tests.
#![allow(dead_code, clippy::expect_used, clippy::panic)]

use std::process::{Command, Output};

use serde_json::Value;

/// Run `hermes` with `args`, logs off.
pub(crate) fn hermes(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hermes"))
        .args(args)
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

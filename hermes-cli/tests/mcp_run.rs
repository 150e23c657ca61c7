//! `hermes run --mcp FILE`: the tools of an MCP server (one written with the official
//! Python SDK) offered to the local model, called through the gateway, recorded in
//! the audit trail.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{forced_call, mcp_python, model_url, stdout_json};
use hermes_telemetry::audit::JsonlAudit;

const TOY_SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../hermes-mcp/tests/python/toy_server.py"
);

fn hermes_in(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hermes"))
        .args(args)
        .env("HERMES_HOME", home)
        .env_remove("HERMES_LOG")
        .output()
        .expect("hermes runs")
}

#[test]
fn a_broken_mcp_file_is_a_usage_error_naming_it() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("mcp.yaml");
    std::fs::write(&file, "mcp_servers:\n  toy:\n    comand: python3\n").unwrap();
    let args = [
        "run",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--mcp",
        file.to_str().unwrap(),
        "hi",
    ];
    let output = hermes_in(home.path(), &args);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("mcp.yaml") && stderr.contains("comand"),
        "{stderr}"
    );
}

#[test]
fn the_model_calls_an_mcp_tool_through_the_gateway() {
    let Some(url) = model_url() else { return };
    let Some(python) = mcp_python() else { return };
    let home = tempfile::tempdir().unwrap();
    // The default file: $HERMES_HOME/mcp.yaml.
    std::fs::write(
        home.path().join("mcp.yaml"),
        format!("mcp_servers:\n  toy:\n    command: {python}\n    args: [{TOY_SERVER}]\n    scope: read\n"),
    )
    .unwrap();
    let audit = home.path().join("audit.jsonl");
    let output = hermes_in(
        home.path(),
        &[
            forced_call(&url, "mcp_toy_add").as_slice(),
            &[
                "--max-rounds",
                "2",
                "--audit",
                audit.to_str().unwrap(),
                "--json",
                "Add 2 and 3 with the tool.",
            ],
        ]
        .concat(),
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let outcome = stdout_json(&output);
    let finished: Vec<_> = outcome["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["type"] == "tool_call_finished")
        .collect();
    assert_eq!(finished.len(), 1, "{outcome}");
    assert_eq!(finished[0]["name"], "mcp_toy_add");
    // The small model may or may not send valid integers; either way the call went
    // through the gateway, with the server's schema. When it did, the server added.
    let outcome_kind = finished[0]["outcome"].as_str().unwrap();
    assert!(
        ["ok", "invalid_arguments"].contains(&outcome_kind),
        "{outcome}"
    );
    if outcome_kind == "ok" {
        let sent: serde_json::Value = serde_json::from_str(
            outcome["events"][1]["tool_calls"][0]["function"]["arguments"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        let sum = sent["a"].as_i64().unwrap() + sent["b"].as_i64().unwrap();
        let expected = format!(r#"{{"result":{sum}}}"#);
        assert_eq!(finished[0]["preview"], expected.as_str(), "{outcome}");
    }
    let entries = JsonlAudit::read(&audit).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].tool, "mcp_toy_add");
}

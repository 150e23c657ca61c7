//! `hermes parse` (no model needed) and `hermes run` (against the local model server in
//! HERMES_TEST_BASE_URL; skipped loudly without it, failing when CI is set).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    missing_docs
)]

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{forced_call, hermes, model_url, stdout_json};
use serde_json::{Value, json};

fn parse(args: &[&str], input: &str) -> (Option<i32>, Value) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hermes"))
        .arg("parse")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    (output.status.code(), stdout_json(&output))
}

const OUTPUT: &str = "<think>Plan: weather, then math.</think>Sure. <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Zürich\"}}\n</tool_call>\n<tool_call>{\"name\": \"calc\", \"arguments\": {\"expression\": \"1+</tool_call>\"}}</tool_call>\n<tool_call>{oops}</tool_call><|im_end|>";

#[test]
fn parse_prints_calls_content_reasoning_errors() {
    let (code, value) = parse(&["--format", "hermes"], OUTPUT);
    assert_eq!(code, Some(0));
    assert_eq!(
        value,
        json!({
            "calls": [
                {"name": "get_weather", "arguments": {"city": "Zürich"}},
                {"name": "calc", "arguments": {"expression": "1+</tool_call>"}}
            ],
            "content": "Sure.",
            "reasoning": "Plan: weather, then math.",
            "errors": [{"kind": "malformed_json", "block_index": 2, "message": "block 2 is not valid JSON: key must be a string at line 1 column 2"}],
            "warnings": []
        })
    );
}

#[test]
fn parse_gives_the_same_result_in_any_chunk_size() {
    let (_, whole) = parse(&["--format", "hermes"], OUTPUT);
    for size in ["1", "2", "3", "7", "64"] {
        let (code, chunked) = parse(&["--format", "hermes", "--chunk-size", size], OUTPUT);
        assert_eq!(code, Some(0));
        assert_eq!(chunked, whole, "chunk size {size}");
    }
}

#[test]
fn parse_options() {
    let (_, lenient) = parse(
        &["--format", "hermes", "--lenient"],
        "<tool_call>{'name': 'f', 'parameters': {'a': True}}</tool_call>",
    );
    assert_eq!(
        lenient["calls"],
        json!([{"name": "f", "arguments": {"a": true}}])
    );
    assert_eq!(lenient["warnings"].as_array().unwrap().len(), 2);
    let (_, think) = parse(
        &["--format", "hermes", "--think-open"],
        "still thinking</think>answer",
    );
    assert_eq!(
        (think["reasoning"].as_str(), think["content"].as_str()),
        (Some("still thinking"), Some("answer"))
    );
    let output = hermes(&["parse", "--format", "hermes", "--chunk-size", "0"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn run_usage_errors_exit_2() {
    let cases: [(&[&str], &str); 3] = [
        (
            &[
                "run",
                "--model",
                "m",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--tool-choice",
                "nope",
                "hi",
            ],
            "tool choice `nope`",
        ),
        (
            &["run", "--backend", "hermes", "--model", "m", "hi"],
            "--base-url",
        ),
        (
            &["run", "--model", "m", "--base-url", "nowhere", "hi"],
            "http(s)://",
        ),
    ];
    for (args, needle) in cases {
        let output = Command::new(env!("CARGO_BIN_EXE_hermes"))
            .args(args)
            .env_remove("HERMES_BASE_URL")
            .env_remove("OPENAI_BASE_URL")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

#[test]
fn run_reports_a_backend_failure_with_exit_1() {
    let output = hermes(&[
        "run",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--json",
        "hi",
    ]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let value = stdout_json(&output);
    assert_eq!(value["status"], "failed");
}

/// One test for both backends: the server answers one request at a time.
#[test]
fn run_against_the_local_model_with_both_backends() {
    let Some(url) = model_url() else { return };
    for backend in [
        &["--backend", "openai"][..],
        &["--backend", "hermes", "--grammar"],
    ] {
        let mut args = forced_call(&url, "calculator");
        args.extend(["--max-rounds", "3", "--json"]);
        args.extend_from_slice(backend);
        args.push("What is 6 times 7? Use the calculator tool.");
        let output = hermes(&args);
        assert_eq!(output.status.code(), Some(0), "{backend:?}: {output:?}");
        let value = stdout_json(&output);
        assert_eq!(value["status"], "completed", "{value}");
        assert_eq!(value["trace_id"].as_str().unwrap().len(), 12);
        let finished: Vec<&Value> = value["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == "tool_call_finished")
            .collect();
        assert_eq!(finished.len(), 1, "{value}");
        assert_eq!(finished[0]["name"], "calculator");
        assert!(finished[0]["success"].is_boolean());
        assert!(value["usage"]["total_tokens"].as_u64().unwrap() > 0);
    }
    // The human-readable form prints each step.
    let mut args = forced_call(&url, "calculator");
    args.push("What is 2+2?");
    let output = hermes(&args);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("call: calculator(")
            && text.contains("result: calculator")
            && text.contains("status: completed"),
        "{text}"
    );
}

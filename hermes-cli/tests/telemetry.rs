//! `hermes run` records telemetry and an audit trail; `hermes telemetry report` and
//! `hermes dashboard` read them back. Each test has a HERMES_HOME of its own.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, SystemTime};

use common::{forced_call, model_url, stdout_json};
use hermes_telemetry::audit::JsonlAudit;
use hermes_telemetry::{LlmCallRow, TelemetryStore, ToolCallRow, epoch_ms};
use serde_json::Value;

fn hermes_in(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hermes"))
        .args(args)
        .env("HERMES_HOME", home)
        .env_remove("HERMES_TELEMETRY_DB")
        .env_remove("HERMES_LOG")
        .output()
        .expect("hermes runs")
}

#[test]
fn a_report_without_a_store_says_what_to_do() {
    let home = tempfile::tempdir().unwrap();
    let output = hermes_in(home.path(), &["telemetry", "report"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no telemetry store at") && stderr.contains("--db"),
        "{stderr}"
    );
    let output = hermes_in(home.path(), &["telemetry", "report", "--hours", "0"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
}

#[test]
fn a_failed_run_is_recorded_unless_telemetry_is_off() {
    let run = |home: &Path, extra: &[&str]| {
        let mut args = vec![
            "run",
            "--model",
            "m",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--json",
        ];
        args.extend_from_slice(extra);
        args.push("hi");
        let output = hermes_in(home, &args);
        assert_eq!(output.status.code(), Some(1), "{output:?}");
    };
    let off = tempfile::tempdir().unwrap();
    run(off.path(), &["--no-telemetry"]);
    assert!(!off.path().join("telemetry.db").exists());

    let on = tempfile::tempdir().unwrap();
    run(on.path(), &["--user", "ada@example.com"]);
    let store = TelemetryStore::open_read_only(on.path().join("telemetry.db")).unwrap();
    let llm = store.llm_calls_since(0).unwrap();
    assert_eq!(llm.len(), 1);
    assert_eq!(llm[0].error.as_deref(), Some("transport"));
    assert_eq!(llm[0].user_id.as_deref(), Some("[EMAIL]"));
}

#[test]
fn a_run_against_the_local_model_is_reported_and_audited() {
    let Some(url) = model_url() else { return };
    let home = tempfile::tempdir().unwrap();
    let audit = home.path().join("audit.jsonl");
    let output = hermes_in(
        home.path(),
        &[
            forced_call(&url, "calculator").as_slice(),
            &[
                "--max-rounds",
                "3",
                "--user",
                "ada@example.com",
                "--audit",
                audit.to_str().unwrap(),
                "--json",
                "What is 6 times 7? Use the calculator tool.",
            ],
        ]
        .concat(),
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let outcome = stdout_json(&output);

    let output = hermes_in(
        home.path(),
        &["telemetry", "report", "--hours", "1", "--json"],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report = stdout_json(&output);
    assert_eq!(report["period"], "1h");
    assert_eq!(report["total_calls"], 1, "{report}");
    assert_eq!(report["top_tools"][0]["name"], "calculator");
    let total = report["token_consumption"]["total"].as_u64().unwrap();
    assert_eq!(
        total,
        outcome["usage"]["total_tokens"].as_u64().unwrap(),
        "{report}"
    );
    let by_tool: u64 = report["token_consumption"]["by_tool"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(by_tool, total);
    assert!(report["latency_ms"]["calculator"]["p95"].as_f64().unwrap() > 0.0);

    let output = hermes_in(home.path(), &["telemetry", "report"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.starts_with("last 24h: 1 tool calls") && text.contains("calculator"),
        "{text}"
    );

    let entries = JsonlAudit::read(&audit).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].trace_id, outcome["trace_id"].as_str().unwrap());
    assert_eq!(entries[0].tool, "calculator");
    assert_eq!(entries[0].user_id.as_deref(), Some("[EMAIL]"));
    assert_eq!(entries[0].decision, "allowed");
}

/// A store with a few hours of calls.
fn seed(path: &Path) {
    let now = epoch_ms(SystemTime::now());
    let mut tools = Vec::new();
    let mut llm = Vec::new();
    for i in 0..60_i64 {
        let at_ms = now - i * 3 * 60 * 1000;
        let (tool, outcome) = match i % 6 {
            0 => ("web_search", "timeout"),
            1 | 2 => ("web_search", "ok"),
            3 => ("file_read", "denied"),
            _ => ("calc", "ok"),
        };
        tools.push(ToolCallRow {
            at_ms,
            trace_id: format!("t{i}"),
            session_id: "s".into(),
            user_id: None,
            tool: tool.into(),
            outcome: outcome.into(),
            duration_us: 1000 + i * 250,
            replayed: false,
        });
        llm.push(LlmCallRow {
            at_ms,
            trace_id: format!("t{i}"),
            session_id: "s".into(),
            user_id: None,
            round: 1,
            duration_us: 20_000,
            prompt_tokens: 100,
            completion_tokens: 10,
            tools: vec![tool.into()],
            error: None,
        });
    }
    TelemetryStore::open(path)
        .unwrap()
        .insert(&tools, &llm)
        .unwrap();
}

/// GET `path` from `addr` over HTTP/1.1; the status code and the body.
fn get(addr: &str, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response[9..12].parse().unwrap();
    let body = response.split_once("\r\n\r\n").unwrap().1.to_owned();
    (status, body)
}

#[test]
fn the_dashboard_serves_the_page_and_the_report_on_localhost() {
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("seeded.db");
    seed(&db);
    let mut child = Command::new(env!("CARGO_BIN_EXE_hermes"))
        .args(["dashboard", "--port", "0", "--db", db.to_str().unwrap()])
        .env("HERMES_HOME", home.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");

    let (status, page) = get(&addr, "/");
    assert_eq!(status, 200);
    assert!(page.contains("<svg") || page.contains("<script"), "{page}");
    let (status, body) = get(&addr, "/api/report?hours=24");
    assert_eq!(status, 200, "{body}");
    let served: Value = serde_json::from_str(&body).unwrap();
    let expected = TelemetryStore::open_read_only(&db)
        .unwrap()
        .report(Duration::from_secs(24 * 3600))
        .unwrap();
    assert_eq!(served, serde_json::to_value(&expected).unwrap());
    assert_eq!(served["total_calls"], 60);
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn the_dashboard_refuses_a_missing_store() {
    let home = tempfile::tempdir().unwrap();
    let output = hermes_in(home.path(), &["dashboard", "--db", "/nonexistent/t.db"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("no telemetry store at /nonexistent/t.db")
    );
}

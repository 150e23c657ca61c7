//! Telemetry and the audit trail: every tool call and model call recorded, a usage
//! report over past runs, a masked audit trail, masked logs.
//!
//! Shows: three scripted runs through the real gateway (a working tool, a failing
//! one, an unknown one, a dangerous one refused for want of approval), recorded by a
//! `TelemetryCollector` into SQLite and by a `JsonlAudit`; the report as a table and
//! as JSON; the audit lines, with the user's email and a card number masked; a log line
//! masked by `MaskingWriter`.
//! Needs: nothing: `cargo run --example telemetry`. Then, for the charts:
//! `hermes dashboard --db <the printed path>`.
//! Prints: the report, the audit trail, a masked log line.
#![allow(clippy::print_stdout, reason = "an example prints its results")]

use std::time::Duration;

use hermes::demo::Calc;
use hermes::telemetry::TelemetryCollector;
use hermes::telemetry::audit::{AuditTrail, JsonlAudit};
use hermes::telemetry::logs::MaskingWriter;
use hermes::{Agent, Registry, ScriptedBackend, ScriptedTurn, ToolCall, ToolError, Usage, tool};

/// Run a shell command on the host and return its output.
///
/// # Arguments
/// * `command` - The command line.
#[tool(scope = "dangerous")]
async fn shell(#[arg(command)] command: String) -> Result<String, ToolError> {
    Ok(format!("would run: {command}"))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Logs go through the masking writer: the email below never reaches stderr.
    tracing_subscriber::fmt()
        .with_writer(MaskingWriter::new(std::io::stdout))
        .with_ansi(false)
        .without_time()
        .init();
    tracing::info!(user = "ada@example.com", "starting the telemetry example");

    let dir = std::env::temp_dir().join(format!("hermes-telemetry-example-{}", std::process::id()));
    let db = dir.join("telemetry.db");
    let audit_path = dir.join("audit.jsonl");
    let telemetry = TelemetryCollector::open(&db)?;
    let audit = std::sync::Arc::new(AuditTrail::new(JsonlAudit::open(&audit_path)?));

    let scripts = [
        vec![
            turn([("calc", r#"{"expression": "19 * 23"}"#)], 120, 14),
            ScriptedTurn::text("19 * 23 = 437").with_usage(Usage::new(160, 9)),
        ],
        vec![
            turn(
                [
                    ("calc", r#"{"expression": "1 / 0"}"#),
                    ("weather", r#"{"city": "Oslo"}"#),
                    (
                        "shell",
                        r#"{"command": "echo 4111111111111111 | mail ada@example.com"}"#,
                    ),
                ],
                200,
                30,
            ),
            ScriptedTurn::text("I could not do that.").with_usage(Usage::new(260, 7)),
        ],
        vec![
            turn(
                [
                    ("calc", r#"{"expression": "2 ** 10"}"#),
                    ("calc", r#"{"expression": "sqrt(2)"}"#),
                ],
                90,
                20,
            ),
            ScriptedTurn::text("1024 and about 1.414").with_usage(Usage::new(140, 11)),
        ],
    ];
    for (i, turns) in scripts.into_iter().enumerate() {
        let registry = Registry::new();
        registry.register(Calc::new())?;
        registry.register(ShellTool)?;
        let agent = Agent::builder()
            .backend(ScriptedBackend::new(turns))
            .registry(registry)
            .observer(telemetry.clone())
            .observer_arc(audit.clone())
            .user_id("ada@example.com")
            .session_id(format!("example-{i}"))
            .build()?;
        let outcome = agent.run("do some arithmetic").await;
        println!("run {}: {} ({})", i + 1, outcome.status, outcome.trace_id);
    }

    let report = telemetry.report(Duration::from_secs(24 * 3600))?;
    println!("\n{report}");
    println!("as JSON:\n{}", serde_json::to_string_pretty(&report)?);

    println!("\naudit trail ({}):", audit_path.display());
    for entry in JsonlAudit::read(&audit_path)? {
        println!("{}", serde_json::to_string(&entry)?);
    }
    println!(
        "\ntelemetry store: {} (try `hermes dashboard --db {}`)",
        db.display(),
        db.display()
    );
    Ok(())
}

fn turn<const N: usize>(calls: [(&str, &str); N], prompt: u64, completion: u64) -> ScriptedTurn {
    let calls = calls
        .into_iter()
        .enumerate()
        .map(|(i, (name, args))| ToolCall::new(format!("call_{i}"), name, args));
    ScriptedTurn::tool_calls(calls).with_usage(Usage::new(prompt, completion))
}

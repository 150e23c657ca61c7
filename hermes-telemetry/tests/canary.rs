//! A secret that passes through a run never reaches the events, the logs, the audit
//! trail or the telemetry store: a canary key goes in through the user's input, the
//! model's arguments, a tool's output and a tool's error, and every record is searched
//! for it afterwards. (The model itself still sees the real text: that is its job.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use common::Buffer;
use hermes_core::redact::Redactor;
use hermes_core::{
    Agent, FnTool, Registry, RunStatus, ScriptedBackend, ScriptedTurn, ToolCall, ToolError,
    ToolSpec,
};
use hermes_telemetry::TelemetryCollector;
use hermes_telemetry::audit::{AuditTrail, JsonlAudit};
use hermes_telemetry::logs::MaskingWriter;
use serde_json::json;

const CANARY: &str = "sk-live-CANARY0123456789abcdef";

fn tools() -> Registry {
    let schema = json!({"type": "object", "properties": {"key": {"type": "string"}}});
    let echo = FnTool::new(
        ToolSpec::builder("remember_key", "Stores a key and says which.")
            .parameters(schema.clone())
            .build()
            .unwrap(),
        |args: serde_json::Value, _ctx| async move {
            Ok::<_, ToolError>(format!("stored {}", args["key"].as_str().unwrap_or("")))
        },
    );
    let fail = FnTool::new(
        ToolSpec::builder("check_key", "Checks a key and fails loudly.")
            .parameters(schema)
            .build()
            .unwrap(),
        |args: serde_json::Value, _ctx| async move {
            Err::<String, _>(ToolError::failed(format!(
                "key {} was revoked",
                args["key"].as_str().unwrap_or("")
            )))
        },
    );
    let registry = Registry::new();
    registry.register(echo).unwrap();
    registry.register(fail).unwrap();
    registry
}

#[tokio::test]
async fn a_canary_key_reaches_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("telemetry.db");
    let audit_path = dir.path().join("audit.jsonl");
    let telemetry = TelemetryCollector::open(&db).unwrap();
    let logs = Buffer::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(MaskingWriter::new(logs.clone()))
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let args = json!({ "key": CANARY }).to_string();
    let backend = ScriptedBackend::new([
        ScriptedTurn::tool_calls([
            ToolCall::new("c1", "remember_key", args.as_str()),
            ToolCall::new("c2", "check_key", args.as_str()),
        ]),
        ScriptedTurn::text(format!("Your key {CANARY} is stored but revoked.")),
    ]);
    let agent = Agent::builder()
        .backend(backend)
        .registry(tools())
        .observer(telemetry.clone())
        .observer(AuditTrail::new(JsonlAudit::open(&audit_path).unwrap()))
        .redact_events(Redactor::new())
        .user_id(format!("owner of {CANARY}"))
        .session_id(format!("session {CANARY}"))
        .build()
        .unwrap();
    let outcome = agent.run(format!("Please store my key {CANARY}")).await;
    assert_eq!(outcome.status, RunStatus::Completed);
    // The model saw the real key (it had to), so the canary is not a dud.
    assert!(
        serde_json::to_string(&outcome.messages)
            .unwrap()
            .contains(CANARY)
    );
    tracing::warn!(key = CANARY, "a log line that names the key");

    let events = serde_json::to_string(&outcome.events).unwrap();
    assert!(!events.contains(CANARY), "events: {events}");
    assert!(
        events.contains("[API_KEY]"),
        "events were not masked but dropped: {events}"
    );

    let audit = std::fs::read_to_string(&audit_path).unwrap();
    assert_eq!(audit.lines().count(), 2);
    assert!(!audit.contains(CANARY), "audit: {audit}");

    telemetry.flush().unwrap();
    drop(telemetry);
    drop(agent);
    let mut stored = Vec::new();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("telemetry.db")
        {
            stored.extend(std::fs::read(&path).unwrap());
        }
    }
    assert!(!stored.is_empty());
    assert!(
        !stored.windows(CANARY.len()).any(|w| w == CANARY.as_bytes()),
        "the telemetry store holds the key"
    );

    let logs = logs.text();
    assert!(logs.contains("a log line that names the key"), "{logs}");
    assert!(!logs.contains(CANARY), "logs: {logs}");
}

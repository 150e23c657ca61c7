//! The audit trail: what an entry holds, masking, and entries surviving a crash.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use hermes_core::observe::Observer;
use hermes_core::{
    ApproveAll, Decision, Dispatcher, Judgement, Policy, Registry, RunContext, ToolCall,
    ToolContext, ToolSpec, demo::Calc,
};
use hermes_telemetry::TelemetryError;
use hermes_telemetry::audit::{AuditEntry, AuditSink, AuditTrail, JsonlAudit, SqliteAudit};
use serde_json::{Value, json};

/// Refuses expressions that mention 666, naming its rule.
#[derive(Debug)]
struct No666;

impl Policy for No666 {
    fn check(&self, spec: &ToolSpec, args: &Value, ctx: &ToolContext) -> Decision {
        self.judge(spec, args, ctx).decision
    }

    fn judge(&self, _spec: &ToolSpec, args: &Value, _ctx: &ToolContext) -> Judgement {
        if args.to_string().contains("666") {
            Judgement::new(Decision::deny("not that number")).with_rule("deny:666")
        } else {
            Judgement::new(Decision::Allow).with_rule("allow:calc")
        }
    }
}

fn gateway(observer: Arc<dyn Observer>) -> Dispatcher {
    let registry = Registry::new();
    registry.register(Calc::new()).unwrap();
    Dispatcher::builder(registry)
        .policy(No666)
        .approver(ApproveAll)
        .observer_arc(observer)
        .build()
        .unwrap()
}

async fn three_calls(gateway: &Dispatcher) {
    let run = RunContext::new()
        .with_trace_id("abc123def456")
        .with_session("s-1")
        .with_user("ada@example.com");
    let calls = [
        ToolCall::new("c1", "calc", r#"{"expression": "2+2"}"#),
        ToolCall::new("c2", "calc", r#"{"expression": "666 + 4111111111111111"}"#),
        ToolCall::new("c3", "calc", "{not json, mail ada@example.com"),
    ];
    for call in &calls {
        gateway.dispatch(call, &run).await;
    }
}

fn check_entries(entries: &[AuditEntry]) {
    assert_eq!(entries.len(), 3);
    let [ok, denied, broken] = entries else {
        unreachable!()
    };
    for entry in entries {
        assert_eq!(entry.trace_id, "abc123def456");
        assert_eq!(entry.session_id, "s-1");
        assert_eq!(entry.user_id.as_deref(), Some("[EMAIL]"));
        assert_eq!(entry.tool, "calc");
        assert!(
            entry.at.ends_with('Z') && entry.at.len() == 24,
            "{}",
            entry.at
        );
    }
    assert_eq!(ok.tool_call_id, "c1");
    assert_eq!(
        (
            ok.decision.as_str(),
            ok.rule.as_deref(),
            ok.outcome.as_str()
        ),
        ("allowed", Some("allow:calc"), "ok")
    );
    assert_eq!(ok.arguments["expression"], "2+2");
    assert!(
        !ok.arguments.to_string().contains("4111"),
        "{}",
        ok.arguments
    );
    assert_eq!(ok.error, None);
    assert_eq!(
        (
            denied.decision.as_str(),
            denied.rule.as_deref(),
            denied.outcome.as_str()
        ),
        ("denied", Some("deny:666"), "denied")
    );
    assert!(denied.error.as_deref().unwrap().contains("not that number"));
    assert_eq!(denied.arguments["expression"], "666 + [CARD]");
    assert_eq!(
        (broken.decision.as_str(), broken.rule.as_deref()),
        ("not_reached", None)
    );
    assert_eq!(broken.arguments, json!("{not json, mail [EMAIL]"));
    assert!(
        entries
            .iter()
            .all(|entry| !serde_json::to_string(entry).unwrap().contains("ada@"))
    );
}

#[tokio::test]
async fn jsonl_entries_hold_the_decision_rule_and_masked_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("logs/audit.jsonl");
    let audit = Arc::new(AuditTrail::new(JsonlAudit::open(&path).unwrap()));
    three_calls(&gateway(audit.clone())).await;
    assert_eq!(audit.failures(), 0);
    check_entries(&JsonlAudit::read(&path).unwrap());
    // Appending again keeps what was there.
    let again = Arc::new(AuditTrail::new(JsonlAudit::open(&path).unwrap().durable()));
    three_calls(&gateway(again)).await;
    assert_eq!(JsonlAudit::read(&path).unwrap().len(), 6);
}

#[tokio::test]
async fn sqlite_entries_hold_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.db");
    let audit = Arc::new(AuditTrail::new(SqliteAudit::open(&path).unwrap()));
    three_calls(&gateway(audit.clone())).await;
    assert_eq!(audit.failures(), 0);
    check_entries(&SqliteAudit::read(&path).unwrap());
}

#[tokio::test]
async fn keep_pii_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    three_calls(&gateway(Arc::new(
        AuditTrail::new(JsonlAudit::open(&path).unwrap()).keep_pii(),
    )))
    .await;
    let entries = JsonlAudit::read(&path).unwrap();
    assert_eq!(entries[0].user_id.as_deref(), Some("ada@example.com"));
    assert!(
        entries[1]
            .arguments
            .to_string()
            .contains("4111111111111111")
    );
}

#[test]
fn a_torn_or_foreign_line_is_reported_with_its_number() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    std::fs::write(&path, "\n{\"at\": 1}\n").unwrap();
    let error = JsonlAudit::read(&path).unwrap_err().to_string();
    assert!(error.contains("line 2 is not an audit entry"), "{error}");
}

/// The child's half of the crash test: write entries, then abort without unwinding,
/// dropping or flushing anything.
#[test]
#[ignore = "run by entries_written_before_a_crash_survive_it in a child process"]
fn crash_child() {
    let Some(dir) = std::env::var_os("HERMES_AUDIT_CRASH_DIR") else {
        return;
    };
    let dir = Path::new(&dir);
    let jsonl = Arc::new(AuditTrail::new(
        JsonlAudit::open(dir.join("audit.jsonl")).unwrap(),
    ));
    let sqlite = Arc::new(AuditTrail::new(
        SqliteAudit::open(dir.join("audit.db")).unwrap(),
    ));
    let registry = Registry::new();
    registry.register(Calc::new()).unwrap();
    let gateway = Dispatcher::builder(registry)
        .observer_arc(jsonl)
        .observer_arc(sqlite)
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        for i in 0..200 {
            let call = ToolCall::new(format!("c{i}"), "calc", r#"{"expression": "1+1"}"#);
            gateway.dispatch(&call, &RunContext::new()).await;
        }
    });
    std::process::abort();
}

#[test]
fn entries_written_before_a_crash_survive_it() {
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new(std::env::current_exe().unwrap())
        .args([
            "crash_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("HERMES_AUDIT_CRASH_DIR", dir.path())
        .status()
        .unwrap();
    assert!(!status.success(), "the child should have aborted");
    let jsonl = JsonlAudit::read(dir.path().join("audit.jsonl")).unwrap();
    let sqlite = SqliteAudit::read(dir.path().join("audit.db")).unwrap();
    assert_eq!(jsonl.len(), 200);
    assert_eq!(sqlite.len(), 200);
    assert_eq!(jsonl[199].tool_call_id, "c199");
    assert_eq!(sqlite[199].tool_call_id, "c199");
}

/// A sink whose disk is gone.
#[derive(Debug)]
struct Broken;

impl AuditSink for Broken {
    fn append(&self, _entry: &AuditEntry) -> Result<(), TelemetryError> {
        Err(TelemetryError::Io {
            path: "/audit".into(),
            source: std::io::Error::other("no space left on device"),
        })
    }
}

#[tokio::test]
async fn a_failing_sink_is_counted_and_the_calls_go_on() {
    let trail = Arc::new(AuditTrail::new(Broken));
    let gateway = gateway(trail.clone());
    let run = RunContext::new();
    let report = gateway
        .dispatch(
            &ToolCall::new("c1", "calc", r#"{"expression": "2+2"}"#),
            &run,
        )
        .await;
    assert!(report.is_success());
    three_calls(&gateway).await;
    assert_eq!(trail.failures(), 4);
}

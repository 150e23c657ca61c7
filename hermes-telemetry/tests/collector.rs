//! The collector against a real agent run and a real SQLite file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::time::Duration;

use hermes_core::{
    Agent, Registry, RunStatus, ScriptedBackend, ScriptedTurn, ToolCall, Usage, demo::Calc,
};
use hermes_telemetry::{ANSWER, TelemetryCollector, TelemetryStore};

const HOUR: Duration = Duration::from_secs(3600);

fn agent(turns: Vec<ScriptedTurn>, telemetry: &TelemetryCollector, user: &str) -> Agent {
    let registry = Registry::new();
    registry.register(Calc::new()).unwrap();
    Agent::builder()
        .backend(ScriptedBackend::new(turns))
        .registry(registry)
        .observer(telemetry.clone())
        .user_id(user)
        .session_id("session-of-bob@example.org")
        .build()
        .unwrap()
}

fn calc(id: &str, expression: &str) -> ToolCall {
    ToolCall::new(
        id,
        "calc",
        serde_json::json!({ "expression": expression }).to_string(),
    )
}

#[tokio::test]
async fn a_run_is_reported_with_tokens_charged_to_its_tools() {
    let dir = tempfile::tempdir().unwrap();
    let telemetry = TelemetryCollector::open(dir.path().join("t.db")).unwrap();
    let turns = vec![
        ScriptedTurn::tool_calls([
            calc("c1", "1+1"),
            calc("c2", "1/0"),
            ToolCall::new("c3", "nope", "{}"),
        ])
        .with_usage(Usage::new(90, 9)),
        ScriptedTurn::text("done").with_usage(Usage::new(40, 2)),
    ];
    let outcome = agent(turns, &telemetry, "ada@example.com").run("go").await;
    assert_eq!(outcome.status, RunStatus::Completed);

    let report = telemetry.report(HOUR).unwrap();
    assert_eq!(report.period, "1h");
    assert_eq!(report.total_calls, 3);
    assert_eq!(report.success_rate, Some(0.333));
    assert_eq!(report.error_breakdown["failed"], 1);
    assert_eq!(report.error_breakdown["not_found"], 1);
    assert_eq!(report.top_tools[0].name, "calc");
    assert_eq!(report.top_tools[0].calls, 2);
    assert_eq!(report.top_tools[0].error_rate, 0.5);
    // 99 tokens over three calls, 33 each; the answer's 42 to (answer).
    assert_eq!(report.token_consumption.total, 141);
    assert_eq!(report.token_consumption.by_tool["calc"], 66);
    assert_eq!(report.token_consumption.by_tool["nope"], 33);
    assert_eq!(report.token_consumption.by_tool[ANSWER], 42);
    assert!(report.latency_ms["calc"].p95 >= report.latency_ms["calc"].p50);
}

#[tokio::test]
async fn ids_are_masked_unless_pii_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let masked = dir.path().join("masked.db");
    let kept = dir.path().join("kept.db");
    for (path, telemetry) in [
        (&masked, TelemetryCollector::open(&masked).unwrap()),
        (
            &kept,
            TelemetryCollector::builder(&kept)
                .keep_pii()
                .build()
                .unwrap(),
        ),
    ] {
        let turns = vec![
            ScriptedTurn::tool_calls([calc("c1", "2+2")]),
            ScriptedTurn::text("4"),
        ];
        agent(turns, &telemetry, "ada@example.com").run("go").await;
        telemetry.flush().unwrap();
        let store = TelemetryStore::open_read_only(path).unwrap();
        let rows = store.tool_calls_since(0).unwrap();
        let llm = store.llm_calls_since(0).unwrap();
        assert_eq!((rows.len(), llm.len()), (1, 2));
        let expect_user = if path == &masked {
            "[EMAIL]"
        } else {
            "ada@example.com"
        };
        assert_eq!(rows[0].user_id.as_deref(), Some(expect_user));
        assert_eq!(llm[0].user_id.as_deref(), Some(expect_user));
        assert_eq!(
            rows[0].session_id.contains("bob@example.org"),
            path == &kept
        );
    }
}

#[tokio::test]
async fn a_report_covers_earlier_processes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    for round in 0..3 {
        let telemetry = TelemetryCollector::open(&path).unwrap();
        let turns = vec![
            ScriptedTurn::tool_calls([calc("c1", "1+2")]).with_usage(Usage::new(10, 0)),
            ScriptedTurn::text("3").with_usage(Usage::new(5, 0)),
        ];
        agent(turns, &telemetry, "u").run("go").await;
        // Dropping the last clone writes what is queued.
        drop(telemetry);
        let report = TelemetryStore::open_read_only(&path)
            .unwrap()
            .report(HOUR)
            .unwrap();
        assert_eq!(report.total_calls, round + 1);
        assert_eq!(report.token_consumption.total, 15 * (round + 1));
    }
}

#[test]
fn a_full_queue_drops_and_counts_instead_of_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let telemetry = TelemetryCollector::builder(&path)
        .capacity(4)
        .build()
        .unwrap();
    // Another connection holds the write lock, so the writer is stuck on its first batch.
    let blocker = rusqlite::Connection::open(&path).unwrap();
    blocker.execute_batch("BEGIN EXCLUSIVE").unwrap();
    let registry = Registry::new();
    registry.register(Calc::new()).unwrap();
    let gateway = hermes_core::Dispatcher::builder(registry)
        .observer(telemetry.clone())
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        for i in 0..100 {
            let run = hermes_core::RunContext::new();
            gateway.dispatch(&calc(&format!("c{i}"), "1+1"), &run).await;
        }
    });
    let dropped = telemetry.dropped();
    // At most the queue and the batch in the writer's hands got through.
    assert!(dropped >= 100 - 4 - 5, "only {dropped} dropped");
    blocker.execute_batch("COMMIT").unwrap();
    telemetry.flush().unwrap();
    let report = telemetry.report(HOUR).unwrap();
    assert_eq!(report.total_calls + dropped, 100);
    assert_eq!(telemetry.failed_writes(), 0);
}

#[test]
fn a_store_that_is_not_a_database_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    std::fs::write(
        &path,
        "this is not sqlite, it is a text file that is long enough",
    )
    .unwrap();
    let error = TelemetryCollector::open(&path).unwrap_err().to_string();
    assert!(
        error.contains("cannot open the telemetry store") && error.contains("t.db"),
        "{error}"
    );
    let missing = TelemetryStore::open_read_only(dir.path().join("missing.db")).unwrap_err();
    assert!(missing.to_string().contains("missing.db"), "{missing}");
}

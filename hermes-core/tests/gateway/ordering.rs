//! Reads run side by side; writes that touch the same resource run in call order;
//! results come back in call order either way.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use hermes_core::{
    Access, ArgKind, Dispatcher, FnTool, RunContext, Scope, ToolCall, ToolError, ToolSpec,
};
use serde_json::{Value, json};

use crate::common::registry_with;

/// Start and end marks, in the order they happened.
type Log = Arc<Mutex<Vec<String>>>;

/// A tool that logs `start <label>`, sleeps `ms` (virtual time), logs `end <label>`.
fn logging(name: &str, scope: Scope, kind: Option<ArgKind>, log: &Log) -> impl hermes_core::Tool {
    let mut spec = ToolSpec::builder(name, "Log and sleep.")
        .scope(scope)
        .parameters(json!({
            "type": "object",
            "properties": {
                "target": {"type": ["string", "integer"]},
                "label": {"type": "string"},
                "ms": {"type": "integer"}
            }
        }));
    if let Some(kind) = kind {
        spec = spec.arg_kind("target", kind);
    }
    let log = log.clone();
    FnTool::new(spec.build().unwrap(), move |args: Value, _ctx| {
        let log = log.clone();
        async move {
            let label = args["label"].as_str().unwrap_or_default().to_owned();
            log.lock().unwrap().push(format!("start {label}"));
            tokio::time::sleep(Duration::from_millis(args["ms"].as_u64().unwrap_or(0))).await;
            log.lock().unwrap().push(format!("end {label}"));
            Ok::<_, ToolError>(json!({"label": label}))
        }
    })
}

fn call(id: &str, tool: &str, target: Value, ms: u64) -> ToolCall {
    ToolCall::new(
        id,
        tool,
        json!({"target": target, "label": id, "ms": ms}).to_string(),
    )
}

fn setup() -> (Dispatcher, Log) {
    let log = Log::default();
    let registry = registry_with([
        Arc::new(logging(
            "read_file",
            Scope::Read,
            Some(ArgKind::Path(Access::Read)),
            &log,
        )) as _,
        Arc::new(logging(
            "write_file",
            Scope::Write,
            Some(ArgKind::Path(Access::Write)),
            &log,
        )) as _,
        Arc::new(logging(
            "terminal",
            Scope::Dangerous,
            Some(ArgKind::Command),
            &log,
        )) as _,
        Arc::new(logging("kill", Scope::Write, Some(ArgKind::Resource), &log)) as _,
    ]);
    let dispatcher = Dispatcher::builder(registry)
        .approver(hermes_core::ApproveAll)
        .build()
        .unwrap();
    (dispatcher, log)
}

/// Whether `a` ended before `b` started.
fn before(log: &[String], a: &str, b: &str) -> bool {
    let end = log
        .iter()
        .position(|entry| entry == &format!("end {a}"))
        .unwrap();
    let start = log
        .iter()
        .position(|entry| entry == &format!("start {b}"))
        .unwrap();
    end < start
}

fn ids(reports: &[hermes_core::CallReport]) -> Vec<&str> {
    reports
        .iter()
        .map(|r| r.message.tool_call_id.as_str())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn writes_to_one_path_run_in_call_order_and_reads_overlap() {
    let (dispatcher, log) = setup();
    let calls = [
        call("w1", "write_file", json!("/work/a.txt"), 300),
        call("r1", "read_file", json!("/work/b.txt"), 100),
        call("w2", "write_file", json!("/work/./sub/../a.txt"), 10),
        call("r2", "read_file", json!("/work/b.txt"), 100),
        call("r3", "read_file", json!("/work/a.txt"), 10),
        call("w3", "write_file", json!("/work/c.txt"), 10),
    ];
    let reports = dispatcher.dispatch_all(&calls, &RunContext::new()).await;
    assert!(reports.iter().all(|r| r.is_success()));
    assert_eq!(ids(&reports), ["w1", "r1", "w2", "r2", "r3", "w3"]);
    let log = log.lock().unwrap().clone();
    assert!(
        before(&log, "w1", "w2"),
        "same file, spelt differently: {log:?}"
    );
    assert!(
        before(&log, "w2", "r3"),
        "a read of a written file waits: {log:?}"
    );
    assert!(!before(&log, "r1", "r2"), "reads overlap: {log:?}");
    assert!(
        !before(&log, "w1", "w3"),
        "another file does not wait: {log:?}"
    );
    assert!(!before(&log, "w1", "r1"), "{log:?}");
}

#[tokio::test(start_paused = true)]
async fn commands_and_named_resources_are_ordered() {
    let (dispatcher, log) = setup();
    let calls = [
        call("t1", "terminal", json!("mkdir build"), 200),
        call("k1", "kill", json!(4242), 200),
        call("t2", "terminal", json!("ls build"), 10),
        call("k2", "kill", json!(4242), 10),
        call("k3", "kill", json!(7), 10),
    ];
    let reports = dispatcher.dispatch_all(&calls, &RunContext::new()).await;
    assert_eq!(ids(&reports), ["t1", "k1", "t2", "k2", "k3"]);
    let log = log.lock().unwrap().clone();
    assert!(before(&log, "t1", "t2"), "{log:?}");
    assert!(before(&log, "k1", "k2"), "{log:?}");
    assert!(!before(&log, "k1", "k3"), "another process: {log:?}");
    assert!(!before(&log, "t1", "k1"), "{log:?}");
}

#[tokio::test(start_paused = true)]
async fn a_directory_and_a_file_inside_it_are_one_resource() {
    let (dispatcher, log) = setup();
    let calls = [
        call("rm", "write_file", json!("/work/out"), 100),
        call("w", "write_file", json!("/work/out/report.md"), 10),
    ];
    dispatcher.dispatch_all(&calls, &RunContext::new()).await;
    assert!(before(&log.lock().unwrap(), "rm", "w"));
}

//! What the system tests share: benches with other gates, an approver that records,
//! and a look at whether a process still runs.

use std::path::Path;
use std::sync::{Arc, Mutex};

use hermes_core::{Approval, ApprovalRequest, Approver, Dispatcher, Policy};
use hermes_permissions::command::{self, Verdict};
use hermes_permissions::{FnApprover, PermissionEngine, ProfileSet};
use hermes_tools::ToolsConfig;
use serde_json::{Value, json};

use crate::common::Bench;

/// A bench whose gateway has `approver` and the default policy.
pub fn bench_with(approver: Arc<dyn Approver>) -> Bench {
    gated(approver, |_| None)
}

/// A bench whose gateway has `approver` and, as its policy, the permission engine with
/// the profile `open` of `profiles` (YAML), its workspace the bench's.
pub fn bench_with_engine(profiles: &str, approver: Arc<dyn Approver>) -> Bench {
    let profiles = ProfileSet::from_yaml(profiles).unwrap();
    gated(approver, |root| {
        let engine = PermissionEngine::builder(profiles.get("open").unwrap())
            .workspace(root)
            .build();
        Some(Arc::new(engine))
    })
}

fn gated(
    approver: Arc<dyn Approver>,
    policy: impl FnOnce(&Path) -> Option<Arc<dyn Policy>>,
) -> Bench {
    let mut bench = Bench::new();
    let config = ToolsConfig::builder().workspace_root(bench.root()).build();
    let registry = hermes_tools::builtin(config).unwrap();
    let mut builder = Dispatcher::builder(registry).approver_arc(approver);
    if let Some(policy) = policy(bench.root()) {
        builder = builder.policy_arc(policy);
    }
    bench.dispatcher = builder.build().unwrap();
    bench
}

/// An approver that records every request and answers with `answer`.
pub fn recorder(answer: Approval) -> (Arc<dyn Approver>, Arc<Mutex<Vec<ApprovalRequest>>>) {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&asked);
    let approver = FnApprover::new(move |request: &ApprovalRequest| {
        log.lock().unwrap().push(request.clone());
        answer.clone()
    });
    (Arc::new(approver), asked)
}

/// Panics unless the detector gives `command` the `verdict`: the guard that keeps a
/// test from running a command the detector no longer stops.
pub fn assert_verdict(command: &str, verdict: Verdict) {
    let assessment = command::assess(command);
    assert_eq!(
        assessment.verdict, verdict,
        "the detector's verdict on `{command}` changed ({assessment:?}); not running it"
    );
}

/// Whether process `pid` runs (exists and is not a zombie), from `/proc`.
pub fn is_running(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the parenthesised name, which may itself hold parentheses.
    let state = stat
        .rfind(')')
        .and_then(|end| stat[end + 1..].trim_start().chars().next());
    !matches!(state, Some('Z' | 'X') | None)
}

/// Poll `check` for up to 20 s; whether it came true. Only guards against hangs.
pub async fn eventually(mut check: impl FnMut() -> bool) -> bool {
    for _ in 0..200 {
        if check() {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    check()
}

/// Start `command` in the background; its handle and pid.
pub async fn start(bench: &Bench, command: &str) -> (String, u32) {
    let started = bench.ok("process_start", json!({"command": command})).await;
    let handle = started["handle"].as_str().unwrap().to_owned();
    let pid = u32::try_from(started["pid"].as_u64().unwrap()).unwrap();
    (handle, pid)
}

/// Read `handle` until its stdout so far holds `needle` (or it exits); every report read.
pub async fn read_until(bench: &Bench, handle: &str, needle: &str) -> Vec<Value> {
    let mut reports = Vec::new();
    let mut stdout = String::new();
    for _ in 0..20 {
        let report = bench
            .ok(
                "process_output",
                json!({"handle": handle, "wait_seconds": 5}),
            )
            .await;
        stdout.push_str(report["stdout"].as_str().unwrap());
        let exited = report["status"] == "exited";
        reports.push(report);
        if stdout.contains(needle) || exited {
            return reports;
        }
    }
    panic!("`{needle}` never came from {handle}: {reports:?}");
}

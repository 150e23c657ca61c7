//! The safety check in front of `terminal` and `process_start`: hardline commands never
//! run, dangerous ones only with a human's yes, asked once.

use std::sync::Arc;

use hermes_core::{Approval, DenyAll};
use hermes_permissions::command::Verdict;
use serde_json::json;

use crate::common::Bench;
use crate::support::{assert_verdict, bench_with, bench_with_engine, recorder};

#[tokio::test]
async fn hardline_commands_are_refused_before_anything_runs() {
    let bench = Bench::new();
    for command in [
        "touch ran && rm -rf /",
        "touch ran && mkfs.ext4 /dev/hermes-no-such-disk",
    ] {
        assert_verdict(command, Verdict::Hardline);
        let message = bench
            .fails(
                "terminal",
                json!({"command": command}),
                "denied",
                "never run",
            )
            .await;
        assert!(message.contains("rule `hardline."), "{message}");
        assert!(!bench.path("ran").exists(), "`{command}` ran");
        bench
            .fails(
                "process_start",
                json!({"command": command}),
                "denied",
                "hardline.",
            )
            .await;
        assert!(
            !bench.path("ran").exists(),
            "`{command}` ran in the background"
        );
    }
}

#[tokio::test]
async fn hardline_commands_are_refused_even_when_everything_is_approved() {
    let (approver, asked) = recorder(Approval::Approved);
    let bench = bench_with(approver);
    let command = "touch ran; rm -rf / --no-preserve-root";
    assert_verdict(command, Verdict::Hardline);
    bench
        .fails(
            "terminal",
            json!({"command": command}),
            "denied",
            "hardline.rm-root",
        )
        .await;
    assert!(!bench.path("ran").exists());
    assert!(asked.lock().unwrap().is_empty(), "nobody is asked");
}

#[tokio::test]
async fn a_dangerous_command_without_approval_does_not_run() {
    let bench = bench_with(Arc::new(DenyAll));
    std::fs::create_dir_all(bench.path("victim/inner")).unwrap();
    let command = "rm -r victim";
    assert_verdict(command, Verdict::Dangerous);
    let report = bench.report("terminal", json!({"command": command})).await;
    let content: serde_json::Value = serde_json::from_str(&report.message.content).unwrap();
    assert_eq!(content["error"]["kind"], "approval_denied", "{content}");
    assert_eq!(content["error"]["requires_confirmation"], true);
    assert!(bench.path("victim/inner").is_dir(), "the command ran");
    bench
        .fails(
            "process_start",
            json!({"command": command}),
            "approval_denied",
            "approval",
        )
        .await;
    assert!(bench.path("victim/inner").is_dir(), "the command ran");
}

#[tokio::test]
async fn a_dangerous_command_runs_once_approved_and_the_human_sees_why() {
    let (approver, asked) = recorder(Approval::Approved);
    let bench = bench_with(approver);
    std::fs::create_dir_all(bench.path("victim/inner")).unwrap();
    let command = "rm -r victim";
    assert_verdict(command, Verdict::Dangerous);
    let result = bench.ok("terminal", json!({"command": command})).await;
    assert_eq!(result["exit_code"], 0);
    assert!(!bench.path("victim").exists());
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].tool, "terminal");
    assert!(
        asked[0].prompt.contains("rm -r victim"),
        "{}",
        asked[0].prompt
    );
    assert!(
        asked[0].prompt.contains("dangerous.recursive-delete"),
        "{}",
        asked[0].prompt
    );
    assert_eq!(
        asked[0].class.as_deref(),
        Some("dangerous.recursive-delete:rm")
    );
    assert_eq!(asked[0].arguments["command"], command);
}

#[tokio::test]
async fn safe_commands_ask_nobody() {
    let (approver, asked) = recorder(Approval::denied("no"));
    let bench = bench_with(approver);
    bench
        .ok("terminal", json!({"command": "ls -la | head -n 3"}))
        .await;
    assert!(asked.lock().unwrap().is_empty());
}

/// Under the permission engine the gateway asks about a dangerous command; the tool
/// does not ask again, and a session-wide grant holds for the next call.
#[tokio::test]
async fn under_the_engine_a_human_is_asked_once_per_session() {
    let (approver, asked) = recorder(Approval::ApprovedForSession);
    let bench = bench_with_engine(OPEN, approver);
    for (dir, key) in [("one", "a"), ("two", "b")] {
        std::fs::create_dir_all(bench.path(dir)).unwrap();
        let command = format!("rm -r {dir}");
        assert_verdict(&command, Verdict::Dangerous);
        let result = bench
            .ok(
                "terminal",
                json!({"command": command, "idempotency_key": key}),
            )
            .await;
        assert_eq!(result["exit_code"], 0, "{result}");
        assert!(!bench.path(dir).exists());
    }
    assert_eq!(asked.lock().unwrap().len(), 1, "asked once for the session");
}

/// Under the engine, a profile's command restrictions refuse a dangerous command the
/// detector alone would put to a human.
#[tokio::test]
async fn under_the_engine_a_denied_command_is_refused_without_asking() {
    let (approver, asked) = recorder(Approval::Approved);
    let profiles = "profiles:\n  open:\n    allow: [\"*\"]\n    restrictions:\n      terminal:execute:\n        denied_commands: [rm]\n";
    let bench = bench_with_engine(profiles, approver);
    std::fs::create_dir_all(bench.path("victim")).unwrap();
    bench
        .fails(
            "terminal",
            json!({"command": "rm -r victim"}),
            "denied",
            "rm",
        )
        .await;
    assert!(bench.path("victim").is_dir());
    assert!(asked.lock().unwrap().is_empty());
}

const OPEN: &str = "profiles:\n  open:\n    allow: [\"*\"]\n";

//! `code_execute` without a sandbox: each test here re-runs itself in a child process
//! with `HERMES_NO_SANDBOX=1` (environment variables cannot be set safely in a running
//! test process), so the fallback path is tested whether or not bubblewrap works here.
#![cfg(feature = "code")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::net::TcpListener;
use std::process::Command;

use hermes_core::{DenyAll, Dispatcher, RunContext, ToolCall};
use serde_json::json;

use common::Bench;

/// In the parent, run `test` again in a child with the sandbox off and check that it
/// passed; `true` there. `false` in the child: go on with the test.
fn rerun_without_sandbox(test: &str) -> bool {
    if std::env::var_os("HERMES_NO_SANDBOX").is_some() {
        return false;
    }
    let output = Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env("HERMES_NO_SANDBOX", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("1 passed"),
        "the child run of `{test}` failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    true
}

#[tokio::test]
async fn without_a_sandbox_code_runs_under_limits_and_says_so() {
    if rerun_without_sandbox("without_a_sandbox_code_runs_under_limits_and_says_so") {
        return;
    }
    let bench = Bench::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        "import resource, socket\n\
         print(resource.getrlimit(resource.RLIMIT_AS)[0] // 2**30)\n\
         print(resource.getrlimit(resource.RLIMIT_CPU)[0])\n\
         socket.create_connection(('127.0.0.1', {port}), timeout=5).close()\n\
         print('connected')\n"
    );
    let value = bench
        .ok(
            "code_execute",
            json!({"language": "python", "code": code, "timeout_seconds": 10}),
        )
        .await;
    assert_eq!(
        value["sandbox"],
        "none (rlimits only): turned off by HERMES_NO_SANDBOX"
    );
    assert_eq!(value["stdout"], "2\n15\nconnected\n", "{value}");
    drop(listener);

    let value = bench
        .ok(
            "code_execute",
            json!({"language": "rust", "code": "fn main() { println!(\"{}\", 6 * 7); }"}),
        )
        .await;
    assert_eq!(value["stdout"], "42\n", "{value}");
}

#[tokio::test]
async fn without_a_sandbox_a_human_must_approve() {
    if rerun_without_sandbox("without_a_sandbox_a_human_must_approve") {
        return;
    }
    let registry = hermes_tools::builtin(hermes_tools::ToolsConfig::default()).unwrap();
    let dispatcher = Dispatcher::builder(registry)
        .approver(DenyAll)
        .build()
        .unwrap();
    let call = ToolCall::with_args(
        "call_1",
        "code_execute",
        &json!({"language": "bash", "code": "echo should not run"}),
    );
    let report = dispatcher.dispatch(&call, &RunContext::new()).await;
    assert!(!report.is_success());
    let content: serde_json::Value = serde_json::from_str(&report.message.content).unwrap();
    assert_eq!(content["error"]["kind"], "approval_denied", "{content}");
    assert_eq!(content["error"]["requires_confirmation"], true);
}

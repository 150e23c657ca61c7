//! `terminal`: commands run to their end or their timeout, output bounded, the
//! workspace and the session's variables respected.

use serde_json::json;

use crate::common::Bench;

#[tokio::test]
async fn a_command_runs_in_the_workspace_and_reports() {
    let bench = Bench::new();
    let result = bench
        .ok("terminal", json!({"command": "echo hello; pwd"}))
        .await;
    assert_eq!(result["exit_code"], 0);
    let root = std::fs::canonicalize(bench.root()).unwrap();
    assert_eq!(
        result["stdout"],
        format!("hello\n{}\n", root.display()),
        "{result}"
    );
    assert_eq!(result["stderr"], "");
    assert_eq!(result["timed_out"], false);
    assert_eq!(result["truncated"], false);
    assert!(result["duration_ms"].is_u64());
    assert!(result.get("note").is_none());
}

#[tokio::test]
async fn a_failing_command_gives_its_code_and_stderr() {
    let bench = Bench::new();
    let result = bench
        .ok(
            "terminal",
            json!({"command": "echo partial; echo 'it broke' >&2; exit 3"}),
        )
        .await;
    assert_eq!(result["exit_code"], 3);
    assert_eq!(result["stdout"], "partial\n");
    assert_eq!(result["stderr"], "it broke\n");
}

#[tokio::test]
async fn a_timeout_kills_the_command_and_keeps_the_output_so_far() {
    let bench = Bench::new();
    let result = bench
        .ok(
            "terminal",
            json!({"command": "echo started; sleep 30; echo never", "timeout_seconds": 1}),
        )
        .await;
    assert_eq!(result["timed_out"], true, "{result}");
    assert_eq!(result["stdout"], "started\n");
    assert!(result["exit_code"].is_null());
    let note = result["note"].as_str().unwrap();
    assert!(note.contains("process_start"), "{note}");
}

#[tokio::test]
async fn a_timeout_past_the_maximum_is_refused_by_the_schema() {
    let bench = Bench::new();
    bench
        .fails(
            "terminal",
            json!({"command": "true", "timeout_seconds": 601}),
            "invalid_arguments",
            "timeout_seconds",
        )
        .await;
}

#[tokio::test]
async fn huge_output_is_capped_keeping_head_and_tail() {
    let bench = Bench::with_config(|config| config.max_output_bytes(4096));
    let result = bench
        .ok(
            "terminal",
            json!({"command": "echo FIRST; yes hermes | head -c 3000000; echo; echo LAST"}),
        )
        .await;
    assert_eq!(result["exit_code"], 0);
    assert_eq!(result["truncated"], true);
    let stdout = result["stdout"].as_str().unwrap();
    assert!(stdout.len() < 4096 + 200, "{} bytes kept", stdout.len());
    assert!(stdout.starts_with("FIRST\n"), "{stdout}");
    assert!(stdout.ends_with("LAST\n"), "{stdout}");
    assert!(stdout.contains("bytes cut by hermes"), "{stdout}");
}

#[tokio::test]
async fn cwd_resolves_inside_the_workspace_and_nowhere_else() {
    let bench = Bench::new();
    std::fs::create_dir(bench.path("sub")).unwrap();
    let result = bench
        .ok("terminal", json!({"command": "pwd", "cwd": "sub"}))
        .await;
    assert!(
        result["stdout"].as_str().unwrap().ends_with("/sub\n"),
        "{result}"
    );
    for outside in ["/", "..", "sub/../../"] {
        bench
            .fails(
                "terminal",
                json!({"command": "pwd", "cwd": outside}),
                "failed",
                "outside the workspace",
            )
            .await;
    }
    bench
        .fails(
            "terminal",
            json!({"command": "pwd", "cwd": "missing"}),
            "failed",
            "give an existing directory",
        )
        .await;
}

#[tokio::test]
async fn the_sessions_variables_and_the_calls_own_reach_the_command() {
    let mut bench = Bench::new();
    bench
        .ok(
            "env_set",
            json!({"name": "HERMES_GREETING", "value": "from env_set"}),
        )
        .await;
    let result = bench
        .ok("terminal", json!({"command": "echo \"$HERMES_GREETING\""}))
        .await;
    assert_eq!(result["stdout"], "from env_set\n");

    let result = bench
        .ok(
            "terminal",
            json!({
                "command": "echo \"$HERMES_GREETING/$HERMES_EXTRA\"",
                "env": {"HERMES_GREETING": "from the call", "HERMES_EXTRA": "x"}
            }),
        )
        .await;
    assert_eq!(result["stdout"], "from the call/x\n");

    bench.run = hermes_core::RunContext::new().with_session("someone-else");
    let result = bench
        .ok(
            "terminal",
            json!({"command": "echo \"[$HERMES_GREETING]\""}),
        )
        .await;
    assert_eq!(result["stdout"], "[]\n", "another session sees nothing");
}

#[tokio::test]
async fn loader_variables_cannot_be_passed_to_a_command() {
    let bench = Bench::new();
    bench
        .fails(
            "terminal",
            json!({"command": "true", "env": {"LD_PRELOAD": "/tmp/evil.so"}}),
            "failed",
            "cannot be set",
        )
        .await;
}

#[tokio::test]
async fn a_repeated_command_runs_again_unless_it_carries_the_same_key() {
    let bench = Bench::new();
    let count = |report: &hermes_core::CallReport| {
        let result: serde_json::Value = serde_json::from_str(&report.message.content).unwrap();
        result["stdout"].as_str().unwrap().trim().to_owned()
    };
    let call = json!({"command": "echo run >> runs.txt; wc -l < runs.txt"});
    let first = bench.report("terminal", call.clone()).await;
    let again = bench.report("terminal", call).await;
    assert!(!again.replayed, "the same command twice is two runs");
    assert_eq!(
        (count(&first), count(&again)),
        ("1".to_owned(), "2".to_owned())
    );
    let keyed =
        json!({"command": "echo run >> runs.txt; wc -l < runs.txt", "idempotency_key": "k"});
    let first = bench.report("terminal", keyed.clone()).await;
    let retry = bench.report("terminal", keyed).await;
    assert!(
        retry.replayed,
        "a retry with the same key is answered from the first run"
    );
    assert_eq!(count(&first), "3");
    assert_eq!(count(&retry), "3");
}

//! `process_start`, `process_output`, `process_kill` and `process_list`: background
//! processes owned by a session, read incrementally, stopped TERM-then-KILL, gone with
//! the tool set.

use std::sync::Arc;

use hermes_core::{Approval, DenyAll, RunContext};
use serde_json::json;

use crate::common::Bench;
use crate::support::{bench_with, eventually, is_running, read_until, recorder, start};

#[tokio::test]
async fn output_is_read_incrementally_and_kill_ends_the_process() {
    let bench = Bench::new();
    let (handle, pid) = start(
        &bench,
        "echo first; while [ ! -e go ]; do sleep 0.05; done; echo second; sleep 300",
    )
    .await;
    assert!(handle.starts_with("proc-"), "{handle}");

    let reports = read_until(&bench, &handle, "first").await;
    let last = reports.last().unwrap();
    assert_eq!(last["status"], "running");
    assert_eq!(last["pid"], pid);
    let nothing_new = bench.ok("process_output", json!({"handle": handle})).await;
    assert_eq!(nothing_new["stdout"], "", "{nothing_new}");

    std::fs::write(bench.path("go"), "").unwrap();
    let reports = read_until(&bench, &handle, "second").await;
    let later: String = reports
        .iter()
        .map(|report| report["stdout"].as_str().unwrap())
        .collect();
    assert_eq!(later, "second\n", "only what came after the last read");

    let killed = bench.ok("process_kill", json!({"handle": handle})).await;
    assert_eq!(killed["status"], "exited", "{killed}");
    assert_eq!(killed["signal_sent"], "SIGTERM");
    assert_eq!(killed["signal"], 15);
    assert!(eventually(|| !is_running(pid)).await);
    bench
        .fails(
            "process_output",
            json!({"handle": handle}),
            "failed",
            "unknown handle",
        )
        .await;
}

#[tokio::test]
async fn a_process_that_ignores_term_is_killed_after_the_grace_period() {
    let bench = Bench::new();
    let (handle, pid) = start(
        &bench,
        "trap '' TERM; echo ready; while true; do sleep 0.1; done",
    )
    .await;
    read_until(&bench, &handle, "ready").await;
    let killed = bench
        .ok(
            "process_kill",
            json!({"handle": handle, "grace_seconds": 1}),
        )
        .await;
    assert_eq!(killed["signal_sent"], "SIGKILL", "{killed}");
    assert_eq!(killed["status"], "exited");
    assert_eq!(killed["signal"], 9);
    assert!(eventually(|| !is_running(pid)).await);
}

#[tokio::test]
async fn the_exit_is_reported_with_all_output_then_the_handle_is_released() {
    let bench = Bench::new();
    let (handle, _) = start(&bench, "echo done; echo problem >&2; exit 7").await;
    let reports = read_until(&bench, &handle, "never printed").await;
    let last = reports.last().unwrap();
    assert_eq!(last["status"], "exited", "{last}");
    assert_eq!(last["exit_code"], 7);
    let stdout: String = reports
        .iter()
        .map(|report| report["stdout"].as_str().unwrap())
        .collect();
    let stderr: String = reports
        .iter()
        .map(|report| report["stderr"].as_str().unwrap())
        .collect();
    assert_eq!((stdout.as_str(), stderr.as_str()), ("done\n", "problem\n"));
    assert!(last["note"].as_str().unwrap().contains("released"));
    bench
        .fails(
            "process_kill",
            json!({"handle": handle}),
            "failed",
            "unknown handle",
        )
        .await;
}

#[tokio::test]
async fn unread_output_is_bounded_to_the_latest_bytes() {
    let bench = Bench::with_config(|config| config.max_output_bytes(1024));
    let (handle, _) = start(&bench, "yes 0123456789 | head -c 200000; echo; echo end").await;
    let reports = read_until(&bench, &handle, "end\n").await;
    let dropped: u64 = reports
        .iter()
        .map(|report| report["stdout_dropped_bytes"].as_u64().unwrap_or(0))
        .sum();
    let kept: usize = reports
        .iter()
        .map(|report| report["stdout"].as_str().unwrap().len())
        .sum();
    assert!(dropped > 0, "{reports:?}");
    assert_eq!(
        dropped + kept as u64,
        200_000 + 5,
        "every byte kept or counted"
    );
    for report in &reports {
        assert!(report["stdout"].as_str().unwrap().len() <= 1024);
    }
    let text: String = reports
        .iter()
        .map(|report| report["stdout"].as_str().unwrap())
        .collect();
    // 200000 bytes of 11-byte lines end in a cut line, `echo` ends it.
    assert!(
        text.ends_with("\n012345678\nend\n"),
        "the latest bytes are kept"
    );
}

#[tokio::test]
async fn handles_are_private_to_their_session() {
    let mut bench = Bench::new();
    let (handle, pid) = start(&bench, "sleep 300").await;
    bench.run = RunContext::new().with_session("intruder");
    for tool in ["process_output", "process_kill"] {
        let message = bench
            .fails(tool, json!({"handle": handle}), "failed", "unknown handle")
            .await;
        assert!(message.contains("it holds none"), "{message}");
    }
    let listed = bench
        .ok("process_list", json!({"name": "sleep", "limit": 500}))
        .await;
    assert!(
        listed["processes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|process| process.get("handle").is_none()),
        "another session's handles are not shown: {listed}"
    );
    assert!(is_running(pid));
    bench.run = RunContext::new().with_session("tests");
    bench.ok("process_kill", json!({"handle": handle})).await;
}

#[tokio::test]
async fn an_unknown_handle_says_which_the_session_holds() {
    let bench = Bench::new();
    let (handle, _) = start(&bench, "sleep 300").await;
    let message = bench
        .fails(
            "process_output",
            json!({"handle": "proc-999999"}),
            "failed",
            "unknown handle `proc-999999`",
        )
        .await;
    assert!(message.contains(&handle), "{message}");
}

#[tokio::test]
async fn the_list_finds_a_started_process_with_its_handle() {
    let bench = Bench::new();
    let (handle, pid) = start(&bench, "exec sleep 301").await;
    let listed = bench
        .ok(
            "process_list",
            json!({"name": "SLEEP", "sort": "pid", "limit": 500}),
        )
        .await;
    let processes = listed["processes"].as_array().unwrap();
    let ours = processes
        .iter()
        .find(|process| process["pid"] == pid)
        .unwrap_or_else(|| panic!("{pid} not listed: {listed}"));
    assert_eq!(ours["handle"], handle.as_str());
    assert_eq!(ours["name"], "sleep");
    assert!(ours["memory_bytes"].as_u64().unwrap() > 0);
    assert!(ours["cpu_percent"].as_f64().unwrap() >= 0.0);
    assert!(
        processes
            .iter()
            .all(|process| process["name"].as_str().unwrap().contains("sleep"))
    );
    let pids: Vec<u64> = processes
        .iter()
        .map(|process| process["pid"].as_u64().unwrap())
        .collect();
    assert!(
        pids.windows(2).all(|pair| pair[0] < pair[1]),
        "sorted by pid"
    );

    let one = bench.ok("process_list", json!({"limit": 1})).await;
    assert_eq!(one["processes"].as_array().unwrap().len(), 1);
    assert_eq!(one["truncated"], true);
}

#[tokio::test]
async fn a_session_holds_a_bounded_number_of_processes() {
    let bench = Bench::new();
    let mut pids = Vec::new();
    for n in 0..16 {
        let (_, pid) = start(&bench, &format!("exec sleep {}", 400 + n)).await;
        pids.push(pid);
    }
    bench
        .fails(
            "process_start",
            json!({"command": "exec sleep 500"}),
            "failed",
            "already holds 16",
        )
        .await;
    drop(bench);
    for pid in pids {
        assert!(
            eventually(|| !is_running(pid)).await,
            "{pid} outlived the tools"
        );
    }
}

#[tokio::test]
async fn dropping_the_tools_kills_their_processes_and_whole_groups() {
    let bench = Bench::new();
    let (handle, leader) = start(&bench, "sleep 300 & echo $!; wait").await;
    let reports = read_until(&bench, &handle, "\n").await;
    let child: u32 = reports.last().unwrap()["stdout"]
        .as_str()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(is_running(leader) && is_running(child));
    drop(bench);
    assert!(
        eventually(|| !is_running(leader)).await,
        "the leader outlived the tools"
    );
    assert!(
        eventually(|| !is_running(child)).await,
        "its child outlived the tools"
    );
}

#[tokio::test]
async fn a_process_the_session_did_not_start_needs_approval_to_stop() {
    let mut stranger = std::process::Command::new("sleep")
        .arg("300")
        .spawn()
        .unwrap();
    let pid = stranger.id();

    let refusing = bench_with(Arc::new(DenyAll));
    let report = refusing.report("process_kill", json!({"pid": pid})).await;
    assert!(
        report.message.content.contains("approval_denied"),
        "{}",
        report.message.content
    );
    assert!(
        stranger.try_wait().unwrap().is_none(),
        "it was stopped anyway"
    );

    let (approver, asked) = recorder(Approval::Approved);
    let approving = bench_with(approver);
    let stopped = approving
        .ok("process_kill", json!({"pid": pid, "grace_seconds": 10}))
        .await;
    assert_eq!(stopped["stopped"], true, "{stopped}");
    assert_eq!(stopped["signal_sent"], "SIGTERM");
    assert_eq!(stopped["name"], "sleep");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(stranger.wait().unwrap().signal(), Some(15));
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0].prompt.contains(&pid.to_string()),
        "{}",
        asked[0].prompt
    );
}

#[tokio::test]
async fn a_pid_the_session_started_is_stopped_like_its_handle_without_asking() {
    let (approver, asked) = recorder(Approval::denied("no"));
    let bench = bench_with(approver);
    let (handle, pid) = start(&bench, "exec sleep 302").await;
    let killed = bench.ok("process_kill", json!({"pid": pid})).await;
    assert_eq!(killed["handle"], handle.as_str());
    assert_eq!(killed["status"], "exited");
    assert!(asked.lock().unwrap().is_empty());
}

#[tokio::test]
async fn kill_needs_exactly_one_target_and_a_live_pid() {
    let bench = Bench::new();
    bench
        .fails("process_kill", json!({}), "failed", "exactly one")
        .await;
    bench
        .fails(
            "process_kill",
            json!({"handle": "proc-1", "pid": 1234}),
            "failed",
            "exactly one",
        )
        .await;
    bench
        .fails(
            "process_kill",
            json!({"pid": 1}),
            "invalid_arguments",
            "pid",
        )
        .await;
    bench
        .fails(
            "process_kill",
            json!({"pid": 4_000_000}),
            "failed",
            "no running process",
        )
        .await;
}

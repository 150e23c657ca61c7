//! Without an engine, and before one is reached: clear errors, and approval first.

use std::sync::{Arc, Mutex};

use hermes_core::{Approval, ApprovalRequest, Dispatcher};
use hermes_permissions::FnApprover;
use hermes_tools::{PlatformConfig, ToolsConfig};
use serde_json::json;

use crate::common::Bench;
use crate::support::server;

/// A bench whose docker tools use the engine at `host`.
pub fn bench_at(host: &str) -> Bench {
    Bench::with_config(|config| config.platform(PlatformConfig::default().docker_host(host)))
}

/// The test engine and its image, or `None` (skipped loudly; a failure under CI).
pub fn engine() -> Option<(Bench, String, String)> {
    let host = server("HERMES_TEST_DOCKER_HOST")?;
    let image = std::env::var("HERMES_TEST_DOCKER_IMAGE")
        .unwrap_or_else(|_| "localhost/hermes-busybox".to_owned());
    Some((bench_at(&host), host, image))
}

#[tokio::test]
async fn no_engine_is_a_clear_error() {
    let bench = bench_at("unix:///nonexistent/hermes/docker.sock");
    for (tool, args) in [
        ("docker_inspect", json!({"action": "containers"})),
        (
            "docker_run",
            json!({"image": "busybox", "command": ["true"]}),
        ),
    ] {
        let message = bench
            .fails(
                tool,
                args,
                "failed",
                "no Docker engine at unix:///nonexistent/hermes/docker.sock",
            )
            .await;
        assert!(message.contains("podman system service"), "{message}");
        assert!(message.contains("DOCKER_HOST"), "{message}");
    }
    // A TCP address where nothing listens.
    bench_at("tcp://127.0.0.1:1")
        .fails(
            "docker_inspect",
            json!({"action": "images"}),
            "failed",
            "no Docker engine at tcp://127.0.0.1:1",
        )
        .await;
    bench_at("ftp://127.0.0.1")
        .fails(
            "docker_inspect",
            json!({"action": "images"}),
            "failed",
            "not a Docker engine address",
        )
        .await;
}

#[tokio::test]
async fn docker_run_asks_a_human_first() {
    let asked: Arc<Mutex<Vec<ApprovalRequest>>> = Arc::default();
    let log = Arc::clone(&asked);
    let approver = FnApprover::new(move |request: &ApprovalRequest| {
        log.lock().unwrap().push(request.clone());
        Approval::denied("not today")
    });
    let mut bench = Bench::new();
    let config = ToolsConfig::builder()
        .workspace_root(bench.root())
        .platform(PlatformConfig::default().docker_host("unix:///nonexistent/hermes/docker.sock"))
        .build();
    bench.dispatcher = Dispatcher::builder(hermes_tools::builtin(config).unwrap())
        .approver(approver)
        .build()
        .unwrap();
    bench
        .fails(
            "docker_run",
            json!({"image": "busybox", "command": ["rm", "-rf", "/"]}),
            "approval_denied",
            "",
        )
        .await;
    {
        let asked = asked.lock().unwrap();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].tool, "docker_run");
    }
    // Inspecting needs no approval: it fails on the missing engine instead.
    bench
        .fails(
            "docker_inspect",
            json!({"action": "images"}),
            "failed",
            "no Docker engine",
        )
        .await;
}

#[tokio::test]
async fn bad_arguments_are_refused() {
    let bench = bench_at("unix:///nonexistent/hermes/docker.sock");
    for (tool, args) in [
        ("docker_inspect", json!({"action": "destroy"})),
        ("docker_inspect", json!({"action": "logs", "tail": 0})),
        ("docker_run", json!({"command": ["true"]})),
        (
            "docker_run",
            json!({"image": "busybox", "command": [["nested"]]}),
        ),
        ("docker_run", json!({"image": "busybox", "env": ["A=1"]})),
        (
            "docker_run",
            json!({"image": "busybox", "timeout_seconds": 100_000}),
        ),
    ] {
        bench.fails(tool, args, "invalid_arguments", "").await;
    }
}

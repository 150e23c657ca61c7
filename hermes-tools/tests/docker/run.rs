//! `docker_run` against a real engine (podman's Docker API in the test setup).

use serde_json::{Value, json};

use crate::common::Bench;
use crate::engine::engine;

/// Whether the engine still has a container named `name`.
async fn exists(bench: &Bench, name: &str) -> bool {
    let listed = bench
        .ok(
            "docker_inspect",
            json!({"action": "containers", "all": true}),
        )
        .await;
    listed["items"].as_array().unwrap().iter().any(|item| {
        item["Names"].as_array().is_some_and(|names| {
            names
                .iter()
                .any(|listed| listed.as_str().unwrap_or("").trim_start_matches('/') == name)
        })
    })
}

/// Poll until `name` is gone (removal may finish just after the call returns); whether
/// it went. Only guards against hangs.
async fn removed(bench: &Bench, name: &str) -> bool {
    for _ in 0..50 {
        if !exists(bench, name).await {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test]
async fn a_command_runs_and_its_output_and_exit_code_come_back() {
    let Some((bench, _host, image)) = engine() else {
        return;
    };
    let result = bench
        .ok(
            "docker_run",
            json!({
                "image": image,
                "command": ["sh", "-c", "echo \"hello $GREETING\"; echo oops >&2; exit 3"],
                "env": {"GREETING": "world"},
            }),
        )
        .await;
    assert_eq!(result["exit_code"], 3, "{result}");
    assert_eq!(result["stdout"], "hello world\n");
    assert_eq!(result["stderr"], "oops\n");
    assert!(result.get("timed_out").is_none(), "{result}");
    assert!(result["duration_ms"].is_u64());

    let ok = bench
        .ok(
            "docker_run",
            json!({"image": image, "command": ["sh", "-c", "pwd"], "workdir": "/bin"}),
        )
        .await;
    assert_eq!(ok["exit_code"], 0);
    assert_eq!(ok["stdout"], "/bin\n");
}

#[tokio::test]
async fn the_container_is_removed_afterwards() {
    let Some((bench, _host, image)) = engine() else {
        return;
    };
    let result = bench
        .ok("docker_run", json!({"image": image, "command": ["true"]}))
        .await;
    assert_eq!(result["exit_code"], 0, "{result}");
    let name = result["container"].as_str().unwrap();
    assert!(name.starts_with("hermes-run-"), "{result}");
    assert!(removed(&bench, name).await, "{name} was not removed");
}

#[tokio::test]
async fn a_run_past_its_timeout_is_killed_and_removed() {
    let Some((bench, _host, image)) = engine() else {
        return;
    };
    let result = bench
        .ok(
            "docker_run",
            json!({
                "image": image,
                "command": ["sh", "-c", "echo started; sleep 60; echo never"],
                "timeout_seconds": 1,
            }),
        )
        .await;
    assert_eq!(result["timed_out"], true, "{result}");
    assert_eq!(result["exit_code"], Value::Null);
    assert_eq!(result["stdout"], "started\n");
    let name = result["container"].as_str().unwrap();
    assert!(
        removed(&bench, name).await,
        "the killed container {name} was not removed"
    );
}

#[tokio::test]
async fn a_missing_image_is_not_pulled() {
    let Some((bench, _host, _image)) = engine() else {
        return;
    };
    bench
        .fails(
            "docker_run",
            json!({"image": "localhost/hermes-no-such-image:1", "command": ["true"]}),
            "failed",
            "does not pull",
        )
        .await;
}

#[tokio::test]
async fn containers_have_no_network_by_default() {
    let Some((bench, _host, image)) = engine() else {
        return;
    };
    let result = bench
        .ok(
            "docker_run",
            json!({"image": image, "command": ["ls", "/sys/class/net"]}),
        )
        .await;
    assert_eq!(result["exit_code"], 0, "{result}");
    assert_eq!(
        result["stdout"]
            .as_str()
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>(),
        ["lo"]
    );
}

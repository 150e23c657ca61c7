//! `download_file`: streaming to the workspace with a checksum and progress; size
//! limits, overwrite protection, confinement and error statuses.

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use hermes_core::{AgentEvent, EventSink, RunContext};
use serde_json::json;

use crate::support::{bench_with, local_bench, serve};

/// SHA-256 of `hello world`.
const HELLO_SHA256: &str = "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9";

async fn server() -> String {
    let router = Router::new()
        .route("/hello", get(|| async { "hello world" }))
        .route("/big", get(|| async { vec![7u8; 1024 * 1024] }))
        .route("/gone", get(|| async { (StatusCode::GONE, "gone") }));
    format!("http://{}", serve(router).await)
}

fn leftovers(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".part"))
        .collect()
}

#[tokio::test]
async fn a_download_lands_in_the_workspace_with_its_checksum() {
    let bench = local_bench();
    let base = server().await;
    let out = bench
        .ok(
            "download_file",
            json!({"url": format!("{base}/hello"), "path": "files/hello.txt"}),
        )
        .await;
    assert_eq!(out["path"], "files/hello.txt");
    assert_eq!(out["bytes"], 11);
    assert_eq!(out["sha256"], HELLO_SHA256);
    assert_eq!(out["replaced"], false);
    assert_eq!(
        std::fs::read_to_string(bench.path("files/hello.txt")).unwrap(),
        "hello world"
    );
    assert!(leftovers(&bench.path("files")).is_empty());
}

#[tokio::test]
async fn an_existing_file_is_kept_unless_overwrite_is_set() {
    let bench = local_bench();
    let base = server().await;
    std::fs::write(bench.path("hello.txt"), "precious").unwrap();
    bench
        .fails(
            "download_file",
            json!({"url": format!("{base}/hello"), "path": "hello.txt"}),
            "failed",
            "already exists; pass overwrite: true",
        )
        .await;
    assert_eq!(
        std::fs::read_to_string(bench.path("hello.txt")).unwrap(),
        "precious"
    );
    let out = bench
        .ok(
            "download_file",
            json!({"url": format!("{base}/hello"), "path": "hello.txt", "overwrite": true}),
        )
        .await;
    assert_eq!(out["replaced"], true);
    assert_eq!(
        std::fs::read_to_string(bench.path("hello.txt")).unwrap(),
        "hello world"
    );
}

#[tokio::test]
async fn a_download_past_max_bytes_keeps_nothing() {
    let bench = local_bench();
    let base = server().await;
    bench
        .fails(
            "download_file",
            json!({"url": format!("{base}/big"), "path": "big.bin", "max_bytes": 1000}),
            "failed",
            "larger than the limit of 1000 bytes",
        )
        .await;
    assert!(!bench.path("big.bin").exists());
    assert!(leftovers(bench.root()).is_empty());
}

#[tokio::test]
async fn the_configured_ceiling_wins_over_max_bytes() {
    let bench = bench_with(
        hermes_tools::NetworkConfig::default()
            .allow_private(true)
            .max_download_bytes(4096),
    );
    let base = server().await;
    bench
        .fails(
            "download_file",
            json!({"url": format!("{base}/big"), "path": "big.bin", "max_bytes": 10_000_000}),
            "failed",
            "limit of 4096 bytes",
        )
        .await;
    assert!(!bench.path("big.bin").exists());
}

#[tokio::test]
async fn progress_is_reported_up_to_the_whole_size() {
    let mut bench = local_bench();
    let sink = EventSink::new();
    bench.run = RunContext::new()
        .with_session("tests")
        .with_events(sink.clone());
    let base = server().await;
    let out = bench
        .ok(
            "download_file",
            json!({"url": format!("{base}/big"), "path": "big.bin"}),
        )
        .await;
    assert_eq!(out["bytes"], 1024 * 1024);
    let progress: Vec<(Option<u64>, Option<u64>)> = sink
        .events()
        .iter()
        .filter_map(|event| match event {
            AgentEvent::ToolProgress { done, total, .. } => Some((*done, *total)),
            _ => None,
        })
        .collect();
    assert!(progress.len() >= 2, "{progress:?}");
    assert_eq!(progress[0], (Some(0), Some(1024 * 1024)));
    assert_eq!(
        progress.last().copied(),
        Some((Some(1024 * 1024), Some(1024 * 1024)))
    );
    assert!(progress.windows(2).all(|pair| pair[0].0 <= pair[1].0));
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused() {
    let bench = local_bench();
    let base = server().await;
    bench
        .fails(
            "download_file",
            json!({"url": format!("{base}/hello"), "path": "../../etc/passwd"}),
            "failed",
            "outside the workspace",
        )
        .await;
    bench
        .fails(
            "download_file",
            json!({"url": format!("{base}/hello"), "path": "/tmp/escape.txt"}),
            "failed",
            "outside the workspace",
        )
        .await;
}

#[tokio::test]
async fn an_error_status_or_a_directory_saves_nothing() {
    let bench = local_bench();
    let base = server().await;
    bench
        .fails(
            "download_file",
            json!({"url": format!("{base}/gone"), "path": "gone.txt"}),
            "failed",
            "HTTP 410 Gone; nothing was saved",
        )
        .await;
    assert!(!bench.path("gone.txt").exists());
    std::fs::create_dir(bench.path("folder")).unwrap();
    bench
        .fails(
            "download_file",
            json!({"url": format!("{base}/hello"), "path": "folder", "overwrite": true}),
            "failed",
            "is a directory",
        )
        .await;
}

//! Every multimedia tool refuses paths outside the workspace, missing files,
//! directories, FIFOs and arguments of the wrong type, before reading anything.

use serde_json::{Value, json};

use crate::common::Bench;

/// A call of each tool reading `path`.
fn reads(path: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("image_info", json!({"path": path})),
        (
            "image_transform",
            json!({"input": path, "output": "out.png"}),
        ),
        ("pdf_read", json!({"path": path})),
        ("audio_info", json!({"path": path})),
        ("video_info", json!({"path": path})),
        ("video_frame", json!({"path": path, "output": "out.png"})),
    ]
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused() {
    let bench = Bench::new();
    for path in ["../../etc/passwd", "/etc/passwd", "sub/../../outside.png"] {
        for (tool, args) in reads(path) {
            let message = bench
                .fails(tool, args, "failed", "outside the workspace")
                .await;
            assert!(message.contains(path), "{tool}: {message}");
        }
    }
    crate::fixtures::png(&bench.path("in.png"), 4, 4);
    for output in ["../escape.png", "/tmp/escape.png"] {
        bench
            .fails(
                "image_transform",
                json!({"input": "in.png", "output": output}),
                "failed",
                "outside the workspace",
            )
            .await;
        bench
            .fails(
                "video_frame",
                json!({"path": "in.png", "output": output}),
                "failed",
                "outside the workspace",
            )
            .await;
    }
    assert!(!bench.path("out.png").exists());
}

#[cfg(unix)]
#[tokio::test]
async fn a_link_leading_out_is_refused() {
    let bench = Bench::new();
    let outside = tempfile::tempdir().unwrap();
    crate::fixtures::png(&outside.path().join("secret.png"), 4, 4);
    std::os::unix::fs::symlink(outside.path().join("secret.png"), bench.path("link.png")).unwrap();
    bench
        .fails(
            "image_info",
            json!({"path": "link.png"}),
            "failed",
            "outside the workspace",
        )
        .await;
}

#[tokio::test]
async fn missing_files_directories_and_fifos_are_refused() {
    let bench = Bench::new();
    std::fs::create_dir(bench.path("folder")).unwrap();
    let fifo = bench.path("pipe.wav");
    crate::fixtures::make("mkfifo", &[fifo.to_str().unwrap()]);
    for (path, needle) in [
        ("missing.png", "does not exist"),
        ("folder", "is a directory"),
        ("pipe.wav", "not a regular file"),
    ] {
        for (tool, args) in reads(path) {
            let message = bench.fails(tool, args, "failed", needle).await;
            assert!(message.contains(path), "{tool}: {message}");
        }
    }
}

#[tokio::test]
async fn arguments_of_the_wrong_type_are_invalid() {
    let bench = Bench::new();
    for (tool, args) in [
        ("image_info", json!({"path": 42})),
        ("image_info", json!({})),
        ("image_info", json!({"path": "a.png", "extra": true})),
        ("image_transform", json!({"input": "a.png"})),
        (
            "image_transform",
            json!({"input": "a.png", "output": "b.png", "overwrite": "yes"}),
        ),
        ("pdf_read", json!({"path": ["a.pdf"]})),
        ("audio_info", json!({"path": null})),
        ("video_info", json!({"path": ""})),
        ("video_frame", json!({"path": "a.mp4"})),
    ] {
        bench.fails(tool, args, "invalid_arguments", "").await;
    }
}

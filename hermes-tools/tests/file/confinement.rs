//! Every file tool refuses paths outside the workspace: `..`, absolute paths, links.

use serde_json::{Value, json};

use crate::common::Bench;

/// A call of each tool naming `path` where it names a path.
fn calls(path: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("file_read", json!({"path": path})),
        ("file_write", json!({"path": path, "content": "x"})),
        (
            "file_edit",
            json!({"path": path, "old_text": "a", "new_text": "b"}),
        ),
        ("list_directory", json!({"path": path})),
        ("file_search", json!({"path": path, "glob": "*"})),
        ("file_delete", json!({"path": path})),
        (
            "archive",
            json!({"action": "create", "archive": "out.zip", "sources": [path]}),
        ),
        (
            "archive",
            json!({"action": "create", "archive": path, "sources": ["."]}),
        ),
        (
            "archive",
            json!({"action": "extract", "archive": path, "destination": "out"}),
        ),
        (
            "archive",
            json!({"action": "extract", "archive": "in.zip", "destination": path}),
        ),
    ]
}

#[tokio::test]
async fn dot_dot_and_absolute_paths_outside_are_refused() {
    let bench = Bench::new();
    std::fs::write(bench.path("in.zip"), "").unwrap();
    for path in [
        "../../etc/passwd",
        "/etc/passwd",
        "/etc",
        "sub/../../outside.txt",
    ] {
        for (tool, args) in calls(path) {
            let message = bench
                .fails(tool, args, "failed", "outside the workspace")
                .await;
            assert!(message.contains(path), "{tool}: {message}");
        }
    }
    assert!(!bench.path("out.zip").exists());
    assert!(!bench.path("out").exists());
}

#[cfg(unix)]
#[tokio::test]
async fn a_link_pointing_outside_is_judged_by_its_target() {
    let bench = Bench::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret"), "s3cret").unwrap();
    std::os::unix::fs::symlink(outside.path(), bench.path("escape")).unwrap();
    for tool in ["file_read", "file_edit", "file_write"] {
        let args =
            json!({"path": "escape/secret", "content": "x", "old_text": "s", "new_text": "t"});
        bench
            .fails(tool, args, "failed", "outside the workspace")
            .await;
    }
    bench
        .fails(
            "list_directory",
            json!({"path": "escape"}),
            "failed",
            "outside the workspace",
        )
        .await;
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret")).unwrap(),
        "s3cret"
    );
}

#[tokio::test]
async fn paths_that_cannot_name_a_file_are_refused() {
    let bench = Bench::new();
    bench
        .fails(
            "file_read",
            json!({"path": "a\u{2215}b"}),
            "failed",
            "cannot be used as a path",
        )
        .await;
}

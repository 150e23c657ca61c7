//! `file_delete`: files, links, directories behind approval, never the workspace root.

use hermes_core::{DenyAll, Dispatcher, RunContext, ToolCall};
use hermes_tools::ToolsConfig;
use serde_json::{Value, json};

use crate::common::Bench;

/// A gateway over the built-in tools whose approver refuses everything.
fn denying(root: &std::path::Path) -> Dispatcher {
    let registry =
        hermes_tools::builtin(ToolsConfig::builder().workspace_root(root).build()).unwrap();
    Dispatcher::builder(registry)
        .approver(DenyAll)
        .build()
        .unwrap()
}

async fn call(dispatcher: &Dispatcher, args: Value) -> Value {
    let call = ToolCall::with_args("call_1", "file_delete", &args);
    let report = dispatcher
        .dispatch(&call, &RunContext::new().with_session("tests"))
        .await;
    serde_json::from_str(&report.message.content).unwrap()
}

#[tokio::test]
async fn deletes_a_file() {
    let bench = Bench::new();
    std::fs::write(bench.path("old.txt"), "x").unwrap();
    let out = bench.ok("file_delete", json!({"path": "old.txt"})).await;
    assert_eq!(out, json!({"path": "old.txt", "deleted": "file"}));
    assert!(!bench.path("old.txt").exists());
    // The same call again would be answered from the idempotency cache; another
    // spelling of the path runs again.
    bench
        .fails(
            "file_delete",
            json!({"path": "./old.txt"}),
            "failed",
            "does not exist",
        )
        .await;
}

#[tokio::test]
async fn a_directory_needs_recursive() {
    let bench = Bench::new();
    std::fs::create_dir_all(bench.path("build/cache")).unwrap();
    std::fs::write(bench.path("build/cache/a"), "x").unwrap();
    bench
        .fails(
            "file_delete",
            json!({"path": "build"}),
            "failed",
            "recursive: true",
        )
        .await;
    assert!(bench.path("build/cache/a").exists());
    let out = bench
        .ok("file_delete", json!({"path": "build", "recursive": true}))
        .await;
    assert_eq!(
        out,
        json!({"path": "build", "deleted": "directory", "entries": 2})
    );
    assert!(!bench.path("build").exists());
}

#[tokio::test]
async fn recursive_delete_is_refused_without_approval() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("data/sub")).unwrap();
    std::fs::write(dir.path().join("data/sub/file"), "precious").unwrap();
    let dispatcher = denying(dir.path());
    let out = call(&dispatcher, json!({"path": "data", "recursive": true})).await;
    assert_eq!(out["error"]["kind"], "approval_denied", "{out}");
    assert_eq!(out["error"]["requires_confirmation"], true);
    assert!(dir.path().join("data/sub/file").exists());
    // A plain file and an empty directory need no approval.
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    let out = call(&dispatcher, json!({"path": "empty", "recursive": true})).await;
    assert_eq!(out["deleted"], "directory", "{out}");
    let out = call(&dispatcher, json!({"path": "data/sub/file"})).await;
    assert_eq!(out["deleted"], "file", "{out}");
}

#[tokio::test]
async fn the_workspace_root_is_never_deleted() {
    let bench = Bench::new();
    std::fs::write(bench.path("keep"), "x").unwrap();
    for path in [".", "./", "sub/..", bench.root().to_str().unwrap()] {
        bench
            .fails(
                "file_delete",
                json!({"path": path, "recursive": true}),
                "failed",
                "workspace root",
            )
            .await;
    }
    assert!(bench.path("keep").exists());
}

#[cfg(unix)]
#[tokio::test]
async fn a_link_is_deleted_not_its_target() {
    let bench = Bench::new();
    std::fs::create_dir(bench.path("real")).unwrap();
    std::fs::write(bench.path("real/file"), "x").unwrap();
    std::os::unix::fs::symlink("real", bench.path("link")).unwrap();
    let out = bench.ok("file_delete", json!({"path": "link"})).await;
    assert_eq!(out, json!({"path": "link", "deleted": "symlink"}));
    assert!(bench.path("real/file").exists());
    assert!(bench.path("link").symlink_metadata().is_err());
}

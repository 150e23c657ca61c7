//! `file_write`: atomic creation and replacement, parents, permissions.

use serde_json::json;

use crate::common::Bench;

#[tokio::test]
async fn creates_then_overwrites_leaving_no_temporary_files() {
    let bench = Bench::new();
    let out = bench
        .ok(
            "file_write",
            json!({"path": "notes.md", "content": "# Notes\n"}),
        )
        .await;
    assert_eq!(
        out,
        json!({"path": "notes.md", "action": "created", "bytes_written": 8})
    );
    let out = bench
        .ok(
            "file_write",
            json!({"path": "notes.md", "content": "héllo"}),
        )
        .await;
    assert_eq!(out["action"], "overwrote");
    assert_eq!(out["bytes_written"], 6);
    assert_eq!(
        std::fs::read_to_string(bench.path("notes.md")).unwrap(),
        "héllo"
    );
    let names: Vec<_> = std::fs::read_dir(bench.root())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(names, ["notes.md"]);
}

#[tokio::test]
async fn a_missing_directory_needs_create_dirs() {
    let bench = Bench::new();
    bench
        .fails(
            "file_write",
            json!({"path": "a/b/c.txt", "content": "x"}),
            "failed",
            "create_dirs: true",
        )
        .await;
    assert!(!bench.path("a").exists());
    bench
        .ok(
            "file_write",
            json!({"path": "a/b/c.txt", "content": "x", "create_dirs": true}),
        )
        .await;
    assert_eq!(
        std::fs::read_to_string(bench.path("a/b/c.txt")).unwrap(),
        "x"
    );
}

#[tokio::test]
async fn a_directory_is_not_overwritten() {
    let bench = Bench::new();
    std::fs::create_dir(bench.path("dir")).unwrap();
    bench
        .fails(
            "file_write",
            json!({"path": "dir", "content": "x"}),
            "failed",
            "is a directory",
        )
        .await;
}

#[cfg(unix)]
#[tokio::test]
async fn overwriting_keeps_the_mode_and_read_only_files_are_refused() {
    use std::os::unix::fs::PermissionsExt;

    let bench = Bench::new();
    let script = bench.path("run.sh");
    std::fs::write(&script, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o750)).unwrap();
    bench
        .ok(
            "file_write",
            json!({"path": "run.sh", "content": "#!/bin/sh\necho hi\n"}),
        )
        .await;
    let mode = std::fs::metadata(&script).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o750);
    assert_eq!(
        std::fs::read_to_string(&script).unwrap(),
        "#!/bin/sh\necho hi\n"
    );

    let locked = bench.path("locked.txt");
    std::fs::write(&locked, "keep").unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o444)).unwrap();
    bench
        .fails(
            "file_write",
            json!({"path": "locked.txt", "content": "x"}),
            "failed",
            "read-only",
        )
        .await;
    assert_eq!(std::fs::read_to_string(&locked).unwrap(), "keep");
}

//! Every git tool: repositories and paths outside the workspace are refused, a
//! directory that is no repository is explained.

use serde_json::json;

use crate::common::Bench;
use crate::support::{bench, commit_all, init, isolate, with_two_files, write};

/// One call of each tool, with `path` as its repository argument.
fn calls(path: &str) -> Vec<(&'static str, serde_json::Value)> {
    vec![
        ("git_status", json!({"path": path})),
        ("git_log", json!({"path": path})),
        ("git_diff", json!({"path": path})),
        (
            "git_commit",
            json!({"path": path, "message": "m", "all": true}),
        ),
    ]
}

#[tokio::test]
async fn a_directory_that_is_no_repository_is_explained() {
    let bench = bench();
    std::fs::create_dir(bench.path("plain")).unwrap();
    for (tool, args) in calls("plain") {
        bench
            .fails(tool, args, "failed", "is not in a git repository")
            .await;
    }
}

#[tokio::test]
async fn paths_leading_out_of_the_workspace_are_refused() {
    let bench = bench();
    with_two_files(&bench);
    for (tool, args) in calls("../../etc") {
        bench
            .fails(tool, args, "failed", "outside the workspace")
            .await;
    }
    for tool in ["git_log", "git_diff"] {
        bench
            .fails(
                tool,
                json!({"paths": ["../../etc/passwd"]}),
                "failed",
                "outside the workspace",
            )
            .await;
    }
    bench
        .fails(
            "git_commit",
            json!({"message": "m", "paths": ["../../etc/passwd"]}),
            "failed",
            "outside the workspace",
        )
        .await;
}

#[tokio::test]
async fn a_link_to_a_repository_outside_is_judged_by_its_target() {
    isolate();
    let outside = tempfile::tempdir().unwrap();
    init(outside.path());
    write(outside.path(), "a.txt", "outside\n");
    commit_all(outside.path(), "outside");
    let bench = bench();
    std::os::unix::fs::symlink(outside.path(), bench.path("link")).unwrap();
    for (tool, args) in calls("link") {
        bench
            .fails(tool, args, "failed", "outside the workspace")
            .await;
    }
}

#[tokio::test]
async fn a_repository_above_the_workspace_is_not_used() {
    isolate();
    let outer = tempfile::tempdir().unwrap();
    init(outer.path());
    write(outer.path(), "secret.txt", "outside\n");
    commit_all(outer.path(), "outside");
    let inner = outer.path().join("workspace");
    std::fs::create_dir(&inner).unwrap();
    let bench = Bench::with_config(|config| config.workspace_root(&inner));
    for (tool, args) in calls(".") {
        bench
            .fails(
                tool,
                args,
                "failed",
                "not in a git repository inside the workspace",
            )
            .await;
    }
}

#[tokio::test]
async fn paths_outside_the_repository_are_refused() {
    let bench = bench();
    init(&bench.path("repo"));
    write(&bench.path("repo"), "a.txt", "a\n");
    commit_all(&bench.path("repo"), "a");
    write(bench.root(), "elsewhere.txt", "not in the repository\n");
    bench
        .fails(
            "git_log",
            json!({"path": "repo", "paths": ["elsewhere.txt"]}),
            "failed",
            "not inside the repository",
        )
        .await;
    let out = bench
        .ok("git_log", json!({"path": "repo", "paths": ["repo/a.txt"]}))
        .await;
    assert_eq!(out["commits"].as_array().unwrap().len(), 1);
}

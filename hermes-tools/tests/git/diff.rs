//! `git_diff`: unstaged, staged and between revisions; per-file statistics, renames,
//! path filters, the patch cap, bad combinations of arguments.

use serde_json::{Value, json};

use crate::common::Bench;
use crate::support::{bench, commit_all, git, with_two_files, write};

/// The `(path, change, insertions, deletions)` of each file.
fn files(out: &Value) -> Vec<(String, String, u64, u64)> {
    let mut files: Vec<_> = out["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| {
            (
                file["path"].as_str().unwrap().to_owned(),
                file["change"].as_str().unwrap().to_owned(),
                file["insertions"].as_u64().unwrap(),
                file["deletions"].as_u64().unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

fn row(path: &str, change: &str, insertions: u64, deletions: u64) -> (String, String, u64, u64) {
    (path.to_owned(), change.to_owned(), insertions, deletions)
}

#[tokio::test]
async fn unstaged_changes_come_as_a_patch_with_counts() {
    let bench = bench();
    let root = with_two_files(&bench);
    write(&root, "a.txt", "alpha\nsecond\nthird\n");
    std::fs::remove_file(root.join("b.txt")).unwrap();
    write(&root, "untracked.txt", "not shown\n");
    let out = bench.ok("git_diff", json!({})).await;
    assert_eq!(
        (out["from"].as_str(), out["to"].as_str()),
        (Some("index"), Some("worktree"))
    );
    assert_eq!(
        files(&out),
        [
            row("a.txt", "modified", 2, 0),
            row("b.txt", "deleted", 0, 1)
        ]
    );
    assert_eq!(
        (
            out["files_changed"].as_u64(),
            out["insertions"].as_u64(),
            out["deletions"].as_u64()
        ),
        (Some(2), Some(2), Some(1))
    );
    let patch = out["patch"].as_str().unwrap();
    assert!(patch.contains("diff --git a/a.txt b/a.txt"), "{patch}");
    assert!(patch.contains("+second\n+third\n"), "{patch}");
    assert!(patch.contains("-beta\n"), "{patch}");
    assert!(!patch.contains("untracked"), "{patch}");
    assert_eq!(out["truncated"], false);
}

#[tokio::test]
async fn staged_shows_the_index_against_head_only() {
    let bench = bench();
    let root = with_two_files(&bench);
    write(&root, "a.txt", "alpha staged\n");
    git(&root, &["add", "a.txt"]);
    write(&root, "b.txt", "beta unstaged\n");
    let staged = bench.ok("git_diff", json!({"staged": true})).await;
    assert_eq!(
        (staged["from"].as_str(), staged["to"].as_str()),
        (Some("HEAD"), Some("index"))
    );
    assert_eq!(files(&staged), [row("a.txt", "modified", 1, 1)]);
    assert!(staged["patch"].as_str().unwrap().contains("+alpha staged"));
    let unstaged = bench.ok("git_diff", json!({})).await;
    assert_eq!(files(&unstaged), [row("b.txt", "modified", 1, 1)]);
}

#[tokio::test]
async fn two_revisions_compare_with_renames_and_path_filters() {
    let bench = bench();
    let root = with_two_files(&bench);
    git(&root, &["tag", "start"]);
    git(&root, &["mv", "a.txt", "moved.txt"]);
    write(&root, "b.txt", "beta\nmore\n");
    write(&root, "dir/c.txt", "gamma\n");
    commit_all(&root, "second");
    let out = bench
        .ok("git_diff", json!({"from": "start", "to": "HEAD"}))
        .await;
    assert_eq!(
        files(&out),
        [
            row("b.txt", "modified", 1, 0),
            row("dir/c.txt", "added", 1, 0),
            row("moved.txt", "renamed", 0, 0)
        ]
    );
    let moved = out["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|file| file["path"] == "moved.txt")
        .unwrap();
    assert_eq!(moved["old_path"], "a.txt");
    let only_dir = bench
        .ok(
            "git_diff",
            json!({"from": "start", "to": "HEAD", "paths": ["dir"]}),
        )
        .await;
    assert_eq!(files(&only_dir), [row("dir/c.txt", "added", 1, 0)]);
    // From a revision alone: that revision against the working tree.
    write(&root, "b.txt", "beta\nmore\nand more\n");
    let since = bench
        .ok("git_diff", json!({"from": "HEAD~1", "paths": ["b.txt"]}))
        .await;
    assert_eq!(since["to"], "worktree");
    assert_eq!(files(&since), [row("b.txt", "modified", 2, 0)]);
}

#[tokio::test]
async fn binary_files_are_flagged_without_line_counts() {
    let bench = bench();
    let root = with_two_files(&bench);
    std::fs::write(root.join("blob.bin"), [0u8, 1, 2, 3, 0, 255]).unwrap();
    commit_all(&root, "blob");
    std::fs::write(root.join("blob.bin"), [0u8, 9, 9, 9, 0, 255, 7]).unwrap();
    let out = bench.ok("git_diff", json!({})).await;
    assert_eq!(out["files"][0]["path"], "blob.bin");
    assert_eq!(out["files"][0]["binary"], true);
    assert_eq!(files(&out), [row("blob.bin", "modified", 0, 0)]);
    assert!(
        out["patch"].as_str().unwrap().contains("Binary files"),
        "{out}"
    );
}

#[tokio::test]
async fn a_large_patch_is_cut_in_the_middle() {
    let bench = Bench::with_config(|config| config.max_output_bytes(2048));
    crate::support::init(bench.root());
    let root = bench.root();
    let before: String = (0..2000).map(|n| format!("line {n}\n")).collect();
    write(root, "big.txt", &before);
    commit_all(root, "big");
    let after: String = (0..2000).map(|n| format!("changed {n}\n")).collect();
    write(root, "big.txt", &after);
    let out = bench.ok("git_diff", json!({})).await;
    assert_eq!(out["truncated"], true);
    let patch = out["patch"].as_str().unwrap();
    assert!(patch.len() <= 2048 + 200, "{}", patch.len());
    assert!(
        patch.starts_with("diff --git a/big.txt b/big.txt"),
        "{patch}"
    );
    assert!(patch.ends_with("+changed 1999\n"), "{patch}");
    assert_eq!(files(&out), [row("big.txt", "modified", 2000, 2000)]);
    assert!(out["note"].as_str().unwrap().contains("paths"));
}

#[tokio::test]
async fn bad_revisions_and_combinations_are_refused() {
    let bench = bench();
    with_two_files(&bench);
    bench
        .fails(
            "git_diff",
            json!({"to": "HEAD"}),
            "invalid_arguments",
            "needs `from`",
        )
        .await;
    bench
        .fails(
            "git_diff",
            json!({"from": "HEAD", "to": "HEAD", "staged": true}),
            "invalid_arguments",
            "staged",
        )
        .await;
    bench
        .fails(
            "git_diff",
            json!({"from": "nope"}),
            "failed",
            "does not name",
        )
        .await;
    bench
        .fails(
            "git_diff",
            json!({"staged": "yes"}),
            "invalid_arguments",
            "",
        )
        .await;
}

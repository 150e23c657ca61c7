//! `git_status`: branch and HEAD, the groups of changed files, renames, an unborn
//! branch, the upstream, the file cap, repositories found from a subdirectory.

use serde_json::{Value, json};

use crate::support::{bench, commit_all, git, git_fails, head, init, with_two_files, write};

/// The `path` and `change` of each entry of a group.
fn entries(group: &Value) -> Vec<(String, String)> {
    let mut entries: Vec<(String, String)> = group
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["path"].as_str().unwrap().to_owned(),
                entry["change"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    entries.sort();
    entries
}

#[tokio::test]
async fn a_clean_repository_reports_its_branch_and_head() {
    let bench = bench();
    let root = with_two_files(&bench);
    let out = bench.ok("git_status", json!({})).await;
    assert_eq!(out["repository"], ".");
    assert_eq!(out["branch"], "main");
    assert_eq!(out["clean"], true);
    let short = out["head"].as_str().unwrap();
    assert!(head(&root).starts_with(short), "{short}");
    assert!(short.len() >= 7);
    assert_eq!(out["staged"], json!([]));
    assert_eq!(out["unstaged"], json!([]));
    assert_eq!(out["untracked"], json!([]));
    assert!(out.get("upstream").is_none());
}

#[tokio::test]
async fn files_are_grouped_by_staged_unstaged_and_untracked() {
    let bench = bench();
    let root = with_two_files(&bench);
    write(&root, "c.txt", "new and staged\n");
    git(&root, &["add", "c.txt"]);
    git(&root, &["rm", "-q", "b.txt"]);
    write(&root, "a.txt", "alpha changed\n");
    write(&root, "notes/todo.md", "untracked\n");
    let out = bench.ok("git_status", json!({})).await;
    assert_eq!(out["clean"], false);
    assert_eq!(
        entries(&out["staged"]),
        [
            ("b.txt".to_owned(), "deleted".to_owned()),
            ("c.txt".to_owned(), "added".to_owned())
        ]
    );
    assert_eq!(
        entries(&out["unstaged"]),
        [("a.txt".to_owned(), "modified".to_owned())]
    );
    assert_eq!(out["untracked"], json!(["notes/todo.md"]));
    let without = bench
        .ok("git_status", json!({"include_untracked": false}))
        .await;
    assert_eq!(without["untracked"], json!([]));
}

#[tokio::test]
async fn a_staged_rename_names_the_old_path_and_a_file_can_be_in_both_groups() {
    let bench = bench();
    let root = with_two_files(&bench);
    git(&root, &["mv", "a.txt", "renamed.txt"]);
    write(&root, "b.txt", "beta staged\n");
    git(&root, &["add", "b.txt"]);
    write(&root, "b.txt", "beta staged, then changed again\n");
    std::fs::remove_file(root.join("renamed.txt")).unwrap();
    let out = bench.ok("git_status", json!({})).await;
    let staged = out["staged"].as_array().unwrap();
    let rename = staged
        .iter()
        .find(|entry| entry["path"] == "renamed.txt")
        .unwrap();
    assert_eq!(rename["change"], "renamed");
    assert_eq!(rename["old_path"], "a.txt");
    assert!(
        staged
            .iter()
            .any(|entry| entry["path"] == "b.txt" && entry["change"] == "modified")
    );
    assert_eq!(
        entries(&out["unstaged"]),
        [
            ("b.txt".to_owned(), "modified".to_owned()),
            ("renamed.txt".to_owned(), "deleted".to_owned())
        ]
    );
}

#[tokio::test]
async fn a_repository_without_commits_is_unborn_on_its_branch() {
    let bench = bench();
    init(bench.root());
    write(bench.root(), "first.txt", "hello\n");
    git(bench.root(), &["add", "first.txt"]);
    let out = bench.ok("git_status", json!({})).await;
    assert_eq!(out["unborn"], true);
    assert_eq!(out["branch"], "main");
    assert!(out.get("head").is_none());
    assert_eq!(
        entries(&out["staged"]),
        [("first.txt".to_owned(), "added".to_owned())]
    );
}

#[tokio::test]
async fn the_upstream_shows_how_far_ahead_and_behind_the_branch_is() {
    let bench = bench();
    let origin = bench.path("origin");
    init(&origin);
    write(&origin, "a.txt", "one\n");
    commit_all(&origin, "one");
    git(bench.root(), &["clone", "-q", "origin", "work"]);
    let work = bench.path("work");
    git(&work, &["config", "user.name", "Ada Tester"]);
    git(&work, &["config", "user.email", "ada@example.com"]);
    write(&work, "b.txt", "mine\n");
    commit_all(&work, "mine");
    write(&work, "c.txt", "mine too\n");
    commit_all(&work, "mine too");
    write(&origin, "d.txt", "theirs\n");
    commit_all(&origin, "theirs");
    git(&work, &["fetch", "-q"]);
    let out = bench.ok("git_status", json!({"path": "work"})).await;
    assert_eq!(out["repository"], "work");
    assert_eq!(
        out["upstream"],
        json!({"name": "origin/main", "ahead": 2, "behind": 1})
    );
}

#[tokio::test]
async fn max_files_caps_the_listing_and_says_so() {
    let bench = bench();
    let root = with_two_files(&bench);
    for n in 0..5 {
        write(&root, &format!("new{n}.txt"), "x\n");
    }
    let out = bench.ok("git_status", json!({"max_files": 2})).await;
    assert_eq!(out["untracked"].as_array().unwrap().len(), 2);
    assert_eq!(out["truncated"], true);
    assert!(out["note"].as_str().unwrap().contains("max_files"));
    let all = bench.ok("git_status", json!({})).await;
    assert_eq!(all["untracked"].as_array().unwrap().len(), 5);
    assert_eq!(all["truncated"], false);
}

#[tokio::test]
async fn a_path_inside_a_repository_finds_it() {
    let bench = bench();
    let nested = bench.path("projects/app");
    init(&nested);
    write(&nested, "src/lib.rs", "fn main() {}\n");
    commit_all(&nested, "initial");
    write(&nested, "src/lib.rs", "fn main() { run() }\n");
    let out = bench
        .ok("git_status", json!({"path": "projects/app/src"}))
        .await;
    assert_eq!(out["repository"], "projects/app");
    assert_eq!(
        entries(&out["unstaged"]),
        [("src/lib.rs".to_owned(), "modified".to_owned())]
    );
}

#[tokio::test]
async fn paths_narrow_the_listing() {
    let bench = bench();
    let root = with_two_files(&bench);
    write(&root, "a.txt", "alpha changed\n");
    write(&root, "docs/guide.md", "new\n");
    write(&root, "src/main.rs", "fn main() {}\n");
    let out = bench
        .ok("git_status", json!({"paths": ["docs", "a.txt"]}))
        .await;
    assert_eq!(out["untracked"], json!(["docs/guide.md"]));
    assert_eq!(
        entries(&out["unstaged"]),
        [("a.txt".to_owned(), "modified".to_owned())]
    );
    let elsewhere = bench.ok("git_status", json!({"paths": ["b.txt"]})).await;
    assert_eq!(elsewhere["clean"], true);
}

#[tokio::test]
async fn a_merge_conflict_is_listed_and_blocks_a_commit() {
    let bench = bench();
    let root = with_two_files(&bench);
    git(&root, &["checkout", "-q", "-b", "other"]);
    write(&root, "a.txt", "theirs\n");
    commit_all(&root, "theirs");
    git(&root, &["checkout", "-q", "main"]);
    write(&root, "a.txt", "ours\n");
    commit_all(&root, "ours");
    git_fails(&root, &["merge", "-q", "other"]);
    let out = bench.ok("git_status", json!({})).await;
    assert_eq!(out["conflicted"], json!(["a.txt"]));
    assert_eq!(out["clean"], false);
    let before = head(&root);
    bench
        .fails(
            "git_commit",
            json!({"message": "Merge", "all": true}),
            "failed",
            "middle of an operation",
        )
        .await;
    assert_eq!(head(&root), before);
}

#[tokio::test]
async fn a_bare_repository_has_a_log_but_no_status() {
    let bench = bench();
    let root = with_two_files(&bench);
    git(&root, &["clone", "-q", "--bare", ".", "copy.git"]);
    let log = bench.ok("git_log", json!({"path": "copy.git"})).await;
    assert_eq!(log["commits"][0]["summary"], "initial");
    bench
        .fails(
            "git_status",
            json!({"path": "copy.git"}),
            "failed",
            "bare repository",
        )
        .await;
    bench
        .fails(
            "git_diff",
            json!({"path": "copy.git"}),
            "failed",
            "bare repository",
        )
        .await;
}

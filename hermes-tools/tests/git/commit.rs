//! `git_commit`: staging paths or every tracked change, what the result shows, the
//! first commit, empty commits, authors, retries, blank messages.

use serde_json::{Value, json};

use crate::support::{
    bench, git, head, init, init_bare_identity, porcelain, with_two_files, write,
};

/// The `(path, change)` of each committed file.
fn committed(out: &Value) -> Vec<(String, String)> {
    let mut files: Vec<_> = out["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| {
            (
                file["path"].as_str().unwrap().to_owned(),
                file["change"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    files.sort();
    files
}

fn pair(path: &str, change: &str) -> (String, String) {
    (path.to_owned(), change.to_owned())
}

#[tokio::test]
async fn paths_are_staged_and_only_they_are_committed() {
    let bench = bench();
    let root = with_two_files(&bench);
    let before = head(&root);
    write(&root, "a.txt", "alpha\nchanged\n");
    write(&root, "b.txt", "beta changed\n");
    write(&root, "new/c.txt", "gamma\n");
    let out = bench
        .ok(
            "git_commit",
            json!({"message": "Change a, add c", "paths": ["a.txt", "new"]}),
        )
        .await;
    assert_eq!(out["commit"], head(&root).as_str());
    assert!(head(&root).starts_with(out["short_id"].as_str().unwrap()));
    assert_eq!(out["branch"], "main");
    assert_eq!(out["summary"], "Change a, add c");
    assert_eq!(out["author"], "Ada Tester <ada@example.com>");
    assert!(before.starts_with(out["parent"].as_str().unwrap()));
    assert_eq!(
        committed(&out),
        [pair("a.txt", "modified"), pair("new/c.txt", "added")]
    );
    assert_eq!(
        (
            out["files_changed"].as_u64(),
            out["insertions"].as_u64(),
            out["deletions"].as_u64()
        ),
        (Some(2), Some(2), Some(0))
    );
    // What git itself says was committed, and what is left.
    let shown = git(
        &root,
        &["show", "--name-status", "--format=%an|%ae|%s", "HEAD"],
    );
    assert_eq!(
        shown.trim(),
        "Ada Tester|ada@example.com|Change a, add c\n\nM\ta.txt\nA\tnew/c.txt"
    );
    assert_eq!(porcelain(&root), [" M b.txt"]);
    assert_eq!(git(&root, &["rev-parse", "HEAD~1"]).trim(), before);
}

#[tokio::test]
async fn all_stages_tracked_changes_but_not_untracked_files() {
    let bench = bench();
    let root = with_two_files(&bench);
    write(&root, "a.txt", "alpha 2\n");
    std::fs::remove_file(root.join("b.txt")).unwrap();
    write(&root, "stray.txt", "untracked\n");
    let out = bench
        .ok(
            "git_commit",
            json!({"message": "Update tracked files", "all": true}),
        )
        .await;
    assert_eq!(
        committed(&out),
        [pair("a.txt", "modified"), pair("b.txt", "deleted")]
    );
    assert_eq!(
        git(&root, &["show", "--name-status", "--format=", "HEAD"]).trim(),
        "M\ta.txt\nD\tb.txt"
    );
    assert_eq!(porcelain(&root), ["?? stray.txt"]);
}

#[tokio::test]
async fn changes_staged_before_are_committed_and_a_deleted_path_can_be_staged() {
    let bench = bench();
    let root = with_two_files(&bench);
    write(&root, "a.txt", "alpha staged earlier\n");
    git(&root, &["add", "a.txt"]);
    std::fs::remove_file(root.join("b.txt")).unwrap();
    let out = bench
        .ok("git_commit", json!({"message": "Both", "paths": ["b.txt"]}))
        .await;
    assert_eq!(
        committed(&out),
        [pair("a.txt", "modified"), pair("b.txt", "deleted")]
    );
    assert_eq!(porcelain(&root), Vec::<String>::new());
}

#[tokio::test]
async fn the_first_commit_of_a_repository_has_no_parent() {
    let bench = bench();
    let root = bench.root();
    init(root);
    write(root, "README.md", "# hello\n");
    let out = bench
        .ok(
            "git_commit",
            json!({"message": "Initial commit", "paths": ["README.md"]}),
        )
        .await;
    assert!(out.get("parent").is_none());
    assert_eq!(out["branch"], "main");
    assert_eq!(committed(&out), [pair("README.md", "added")]);
    assert_eq!(git(root, &["rev-list", "--count", "HEAD"]).trim(), "1");
    assert_eq!(
        git(root, &["log", "--format=%B", "-1"]).trim(),
        "Initial commit"
    );
}

#[tokio::test]
async fn a_commit_without_changes_is_refused_unless_allowed() {
    let bench = bench();
    let root = with_two_files(&bench);
    let before = head(&root);
    bench
        .fails(
            "git_commit",
            json!({"message": "Nothing"}),
            "failed",
            "nothing to commit",
        )
        .await;
    // Naming an unchanged file stages nothing either.
    bench
        .fails(
            "git_commit",
            json!({"message": "Nothing", "paths": ["a.txt"]}),
            "failed",
            "nothing to commit",
        )
        .await;
    assert_eq!(head(&root), before);
    let out = bench
        .ok(
            "git_commit",
            json!({"message": "Marker", "allow_empty": true}),
        )
        .await;
    assert_eq!(out["files_changed"], 0);
    assert_eq!(git(&root, &["rev-list", "--count", "HEAD"]).trim(), "2");
    assert_eq!(git(&root, &["log", "--format=%s", "-1"]).trim(), "Marker");
}

#[tokio::test]
async fn without_a_configured_author_the_arguments_must_name_one() {
    let bench = bench();
    let root = bench.root();
    init_bare_identity(root);
    write(root, "a.txt", "a\n");
    let message = bench
        .fails(
            "git_commit",
            json!({"message": "Anonymous", "paths": ["a.txt"]}),
            "failed",
            "no commit author",
        )
        .await;
    assert!(message.contains("author_name"), "{message}");
    assert!(git(root, &["rev-list", "--all"]).trim().is_empty());
    // The refused call staged nothing.
    assert_eq!(porcelain(root), ["?? a.txt"]);
    let out = bench
        .ok(
            "git_commit",
            json!({
                "message": "Signed",
                "paths": ["a.txt"],
                "author_name": "Grace Given",
                "author_email": "grace@example.com"
            }),
        )
        .await;
    assert_eq!(out["author"], "Grace Given <grace@example.com>");
    assert_eq!(
        git(root, &["log", "--format=%an <%ae> / %cn <%ce>", "-1"]).trim(),
        "Grace Given <grace@example.com> / Grace Given <grace@example.com>"
    );
}

#[tokio::test]
async fn an_author_argument_overrides_the_config_but_the_committer_stays() {
    let bench = bench();
    let root = with_two_files(&bench);
    write(&root, "a.txt", "by someone else\n");
    bench
        .ok(
            "git_commit",
            json!({
                "message": "Theirs",
                "all": true,
                "author_name": "Grace Given",
                "author_email": "grace@example.com"
            }),
        )
        .await;
    assert_eq!(
        git(&root, &["log", "--format=%an <%ae> / %cn <%ce>", "-1"]).trim(),
        "Grace Given <grace@example.com> / Ada Tester <ada@example.com>"
    );
}

#[tokio::test]
async fn the_same_call_twice_commits_twice_but_a_key_commits_once() {
    let bench = bench();
    let root = with_two_files(&bench);
    let args = json!({"message": "Update a", "all": true});
    write(&root, "a.txt", "one\n");
    let first = bench.ok("git_commit", args.clone()).await;
    write(&root, "a.txt", "two\n");
    let second = bench.ok("git_commit", args).await;
    assert_ne!(first["commit"], second["commit"]);
    assert_eq!(git(&root, &["rev-list", "--count", "HEAD"]).trim(), "3");
    let keyed = json!({"message": "Keyed", "all": true, "idempotency_key": "k-1"});
    write(&root, "a.txt", "three\n");
    let once = bench.ok("git_commit", keyed.clone()).await;
    write(&root, "a.txt", "four\n");
    let again = bench.ok("git_commit", keyed).await;
    assert_eq!(once["commit"], again["commit"]);
    assert_eq!(git(&root, &["rev-list", "--count", "HEAD"]).trim(), "4");
}

#[tokio::test]
async fn blank_messages_and_unknown_paths_are_refused() {
    let bench = bench();
    let root = with_two_files(&bench);
    write(&root, "a.txt", "changed\n");
    bench
        .fails(
            "git_commit",
            json!({"message": "   \n"}),
            "invalid_arguments",
            "blank",
        )
        .await;
    bench
        .fails(
            "git_commit",
            json!({"all": true}),
            "invalid_arguments",
            "message",
        )
        .await;
    bench
        .fails(
            "git_commit",
            json!({"message": "Ghost", "paths": ["ghost.txt"]}),
            "failed",
            "neither in the working tree nor tracked",
        )
        .await;
    assert_eq!(git(&root, &["rev-list", "--count", "HEAD"]).trim(), "1");
    assert_eq!(porcelain(&root), [" M a.txt"]);
}

#[tokio::test]
async fn paths_are_literal_names_not_patterns() {
    let bench = bench();
    let root = with_two_files(&bench);
    write(&root, "[ab].txt", "brackets\n");
    write(&root, "a.txt", "alpha changed\n");
    let out = bench
        .ok(
            "git_commit",
            json!({"message": "Brackets", "paths": ["[ab].txt"]}),
        )
        .await;
    assert_eq!(committed(&out), [pair("[ab].txt", "added")]);
    assert_eq!(porcelain(&root), [" M a.txt"]);
    let log = bench.ok("git_log", json!({"paths": ["[ab].txt"]})).await;
    assert_eq!(log["commits"].as_array().unwrap().len(), 1);
}

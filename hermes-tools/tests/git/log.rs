//! `git_log`: commits newest first with their authors and times, paging, path filters,
//! revisions and ranges, full messages, bad revisions.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{bench, commit_all, git, git_with, head, init, write};

/// Commit everything in `dir` as `message`, authored at `date` (RFC 2822 or ISO 8601).
fn commit_dated(dir: &Path, message: &str, date: &str) -> String {
    git(dir, &["add", "-A"]);
    git_with(
        dir,
        &["commit", "-q", "-m", message],
        &[("GIT_AUTHOR_DATE", date), ("GIT_COMMITTER_DATE", date)],
    );
    head(dir)
}

/// A repository with five commits, `c1` (oldest) to `c5`, one per day; c1, c3 and c5
/// change `a.txt`, c2 and c4 `b.txt`.
fn five_commits(root: &Path) -> Vec<String> {
    init(root);
    (1..=5)
        .map(|n| {
            let file = if n % 2 == 1 { "a.txt" } else { "b.txt" };
            write(root, file, &format!("version {n}\n"));
            commit_dated(
                root,
                &format!("c{n}"),
                &format!("2024-03-0{n}T10:00:00+02:00"),
            )
        })
        .collect()
}

fn summaries(out: &Value) -> Vec<String> {
    out["commits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|commit| commit["summary"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn commits_come_newest_first_with_author_time_and_ids() {
    let bench = bench();
    let ids = five_commits(bench.root());
    let out = bench.ok("git_log", json!({})).await;
    assert_eq!(summaries(&out), ["c5", "c4", "c3", "c2", "c1"]);
    assert_eq!(out["more"], false);
    let newest = &out["commits"][0];
    assert_eq!(newest["id"], ids[4].as_str());
    assert!(ids[4].starts_with(newest["short_id"].as_str().unwrap()));
    assert_eq!(newest["author"], "Ada Tester");
    assert_eq!(newest["email"], "ada@example.com");
    assert_eq!(newest["time"], "2024-03-05T10:00:00+02:00");
    assert_eq!(newest["parents"].as_array().unwrap().len(), 1);
    assert!(ids[3].starts_with(newest["parents"][0].as_str().unwrap()));
    assert_eq!(out["commits"][4]["parents"], json!([]));
    assert!(newest.get("message").is_none());
}

#[tokio::test]
async fn max_count_and_skip_page_through_history() {
    let bench = bench();
    five_commits(bench.root());
    let first = bench.ok("git_log", json!({"max_count": 2})).await;
    assert_eq!(summaries(&first), ["c5", "c4"]);
    assert_eq!(first["more"], true);
    assert_eq!(first["next_skip"], 2);
    let last = bench
        .ok("git_log", json!({"max_count": 2, "skip": 4}))
        .await;
    assert_eq!(summaries(&last), ["c1"]);
    assert_eq!(last["more"], false);
    assert!(last.get("next_skip").is_none());
}

#[tokio::test]
async fn paths_keep_only_commits_that_changed_them() {
    let bench = bench();
    five_commits(bench.root());
    let a = bench.ok("git_log", json!({"paths": ["a.txt"]})).await;
    assert_eq!(summaries(&a), ["c5", "c3", "c1"]);
    let b = bench
        .ok("git_log", json!({"paths": ["b.txt"], "max_count": 1}))
        .await;
    assert_eq!(summaries(&b), ["c4"]);
    assert_eq!(b["more"], true);
    let none = bench.ok("git_log", json!({"paths": ["missing.txt"]})).await;
    assert_eq!(none["commits"], json!([]));
}

#[tokio::test]
async fn a_revision_or_a_range_chooses_where_to_walk() {
    let bench = bench();
    let ids = five_commits(bench.root());
    let from = bench.ok("git_log", json!({"rev": "HEAD~3"})).await;
    assert_eq!(summaries(&from), ["c2", "c1"]);
    let range = bench.ok("git_log", json!({"rev": "HEAD~2..HEAD"})).await;
    assert_eq!(summaries(&range), ["c5", "c4"]);
    let by_id = bench
        .ok("git_log", json!({"rev": format!("{}..{}", ids[0], ids[2])}))
        .await;
    assert_eq!(summaries(&by_id), ["c3", "c2"]);
    git(bench.root(), &["tag", "v1", &ids[1]]);
    let tag = bench.ok("git_log", json!({"rev": "v1"})).await;
    assert_eq!(summaries(&tag), ["c2", "c1"]);
}

#[tokio::test]
async fn full_message_adds_the_body() {
    let bench = bench();
    let root = bench.root();
    init(root);
    write(root, "a.txt", "a\n");
    git(root, &["add", "a.txt"]);
    git(
        root,
        &[
            "commit",
            "-q",
            "-m",
            "Add a",
            "-m",
            "Because a is needed.\nSecond line.",
        ],
    );
    let plain = bench.ok("git_log", json!({})).await;
    assert_eq!(plain["commits"][0]["summary"], "Add a");
    assert!(plain["commits"][0].get("message").is_none());
    let full = bench.ok("git_log", json!({"full_message": true})).await;
    assert_eq!(
        full["commits"][0]["message"],
        "Add a\n\nBecause a is needed.\nSecond line.\n"
    );
}

#[tokio::test]
async fn unknown_revisions_and_empty_histories_are_explained() {
    let bench = bench();
    init(bench.root());
    bench
        .fails("git_log", json!({}), "failed", "no commits yet")
        .await;
    write(bench.root(), "a.txt", "a\n");
    commit_all(bench.root(), "first");
    bench
        .fails(
            "git_log",
            json!({"rev": "no-such-branch"}),
            "failed",
            "does not name",
        )
        .await;
    bench
        .fails(
            "git_log",
            json!({"max_count": "ten"}),
            "invalid_arguments",
            "",
        )
        .await;
    bench
        .fails("git_log", json!({"max_count": 0}), "invalid_arguments", "")
        .await;
}

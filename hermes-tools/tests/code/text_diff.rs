//! `text_diff`: unified diffs of texts and files, with their statistics.

use serde_json::json;

use crate::common::Bench;

#[tokio::test]
async fn diffs_texts_with_stats() {
    let bench = Bench::new();
    let old = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";
    let new = "one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\n";
    let value = bench
        .ok(
            "text_diff",
            json!({"old": old, "new": new, "context_lines": 1}),
        )
        .await;
    assert_eq!(value["added"], 2);
    assert_eq!(value["removed"], 1);
    assert_eq!(value["hunks"], 2);
    assert_eq!(value["identical"], false);
    assert_eq!(value["truncated"], false);
    let diff = value["diff"].as_str().unwrap();
    assert!(
        diff.starts_with("--- old\n+++ new\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"),
        "{diff}"
    );
    assert!(diff.contains("+eleven\n"), "{diff}");

    let value = bench.ok("text_diff", json!({"old": old, "new": new})).await;
    assert_eq!(
        value["hunks"], 2,
        "three lines of context around each change"
    );
    let value = bench
        .ok(
            "text_diff",
            json!({"old": old, "new": new, "context_lines": 5}),
        )
        .await;
    assert_eq!(
        value["hunks"], 1,
        "five lines of context join the two changes"
    );

    let value = bench.ok("text_diff", json!({"old": old, "new": old})).await;
    assert_eq!(
        value,
        json!({"identical": true, "added": 0, "removed": 0, "hunks": 0, "diff": "", "truncated": false})
    );
}

#[tokio::test]
async fn diffs_files_and_a_file_against_a_text() {
    let bench = Bench::new();
    std::fs::create_dir(bench.path("src")).unwrap();
    std::fs::write(bench.path("src/a.py"), "def f():\n    return 1\n").unwrap();
    std::fs::write(bench.path("src/b.py"), "def f():\n    return 2\n").unwrap();
    let value = bench
        .ok(
            "text_diff",
            json!({"old_path": "src/a.py", "new_path": "src/b.py"}),
        )
        .await;
    assert_eq!(
        (value["added"].as_u64(), value["removed"].as_u64()),
        (Some(1), Some(1))
    );
    let diff = value["diff"].as_str().unwrap();
    assert!(diff.starts_with("--- src/a.py\n+++ src/b.py\n"), "{diff}");
    assert!(diff.contains("-    return 1\n+    return 2\n"), "{diff}");

    let value = bench
        .ok(
            "text_diff",
            json!({"old_path": "src/a.py", "new": "def f():\n    return 1\n"}),
        )
        .await;
    assert_eq!(value["identical"], true);
}

#[tokio::test]
async fn long_diffs_are_cut_and_bad_sides_refused() {
    let bench = Bench::new();
    let old: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    let value = bench.ok("text_diff", json!({"old": old, "new": ""})).await;
    assert_eq!(value["removed"], 20_000);
    assert_eq!(value["truncated"], true);
    assert!(
        value["diff"]
            .as_str()
            .unwrap()
            .contains("bytes cut by hermes")
    );

    bench
        .fails(
            "text_diff",
            json!({"old": "a", "old_path": "x", "new": "b"}),
            "failed",
            "not both",
        )
        .await;
    bench
        .fails(
            "text_diff",
            json!({"new": "b"}),
            "failed",
            "give the old text",
        )
        .await;
    bench
        .fails(
            "text_diff",
            json!({"old_path": "nope.txt", "new": "b"}),
            "failed",
            "cannot read `nope.txt`",
        )
        .await;
    std::fs::write(bench.path("blob.bin"), [0xff, 0xfe, 0x00, 0x01]).unwrap();
    bench
        .fails(
            "text_diff",
            json!({"old_path": "blob.bin", "new": "b"}),
            "failed",
            "not UTF-8 text",
        )
        .await;
    bench
        .fails(
            "text_diff",
            json!({"old": "a", "new": "b", "context_lines": 1000}),
            "invalid_arguments",
            "context_lines",
        )
        .await;
}

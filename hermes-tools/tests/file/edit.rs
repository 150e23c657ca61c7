//! `file_edit`: exact replacement (0, 1, 2 matches, replace_all) and unified diffs.

use serde_json::json;

use crate::common::Bench;

const SOURCE: &str = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";

fn bench_with_source() -> Bench {
    let bench = Bench::new();
    std::fs::write(bench.path("main.rs"), SOURCE).unwrap();
    bench
}

fn read(bench: &Bench) -> String {
    std::fs::read_to_string(bench.path("main.rs")).unwrap()
}

#[tokio::test]
async fn replaces_text_that_occurs_once_and_reports_the_lines() {
    let bench = bench_with_source();
    let out = bench
        .ok(
            "file_edit",
            json!({"path": "main.rs", "old_text": "    let x = 1;\n", "new_text": "    let x = 2;\n    let y = 3;\n"}),
        )
        .await;
    assert_eq!(out["mode"], "replace");
    assert_eq!(out["edits"], 1);
    assert_eq!(
        out["changed_lines"],
        json!([{"start": 2, "end": 3, "added": 2, "removed": 1}])
    );
    assert_eq!(
        read(&bench),
        "fn main() {\n    let x = 2;\n    let y = 3;\n    println!(\"{x}\");\n}\n"
    );
}

#[tokio::test]
async fn no_match_names_the_closest_line_and_changes_nothing() {
    let bench = bench_with_source();
    let message = bench
        .fails(
            "file_edit",
            json!({"path": "main.rs", "old_text": "let x = 10;", "new_text": "let x = 2;"}),
            "failed",
            "was not found",
        )
        .await;
    assert!(message.contains("closest line is 2"), "{message}");
    assert_eq!(read(&bench), SOURCE);
}

#[tokio::test]
async fn wrong_indentation_is_pointed_out() {
    let bench = bench_with_source();
    bench
        .fails(
            "file_edit",
            json!({"path": "main.rs", "old_text": "let x = 1;\nprintln!(\"{x}\");", "new_text": ""}),
            "failed",
            "lines 2-3 if whitespace is ignored",
        )
        .await;
}

#[tokio::test]
async fn two_matches_need_more_context_or_replace_all() {
    let bench = Bench::new();
    std::fs::write(bench.path("main.rs"), "a = 1\nb = 2\na = 1\n").unwrap();
    let message = bench
        .fails(
            "file_edit",
            json!({"path": "main.rs", "old_text": "a = 1", "new_text": "a = 9"}),
            "failed",
            "occurs 2 times",
        )
        .await;
    assert!(
        message.contains("lines 1, 3") && message.contains("replace_all"),
        "{message}"
    );
    assert_eq!(read(&bench), "a = 1\nb = 2\na = 1\n");
    let out = bench
        .ok(
            "file_edit",
            json!({"path": "main.rs", "old_text": "a = 1", "new_text": "a = 9", "replace_all": true}),
        )
        .await;
    assert_eq!(out["edits"], 2);
    assert_eq!(read(&bench), "a = 9\nb = 2\na = 9\n");
}

#[tokio::test]
async fn applies_a_unified_diff() {
    let bench = bench_with_source();
    let patch = "--- a/main.rs\n+++ b/main.rs\n@@ -1,4 +1,5 @@\n fn main() {\n-    let x = 1;\n+    let x = 41;\n+    let x = x + 1;\n     println!(\"{x}\");\n }\n";
    let out = bench
        .ok("file_edit", json!({"path": "main.rs", "patch": patch}))
        .await;
    assert_eq!(out["mode"], "patch");
    assert_eq!(
        out["changed_lines"],
        json!([{"start": 2, "end": 3, "added": 2, "removed": 1}])
    );
    assert_eq!(
        read(&bench),
        "fn main() {\n    let x = 41;\n    let x = x + 1;\n    println!(\"{x}\");\n}\n"
    );
}

#[tokio::test]
async fn a_patch_that_does_not_match_is_refused_with_its_hunk() {
    let bench = bench_with_source();
    let patch = "@@ -1,3 +1,3 @@\n fn main() {\n-    let x = 100;\n+    let x = 2;\n     println!(\"{x}\");\n";
    let message = bench
        .fails(
            "file_edit",
            json!({"path": "main.rs", "patch": patch}),
            "failed",
            "hunk 1",
        )
        .await;
    assert!(
        message.contains("line 2 of the file is `    let x = 1;`"),
        "{message}"
    );
    assert!(message.contains("-    let x = 100;"), "{message}");
    assert_eq!(read(&bench), SOURCE);
}

#[tokio::test]
async fn the_two_modes_do_not_mix_and_one_is_needed() {
    let bench = bench_with_source();
    bench
        .fails(
            "file_edit",
            json!({"path": "main.rs", "old_text": "a", "new_text": "b", "patch": "@@ -1 +1 @@\n-a\n+b\n"}),
            "invalid_arguments",
            "not both",
        )
        .await;
    bench
        .fails(
            "file_edit",
            json!({"path": "main.rs"}),
            "invalid_arguments",
            "patch",
        )
        .await;
    bench
        .fails(
            "file_edit",
            json!({"path": "main.rs", "old_text": "x"}),
            "invalid_arguments",
            "needs new_text",
        )
        .await;
}

#[tokio::test]
async fn binary_files_are_not_edited() {
    let bench = Bench::new();
    std::fs::write(bench.path("blob.bin"), b"\0\x01\x02abc").unwrap();
    bench
        .fails(
            "file_edit",
            json!({"path": "blob.bin", "old_text": "abc", "new_text": "xyz"}),
            "failed",
            "binary",
        )
        .await;
}

#[cfg(unix)]
#[tokio::test]
async fn editing_keeps_the_mode() {
    use std::os::unix::fs::PermissionsExt;

    let bench = bench_with_source();
    std::fs::set_permissions(
        bench.path("main.rs"),
        std::fs::Permissions::from_mode(0o600),
    )
    .unwrap();
    bench
        .ok(
            "file_edit",
            json!({"path": "main.rs", "old_text": "let x = 1;", "new_text": "let x = 5;"}),
        )
        .await;
    let mode = std::fs::metadata(bench.path("main.rs"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
}

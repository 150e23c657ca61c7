//! `file_search`: glob, regex, both, .gitignore, binary files, caps and totals.

use serde_json::{Value, json};

use crate::common::Bench;

fn files(out: &Value) -> Vec<String> {
    out["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| file["path"].as_str().unwrap().to_owned())
        .collect()
}

fn project() -> Bench {
    let bench = Bench::new();
    std::fs::create_dir_all(bench.path("src/net")).unwrap();
    std::fs::write(
        bench.path("src/main.rs"),
        "fn main() {\n    connect();\n}\n",
    )
    .unwrap();
    std::fs::write(
        bench.path("src/net/tcp.rs"),
        "pub fn Connect() {}\npub fn close() {}\n",
    )
    .unwrap();
    std::fs::write(bench.path("notes.txt"), "connect later\n").unwrap();
    std::fs::write(bench.path(".gitignore"), "build/\n").unwrap();
    std::fs::create_dir(bench.path("build")).unwrap();
    std::fs::write(bench.path("build/gen.rs"), "fn connect() {}\n").unwrap();
    bench
}

#[tokio::test]
async fn glob_matches_names_at_any_depth() {
    let bench = project();
    let out = bench.ok("file_search", json!({"glob": "*.rs"})).await;
    assert_eq!(files(&out), ["src/main.rs", "src/net/tcp.rs"]);
    assert_eq!(out["files_matched"], 2);
    assert!(out.get("total_matches").is_none());
    let out = bench.ok("file_search", json!({"glob": "src/*.rs"})).await;
    assert_eq!(files(&out), ["src/main.rs"]);
    let out = bench
        .ok("file_search", json!({"glob": "src/**/*.rs"}))
        .await;
    assert_eq!(files(&out), ["src/main.rs", "src/net/tcp.rs"]);
}

#[tokio::test]
async fn regex_returns_line_numbers_and_lines() {
    let bench = project();
    let out = bench
        .ok("file_search", json!({"regex": "connect\\("}))
        .await;
    assert_eq!(files(&out), ["src/main.rs"]);
    assert_eq!(
        out["files"][0]["matches"],
        json!([{"line": 2, "text": "    connect();"}])
    );
    assert_eq!(out["total_matches"], 1);
    let out = bench
        .ok(
            "file_search",
            json!({"regex": "connect\\(", "case_insensitive": true}),
        )
        .await;
    assert_eq!(files(&out), ["src/main.rs", "src/net/tcp.rs"]);
}

#[tokio::test]
async fn glob_and_regex_together() {
    let bench = project();
    let out = bench
        .ok("file_search", json!({"glob": "*.txt", "regex": "connect"}))
        .await;
    assert_eq!(files(&out), ["notes.txt"]);
}

#[tokio::test]
async fn gitignore_is_respected_unless_asked_not_to() {
    let bench = project();
    let out = bench
        .ok("file_search", json!({"regex": "fn connect"}))
        .await;
    assert_eq!(out["files_matched"], 0);
    let out = bench
        .ok(
            "file_search",
            json!({"regex": "fn connect", "respect_gitignore": false}),
        )
        .await;
    assert_eq!(files(&out), ["build/gen.rs"]);
}

#[tokio::test]
async fn binary_files_are_skipped() {
    let bench = project();
    std::fs::write(bench.path("blob.bin"), b"connect\0\0\0\x01\x02").unwrap();
    let out = bench.ok("file_search", json!({"regex": "connect"})).await;
    assert!(!files(&out).contains(&"blob.bin".to_owned()));
    assert_eq!(out["skipped_binary"], 1);
}

#[tokio::test]
async fn lists_are_capped_and_totals_are_exact() {
    let bench = Bench::new();
    for n in 0..30 {
        let text: String = (0..50).map(|i| format!("hit {i}\n")).collect();
        std::fs::write(bench.path(&format!("f{n:02}.txt")), text).unwrap();
    }
    let out = bench
        .ok(
            "file_search",
            json!({"regex": "^hit", "max_files": 5, "max_matches_per_file": 3}),
        )
        .await;
    assert_eq!(out["files"].as_array().unwrap().len(), 5);
    assert_eq!(out["files_matched"], 30);
    assert_eq!(out["total_matches"], 1500);
    assert_eq!(out["truncated"], true);
    assert_eq!(out["files"][0]["match_count"], 50);
    assert_eq!(out["files"][0]["matches"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn bad_queries_are_refused() {
    let bench = project();
    bench
        .fails(
            "file_search",
            json!({"regex": "fn ("}),
            "invalid_arguments",
            "not a valid regex",
        )
        .await;
    bench
        .fails(
            "file_search",
            json!({"glob": "a[b"}),
            "invalid_arguments",
            "not a valid glob",
        )
        .await;
    bench
        .fails("file_search", json!({}), "invalid_arguments", "give a glob")
        .await;
}

//! `list_directory`: entries, depth, hidden files, .gitignore, the cap.

use serde_json::{Value, json};

use crate::common::Bench;

fn paths(out: &Value) -> Vec<String> {
    out["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["path"].as_str().unwrap().to_owned())
        .collect()
}

fn tree() -> Bench {
    let bench = Bench::new();
    std::fs::create_dir_all(bench.path("src/deep")).unwrap();
    std::fs::write(bench.path("src/lib.rs"), "// lib\n").unwrap();
    std::fs::write(bench.path("src/deep/x.rs"), "").unwrap();
    std::fs::write(bench.path("README.md"), "hello").unwrap();
    std::fs::write(bench.path(".env"), "SECRET=1").unwrap();
    std::fs::create_dir(bench.path("target")).unwrap();
    std::fs::write(bench.path("target/out.bin"), "x").unwrap();
    std::fs::write(bench.path("debug.log"), "x").unwrap();
    std::fs::write(bench.path(".gitignore"), "target/\n*.log\n").unwrap();
    bench
}

#[tokio::test]
async fn lists_one_level_with_types_sizes_and_times() {
    let bench = tree();
    let out = bench.ok("list_directory", json!({})).await;
    assert_eq!(out["path"], ".");
    assert_eq!(paths(&out), ["README.md", "debug.log", "src", "target"]);
    let readme = &out["entries"][0];
    assert_eq!(readme["name"], "README.md");
    assert_eq!(readme["type"], "file");
    assert_eq!(readme["size"], 5);
    let modified = readme["modified"].as_str().unwrap();
    assert!(
        modified.len() == 20 && modified.ends_with('Z'),
        "{modified}"
    );
    assert_eq!(out["entries"][2]["type"], "dir");
    assert!(out["entries"][2].get("size").is_none());
    assert_eq!(out["truncated"], false);
}

#[tokio::test]
async fn hidden_entries_on_request() {
    let bench = tree();
    let out = bench
        .ok("list_directory", json!({"include_hidden": true}))
        .await;
    assert_eq!(
        paths(&out),
        [
            ".env",
            ".gitignore",
            "README.md",
            "debug.log",
            "src",
            "target"
        ]
    );
}

#[tokio::test]
async fn gitignore_is_respected_on_request() {
    let bench = tree();
    let out = bench
        .ok(
            "list_directory",
            json!({"respect_gitignore": true, "depth": 3}),
        )
        .await;
    assert_eq!(
        paths(&out),
        [
            "README.md",
            "src",
            "src/deep",
            "src/deep/x.rs",
            "src/lib.rs"
        ]
    );
}

#[tokio::test]
async fn depth_reaches_into_subdirectories() {
    let bench = tree();
    let out = bench
        .ok("list_directory", json!({"path": "src", "depth": 2}))
        .await;
    assert_eq!(out["path"], "src");
    assert_eq!(paths(&out), ["src/deep", "src/deep/x.rs", "src/lib.rs"]);
    bench
        .fails(
            "list_directory",
            json!({"depth": 9}),
            "invalid_arguments",
            "",
        )
        .await;
}

#[tokio::test]
async fn the_entry_cap_sets_truncated() {
    let bench = Bench::new();
    for n in 0..30 {
        std::fs::write(bench.path(&format!("f{n:02}")), "").unwrap();
    }
    let out = bench.ok("list_directory", json!({"max_entries": 10})).await;
    assert_eq!(out["entries"].as_array().unwrap().len(), 10);
    assert_eq!(out["truncated"], true);
    assert!(out["note"].as_str().unwrap().contains("first 10"));
}

#[tokio::test]
async fn a_file_is_not_a_directory() {
    let bench = tree();
    bench
        .fails(
            "list_directory",
            json!({"path": "README.md"}),
            "failed",
            "file_read",
        )
        .await;
}

#[cfg(unix)]
#[tokio::test]
async fn symbolic_links_are_shown_not_followed() {
    let bench = tree();
    std::os::unix::fs::symlink("src", bench.path("link")).unwrap();
    let out = bench
        .ok(
            "list_directory",
            json!({"depth": 2, "respect_gitignore": true}),
        )
        .await;
    let link = out["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["name"] == "link")
        .unwrap();
    assert_eq!(link["type"], "symlink");
    assert_eq!(link["target"], "src");
    assert!(!paths(&out).iter().any(|path| path.starts_with("link/")));
}

#[tokio::test]
async fn a_hidden_directory_named_directly_is_listed() {
    let bench = Bench::new();
    std::fs::create_dir(bench.path(".github")).unwrap();
    std::fs::write(bench.path(".github/ci.yml"), "on: push\n").unwrap();
    let out = bench.ok("list_directory", json!({"path": ".github"})).await;
    assert_eq!(paths(&out), [".github/ci.yml"]);
    let out = bench
        .ok("file_search", json!({"path": ".github", "regex": "push"}))
        .await;
    assert_eq!(out["files_matched"], 1);
}

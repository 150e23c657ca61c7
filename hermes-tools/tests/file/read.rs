//! `file_read`: whole files, line ranges, the size cap, encodings, binary files.

use serde_json::json;

use crate::common::Bench;

#[tokio::test]
async fn reads_a_whole_text_file() {
    let bench = Bench::new();
    std::fs::write(bench.path("a.txt"), "one\ntwo\nthree\n").unwrap();
    let out = bench.ok("file_read", json!({"path": "a.txt"})).await;
    assert_eq!(out["kind"], "text");
    assert_eq!(out["path"], "a.txt");
    assert_eq!(out["content"], "one\ntwo\nthree\n");
    assert_eq!(out["total_lines"], 3);
    assert_eq!(
        (out["start_line"].as_u64(), out["end_line"].as_u64()),
        (Some(1), Some(3))
    );
    assert_eq!(out["truncated"], false);
    assert_eq!(out["encoding"], "utf-8");
    assert!(out.get("lossy").is_none());
}

#[tokio::test]
async fn returns_the_lines_asked_for() {
    let bench = Bench::new();
    let text: String = (1..=10).map(|n| format!("line {n}\n")).collect();
    std::fs::write(bench.path("ten.txt"), text).unwrap();
    let out = bench
        .ok(
            "file_read",
            json!({"path": "ten.txt", "start_line": 4, "end_line": 6}),
        )
        .await;
    assert_eq!(out["content"], "line 4\nline 5\nline 6\n");
    assert_eq!(out["total_lines"], 10);
    assert_eq!(
        (out["start_line"].as_u64(), out["end_line"].as_u64()),
        (Some(4), Some(6))
    );
    let tail = bench
        .ok(
            "file_read",
            json!({"path": "ten.txt", "start_line": 9, "end_line": 50}),
        )
        .await;
    assert_eq!(tail["content"], "line 9\nline 10\n");
    assert_eq!(tail["end_line"], 10);
}

#[tokio::test]
async fn a_range_past_the_end_or_backwards_is_refused() {
    let bench = Bench::new();
    std::fs::write(bench.path("three.txt"), "a\nb\nc\n").unwrap();
    bench
        .fails(
            "file_read",
            json!({"path": "three.txt", "start_line": 7}),
            "failed",
            "has 3 lines",
        )
        .await;
    bench
        .fails(
            "file_read",
            json!({"path": "three.txt", "start_line": 3, "end_line": 2}),
            "invalid_arguments",
            "before start_line",
        )
        .await;
    bench
        .fails(
            "file_read",
            json!({"path": "three.txt", "start_line": 0}),
            "invalid_arguments",
            "",
        )
        .await;
}

#[tokio::test]
async fn a_huge_file_is_cut_at_the_cap_and_can_be_continued() {
    let bench = Bench::with_config(|config| config.max_output_bytes(4096));
    let text: String = (1..=20_000)
        .map(|n| format!("this is line number {n}\n"))
        .collect();
    std::fs::write(bench.path("big.log"), &text).unwrap();
    let out = bench.ok("file_read", json!({"path": "big.log"})).await;
    assert_eq!(out["truncated"], true);
    assert_eq!(out["total_lines"], 20_000);
    let content = out["content"].as_str().unwrap();
    assert!(content.len() <= 4096, "{}", content.len());
    assert!(content.starts_with("this is line number 1\n"));
    let next = out["next_start_line"].as_u64().unwrap();
    assert_eq!(out["end_line"].as_u64().unwrap() + 1, next);
    assert!(
        out["note"]
            .as_str()
            .unwrap()
            .contains(&format!("start_line: {next}"))
    );
    let more = bench
        .ok("file_read", json!({"path": "big.log", "start_line": next}))
        .await;
    assert!(
        more["content"]
            .as_str()
            .unwrap()
            .starts_with(&format!("this is line number {next}\n"))
    );
}

#[tokio::test]
async fn one_enormous_line_is_cut_in_the_middle() {
    let bench = Bench::with_config(|config| config.max_output_bytes(2048));
    let line = format!("{}{}", "a".repeat(50_000), "z".repeat(50_000));
    std::fs::write(bench.path("min.js"), line).unwrap();
    let out = bench.ok("file_read", json!({"path": "min.js"})).await;
    assert_eq!(out["truncated"], true);
    let content = out["content"].as_str().unwrap();
    assert!(
        content.starts_with("aaa") && content.ends_with("zzz"),
        "{content}"
    );
    assert!(content.len() < 2200);
}

#[tokio::test]
async fn binary_files_are_described_not_dumped() {
    let bench = Bench::new();
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend(std::iter::repeat_n(0u8, 5000));
    std::fs::write(bench.path("image.png"), &png).unwrap();
    let out = bench.ok("file_read", json!({"path": "image.png"})).await;
    assert_eq!(out["kind"], "binary");
    assert_eq!(out["size"], png.len());
    assert_eq!(out["mime"], "image/png");
    assert!(
        out["hex_preview"]
            .as_str()
            .unwrap()
            .starts_with("89 50 4e 47 0d 0a 1a 0a")
    );
    assert!(out.get("content").is_none());
}

#[tokio::test]
async fn invalid_utf8_is_replaced_and_reported() {
    let bench = Bench::new();
    std::fs::write(bench.path("latin1.txt"), b"caf\xE9 cr\xE8me\n").unwrap();
    let out = bench.ok("file_read", json!({"path": "latin1.txt"})).await;
    assert_eq!(out["kind"], "text");
    assert_eq!(out["lossy"], true);
    assert_eq!(out["content"], "caf\u{FFFD} cr\u{FFFD}me\n");
    assert!(out["note"].as_str().unwrap().contains("U+FFFD"));
}

#[tokio::test]
async fn utf16_with_a_bom_is_decoded() {
    let bench = Bench::new();
    let mut bytes = vec![0xFF, 0xFE];
    for unit in "héllo\nwörld\n".encode_utf16() {
        bytes.extend(unit.to_le_bytes());
    }
    std::fs::write(bench.path("wide.txt"), bytes).unwrap();
    let out = bench.ok("file_read", json!({"path": "wide.txt"})).await;
    assert_eq!(out["encoding"], "utf-16le");
    assert_eq!(out["content"], "héllo\nwörld\n");
    assert_eq!(out["total_lines"], 2);
}

#[tokio::test]
async fn an_empty_file_has_no_lines() {
    let bench = Bench::new();
    std::fs::write(bench.path("empty"), "").unwrap();
    let out = bench.ok("file_read", json!({"path": "empty"})).await;
    assert_eq!(out["content"], "");
    assert_eq!(out["total_lines"], 0);
    assert_eq!(out["end_line"], 0);
}

#[tokio::test]
async fn directories_and_missing_files_say_what_to_do() {
    let bench = Bench::new();
    std::fs::create_dir(bench.path("dir")).unwrap();
    bench
        .fails(
            "file_read",
            json!({"path": "dir"}),
            "failed",
            "use list_directory",
        )
        .await;
    bench
        .fails(
            "file_read",
            json!({"path": "nope.txt"}),
            "failed",
            "does not exist",
        )
        .await;
}

#[cfg(unix)]
#[tokio::test]
async fn a_fifo_is_refused_not_waited_on() {
    let bench = Bench::new();
    let status = std::process::Command::new("mkfifo")
        .arg(bench.path("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    bench
        .fails(
            "file_read",
            json!({"path": "pipe"}),
            "failed",
            "not a regular file",
        )
        .await;
}

//! `code_test`: tiny real projects run by cargo, pytest and node's test runner.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::common::Bench;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A library crate with one passing, one failing and one ignored test.
fn cargo_project(bench: &Bench, dir: &str) {
    write(
        &bench.path(&format!("{dir}/Cargo.toml")),
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    write(
        &bench.path(&format!("{dir}/src/lib.rs")),
        "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn passes() { assert_eq!(add(1, 2), 3); }\n    #[test]\n    fn fails() { assert_eq!(add(1, 2), 4, \"math is off\"); }\n    #[test]\n    #[ignore]\n    fn later() {}\n}\n",
    );
}

fn names(value: &Value) -> Vec<&str> {
    value["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|failure| failure["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn cargo_projects_report_counts_and_failures() {
    let bench = Bench::new();
    cargo_project(&bench, "tiny");
    let value = bench.ok("code_test", json!({"path": "tiny"})).await;
    assert_eq!(value["runner"], "cargo", "{value}");
    assert_eq!(value["detected_from"], "Cargo.toml");
    assert_eq!(value["path"], "tiny");
    assert_eq!(
        (
            value["passed"].as_u64(),
            value["failed"].as_u64(),
            value["ignored"].as_u64()
        ),
        (Some(1), Some(1), Some(1)),
        "{value}"
    );
    assert_eq!(value["success"], false);
    assert_eq!(names(&value), ["tests::fails"]);
    let message = value["failures"][0]["message"].as_str().unwrap();
    assert!(message.contains("math is off"), "{message}");
    assert!(value.get("output").is_none(), "{value}");

    let value = bench
        .ok(
            "code_test",
            json!({"path": "tiny", "runner": "cargo", "filter": "passes"}),
        )
        .await;
    assert_eq!(value["success"], true, "{value}");
    assert_eq!(
        (value["passed"].as_u64(), value["failed"].as_u64()),
        (Some(1), Some(0))
    );
    assert!(value["command"].as_str().unwrap().ends_with("passes"));
}

#[tokio::test]
async fn a_build_error_comes_back_as_output() {
    let bench = Bench::new();
    cargo_project(&bench, "broken");
    write(
        &bench.path("broken/src/lib.rs"),
        "pub fn add() -> i32 { \"no\" }\n",
    );
    let value = bench.ok("code_test", json!({"path": "broken"})).await;
    assert_eq!(value["success"], false);
    assert_eq!(value["passed"], Value::Null);
    let output = value["output"].as_str().unwrap();
    assert!(output.contains("mismatched types"), "{output}");
}

fn has_pytest() -> bool {
    Command::new("python3")
        .args(["-m", "pytest", "--version"])
        .output()
        .is_ok_and(|output| output.status.success())
}

#[tokio::test]
async fn pytest_projects_report_counts_and_failures() {
    if !has_pytest() {
        eprintln!("skipped: pytest is not installed (pip install pytest)");
        return;
    }
    let bench = Bench::new();
    write(
        &bench.path("py/tests/test_math.py"),
        "import pytest\n\ndef test_adds():\n    assert 1 + 2 == 3\n\ndef test_fails():\n    x = 3\n    assert x == 4, 'math is off'\n\n@pytest.mark.skip(reason='later')\ndef test_later():\n    pass\n\nclass TestGroup:\n    def test_raises(self):\n        raise ValueError('boom')\n",
    );
    let value = bench.ok("code_test", json!({"path": "py"})).await;
    assert_eq!(value["runner"], "pytest", "{value}");
    assert_eq!(value["detected_from"], "tests/test_math.py");
    assert_eq!(
        (
            value["passed"].as_u64(),
            value["failed"].as_u64(),
            value["ignored"].as_u64()
        ),
        (Some(1), Some(2), Some(1)),
        "{value}"
    );
    assert_eq!(
        names(&value),
        [
            "tests/test_math.py::test_fails",
            "tests/test_math.py::TestGroup::test_raises"
        ]
    );
    let message = value["failures"][0]["message"].as_str().unwrap();
    assert!(message.contains("AssertionError: math is off"), "{message}");
    assert!(message.contains("test_math.py:8"), "{message}");

    let value = bench
        .ok("code_test", json!({"path": "py", "filter": "adds"}))
        .await;
    assert_eq!(value["success"], true, "{value}");
    assert_eq!(value["passed"], 1);
}

#[tokio::test]
async fn npm_projects_with_node_test_report_counts_and_failures() {
    let bench = Bench::new();
    write(
        &bench.path("js/package.json"),
        "{\"name\": \"tiny\", \"version\": \"1.0.0\", \"scripts\": {\"test\": \"node --test\"}}\n",
    );
    write(
        &bench.path("js/test/math.test.js"),
        "const test = require('node:test');\nconst assert = require('node:assert');\ntest('adds', () => { assert.strictEqual(1 + 2, 3); });\ntest('fails', () => { assert.strictEqual(1 + 2, 4); });\ntest.skip('later', () => {});\ntest.describe('group', () => { test.it('inner fails', () => { throw new Error('boom'); }); });\n",
    );
    let value = bench.ok("code_test", json!({"path": "js"})).await;
    assert_eq!(value["runner"], "npm", "{value}");
    assert_eq!(
        (
            value["passed"].as_u64(),
            value["failed"].as_u64(),
            value["ignored"].as_u64()
        ),
        (Some(1), Some(2), Some(1)),
        "{value}"
    );
    assert_eq!(names(&value), ["fails", "inner fails"]);
    assert!(
        value["failures"][0]["message"]
            .as_str()
            .unwrap()
            .contains("3 !== 4"),
        "{value}"
    );
    assert_eq!(value["failures"][1]["message"], "boom");

    let value = bench
        .ok("code_test", json!({"path": "js", "filter": "adds"}))
        .await;
    assert_eq!(value["success"], true, "{value}");
    assert!(
        value["command"]
            .as_str()
            .unwrap()
            .contains("--test-name-pattern=adds")
    );
}

#[tokio::test]
async fn projects_without_a_runner_are_refused() {
    let bench = Bench::new();
    std::fs::create_dir(bench.path("empty")).unwrap();
    bench
        .fails(
            "code_test",
            json!({"path": "empty"}),
            "failed",
            "found no Cargo.toml",
        )
        .await;
    write(&bench.path("file.txt"), "x");
    bench
        .fails(
            "code_test",
            json!({"path": "file.txt"}),
            "failed",
            "is not a directory",
        )
        .await;
    write(&bench.path("nojs/package.json"), "{\"name\": \"x\"}");
    bench
        .fails(
            "code_test",
            json!({"path": "nojs"}),
            "failed",
            "no `test` script",
        )
        .await;
}

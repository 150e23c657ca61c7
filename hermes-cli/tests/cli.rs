//! The `hermes` binary: stdout, stderr and exit codes, as users script against them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use serde_json::json;

use common::{hermes, stdout_json};

#[test]
fn tool_list_shows_name_scope_and_description() {
    let output = hermes(&["tool", "list"]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap().split_whitespace().collect::<Vec<_>>(),
        ["NAME", "SCOPE", "SOURCE", "DESCRIPTION"]
    );
    let rows: Vec<&str> = lines.collect();
    assert!(
        rows.len() >= 44,
        "the built-in tools (issue 8: at least 44): {text}"
    );
    let calculator = rows
        .iter()
        .find(|row| row.starts_with("calculator "))
        .unwrap_or_else(|| panic!("no calculator: {text}"));
    assert!(calculator.contains(" read "), "{calculator}");
    assert!(
        calculator.contains("Evaluate an arithmetic expression"),
        "{calculator}"
    );
    let terminal = rows
        .iter()
        .find(|row| row.starts_with("terminal "))
        .unwrap();
    assert!(terminal.contains(" write "), "{terminal}");
}

#[test]
fn tool_list_json_is_pinned() {
    let output = hermes(&["tool", "list", "--json"]);
    assert_eq!(output.status.code(), Some(0));
    insta::assert_json_snapshot!(stdout_json(&output));
}

#[test]
fn tool_schema_prints_the_openai_function_object() {
    let output = hermes(&["tool", "schema", "calculator"]);
    assert_eq!(output.status.code(), Some(0));
    let schema = stdout_json(&output);
    assert_eq!(schema["type"], "function");
    assert_eq!(schema["function"]["name"], "calculator");
    assert_eq!(
        schema["function"]["parameters"]["required"],
        json!(["expression"])
    );
}

#[test]
fn tool_schema_of_an_unknown_tool_is_a_usage_error() {
    let output = hermes(&["tool", "schema", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("no tool named `nope`"), "{stderr}");
}

#[test]
fn tool_call_prints_the_content_and_exits_0() {
    let output = hermes(&[
        "tool",
        "call",
        "calculator",
        "--args",
        r#"{"expression": "2 * (3 + 4) / -5"}"#,
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(
        stdout_json(&output),
        json!({"expression": "2 * (3 + 4) / -5", "result": -2.8})
    );
}

#[test]
fn tool_errors_print_the_error_content_and_exit_1() {
    let cases = [
        (
            vec![
                "tool",
                "call",
                "calculator",
                "--args",
                r#"{"expression": "1/0"}"#,
            ],
            "failed",
        ),
        (
            vec![
                "tool",
                "call",
                "calculator",
                "--args",
                r#"{"expression" "1"}"#,
            ],
            "bad_json",
        ),
        (
            vec!["tool", "call", "calculator", "--args", r#"{"expression": "#],
            "truncated",
        ),
        (
            vec![
                "tool",
                "call",
                "calculator",
                "--args",
                r#"{"expression": 12}"#,
            ],
            "invalid_arguments",
        ),
        (vec!["tool", "call", "calculator"], "invalid_arguments"),
        (
            vec!["tool", "call", "no_such_tool", "--args", "{}"],
            "not_found",
        ),
    ];
    for (args, kind) in cases {
        let output = hermes(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {output:?}");
        let content = stdout_json(&output);
        assert_eq!(content["error"]["kind"], kind, "{args:?}: {content}");
        assert!(
            content["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    }
}

#[test]
fn tool_call_repairs_what_a_model_gets_slightly_wrong_and_says_so_on_stderr() {
    let output = hermes(&[
        "tool",
        "call",
        "CALC",
        "--args",
        r#"{"expression": "1+2",}"#,
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(
        stdout_json(&output),
        json!({"expression": "1+2", "result": 3})
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            r#"hermes: repaired name: "CALC" -> "calculator""#,
            "hermes: repaired json: removed trailing commas"
        ],
        "{stderr}"
    );

    let output = hermes(&[
        "tool",
        "call",
        "calculator",
        "--args",
        r#"{"expression": "2*3"}"#,
    ]);
    assert!(output.stderr.is_empty(), "nothing repaired, nothing said");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["tool"][..],
        &["tool", "call"],
        &["tool", "frob"],
        &["tool", "list", "--bogus"],
    ] {
        let output = hermes(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn help_describes_the_gateway_and_exit_codes() {
    let output = hermes(&["tool", "call", "--help"]);
    assert_eq!(output.status.code(), Some(0));
    let help = String::from_utf8(output.stdout).unwrap();
    assert!(
        help.contains("Exits 0 when the tool succeeded, 1 when the call failed"),
        "{help}"
    );
    assert!(help.contains("--args <JSON>"), "{help}");
}

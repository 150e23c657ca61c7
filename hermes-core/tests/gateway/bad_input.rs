//! Unknown tools, bad JSON and schema violations become structured errors.

use std::sync::Arc;

use hermes_core::{Dispatcher, RunContext, Scope, ToolCall, ToolErrorKind};
use serde_json::json;

use crate::common::{add, echo, error_of, registry_with};

fn dispatcher() -> Dispatcher {
    let strict = echo(
        "book",
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "days": {"type": "integer", "minimum": 1, "maximum": 7},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "url": {"type": "string", "format": "uri"}
            },
            "required": ["city"],
            "additionalProperties": false
        }),
        Scope::Read,
    );
    Dispatcher::new(registry_with([Arc::new(add()) as _, Arc::new(strict) as _]))
}

async fn call(name: &str, args: &str) -> (hermes_core::CallReport, serde_json::Value) {
    let report = dispatcher()
        .dispatch(&ToolCall::new("call_9", name, args), &RunContext::new())
        .await;
    let error = error_of(&report.message.content);
    (report, error)
}

#[tokio::test]
async fn unknown_tool_lists_close_names() {
    let (report, error) = call("ad", "{}").await;
    assert_eq!(
        report.error.as_ref().unwrap().kind(),
        ToolErrorKind::NotFound
    );
    assert_eq!(report.message.tool_call_id, "call_9");
    assert_eq!(error["kind"], "not_found");
    assert_eq!(error["close_names"], json!(["add"]));
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("did you mean add?")
    );

    let (_, error) = call("xyz_no_such_tool", "{}").await;
    assert_eq!(error["close_names"], json!([]));
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("the tools are: add, book")
    );
}

#[tokio::test]
async fn bad_json_quotes_the_parser_and_position() {
    let (_, error) = call("add", "{\"a\": 2, \"b\": }").await;
    assert_eq!(error["kind"], "bad_json");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("expected value at line 1 column 15"),
        "{message}"
    );
}

#[tokio::test]
async fn wrong_type_names_the_field() {
    let (_, error) = call("add", r#"{"a": "two", "b": 3}"#).await;
    assert_eq!(error["kind"], "invalid_arguments");
    assert_eq!(error["violations"][0]["path"], "/a");
    assert_eq!(error["violations"][0]["keyword"], "type");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("\"two\" is not of type \"integer\"")
    );
}

#[tokio::test]
async fn every_violation_is_reported() {
    let (_, error) = call(
        "book",
        r#"{"days": 9, "unit": "kelvin", "url": "not a uri", "extra": 1}"#,
    )
    .await;
    let mut rules: Vec<(String, String)> = error["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["path"].as_str().unwrap().to_owned(),
                v["keyword"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    rules.sort();
    let expected = [
        ("", "additionalProperties"),
        ("", "required"),
        ("/days", "maximum"),
        ("/unit", "enum"),
        ("/url", "format"),
    ];
    assert_eq!(
        rules,
        expected.map(|(p, k)| (p.to_owned(), k.to_owned())).to_vec(),
        "{error:#}"
    );
}

#[tokio::test]
async fn arguments_must_be_an_object() {
    let (_, error) = call("add", "[2, 3]").await;
    assert_eq!(error["kind"], "invalid_arguments");
    assert_eq!(error["violations"][0]["keyword"], "type");
}

#[tokio::test]
async fn valid_call_succeeds_with_its_own_id() {
    let report = dispatcher()
        .dispatch(
            &ToolCall::new("call_ok", "add", r#"{"a":2,"b":3}"#),
            &RunContext::new(),
        )
        .await;
    assert!(report.is_success(), "{:?}", report.error);
    assert_eq!(report.message.content, r#"{"sum":5}"#);
    assert_eq!(report.message.tool_call_id, "call_ok");
    assert_eq!(report.message.name, "add");
}

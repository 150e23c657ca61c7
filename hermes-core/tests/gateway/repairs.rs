//! What small models get slightly wrong is repaired, reported, and can be switched off;
//! what is ambiguous or cut off is not guessed at.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hermes_core::{
    AgentEvent, CallReport, Dispatcher, EventSink, RepairKind, Repairs, RunContext, Scope, ToolCall,
};
use serde_json::{Value, json};

use crate::common::{Counting, assert_error, echo, registry_with};

fn open_schema() -> Value {
    json!({"type": "object", "properties": {"text": {"type": "string"}}})
}

fn typed_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "flag": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "ids": {"type": "array", "items": {"type": "integer"}},
            "filter": {"type": "object", "properties": {"min": {"type": "integer"}}},
            "limit": {"type": ["integer", "null"]},
            "when": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}
        },
        "additionalProperties": false
    })
}

fn dispatcher(repairs: Repairs) -> Dispatcher {
    let tools = ["terminal", "web_search", "write_file", "todo", "read_file"]
        .map(|name| Arc::new(echo(name, open_schema(), Scope::Read)) as _);
    let registry = registry_with(tools);
    registry
        .register(echo("typed", typed_schema(), Scope::Read))
        .unwrap();
    registry
        .register(echo(
            "needs_path",
            json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
            Scope::Read,
        ))
        .unwrap();
    Dispatcher::builder(registry)
        .repairs(repairs)
        .build()
        .unwrap()
}

async fn dispatch(
    dispatcher: &Dispatcher,
    name: &str,
    args: &str,
) -> (CallReport, Vec<AgentEvent>) {
    let sink = EventSink::new();
    let run = RunContext::new().with_events(sink.clone());
    let report = dispatcher
        .dispatch(&ToolCall::new("call_1", name, args), &run)
        .await;
    (report, sink.events())
}

fn repaired(events: &[AgentEvent]) -> Vec<(RepairKind, String)> {
    events
        .iter()
        .filter_map(|event| match event {
            AgentEvent::ToolCallRepaired { kind, detail, .. } => Some((*kind, detail.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn tool_names_are_repaired_when_one_tool_is_meant() {
    let dispatcher = dispatcher(Repairs::all());
    let cases = [
        ("TERMINAL", "terminal"),
        ("web-search", "web_search"),
        ("write file", "write_file"),
        ("WriteFile", "write_file"),
        ("TodoTool_tool", "todo"),
        ("terminall", "terminal"),
        ("\"read_file\"", "read_file"),
        ("name=\"todo\"", "todo"),
    ];
    for (sent, meant) in cases {
        let (report, events) = dispatch(&dispatcher, sent, r#"{"text": "hi"}"#).await;
        assert!(report.is_success(), "{sent}: {}", report.message.content);
        assert_eq!(report.message.name, meant, "{sent}");
        assert_eq!(report.message.tool_call_id, "call_1");
        assert_eq!(report.repairs.len(), 1, "{sent}");
        assert_eq!(report.repairs[0].kind, RepairKind::Name);
        let events = repaired(&events);
        assert_eq!(events.len(), 1, "{sent}");
        assert_eq!(events[0].0, RepairKind::Name);
        assert!(events[0].1.contains(meant), "{sent}: {}", events[0].1);
    }
}

#[tokio::test]
async fn no_match_is_unknown_and_lists_the_tools() {
    let dispatcher = dispatcher(Repairs::all());
    for sent in ["xyz_no_such_tool", "file", "read_fle_or_write"] {
        let (report, events) = dispatch(&dispatcher, sent, "{}").await;
        assert_error(&report, "not_found", "unknown tool");
        assert!(repaired(&events).is_empty());
    }
    let (report, _) = dispatch(&dispatcher, "xyz_no_such_tool", "{}").await;
    assert_error(
        &report,
        "not_found",
        "the tools are: needs_path, read_file, terminal, todo, typed, web_search, write_file",
    );
}

#[tokio::test]
async fn almost_json_is_repaired() {
    let dispatcher = dispatcher(Repairs::all());
    let cases = [
        (
            r#"{"text": "1+2",}"#,
            json!({"text": "1+2"}),
            "trailing commas",
        ),
        (r#"{"text": "a"#, json!(null), "truncated"),
        (
            r#"{"text": "a""#,
            json!({"text": "a"}),
            "missing closing brace",
        ),
        (
            r#"{"ids": [1, 2,], "count": 3,}"#,
            json!({"ids": [1, 2], "count": 3}),
            "trailing commas",
        ),
        (
            r#"{"filter": {"min": 1}"#,
            json!({"filter": {"min": 1}}),
            "missing closing brace",
        ),
        (
            r#"{"count": 1}}"#,
            json!({"count": 1}),
            "extra closing brace",
        ),
        (
            "{\"text\": \"line 1\nline 2\"}",
            json!({"text": "line 1\nline 2"}),
            "control characters",
        ),
    ];
    for (sent, expected, what) in cases {
        let tool = if expected.get("text").is_some() || expected.is_null() {
            "terminal"
        } else {
            "typed"
        };
        let (report, events) = dispatch(&dispatcher, tool, sent).await;
        if expected.is_null() {
            assert_error(&report, "truncated", "cut off");
            continue;
        }
        assert!(report.is_success(), "{sent}: {}", report.message.content);
        let echoed: Value = serde_json::from_str(&report.message.content).unwrap();
        assert_eq!(echoed, expected, "{sent}");
        let events = repaired(&events);
        assert_eq!(events[0].0, RepairKind::Json, "{sent}");
        assert!(events[0].1.contains(what), "{sent}: {}", events[0].1);
    }
}

#[tokio::test]
async fn nothing_is_no_arguments_only_for_a_tool_without_required_ones() {
    let dispatcher = dispatcher(Repairs::all());
    for sent in ["", "null", "  "] {
        let (report, _) = dispatch(&dispatcher, "todo", sent).await;
        assert!(report.is_success(), "{sent:?}: {}", report.message.content);
        assert_eq!(report.message.content, "{}");
        assert_eq!(report.repairs[0].kind, RepairKind::Json);
    }
    let (report, _) = dispatch(&dispatcher, "needs_path", "").await;
    assert_error(&report, "bad_json", "not valid JSON");
    let (report, _) = dispatch(&dispatcher, "needs_path", "null").await;
    assert_error(&report, "invalid_arguments", "not of type \"object\"");
}

#[tokio::test]
async fn cut_off_arguments_never_run() {
    let counting = Counting::new("write_log", Scope::Write);
    let runs = counting.runs.clone();
    let dispatcher = Dispatcher::new(registry_with([Arc::new(counting) as _]));
    for cut in [
        r#"{"path": "notes/a very long file name that the model did not fin"#,
        r#"{"path": "a.txt", "#,
        r#"{"path": {"nested": {"deeper": 1"#,
    ] {
        let report = dispatcher
            .dispatch(&ToolCall::new("c", "write_log", cut), &RunContext::new())
            .await;
        assert_error(&report, "truncated", "your call was cut off");
        assert_error(&report, "truncated", "the tool did not run");
    }
    assert_eq!(runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn types_are_coerced_as_the_schema_says() {
    let dispatcher = dispatcher(Repairs::all());
    let sent = json!({
        "count": "42", "ratio": "0.5", "flag": "false", "tags": "solo",
        "ids": "[1, \"2\"]", "filter": "{\"min\": \"3\"}", "limit": "null", "when": "true"
    });
    let (report, events) = dispatch(&dispatcher, "typed", &sent.to_string()).await;
    assert!(report.is_success(), "{}", report.message.content);
    let echoed: Value = serde_json::from_str(&report.message.content).unwrap();
    assert_eq!(
        echoed,
        json!({
            "count": 42, "ratio": 0.5, "flag": false, "tags": ["solo"],
            "ids": [1, 2], "filter": {"min": 3}, "limit": null, "when": true
        })
    );
    let events = repaired(&events);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].0, RepairKind::Types);
    assert!(
        events[0].1.contains("/count: \"42\" -> 42"),
        "{}",
        events[0].1
    );

    let (report, _) = dispatch(&dispatcher, "typed", r#"{"count": "3.0"}"#).await;
    assert_eq!(report.message.content, r#"{"count":3}"#);
    // A whole argument object sent as a JSON string.
    let (report, _) = dispatch(&dispatcher, "typed", r#""{\"count\": 5}""#).await;
    assert_eq!(report.message.content, r#"{"count":5}"#);
}

#[tokio::test]
async fn what_would_be_a_guess_is_not_coerced() {
    let dispatcher = dispatcher(Repairs::all());
    for (sent, path) in [
        (r#"{"count": "3.14"}"#, "/count"),
        (r#"{"flag": "1"}"#, "/flag"),
        (r#"{"flag": "yes"}"#, "/flag"),
        (r#"{"ratio": "inf"}"#, "/ratio"),
        (r#"{"ratio": "nan"}"#, "/ratio"),
        (r#"{"count": "12abc"}"#, "/count"),
    ] {
        let (report, events) = dispatch(&dispatcher, "typed", sent).await;
        assert_error(&report, "invalid_arguments", "is not of type");
        let error = crate::common::error_of(&report.message.content);
        assert_eq!(error["violations"][0]["path"], path, "{sent}");
        assert!(repaired(&events).is_empty(), "{sent}");
    }
}

#[tokio::test]
async fn each_repair_can_be_switched_off() {
    let strict = dispatcher(Repairs::none());
    let (report, _) = dispatch(&strict, "TERMINAL", "{}").await;
    assert_error(&report, "not_found", "did you mean terminal?");
    let (report, _) = dispatch(&strict, "terminal", r#"{"text": "x",}"#).await;
    assert_error(&report, "bad_json", "trailing comma");
    let (report, _) = dispatch(&strict, "typed", r#"{"count": "42"}"#).await;
    assert_error(
        &report,
        "invalid_arguments",
        "\"42\" is not of type \"integer\"",
    );
    let (report, _) = dispatch(&strict, "todo", "").await;
    assert_error(&report, "bad_json", "EOF");

    let mut only_names = Repairs::none();
    only_names.names = true;
    let names = dispatcher(only_names);
    let (report, _) = dispatch(&names, "TERMINAL", r#"{"text": "x",}"#).await;
    assert_error(&report, "bad_json", "trailing comma");
    assert_eq!(report.message.name, "terminal");
}

#[tokio::test]
async fn duplicate_calls_run_once_and_every_id_gets_the_result() {
    let counting = Counting::new("count", Scope::Read);
    let runs = counting.runs.clone();
    let dispatcher = Dispatcher::new(registry_with([Arc::new(counting) as _]));
    let calls = [
        ToolCall::new("a", "count", r#"{"path": "x", "idempotency_key": "k"}"#),
        ToolCall::new("b", "count", r#"{ "idempotency_key": "k",  "path": "x" }"#),
        ToolCall::new("c", "count", r#"{"path": "y"}"#),
        ToolCall::new("d", "COUNT", r#"{"path": "x", "idempotency_key": "k"}"#),
    ];
    let sink = EventSink::new();
    let run = RunContext::new().with_events(sink.clone());
    let reports = dispatcher.dispatch_all(&calls, &run).await;
    assert_eq!(runs.load(Ordering::SeqCst), 2, "a (with b and d) and c");
    let ids: Vec<&str> = reports
        .iter()
        .map(|r| r.message.tool_call_id.as_str())
        .collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    assert_eq!(reports[1].message.content, reports[0].message.content);
    assert_eq!(reports[3].message.content, reports[0].message.content);
    assert_ne!(reports[2].message.content, reports[0].message.content);
    assert!(reports[1].replayed && !reports[0].replayed);
    assert_eq!(reports[1].repairs[0].kind, RepairKind::Duplicate);
    assert_eq!(
        reports[3]
            .repairs
            .iter()
            .map(|r| r.kind)
            .collect::<Vec<_>>(),
        [RepairKind::Name, RepairKind::Duplicate]
    );
    let finished = sink
        .events()
        .iter()
        .filter(|event| matches!(event, AgentEvent::ToolCallFinished { .. }))
        .count();
    assert_eq!(finished, 4, "every call reports its end");

    // Off: both run.
    let counting = Counting::new("count", Scope::Read);
    let runs = counting.runs.clone();
    let mut no_dedupe = Repairs::all();
    no_dedupe.duplicates = false;
    let dispatcher = Dispatcher::builder(registry_with([Arc::new(counting) as _]))
        .repairs(no_dedupe)
        .build()
        .unwrap();
    dispatcher
        .dispatch_all(&calls[..2], &RunContext::new())
        .await;
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn failed_duplicates_fail_alike() {
    let dispatcher = dispatcher(Repairs::all());
    let calls = [
        ToolCall::new("a", "nope", "{}"),
        ToolCall::new("b", "nope", "{}"),
    ];
    let reports = dispatcher.dispatch_all(&calls, &RunContext::new()).await;
    for report in &reports {
        assert_error(report, "not_found", "unknown tool `nope`");
    }
    assert_eq!(reports[1].message.tool_call_id, "b");
}

//! `#[tool]` functions called through the full gateway.

use hermes_core::{ApproveAll, Dispatcher, Registry, RunContext, ToolCall};
use serde_json::{Value, json};

use super::tools::WEATHER_CITIES;
use crate::common::{assert_error, error_of, unfence};

async fn call(name: &str, args: Value) -> hermes_core::CallReport {
    let registry = Registry::from_linked().unwrap();
    let dispatcher = Dispatcher::builder(registry)
        .approver(ApproveAll)
        .build()
        .unwrap();
    let run = RunContext::new().with_session("macro-tests");
    dispatcher
        .dispatch(&ToolCall::with_args("call_7", name, &args), &run)
        .await
}

fn content(report: &hermes_core::CallReport) -> Value {
    assert!(report.is_success(), "{}", report.message.content);
    // weather_query is tagged `external-api`: its output comes fenced.
    serde_json::from_str(unfence(&report.message.content)).unwrap()
}

#[tokio::test]
async fn defaults_are_applied() {
    let report = call("weather_query", json!({"city": "Oslo", "unit": "celsius"})).await;
    assert_eq!(
        content(&report),
        json!({"city": "Oslo", "days": 3, "unit": "celsius"})
    );

    let report = call("http_request", json!({"url": "https://example.com/a"})).await;
    assert_eq!(
        content(&report),
        json!({"url": "https://example.com/a", "method": "Get", "headers": {}, "has_body": false,
               "timeout_seconds": 30, "follow_redirects": true})
    );
}

#[tokio::test]
async fn bad_arguments_are_refused_before_the_body_runs() {
    // Cities no other test uses: tests run in parallel and share the record.
    let cases = [
        (json!({"city": "Refused-1", "unit": "kelvin"}), "/unit"),
        (
            json!({"city": "Refused-2", "unit": "celsius", "days": 9}),
            "/days",
        ),
        (json!({"city": 42, "unit": "celsius"}), "/city"),
        (json!({"unit": "celsius"}), ""),
        (
            json!({"city": "Refused-3", "unit": "celsius", "extra": true}),
            "",
        ),
    ];
    for (args, path) in cases {
        let report = call("weather_query", args.clone()).await;
        let error = error_of(&report.message.content);
        assert_eq!(error["kind"], "invalid_arguments", "{args}");
        assert_eq!(error["violations"][0]["path"], path, "{args}: {error}");
    }
    let report = call("http_request", json!({"url": "not a url"})).await;
    assert_eq!(
        error_of(&report.message.content)["violations"][0]["keyword"],
        "format"
    );
    let ran = WEATHER_CITIES.lock().unwrap().clone();
    assert!(
        ran.iter().all(|city| !city.starts_with("Refused")),
        "a body ran: {ran:?}"
    );
}

#[tokio::test]
async fn errors_come_back_structured() {
    let report = call(
        "weather_query",
        json!({"city": "Atlantis", "unit": "celsius"}),
    )
    .await;
    assert_error(&report, "failed", "no weather station near `Atlantis`");
    // A ToolError keeps its kind.
    let report = call("refuse", json!({"reason": "not today"})).await;
    assert_error(&report, "denied", "not today");
    // A panic in a synchronous body is contained.
    let report = call("explode", json!({"message": "kaboom"})).await;
    assert_error(&report, "panicked", "kaboom");
}

#[tokio::test]
async fn context_is_injected() {
    let report = call("whoami", json!({"greeting": "hi"})).await;
    assert_eq!(
        content(&report),
        json!({"tool_call_id": "call_7", "session": "macro-tests", "greeting": "hi"})
    );
}

#[tokio::test]
async fn blocking_tools_run_on_the_blocking_pool() {
    let report = call("count_blocking", json!({"n": 5})).await;
    assert_eq!(report.message.content, "1,2,3,4,5");
}

#[tokio::test]
async fn unit_results_say_ok_and_dangerous_scope_is_honoured() {
    let report = call("forget-all", json!({})).await;
    assert_eq!(content(&report), json!({"ok": true}));
    // Without an approver, the dangerous tool is refused.
    let dispatcher = Dispatcher::new(Registry::from_linked().unwrap());
    let report = dispatcher
        .dispatch(&ToolCall::new("c", "forget-all", "{}"), &RunContext::new())
        .await;
    assert_eq!(
        error_of(&report.message.content)["requires_confirmation"],
        true
    );
}

#[test]
fn the_function_stays_callable() {
    let forecast = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(super::tools::get_weather(
            "Lima".into(),
            2,
            super::tools::Unit::Celsius,
        ))
        .unwrap();
    assert_eq!(forecast.days, 2);
}

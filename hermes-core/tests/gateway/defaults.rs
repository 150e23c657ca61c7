//! Schema defaults are filled in before validation; a default that breaks its own
//! schema is refused at registration.

use std::sync::Arc;

use hermes_core::{Dispatcher, Error, Registry, RunContext, Scope, ToolCall};
use serde_json::json;

use crate::common::{echo, registry_with};

fn schema(default: serde_json::Value) -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": default}
        },
        "required": ["q", "limit"]
    })
}

#[tokio::test]
async fn missing_properties_get_their_default() {
    let tool = echo("search", schema(json!(10)), Scope::Read);
    let dispatcher = Dispatcher::new(registry_with([Arc::new(tool) as _]));
    let run = RunContext::new();
    let filled = dispatcher
        .dispatch(&ToolCall::new("c1", "search", r#"{"q": "rust"}"#), &run)
        .await;
    assert_eq!(filled.message.content, r#"{"limit":10,"q":"rust"}"#);
    let given = dispatcher
        .dispatch(
            &ToolCall::new("c2", "search", r#"{"q": "rust", "limit": 3}"#),
            &run,
        )
        .await;
    assert_eq!(given.message.content, r#"{"limit":3,"q":"rust"}"#);
    // A default fills a gap; it does not excuse a missing required property without one.
    let missing = dispatcher
        .dispatch(&ToolCall::new("c3", "search", r#"{"limit": 3}"#), &run)
        .await;
    assert!(!missing.is_success());
}

#[test]
fn a_default_outside_its_own_schema_is_refused_at_registration() {
    let err = Registry::new()
        .register(echo("search", schema(json!(500)), Scope::Read))
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidSchema { tool, .. } if tool == "search"),
        "{err}"
    );
    assert!(err.to_string().contains("the default of `limit`"), "{err}");
}

//! The Anthropic backend against a local server sending Messages API shapes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use common::{Reply, Server};
use futures_util::StreamExt;
use hermes_core::{
    ChatRequest, DeltaAccumulator, FinishReason, LlmBackend, Message, ToolCall, ToolChoice, Usage,
};
use hermes_llm::AnthropicBackend;
use serde_json::{Value, json};

fn backend(server: &Server) -> AnthropicBackend {
    AnthropicBackend::builder()
        .base_url(&server.url)
        .api_key("ak")
        .model("claude")
        .max_tokens(256)
        .build()
        .unwrap()
}

fn tools() -> Vec<Value> {
    vec![
        json!({"type": "function", "function": {"name": "calc", "description": "Math.", "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}}}}),
    ]
}

#[tokio::test]
async fn request_and_response_shapes() {
    let server = Server::start(vec![Reply::json(json!({
        "content": [
            {"type": "thinking", "thinking": "easy"},
            {"type": "text", "text": "Computing."},
            {"type": "tool_use", "id": "toolu_1", "name": "calc", "input": {"expression": "6*7"}}
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 12, "output_tokens": 8}
    }))])
    .await;
    let messages = vec![
        Message::system("Be brief."),
        Message::user("6*7?"),
        Message::tool_calls([ToolCall::new("toolu_0", "calc", r#"{"expression":"1"}"#)]),
        Message::tool("toolu_0", "calc", r#"{"result":1}"#),
    ];
    let tools = tools();
    let response = backend(&server)
        .complete(ChatRequest::new(&messages, &tools).with_tool_choice(&ToolChoice::Required))
        .await
        .unwrap();
    assert_eq!(
        response.message.tool_calls,
        vec![ToolCall::new("toolu_1", "calc", r#"{"expression":"6*7"}"#)]
    );
    assert_eq!(response.message.content.as_deref(), Some("Computing."));
    assert_eq!(response.reasoning.as_deref(), Some("easy"));
    assert_eq!(response.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(response.usage, Some(Usage::new(12, 8)));

    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some("ak"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    let body = &request.body;
    assert_eq!(body["system"], "Be brief.");
    assert_eq!(body["max_tokens"], 256);
    assert_eq!(body["tool_choice"], json!({"type": "any"}));
    assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
    assert_eq!(body["messages"][1]["content"][0]["type"], "tool_use");
    assert_eq!(
        body["messages"][2]["content"][0],
        json!({"type": "tool_result", "tool_use_id": "toolu_0", "content": "{\"result\":1}", "is_error": false})
    );
}

fn event(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

#[tokio::test]
async fn a_streamed_message_with_input_json_deltas() {
    let body = [
        event("message_start", json!({"type": "message_start", "message": {"usage": {"input_tokens": 20}}})),
        ": ping\n\n".to_owned(),
        event("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me."}})),
        event("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        event("content_block_start", json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_9", "name": "calc", "input": {}}})),
        event("content_block_delta", json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"expression\": "}})),
        event("content_block_delta", json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "\"2+2\"}"}})),
        event("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
        event("content_block_start", json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_10", "name": "calc", "input": {}}})),
        event("content_block_stop", json!({"type": "content_block_stop", "index": 2})),
        event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 15}})),
        event("message_stop", json!({"type": "message_stop"})),
    ]
    .concat();
    let pieces: Vec<String> = body
        .as_bytes()
        .chunks(7)
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let server = Server::start(vec![Reply::sse(
        &pieces.iter().map(String::as_str).collect::<Vec<_>>(),
    )])
    .await;
    let messages = vec![Message::user("2+2?")];
    let tools = tools();
    let mut stream = backend(&server)
        .stream(ChatRequest::new(&messages, &tools))
        .await
        .unwrap();
    let mut accumulator = DeltaAccumulator::new();
    while let Some(delta) = stream.next().await {
        accumulator.push(delta.unwrap());
    }
    let response = accumulator.finish();
    assert_eq!(response.message.content.as_deref(), Some("Let me."));
    assert_eq!(
        response.message.tool_calls,
        vec![
            ToolCall::new("toolu_9", "calc", "{\"expression\": \"2+2\"}"),
            ToolCall::new("toolu_10", "calc", "{}")
        ]
    );
    assert_eq!(response.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(response.usage, Some(Usage::new(20, 15)));
}

#[tokio::test]
async fn a_stream_without_message_stop_is_an_error() {
    let server = Server::start(vec![Reply::sse(&[
        "event: message_start\ndata: {\"type\": \"message_start\", \"message\": {}}\n\n",
    ])])
    .await;
    let messages = vec![Message::user("hi")];
    let mut stream = backend(&server)
        .stream(ChatRequest::new(&messages, &[]))
        .await
        .unwrap();
    let mut last = None;
    while let Some(delta) = stream.next().await {
        last = Some(delta);
    }
    let error = last.unwrap().unwrap_err();
    assert!(error.to_string().contains("message_stop"), "{error}");
}

#[tokio::test]
async fn overloaded_errors_say_so() {
    let server = Server::start(vec![Reply::status(400, r#"{"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: must be positive"}}"#)]).await;
    let messages = vec![Message::user("hi")];
    let error = backend(&server)
        .complete(ChatRequest::new(&messages, &[]))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the model server answered 400: max_tokens: must be positive"
    );
}

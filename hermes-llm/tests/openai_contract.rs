//! The OpenAI-compatible backend against a local server sending the documented shapes
//! and the real-world variations.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use std::time::Duration;

use common::{Reply, Server, sse_body};
use futures_util::StreamExt;
use hermes_core::{
    ChatRequest, DeltaAccumulator, FinishReason, LlmBackend, LlmError, Message, ToolCall,
    ToolChoice, Usage,
};
use hermes_llm::{OpenAiBackend, RetryPolicy};
use serde_json::{Value, json};

fn backend(server: &Server) -> OpenAiBackend {
    OpenAiBackend::builder()
        .base_url(format!("{}/v1", server.url))
        .api_key("sk-test")
        .model("m")
        .header("x-title", "hermes-tests")
        .retry(RetryPolicy::new(4, Duration::from_millis(1)))
        .build()
        .unwrap()
}

fn tools() -> Vec<Value> {
    vec![
        json!({"type": "function", "function": {"name": "calc", "description": "math", "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}}}}),
    ]
}

fn history() -> Vec<Message> {
    vec![
        Message::system("sys"),
        Message::user("6*7?"),
        Message::tool_calls([ToolCall::new("call_1", "calc", r#"{"expression":"6*7"}"#)]),
        Message::tool("call_1", "calc", r#"{"result":42}"#),
    ]
}

async fn collect(
    backend: &OpenAiBackend,
    choice: &ToolChoice,
) -> Result<hermes_core::ChatResponse, LlmError> {
    let messages = history();
    let tools = tools();
    let mut stream = backend
        .stream(ChatRequest::new(&messages, &tools).with_tool_choice(choice))
        .await?;
    let mut accumulator = DeltaAccumulator::new();
    while let Some(delta) = stream.next().await {
        accumulator.push(delta?);
    }
    Ok(accumulator.finish())
}

#[tokio::test]
async fn the_request_is_what_servers_accept() {
    let server = Server::start(vec![Reply::json(
        json!({"choices": [{"message": {"content": "42"}, "finish_reason": "stop"}]}),
    )])
    .await;
    let backend = backend(&server);
    let messages = history();
    let tools = tools();
    backend
        .complete(ChatRequest::new(&messages, &tools).with_tool_choice(&ToolChoice::Required))
        .await
        .unwrap();
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(request.header("x-title"), Some("hermes-tests"));
    let body = &request.body;
    assert_eq!(body["model"], "m");
    // A call-only assistant message carries "" (null makes some servers fail).
    assert_eq!(body["messages"][2]["content"], "");
    assert_eq!(
        body["messages"][2]["tool_calls"][0]["function"]["arguments"],
        r#"{"expression":"6*7"}"#
    );
    // Tool messages carry no name (not in the API).
    assert_eq!(
        body["messages"][3],
        json!({"role": "tool", "tool_call_id": "call_1", "content": r#"{"result":42}"#})
    );
    // `required` with one tool goes by name.
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "function": {"name": "calc"}})
    );
    assert!(body.get("stream").is_none());
}

#[tokio::test]
async fn a_whole_answer_with_calls_reasoning_and_the_legacy_field() {
    let server = Server::start(vec![Reply::json(json!({
        "choices": [{"message": {
            "content": null,
            "reasoning_content": "thinking",
            "tool_calls": [{"id": "c9", "type": "function", "function": {"name": "calc", "arguments": "{\"expression\": \"1+1\"}"}}],
            "function_call": {"name": "calc:", "arguments": "{}"}
        }, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    }))])
    .await;
    let messages = history();
    let response = backend(&server)
        .complete(ChatRequest::new(&messages, &tools()))
        .await
        .unwrap();
    assert_eq!(
        response.message.tool_calls,
        vec![ToolCall::new("c9", "calc", "{\"expression\": \"1+1\"}")]
    );
    assert_eq!(response.reasoning.as_deref(), Some("thinking"));
    assert_eq!(response.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(response.usage, Some(Usage::new(10, 5)));
}

#[tokio::test]
async fn only_the_legacy_field_still_makes_a_call() {
    let server = Server::start(vec![Reply::json(json!({"choices": [{"message": {"function_call": {"name": "calc:", "arguments": "{}"}}, "finish_reason": "function_call"}]}))]).await;
    let messages = history();
    let response = backend(&server)
        .complete(ChatRequest::new(&messages, &tools()))
        .await
        .unwrap();
    assert_eq!(response.message.tool_calls.len(), 1);
    assert_eq!(response.message.tool_calls[0].name(), "calc");
    assert!(response.message.tool_calls[0].id.starts_with("call_"));
}

#[tokio::test]
async fn a_stream_split_anywhere_assembles() {
    let chunk =
        |delta: Value| json!({"choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
    let body = sse_body(&[
        chunk(json!({"role": "assistant", "content": null, "tool_calls": null})),
        chunk(json!({"reasoning_content": "let me"})),
        chunk(json!({"content": "Sure"})),
        // Every piece repeats id, type and name, as llama-cpp-python does.
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{\"expr"}}], "function_call": {"name": "calc", "arguments": "{\"expr"}}),
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "calc", "arguments": "ession\": \"2\"}"}}]}),
        ),
        // A second call reusing index 0 with a new id.
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "c2", "type": "function", "function": {"name": "calc", "arguments": "{}"}}]}),
        ),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}),
    ]);
    let with_comments = format!(": keep-alive\n\n{body}");
    // Cut the body into 5-byte pieces: lines split across reads.
    let bytes = with_comments.as_bytes();
    let pieces: Vec<String> = bytes
        .chunks(5)
        .map(|piece| String::from_utf8_lossy(piece).into_owned())
        .collect();
    let all_ascii = with_comments.is_ascii();
    assert!(all_ascii);
    let server = Server::start(vec![Reply::sse(
        &pieces.iter().map(String::as_str).collect::<Vec<_>>(),
    )])
    .await;
    let response = collect(&backend(&server), &ToolChoice::Auto).await.unwrap();
    assert_eq!(response.message.content.as_deref(), Some("Sure"));
    assert_eq!(response.reasoning.as_deref(), Some("let me"));
    assert_eq!(
        response.message.tool_calls,
        vec![
            ToolCall::new("c1", "calc", "{\"expression\": \"2\"}"),
            ToolCall::new("c2", "calc", "{}")
        ]
    );
    assert_eq!(response.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(response.usage, Some(Usage::new(7, 3)));
    let body = &server.requests()[0].body;
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn a_stream_that_stops_early_is_an_error() {
    for body in [
        "",
        "data: {\"choices\": [{\"index\": 0, \"delta\": {\"content\": \"hal\"}}]}\n\n",
    ] {
        let server = Server::start(vec![Reply::sse(&[body])]).await;
        let error = collect(&backend(&server), &ToolChoice::Auto)
            .await
            .unwrap_err();
        assert!(
            error.to_string().contains("ended before `[DONE]`"),
            "{error}"
        );
    }
}

#[tokio::test]
async fn an_error_inside_the_stream_says_what_the_server_said() {
    let server = Server::start(vec![Reply::sse(&[
        "data: {\"error\": {\"message\": \"context length exceeded\"}}\n\n",
    ])])
    .await;
    let error = collect(&backend(&server), &ToolChoice::Auto)
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("context length exceeded"),
        "{error}"
    );
}

#[tokio::test]
async fn client_errors_are_not_retried_and_carry_the_message() {
    let server = Server::start(vec![Reply::status(
        401,
        r#"{"error": {"message": "Incorrect API key provided"}}"#,
    )])
    .await;
    let messages = history();
    let error = backend(&server)
        .complete(ChatRequest::new(&messages, &[]))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, LlmError::Status { status: 401, .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "the model server answered 401: Incorrect API key provided"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn rate_limits_and_server_errors_are_retried() {
    let server = Server::start(vec![
        Reply::status(429, r#"{"error": {"message": "slow down"}}"#).header("retry-after", "0"),
        Reply::status(503, "upstream unavailable"),
        Reply::json(json!({"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]})),
    ])
    .await;
    let messages = history();
    let response = backend(&server)
        .complete(ChatRequest::new(&messages, &[]))
        .await
        .unwrap();
    assert_eq!(response.message.content.as_deref(), Some("ok"));
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn retries_stop_after_the_attempts() {
    let server = Server::start((0..6).map(|_| Reply::status(500, "boom")).collect()).await;
    let messages = history();
    let error = backend(&server)
        .complete(ChatRequest::new(&messages, &[]))
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "the model server answered 500: boom");
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn retries_stop_at_the_runs_deadline() {
    let server = Server::start(vec![
        Reply::status(429, "busy").header("retry-after", "30"),
        Reply::json(json!({"choices": [{"message": {"content": "late"}}]})),
    ])
    .await;
    let backend = OpenAiBackend::builder()
        .base_url(format!("{}/v1", server.url))
        .model("m")
        .retry(RetryPolicy::default())
        .build()
        .unwrap();
    let messages = history();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let error = backend
        .complete(ChatRequest::new(&messages, &[]).with_deadline(Some(deadline)))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("429"), "{error}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_server_that_is_not_there() {
    let backend = OpenAiBackend::builder()
        .base_url("http://127.0.0.1:9/v1")
        .model("m")
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let messages = history();
    let error = backend
        .complete(ChatRequest::new(&messages, &[]))
        .await
        .unwrap_err();
    assert!(matches!(error, LlmError::Transport { .. }));
    assert!(
        error.to_string().contains("is the server running?"),
        "{error}"
    );
}

#[test]
fn configuration_errors_say_what_to_set() {
    let error = OpenAiBackend::builder()
        .base_url("http://x/v1")
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("model"), "{error}");
    let error = OpenAiBackend::builder()
        .base_url("localhost:1234")
        .model("m")
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("http(s)://"), "{error}");
}

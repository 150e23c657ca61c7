//! The Hermes text-format backend against a local completions server.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use common::{Reply, Server, sse_body};
use futures_util::StreamExt;
use hermes_core::{
    ChatRequest, DeltaAccumulator, FinishReason, LlmBackend, Message, ToolCall, ToolChoice,
};
use hermes_llm::HermesBackend;
use serde_json::{Value, json};

fn backend(server: &Server, grammar: bool) -> HermesBackend {
    HermesBackend::builder()
        .base_url(format!("{}/v1", server.url))
        .model("hermes")
        .grammar(grammar)
        .build()
        .unwrap()
}

fn tools() -> Vec<Value> {
    vec![
        json!({"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}),
        json!({"type": "function", "function": {"name": "calc", "description": "Math.", "parameters": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}}}),
    ]
}

fn completion(text: &str) -> Reply {
    Reply::json(
        json!({"choices": [{"text": text, "finish_reason": "stop"}], "usage": {"prompt_tokens": 50, "completion_tokens": 20}}),
    )
}

#[tokio::test]
async fn the_prompt_stops_and_grammar_are_sent() {
    let server = Server::start(vec![
        completion("Fine."),
        completion(
            "<tool_call>{\"name\": \"calc\", \"arguments\": {\"expression\": \"1\"}}</tool_call>",
        ),
    ])
    .await;
    let backend = backend(&server, true);
    let messages = vec![
        Message::system("Be brief."),
        Message::user("weather?"),
        Message::tool_calls([ToolCall::new("c1", "get_weather", r#"{"city":"Oslo"}"#)]),
        Message::tool("c1", "get_weather", r#"{"temp":3}"#),
    ];
    let tools = tools();
    backend
        .complete(ChatRequest::new(&messages, &tools))
        .await
        .unwrap();
    backend
        .complete(
            ChatRequest::new(&messages, &tools)
                .with_tool_choice(&ToolChoice::Function("calc".into())),
        )
        .await
        .unwrap();
    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/completions");
    let body = &requests[0].body;
    assert_eq!(body["stop"], json!(["<|im_end|>", "<|eot_id|>"]));
    let prompt = body["prompt"].as_str().unwrap();
    assert!(
        prompt.starts_with("<|im_start|>system\nBe brief.\n\nYou can call functions."),
        "{prompt}"
    );
    assert!(
        prompt.contains("<tools>\n{\"description\":\"Weather.\""),
        "{prompt}"
    );
    assert!(
        prompt.contains("<|im_start|>tool\n<tool_response>"),
        "{prompt}"
    );
    assert!(prompt.ends_with("<|im_start|>assistant\n"), "{prompt}");
    assert!(body.get("grammar").is_none(), "auto: the model is free");
    let forced = &requests[1].body;
    let grammar = forced["grammar"].as_str().unwrap();
    assert!(
        grammar.contains("\\\"calc\\\"") && !grammar.contains("get_weather"),
        "{grammar}"
    );
    assert!(
        forced["prompt"]
            .as_str()
            .unwrap()
            .contains("Call the function `calc` now.")
    );
}

#[tokio::test]
async fn text_becomes_the_same_message_as_the_openai_backend_gives() {
    let server = Server::start(vec![completion(
        "<think>Two cities.</think>Checking both.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\"}}\n</tool_call>\n<tool_call>{\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Rome\\\"}\"}</tool_call><|im_end|>",
    )])
    .await;
    let messages = vec![Message::user("weather in Oslo and Rome?")];
    let response = backend(&server, false)
        .complete(ChatRequest::new(&messages, &tools()))
        .await
        .unwrap();
    let calls = &response.message.tool_calls;
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[0].name(), calls[0].arguments()),
        ("get_weather", r#"{"city":"Oslo"}"#)
    );
    assert_eq!(calls[1].arguments(), r#"{"city":"Rome"}"#);
    assert!(calls[0].id.starts_with("call_") && calls[0].id != calls[1].id);
    assert_eq!(response.message.content.as_deref(), Some("Checking both."));
    assert_eq!(response.reasoning.as_deref(), Some("Two cities."));
    assert_eq!(response.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(response.usage.unwrap().total_tokens, 70);
}

#[tokio::test]
async fn a_broken_block_still_reaches_the_gateway_as_a_call() {
    let server = Server::start(vec![completion(
        "<tool_call>{\"name\": \"calc\", \"arguments\": {expression: 1}}</tool_call>",
    )])
    .await;
    let messages = vec![Message::user("1?")];
    let response = backend(&server, false)
        .complete(ChatRequest::new(&messages, &tools()))
        .await
        .unwrap();
    let call = &response.message.tool_calls[0];
    assert_eq!(call.name(), "calc");
    assert!(
        serde_json::from_str::<Value>(call.arguments()).is_err(),
        "the raw text, so the gateway reports bad JSON"
    );
}

#[tokio::test]
async fn a_stream_with_tags_split_across_chunks() {
    let text = "Hi <think>hmm</think><tool_call>{\"name\": \"calc\", \"arguments\": {\"expression\": \"</tool_call>\"}}</tool_call>";
    let chars: Vec<char> = text.chars().collect();
    let events: Vec<Value> = chars
        .chunks(4)
        .map(|piece| json!({"choices": [{"text": piece.iter().collect::<String>(), "finish_reason": null}]}))
        .collect();
    let body = sse_body(&events);
    let server = Server::start(vec![Reply::sse(&[&body])]).await;
    let messages = vec![Message::user("go")];
    let tools = tools();
    let mut stream = backend(&server, false)
        .stream(ChatRequest::new(&messages, &tools))
        .await
        .unwrap();
    let mut accumulator = DeltaAccumulator::new();
    while let Some(delta) = stream.next().await {
        accumulator.push(delta.unwrap());
    }
    let response = accumulator.finish();
    assert_eq!(response.message.content.as_deref(), Some("Hi "));
    assert_eq!(response.reasoning.as_deref(), Some("hmm"));
    assert_eq!(response.message.tool_calls.len(), 1);
    assert_eq!(
        response.message.tool_calls[0].arguments(),
        r#"{"expression":"</tool_call>"}"#
    );
    assert_eq!(response.finish_reason, Some(FinishReason::ToolCalls));
}

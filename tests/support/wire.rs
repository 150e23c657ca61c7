//! Chat Completions bodies and stream chunks, as a server sends them.

use serde_json::{Value, json};

/// One call: id, tool name, argument text.
pub type Call<'a> = (&'a str, &'a str, &'a str);

/// A whole answer with text.
pub fn text(content: &str) -> Value {
    json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
    })
}

/// A whole answer calling tools.
pub fn calls(calls: &[Call<'_>]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| {
            json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}})
        })
        .collect();
    json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": calls}, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    })
}

/// A chunk carrying this delta.
pub fn delta(delta: Value) -> Value {
    json!({"choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
}

/// A chunk with a piece of text.
pub fn text_piece(text: &str) -> Value {
    delta(json!({"content": text}))
}

/// A chunk with a piece of call `index`; `id` and `name` on its first piece.
pub fn call_piece(index: usize, id: Option<&str>, name: Option<&str>, args: &str) -> Value {
    let mut call = json!({"index": index, "function": {"arguments": args}});
    if let Some(id) = id {
        call["id"] = json!(id);
        call["type"] = json!("function");
    }
    if let Some(name) = name {
        call["function"]["name"] = json!(name);
    }
    delta(json!({"tool_calls": [call]}))
}

/// The last chunk of a turn.
pub fn finish(reason: &str) -> Value {
    json!({"choices": [{"index": 0, "delta": {}, "finish_reason": reason}]})
}

/// A streamed answer with text, in two pieces.
pub fn streamed_text(content: &str) -> Vec<Value> {
    let cut = content.len() / 2;
    let cut = (0..=cut)
        .rev()
        .find(|&i| content.is_char_boundary(i))
        .unwrap_or(0);
    vec![
        delta(json!({"role": "assistant", "content": ""})),
        text_piece(&content[..cut]),
        text_piece(&content[cut..]),
        finish("stop"),
    ]
}

/// A streamed answer calling tools, each call's arguments in two pieces.
pub fn streamed_calls(calls: &[Call<'_>]) -> Vec<Value> {
    let mut chunks = vec![delta(json!({"role": "assistant", "content": null}))];
    for (index, (id, name, args)) in calls.iter().enumerate() {
        let cut = args.len() / 2;
        chunks.push(call_piece(index, Some(id), Some(name), &args[..cut]));
        chunks.push(call_piece(index, None, None, &args[cut..]));
    }
    chunks.push(finish("tool_calls"));
    chunks
}

//! Answers that break: a reset mid-body, a stream cut short, chunks that are not JSON,
//! call indexes that jump, calls without an id or sharing one, no choices. Nothing
//! half-read runs as a tool call, and every call's result can be told apart.

use std::sync::Arc;

use hermes_core::Message;
use serde_json::json;

use super::support::server::{End, FaultServer, Reply};
use super::support::wire;
use super::{
    MODES, Mode, agent, assert_completed, assert_failed, calls, openai, quick_retries, run,
    runs_of, text, tool_results,
};

/// A whole answer cut off by a reset half-way through its body, or a stream reset
/// after a complete call but before the turn ended.
fn reset_mid_answer(mode: Mode) -> Reply {
    match mode {
        Mode::Whole => {
            let body = wire::calls(&[("call_1", "echo", r#"{"n":1}"#)]).to_string();
            Reply::CutBody {
                claimed: body.len(),
                sent: body[..body.len() / 2].to_owned(),
            }
        }
        Mode::Streamed => Reply::sse_ending(
            &[wire::call_piece(
                0,
                Some("call_1"),
                Some("echo"),
                r#"{"n":1}"#,
            )],
            End::Reset,
        ),
    }
}

#[tokio::test]
async fn a_reset_mid_answer_fails_the_run_and_runs_nothing() {
    for mode in MODES {
        let runs = Arc::default();
        let server = FaultServer::scripted(vec![reset_mid_answer(mode), text(mode, "late")]);
        let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
            .build()
            .unwrap();
        let outcome = run(&agent).await;
        assert_failed(&outcome, "the connection broke", mode);
        assert_eq!(runs_of(&runs), 0, "{mode:?}");
        // The status was 200: the request went through, so it is not sent again.
        assert_eq!(server.count(), 1, "{mode:?}");
    }
}

#[tokio::test]
async fn a_stream_that_stops_without_done_or_a_finish_reason_is_an_error() {
    for end in [End::Close, End::Reset] {
        let runs = Arc::default();
        let server = FaultServer::scripted(vec![Reply::sse_ending(
            &[
                wire::text_piece("let me see"),
                wire::call_piece(0, Some("call_1"), Some("echo"), r#"{"n":1}"#),
            ],
            end,
        )]);
        let agent = agent(Mode::Streamed, openai(&server, quick_retries(4)), &runs)
            .build()
            .unwrap();
        let outcome = run(&agent).await;
        let says = match end {
            End::Close => "ended before `[DONE]`",
            _ => "the connection broke",
        };
        assert_failed(&outcome, says, Mode::Streamed);
        assert_eq!(runs_of(&runs), 0, "{end:?}");
        assert_eq!(server.count(), 1);
    }
}

#[tokio::test]
async fn a_stream_with_a_finish_reason_but_no_done_still_counts() {
    let runs = Arc::default();
    let call = wire::streamed_calls(&[("call_1", "echo", r#"{"n":1}"#)]);
    let server = FaultServer::scripted(vec![
        Reply::sse_ending(&call, End::Close),
        Reply::sse_ending(&wire::streamed_text("done"), End::Close),
    ]);
    let agent = agent(Mode::Streamed, openai(&server, quick_retries(4)), &runs)
        .build()
        .unwrap();
    let outcome = run(&agent).await;
    assert_completed(&outcome, "done", Mode::Streamed);
    assert_eq!(runs_of(&runs), 1);
    assert_eq!(server.count(), 2);
}

#[tokio::test]
async fn malformed_json_fails_the_run_with_what_was_wrong() {
    for mode in MODES {
        let runs = Arc::default();
        let broken = match mode {
            Mode::Whole => Reply::Raw(r#"{"choices": [{"message": {"content": "hal"#.to_owned()),
            // A complete call first: it must not run when the stream then breaks.
            Mode::Streamed => Reply::Sse {
                events: vec![
                    wire::call_piece(0, Some("call_1"), Some("echo"), r#"{"n":1}"#).to_string(),
                    r#"{"choices": [{"index": 0, "delta": {"content": "hal"#.to_owned(),
                ],
                end: End::Done,
            },
        };
        let server = FaultServer::scripted(vec![broken, text(mode, "late")]);
        let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
            .build()
            .unwrap();
        let outcome = run(&agent).await;
        let says = match mode {
            Mode::Whole => "is not a chat completion",
            Mode::Streamed => "not the JSON expected",
        };
        assert_failed(&outcome, says, mode);
        assert_eq!(runs_of(&runs), 0, "{mode:?}");
        assert_eq!(server.count(), 1, "{mode:?}");
    }
}

#[tokio::test]
async fn call_indexes_that_jump_still_give_one_result_per_call() {
    let runs = Arc::default();
    let server = FaultServer::scripted(vec![
        Reply::sse(&[
            wire::call_piece(0, Some("call_a"), Some("echo"), r#"{"n":"#),
            wire::call_piece(0, None, None, "1}"),
            // Index 1 to 4 never come.
            wire::call_piece(5, Some("call_b"), Some("echo"), r#"{"n":2}"#),
            wire::call_piece(2, Some("call_c"), Some("echo"), r#"{"n":3}"#),
            wire::finish("tool_calls"),
        ]),
        text(Mode::Streamed, "done"),
    ]);
    let agent = agent(Mode::Streamed, openai(&server, quick_retries(4)), &runs)
        .build()
        .unwrap();
    let outcome = run(&agent).await;
    assert_completed(&outcome, "done", Mode::Streamed);
    assert_eq!(runs_of(&runs), 3);
    let results = tool_results(&server.requests()[1]);
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["call_a", "call_b", "call_c"]);
    // Each result is its own call's.
    for ((id, content), n) in results.iter().zip(1..) {
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(content).unwrap(),
            json!({"n": n, "call": id})
        );
    }
}

#[tokio::test]
async fn a_piece_at_a_new_index_without_an_id_still_gets_an_id() {
    let runs = Arc::default();
    let server = FaultServer::scripted(vec![
        Reply::sse(&[
            wire::call_piece(0, Some("call_a"), Some("echo"), r#"{"n":1}"#),
            // A server that numbers its second call but never names or ids it.
            wire::call_piece(3, None, Some("echo"), r#"{"n":2}"#),
            wire::finish("tool_calls"),
        ]),
        text(Mode::Streamed, "done"),
    ]);
    let agent = agent(Mode::Streamed, openai(&server, quick_retries(4)), &runs)
        .build()
        .unwrap();
    let outcome = run(&agent).await;
    assert_completed(&outcome, "done", Mode::Streamed);
    assert_eq!(runs_of(&runs), 2);
    let calls = outcome.messages[2].calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].id, "call_a");
    assert!(
        !calls[1].id.is_empty() && calls[1].id != "call_a",
        "{calls:?}"
    );
    let results = tool_results(&server.requests()[1]);
    assert_eq!(results[1].0, calls[1].id);
}

#[tokio::test]
async fn an_answer_without_choices_fails_the_run() {
    for mode in MODES {
        let runs = Arc::default();
        let empty = match mode {
            Mode::Whole => Reply::Json(
                json!({"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1}}),
            ),
            Mode::Streamed => Reply::sse(&[
                json!({"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1}}),
            ]),
        };
        let server = FaultServer::scripted(vec![empty, calls(mode, &[("c", "echo", "{}")])]);
        let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
            .build()
            .unwrap();
        let outcome = run(&agent).await;
        assert_failed(&outcome, "no choices", mode);
        assert_eq!(server.count(), 1, "{mode:?}");
        assert!(
            !outcome
                .messages
                .iter()
                .any(|message| matches!(message, Message::Assistant(_))),
            "{mode:?}: nothing was taken for an answer"
        );
    }
}

#[tokio::test]
async fn two_calls_with_one_id_still_get_results_that_can_be_told_apart() {
    for mode in MODES {
        let runs = Arc::default();
        let twice = [
            ("call_same", "echo", r#"{"n":1}"#),
            ("call_same", "echo", r#"{"n":2}"#),
        ];
        let server = FaultServer::scripted(vec![calls(mode, &twice), text(mode, "done")]);
        let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
            .build()
            .unwrap();
        let outcome = run(&agent).await;
        assert_completed(&outcome, "done", mode);
        assert_eq!(runs_of(&runs), 2, "{mode:?}");
        let results = tool_results(&server.requests()[1]);
        let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids.len(), 2, "{mode:?}");
        assert_ne!(
            ids[0], ids[1],
            "{mode:?}: the model could not tell the results apart"
        );
    }
}

//! Rate limits, server errors and resets before an answer: retried, each retry the same
//! request, and no tool runs again.

use std::sync::Arc;
use std::time::Duration;

use hermes_llm::RetryPolicy;

use super::support::server::{FaultServer, Reply};
use super::{
    MODES, agent, assert_completed, assert_failed, calls, openai, quick_retries, run, runs_of,
    text, tool_results,
};

const CALL: (&str, &str, &str) = ("call_1", "echo", r#"{"n":1}"#);

#[tokio::test]
async fn a_429_is_retried_after_the_wait_its_retry_after_asks_for() {
    for mode in MODES {
        let runs = Arc::default();
        let server = FaultServer::scripted(vec![
            Reply::rate_limited("0.05"),
            calls(mode, &[CALL]),
            Reply::rate_limited("0"),
            text(mode, "done"),
        ]);
        // Backoff alone would wait 15 s or more before each retry, past the safety
        // net: the run finishes only if Retry-After sets the wait.
        let retry = RetryPolicy::new(3, Duration::from_secs(60));
        let agent = agent(mode, openai(&server, retry), &runs).build().unwrap();
        let outcome = run(&agent).await;
        assert_completed(&outcome, "done", mode);
        assert_eq!(runs_of(&runs), 1, "{mode:?}");
        let requests = server.requests();
        assert_eq!(requests.len(), 4, "{mode:?}");
        // Each retry sent the very request that was refused.
        assert_eq!(requests[0], requests[1]);
        assert_eq!(requests[2], requests[3]);
        assert_eq!(tool_results(&requests[1]).len(), 0);
        assert_eq!(tool_results(&requests[3]).len(), 1);
    }
}

#[tokio::test]
async fn server_errors_500_502_and_503_are_retried_until_an_answer() {
    for mode in MODES {
        let runs = Arc::default();
        let server = FaultServer::scripted(vec![
            Reply::status(500, "internal error"),
            Reply::status(502, "bad gateway"),
            Reply::status(503, "overloaded"),
            calls(mode, &[CALL]),
            text(mode, "done"),
        ]);
        let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
            .build()
            .unwrap();
        let outcome = run(&agent).await;
        assert_completed(&outcome, "done", mode);
        assert_eq!(runs_of(&runs), 1, "{mode:?}");
        let requests = server.requests();
        assert_eq!(requests.len(), 5, "{mode:?}");
        assert!(requests[..4].iter().all(|request| *request == requests[0]));
        assert_eq!(
            tool_results(&requests[4])
                .iter()
                .map(|(id, _)| id.as_str())
                .collect::<Vec<_>>(),
            ["call_1"]
        );
    }
}

#[tokio::test]
async fn a_retry_after_the_tools_ran_does_not_run_them_again() {
    for mode in MODES {
        let runs = Arc::default();
        let server = FaultServer::scripted(vec![
            calls(mode, &[CALL, ("call_2", "echo", r#"{"n":2}"#)]),
            Reply::status(502, "bad gateway"),
            Reply::rate_limited("0"),
            Reply::status(503, "overloaded"),
            text(mode, "done"),
        ]);
        let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
            .build()
            .unwrap();
        let outcome = run(&agent).await;
        assert_completed(&outcome, "done", mode);
        assert_eq!(runs_of(&runs), 2, "{mode:?}: each call ran once");
        let requests = server.requests();
        assert_eq!(requests.len(), 5, "{mode:?}");
        assert!(requests[1..].iter().all(|request| *request == requests[1]));
        assert_eq!(tool_results(&requests[4]).len(), 2);
    }
}

#[tokio::test]
async fn errors_past_the_attempts_fail_the_run_with_the_servers_words() {
    for mode in MODES {
        let runs = Arc::default();
        let server = FaultServer::scripted(vec![
            calls(mode, &[CALL]),
            Reply::status(503, "still overloaded"),
            Reply::status(503, "still overloaded"),
            Reply::status(503, "still overloaded"),
            text(mode, "never sent"),
        ]);
        let agent = agent(mode, openai(&server, quick_retries(3)), &runs)
            .build()
            .unwrap();
        let outcome = run(&agent).await;
        assert_failed(&outcome, "503: still overloaded", mode);
        assert_eq!(runs_of(&runs), 1, "{mode:?}");
        assert_eq!(
            server.count(),
            4,
            "{mode:?}: one round, then three attempts"
        );
        assert_eq!(outcome.rounds, 2);
    }
}

#[tokio::test]
async fn a_client_error_is_not_retried() {
    for mode in MODES {
        let runs = Arc::default();
        let server = FaultServer::scripted(vec![
            Reply::status(400, "messages: invalid"),
            text(mode, "never sent"),
        ]);
        let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
            .build()
            .unwrap();
        let outcome = run(&agent).await;
        assert_failed(&outcome, "400: messages: invalid", mode);
        assert_eq!(server.count(), 1, "{mode:?}");
    }
}

#[tokio::test]
async fn a_connection_reset_before_the_answer_is_retried() {
    for mode in MODES {
        let runs = Arc::default();
        let server = FaultServer::scripted(vec![
            Reply::Reset,
            calls(mode, &[CALL]),
            Reply::Reset,
            text(mode, "done"),
        ]);
        let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
            .build()
            .unwrap();
        let outcome = run(&agent).await;
        assert_completed(&outcome, "done", mode);
        assert_eq!(runs_of(&runs), 1, "{mode:?}");
        let requests = server.requests();
        assert_eq!(requests.len(), 4, "{mode:?}");
        assert_eq!(requests[0], requests[1]);
        assert_eq!(requests[2], requests[3]);
    }
}

//! A server slower than the run's total timeout, or than the backend's read timeout.

use std::sync::Arc;
use std::time::Duration;

use hermes_core::RunStatus;
use hermes_llm::OpenAiBackend;

use super::support::server::{End, FaultServer, Reply};
use super::support::transcript::check_call_ids;
use super::support::wire;
use super::{MODES, Mode, agent, assert_failed, calls, openai, quick_retries, run, runs_of, text};

const TIMEOUT: Duration = Duration::from_millis(300);

#[tokio::test]
async fn a_server_slower_than_the_run_ends_it_as_timeout() {
    for mode in MODES {
        let runs = Arc::default();
        let server = FaultServer::scripted(vec![
            calls(mode, &[("call_1", "echo", r#"{"n":1}"#)]).after(Duration::from_secs(60)),
        ]);
        let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
            .timeout(TIMEOUT)
            .build()
            .unwrap();
        let outcome = run(&agent).await;
        assert_eq!(
            outcome.status,
            RunStatus::Timeout,
            "{mode:?}: {}",
            outcome.trace()
        );
        assert_eq!(outcome.answer, None);
        assert_eq!(outcome.error, None);
        assert_eq!(runs_of(&runs), 0, "{mode:?}");
        assert_eq!(
            server.count(),
            1,
            "{mode:?}: no retry of a request still waiting"
        );
        check_call_ids(&outcome.messages).unwrap();
    }
}

#[tokio::test]
async fn a_stream_that_stalls_half_way_ends_the_run_as_timeout() {
    let runs = Arc::default();
    let server = FaultServer::scripted(vec![Reply::sse_ending(
        &[
            wire::text_piece("thinking"),
            wire::call_piece(0, Some("call_1"), Some("echo"), r#"{"n":"#),
        ],
        End::Stall,
    )]);
    let agent = agent(Mode::Streamed, openai(&server, quick_retries(4)), &runs)
        .timeout(TIMEOUT)
        .build()
        .unwrap();
    let outcome = run(&agent).await;
    assert_eq!(outcome.status, RunStatus::Timeout, "{}", outcome.trace());
    assert_eq!(runs_of(&runs), 0);
    assert_eq!(server.count(), 1);
}

#[tokio::test]
async fn retries_of_a_rate_limit_stop_at_the_runs_deadline() {
    for mode in MODES {
        let runs = Arc::default();
        let server = FaultServer::scripted(vec![Reply::rate_limited("30"), text(mode, "too late")]);
        let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
            .timeout(Duration::from_secs(5))
            .build()
            .unwrap();
        let outcome = run(&agent).await;
        // Waiting 30 s would overrun the 5 s run: the backend gives up at once.
        assert_failed(&outcome, "429", mode);
        assert_eq!(server.count(), 1, "{mode:?}");
    }
}

#[tokio::test]
async fn a_server_slower_than_the_read_timeout_is_retried_then_fails() {
    for mode in MODES {
        let runs = Arc::default();
        let server = FaultServer::scripted(vec![Reply::Hang, Reply::Hang]);
        let backend = OpenAiBackend::builder()
            .base_url(&server.base_url)
            .model("m")
            .retry(quick_retries(2))
            .timeout(Duration::from_millis(200))
            .build()
            .unwrap();
        let agent = agent(mode, backend, &runs).build().unwrap();
        let outcome = run(&agent).await;
        assert_failed(&outcome, "did not answer in time", mode);
        assert_eq!(server.count(), 2, "{mode:?}");
    }
}

//! A misbehaving server cannot make the client hold what it sends without bound.

use std::sync::Arc;
use std::time::Duration;

use super::support::memory;
use super::support::server::{End, FaultServer, Reply};
use super::{
    MODES, Mode, agent, assert_completed, assert_failed, calls, openai, quick_retries, run,
    runs_of, text,
};

const HUGE: usize = 64 * 1024 * 1024;

#[tokio::test]
async fn a_huge_error_page_is_not_read_whole() {
    let runs = Arc::default();
    let mode = Mode::Whole;
    let server = FaultServer::scripted(vec![
        Reply::HugeError {
            status: 503,
            bytes: HUGE,
        },
        Reply::HugeError {
            status: 502,
            bytes: HUGE,
        },
        calls(mode, &[("call_1", "echo", r#"{"n":1}"#)]),
        text(mode, "done"),
    ]);
    let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
        .build()
        .unwrap();
    let _turn = memory::PEAK.write().await;
    let reset = memory::reset_peak();
    let before = memory::rss();
    let outcome = run(&agent).await;
    let growth = memory::peak_rss().saturating_sub(before);
    assert_completed(&outcome, "done", mode);
    assert_eq!(runs_of(&runs), 1);
    assert_eq!(server.count(), 4);
    // Reading a 64 MiB page whole takes 64 MiB at least; what the error keeps is 2 KiB.
    assert!(
        growth < HUGE as u64 / 4,
        "peak RSS grew by {:.0} MiB over two 64 MiB error pages (peak reset: {reset})",
        memory::mib(growth)
    );
}

#[tokio::test]
async fn keep_alive_comments_cannot_hold_a_run_past_its_timeout() {
    for mode in MODES {
        let runs = Arc::default();
        let server = FaultServer::scripted(vec![Reply::Trickle {
            every: Duration::from_millis(20),
        }]);
        // Whole: a body that never ends; streamed: a stream with nothing in it.
        let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
            .timeout(Duration::from_millis(300))
            .build()
            .unwrap();
        let outcome = run(&agent).await;
        assert_eq!(
            outcome.status,
            hermes_core::RunStatus::Timeout,
            "{mode:?}: {}",
            outcome.trace()
        );
        assert_eq!(server.count(), 1);
    }
}

#[tokio::test]
async fn a_huge_answer_is_refused_not_read_whole() {
    const ANSWER: usize = 80 * 1024 * 1024;
    let runs = Arc::default();
    let mode = Mode::Whole;
    // A wrong URL serving a large file: a 200 whose body never ends in time.
    let server = FaultServer::scripted(vec![Reply::HugeError {
        status: 200,
        bytes: ANSWER,
    }]);
    let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
        .build()
        .unwrap();
    let _turn = memory::PEAK.write().await;
    let reset = memory::reset_peak();
    let before = memory::rss();
    let outcome = run(&agent).await;
    let growth = memory::peak_rss().saturating_sub(before);
    assert_failed(&outcome, "longer than 64 MiB", mode);
    assert_eq!(runs_of(&runs), 0);
    assert_eq!(
        server.count(),
        1,
        "an answer too long is not asked for again"
    );
    // The 64 MiB read before giving up, not the whole 80 MiB and a copy of it as text.
    assert!(
        growth < 100 * 1024 * 1024,
        "peak RSS grew by {:.0} MiB over an 80 MiB answer (peak reset: {reset})",
        memory::mib(growth)
    );
}

#[tokio::test]
async fn an_endless_streamed_event_is_refused() {
    let runs = Arc::default();
    let mode = Mode::Streamed;
    // Large itself: not beside a test that measures the peak.
    let _turn = memory::PEAK.write().await;
    // One `data:` line of 20 MiB: a server that never ends its line.
    let server = FaultServer::scripted(vec![Reply::Sse {
        events: vec!["x".repeat(20 << 20)],
        end: End::Done,
    }]);
    let agent = agent(mode, openai(&server, quick_retries(4)), &runs)
        .build()
        .unwrap();
    let outcome = run(&agent).await;
    assert_failed(&outcome, "longer than 16 MiB", mode);
    assert_eq!(runs_of(&runs), 0);
}

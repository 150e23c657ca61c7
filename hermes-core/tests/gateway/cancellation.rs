//! Cancelling the run stops calls in flight and refuses new ones.

use std::sync::Arc;
use std::time::Duration;

use hermes_core::CancellationToken;
use hermes_core::{Dispatcher, RunContext, ToolCall};

use crate::common::{Probe, add, error_of, registry_with, stuck};

#[tokio::test]
async fn cancelling_the_run_stops_a_call_in_flight() {
    let probe = Probe::default();
    let registry = registry_with([Arc::new(stuck(Duration::from_secs(3600), probe.clone())) as _]);
    let token = CancellationToken::new();
    let run = RunContext::new().with_cancellation(token.clone());
    let dispatcher = Dispatcher::new(registry);
    let call = ToolCall::new("c1", "stuck", "{}");
    let in_flight = dispatcher.dispatch(&call, &run);
    let cancel = async {
        probe.entered.notified().await;
        token.cancel();
    };
    let (report, ()) = tokio::join!(in_flight, cancel);
    assert_eq!(error_of(&report.message.content)["kind"], "cancelled");
    probe.saw_cancel.notified().await;
}

#[tokio::test]
async fn a_cancelled_run_runs_nothing_new() {
    let token = CancellationToken::new();
    token.cancel();
    let report = Dispatcher::new(registry_with([Arc::new(add()) as _]))
        .dispatch(
            &ToolCall::new("c1", "add", r#"{"a":1,"b":2}"#),
            &RunContext::new().with_cancellation(token),
        )
        .await;
    assert_eq!(error_of(&report.message.content)["kind"], "cancelled");
}

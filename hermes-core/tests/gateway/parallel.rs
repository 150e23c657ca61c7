//! Calls of one message run concurrently, bounded, and report in call order.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use futures_util::StreamExt;
use hermes_core::{Dispatcher, RunContext, ToolCall};

use crate::common::{Gates, registry_with};

fn calls(n: usize) -> Vec<ToolCall> {
    (0..n)
        .map(|i| ToolCall::new(format!("call_{i}"), "wait", format!(r#"{{"gate":"g{i}"}}"#)))
        .collect()
}

#[tokio::test]
async fn three_calls_finishing_out_of_order_report_in_call_order() {
    let gates = Gates::new();
    let dispatcher = Dispatcher::new(registry_with([Arc::new(gates.tool("wait", 1)) as _]));
    let calls = calls(3);
    let run = RunContext::new();
    let mut reports = Box::pin(dispatcher.dispatch_stream(&calls, &run));
    let (first, ()) = tokio::join!(reports.next(), async {
        // All three are running at once before any finishes.
        gates.wait_entered(3).await;
        assert_eq!(gates.running.load(Ordering::SeqCst), 3);
        // Finish them last to first.
        gates.open("g2");
        gates.open("g1");
        gates.open("g0");
    });
    let mut reports: Vec<_> = std::iter::once(first.unwrap())
        .chain(reports.collect::<Vec<_>>().await)
        .collect();
    assert_eq!(reports.len(), 3);
    for (i, report) in reports.drain(..).enumerate() {
        assert_eq!(report.message.tool_call_id, format!("call_{i}"));
        assert_eq!(
            report.message.content,
            format!(r#"{{"gate":"g{i}","version":1}}"#)
        );
    }
}

#[tokio::test]
async fn concurrency_is_bounded_by_max_parallel_tools() {
    let gates = Gates::new();
    let dispatcher = Dispatcher::builder(registry_with([Arc::new(gates.tool("wait", 1)) as _]))
        .max_parallel_tools(2)
        .build()
        .unwrap();
    let calls = calls(5);
    let run = RunContext::new();
    let (reports, ()) = tokio::join!(dispatcher.dispatch_all(&calls, &run), async {
        gates.wait_entered(2).await;
        // Two in, and the other three not started.
        assert_eq!(gates.running.load(Ordering::SeqCst), 2);
        for i in 0..5 {
            gates.open(&format!("g{i}"));
        }
    });
    assert_eq!(reports.len(), 5);
    assert!(reports.iter().all(|report| report.is_success()));
    assert_eq!(gates.peak.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn zero_parallelism_is_a_configuration_error() {
    let err = Dispatcher::builder(hermes_core::Registry::new())
        .max_parallel_tools(0)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("max_parallel_tools"), "{err}");
}

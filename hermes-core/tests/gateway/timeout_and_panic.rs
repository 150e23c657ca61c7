//! A slow tool times out, a panicking tool is contained; the gateway answers both.

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Dispatcher, FnTool, RunContext, ToolCall, ToolError, ToolSpec};
use serde_json::Value;

use crate::common::{Probe, assert_error, call_once, error_of, registry_with, stuck};

#[tokio::test(start_paused = true)]
async fn slow_tool_times_out_and_its_token_fires() {
    let probe = Probe::default();
    let report = call_once(stuck(Duration::from_secs(2), probe.clone()), "{}").await;
    assert_error(&report, "timeout", "timed out after 2s");
    // The tool's background work was told to stop.
    probe.saw_cancel.notified().await;
}

#[tokio::test]
async fn panic_is_caught_and_reported() {
    let spec = ToolSpec::builder("crash", "Panics.").build().unwrap();
    let crash = FnTool::new(spec, |_: Value, _ctx| async move {
        if true {
            panic!("index out of bounds: the len is 0");
        }
        Ok::<_, ToolError>(Value::Null)
    });
    let dispatcher = Dispatcher::new(registry_with([Arc::new(crash) as _]));
    let report = dispatcher
        .dispatch(&ToolCall::new("c1", "crash", "{}"), &RunContext::new())
        .await;
    assert_error(&report, "panicked", "index out of bounds");
    // The gateway still works afterwards.
    let again = dispatcher
        .dispatch(&ToolCall::new("c2", "crash", "{}"), &RunContext::new())
        .await;
    assert_eq!(error_of(&again.message.content)["kind"], "panicked");
}

#[tokio::test]
async fn tool_failure_keeps_its_causes() {
    let spec = ToolSpec::builder("save", "Fails.").build().unwrap();
    let save = FnTool::new(spec, |_: Value, _ctx| async move {
        Err::<Value, _>(ToolError::failed_with(
            "could not save the file",
            std::io::Error::other("disk full"),
        ))
    });
    let report = call_once(save, "{}").await;
    let error = error_of(&report.message.content);
    assert_eq!(error["kind"], "failed");
    assert_eq!(error["message"], "could not save the file: disk full");
}

/// A synchronous tool panics inside `run` itself, before any future exists.
struct SyncCrash(ToolSpec);

impl hermes_core::Tool for SyncCrash {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn run<'a>(
        &'a self,
        _args: Value,
        _ctx: &'a hermes_core::ToolContext,
    ) -> hermes_core::ToolFuture<'a> {
        let empty: Vec<u8> = Vec::new();
        let first = empty.first().copied().expect("the list has an item");
        hermes_core::ToolFuture::ready(Ok(hermes_core::ToolOutput::text(first.to_string())))
    }
}

#[tokio::test]
async fn panic_in_a_synchronous_tool_is_caught_too() {
    let tool = SyncCrash(
        ToolSpec::builder("sync_crash", "Panics at once.")
            .build()
            .unwrap(),
    );
    let report = call_once(tool, "{}").await;
    assert_error(&report, "panicked", "the list has an item");
}

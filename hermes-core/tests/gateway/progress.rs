//! Tools report progress through their context; the run's events carry it.

use std::sync::Arc;

use hermes_core::{
    AgentEvent, Dispatcher, EventSink, FnTool, RunContext, ToolCall, ToolContext, ToolError,
    ToolSpec,
};
use serde_json::Value;

use crate::common::registry_with;

#[tokio::test]
async fn progress_reaches_the_event_sink_between_start_and_finish() {
    let spec = ToolSpec::builder("fetch_all", "Fetches in steps.")
        .build()
        .unwrap();
    let tool = FnTool::new(spec, |_: Value, ctx: ToolContext| async move {
        for done in [10, 20] {
            ctx.progress("fetching", Some(done), Some(20));
        }
        ctx.progress("done", None, None);
        Ok::<_, ToolError>(Value::Null)
    });
    let dispatcher = Dispatcher::new(registry_with([Arc::new(tool) as _]));
    let sink = EventSink::new();
    let run = RunContext::new().with_events(sink.clone());
    dispatcher
        .dispatch(&ToolCall::new("c7", "fetch_all", "{}"), &run)
        .await;
    let lines: Vec<String> = sink.events().iter().map(ToString::to_string).collect();
    assert_eq!(
        lines[1..4],
        [
            "tool [c7] progress: fetching (10/20)",
            "tool [c7] progress: fetching (20/20)",
            "tool [c7] progress: done",
        ],
        "{lines:#?}"
    );
    assert!(matches!(
        sink.events()[0],
        AgentEvent::ToolCallStarted { .. }
    ));
    assert!(matches!(
        sink.events()[4],
        AgentEvent::ToolCallFinished { .. }
    ));
    let json = serde_json::to_value(&sink.events()[1]).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"type": "tool_progress", "tool_call_id": "c7", "message": "fetching", "done": 10, "total": 20})
    );

    // Without a sink, reporting costs nothing and changes nothing.
    let quiet = dispatcher
        .dispatch(&ToolCall::new("c8", "fetch_all", "{}"), &RunContext::new())
        .await;
    assert!(quiet.is_success());
}

//! Long results are cut to the tool's cap, head and tail kept.

use std::sync::Arc;

use hermes_core::{Dispatcher, FnTool, RunContext, ToolCall, ToolError, ToolOutput, ToolSpec};
use serde_json::Value;

use crate::common::registry_with;

#[tokio::test]
async fn long_output_is_capped_with_a_marker() {
    let spec = ToolSpec::builder("dump", "Prints a lot.")
        .max_result_bytes(1000)
        .build()
        .unwrap();
    let dump = FnTool::new(spec, |_: Value, _ctx| async move {
        let text = format!("BEGIN{}END", "x".repeat(100_000));
        Ok::<_, ToolError>(ToolOutput::text(text))
    });
    let report = Dispatcher::new(registry_with([Arc::new(dump) as _]))
        .dispatch(&ToolCall::new("c1", "dump", "{}"), &RunContext::new())
        .await;
    let content = &report.message.content;
    assert!(report.is_success());
    assert!(
        content.starts_with("BEGIN") && content.ends_with("END"),
        "{content}"
    );
    assert!(
        content.contains("[... 99008 of 100008 bytes cut"),
        "{content}"
    );
    assert!(content.len() < 1100);
}

//! Tools that count their runs.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hermes_core::{FnTool, Registry, Tool, ToolError, ToolSpec};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    /// Any number.
    pub n: i64,
}

/// A tool named `name` that counts its runs and answers `{"n": n, "call": <call id>}`.
pub fn echo(name: &str, runs: Arc<AtomicUsize>) -> Arc<dyn Tool> {
    let spec = ToolSpec::builder(name, "Echo a number back with the call's id.")
        .parameters_for::<EchoArgs>()
        .build()
        .unwrap();
    Arc::new(FnTool::new(spec, move |args: EchoArgs, ctx| {
        runs.fetch_add(1, Ordering::SeqCst);
        async move { Ok::<Value, ToolError>(json!({"n": args.n, "call": ctx.tool_call_id()})) }
    }))
}

/// A registry with one counting `echo` tool.
pub fn echo_registry(runs: Arc<AtomicUsize>) -> Registry {
    let registry = Registry::new();
    registry.register_arc(echo("echo", runs)).unwrap();
    registry
}

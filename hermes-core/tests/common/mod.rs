//! Tools shared by the behaviour tests.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs,
    unreachable_pub
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hermes_core::{
    FnTool, Registry, Scope, ToolContext, ToolError, ToolOutput, ToolSpec, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::Notify;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddArgs {
    pub a: i64,
    pub b: i64,
}

/// `add(a, b)`.
pub fn add() -> impl hermes_core::Tool {
    let spec = ToolSpec::builder("add", "Add two integers.")
        .parameters_for::<AddArgs>()
        .build()
        .unwrap();
    FnTool::new(spec, |args: AddArgs, _ctx| async move {
        Ok::<_, ToolError>(json!({"sum": args.a + args.b}))
    })
}

/// A tool with a raw JSON schema and a body that echoes its arguments.
pub fn echo(name: &str, schema: Value, scope: Scope) -> impl hermes_core::Tool {
    let spec = ToolSpec::builder(name, "Echo the arguments.")
        .parameters(schema)
        .scope(scope)
        .build()
        .unwrap();
    FnTool::new(
        spec,
        |args: Value, _ctx| async move { Ok::<_, ToolError>(args) },
    )
}

/// A tool that counts its runs and answers with the count.
pub struct Counting {
    pub spec: ToolSpec,
    pub runs: Arc<AtomicUsize>,
}

impl Counting {
    pub fn new(name: &str, scope: Scope) -> Self {
        let spec = ToolSpec::builder(name, "Count runs.")
            .parameters(json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "idempotency_key": {"type": "string"}
                }
            }))
            .scope(scope)
            .build()
            .unwrap();
        Self {
            spec,
            runs: Arc::default(),
        }
    }
}

impl TypedTool for Counting {
    type Args = Value;
    type Output = Value;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> Result<Value, ToolError> {
        let run = self.runs.fetch_add(1, Ordering::SeqCst) + 1;
        if args.get("path") == Some(&json!("fail")) {
            return Err(ToolError::failed("asked to fail"));
        }
        Ok(json!({"run": run}))
    }
}

/// A tool whose calls wait until the test releases them: `{"gate": "name"}` waits on the
/// gate of that name, then answers `{"gate": name, "version": version}`.
#[derive(Clone)]
pub struct Gates {
    gates: Arc<std::sync::Mutex<std::collections::HashMap<String, Arc<Notify>>>>,
    entered: Arc<tokio::sync::Semaphore>,
    pub running: Arc<AtomicUsize>,
    pub peak: Arc<AtomicUsize>,
}

impl Gates {
    pub fn new() -> Self {
        Self {
            gates: Arc::default(),
            entered: Arc::new(tokio::sync::Semaphore::new(0)),
            running: Arc::default(),
            peak: Arc::default(),
        }
    }

    pub fn gate(&self, name: &str) -> Arc<Notify> {
        self.gates
            .lock()
            .unwrap()
            .entry(name.to_owned())
            .or_insert_with(|| Arc::new(Notify::new()))
            .clone()
    }

    /// Wait until `n` more calls have entered the tool.
    pub async fn wait_entered(&self, n: u32) {
        self.entered.acquire_many(n).await.unwrap().forget();
    }

    /// Let the call waiting on `name` finish (now or when it arrives).
    pub fn open(&self, name: &str) {
        self.gate(name).notify_one();
    }

    pub fn tool(&self, name: &str, version: u32) -> GatedTool {
        GatedTool {
            spec: ToolSpec::builder(name, "Wait for the test's signal.")
                .parameters(json!({
                    "type": "object",
                    "properties": {"gate": {"type": "string"}},
                    "required": ["gate"]
                }))
                .timeout(Duration::from_secs(3600))
                .build()
                .unwrap(),
            gates: self.clone(),
            version,
            torn_down: Arc::new(Notify::new()),
            teardowns: Arc::default(),
        }
    }
}

pub struct GatedTool {
    spec: ToolSpec,
    gates: Gates,
    pub version: u32,
    pub torn_down: Arc<Notify>,
    pub teardowns: Arc<AtomicUsize>,
}

impl TypedTool for GatedTool {
    type Args = Value;
    type Output = Value;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> Result<Value, ToolError> {
        let name = args["gate"].as_str().unwrap().to_owned();
        let gate = self.gates.gate(&name);
        let now = self.gates.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.gates.peak.fetch_max(now, Ordering::SeqCst);
        self.gates.entered.add_permits(1);
        gate.notified().await;
        self.gates.running.fetch_sub(1, Ordering::SeqCst);
        Ok(json!({"gate": name, "version": self.version}))
    }

    async fn teardown(&self) {
        self.teardowns.fetch_add(1, Ordering::SeqCst);
        self.torn_down.notify_one();
    }
}

/// What a [`stuck`] tool tells the test: that it started, that it saw its cancellation.
#[derive(Clone, Default)]
pub struct Probe {
    pub entered: Arc<Notify>,
    pub saw_cancel: Arc<Notify>,
}

/// A tool that never finishes unless cancelled; it reports through `probe`.
pub fn stuck(timeout: Duration, probe: Probe) -> impl hermes_core::Tool {
    let spec = ToolSpec::builder("stuck", "Never finishes.")
        .timeout(timeout)
        .build()
        .unwrap();
    FnTool::new(spec, move |_: Value, ctx: ToolContext| {
        let probe = probe.clone();
        async move {
            // Watch the token from a task of its own, as a tool with background work would.
            let token = ctx.cancellation().clone();
            let saw_cancel = probe.saw_cancel.clone();
            tokio::spawn(async move {
                token.cancelled().await;
                saw_cancel.notify_one();
            });
            probe.entered.notify_one();
            std::future::pending::<()>().await;
            Ok::<_, ToolError>(ToolOutput::text("unreachable"))
        }
    })
}

pub fn registry_with(tools: impl IntoIterator<Item = Arc<dyn hermes_core::Tool>>) -> Registry {
    let registry = Registry::new();
    for tool in tools {
        registry.register_arc(tool).unwrap();
    }
    registry
}

pub fn error_of(content: &str) -> Value {
    let value: Value = serde_json::from_str(content).expect("tool content is JSON");
    value
        .get("error")
        .cloned()
        .unwrap_or_else(|| panic!("not an error: {content}"))
}

/// Dispatch one call of `tool` (by its own name) with `args` through a fresh gateway.
pub async fn call_once(tool: impl hermes_core::Tool, args: &str) -> hermes_core::CallReport {
    let name = tool.spec().name().to_owned();
    hermes_core::Dispatcher::new(registry_with([Arc::new(tool) as _]))
        .dispatch(
            &hermes_core::ToolCall::new("c1", name, args),
            &hermes_core::RunContext::new(),
        )
        .await
}

/// Assert the call failed with `kind` and a message containing `needle`.
pub fn assert_error(report: &hermes_core::CallReport, kind: &str, needle: &str) {
    let error = error_of(&report.message.content);
    assert_eq!(error["kind"], kind, "{error}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains(needle), "`{needle}` not in: {message}");
}

/// The text inside an untrusted-content fence, or `content` when it is not fenced.
pub fn unfence(content: &str) -> &str {
    if !content.starts_with("<untrusted-content ") {
        return content;
    }
    let start = content.find('\n').unwrap() + 1;
    let end = content.rfind("\n</untrusted-content boundary=").unwrap();
    &content[start..end]
}

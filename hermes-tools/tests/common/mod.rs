//! Helpers for the behaviour tests: a gateway over the built-in tools in a fresh
//! workspace, and calls through it.
#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs,
    unreachable_pub
)]

use std::path::{Path, PathBuf};

use hermes_core::{ApproveAll, CallReport, Dispatcher, RunContext, ToolCall};
use hermes_tools::ToolsConfig;
use serde_json::Value;

/// The built-in tools behind a gateway that approves everything, in a temporary
/// workspace of their own.
pub struct Bench {
    pub dir: tempfile::TempDir,
    pub dispatcher: Dispatcher,
    pub run: RunContext,
}

impl Bench {
    pub fn new() -> Self {
        Self::with_config(|config| config)
    }

    /// With settings of the test's own on top of the workspace root.
    pub fn with_config(
        configure: impl FnOnce(hermes_tools::ToolsConfigBuilder) -> hermes_tools::ToolsConfigBuilder,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = configure(ToolsConfig::builder().workspace_root(dir.path())).build();
        let registry = hermes_tools::builtin(config).unwrap();
        let dispatcher = Dispatcher::builder(registry)
            .approver(ApproveAll)
            .build()
            .unwrap();
        Self {
            dir,
            dispatcher,
            run: RunContext::new().with_session("tests"),
        }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.dir.path().join(relative)
    }

    /// Call `tool` with `args`; the report.
    pub async fn report(&self, tool: &str, args: Value) -> CallReport {
        let call = ToolCall::with_args("call_1", tool, &args);
        self.dispatcher.dispatch(&call, &self.run).await
    }

    /// Call `tool` with `args`; the result as JSON, which must be a success.
    pub async fn ok(&self, tool: &str, args: Value) -> Value {
        let report = self.report(tool, args).await;
        assert!(report.is_success(), "{tool}: {}", report.message.content);
        serde_json::from_str(&report.message.content)
            .unwrap_or_else(|_| Value::String(report.message.content.clone()))
    }

    /// Call `tool` with `args`; the error, which must be of `kind` and mention `needle`.
    pub async fn fails(&self, tool: &str, args: Value, kind: &str, needle: &str) -> String {
        let report = self.report(tool, args).await;
        let content: Value = serde_json::from_str(&report.message.content)
            .unwrap_or_else(|_| panic!("{tool}: not JSON: {}", report.message.content));
        let error = &content["error"];
        assert_eq!(error["kind"], kind, "{tool}: {content}");
        let message = error["message"].as_str().unwrap_or_default().to_owned();
        assert!(
            message.contains(needle),
            "{tool}: `{needle}` not in: {message}"
        );
        message
    }
}

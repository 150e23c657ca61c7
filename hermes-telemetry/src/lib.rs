//! Telemetry and the audit trail for hermes agents.
//!
//! - [`TelemetryCollector`]: an [`Observer`](hermes_core::observe::Observer) that
//!   records every tool call and model call into a [`TelemetryStore`] (SQLite, WAL)
//!   through a bounded channel, so the calls themselves never wait on a disk.
//! - [`Report`]: calls, success rate, the top tools, errors by kind, tokens charged to
//!   tools, latency percentiles, over a period. `hermes telemetry report` prints it.
//! - [`Bucket`]s: the same over time, for the dashboard (feature `dashboard`).
//! - [`audit`]: the audit trail, one masked entry per tool call, in JSON Lines or
//!   SQLite, written before the call's result is handed on.
//! - [`logs::MaskingWriter`]: log lines masked before they are written.
//!
//! Features: `dashboard` serves the local web page of charts (`dashboard::serve`);
//! `otel` exports the agent's `tracing` spans over OTLP/HTTP (`otel::layer`).
//!
//! ```
//! use std::time::Duration;
//! use hermes_core::{Dispatcher, Registry, RunContext, ToolCall, demo::Calc};
//! use hermes_telemetry::TelemetryCollector;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let telemetry = TelemetryCollector::open(dir.path().join("telemetry.db"))?;
//! let registry = Registry::new();
//! registry.register(Calc::new())?;
//! let gateway = Dispatcher::builder(registry).observer(telemetry.clone()).build()?;
//! for expression in ["1 + 1", "2 * 3", "1 / 0"] {
//!     let args = serde_json::json!({ "expression": expression }).to_string();
//!     gateway.dispatch(&ToolCall::new("c", "calc", args), &RunContext::new()).await;
//! }
//! let report = telemetry.report(Duration::from_secs(24 * 3600))?;
//! assert_eq!(report.period, "24h");
//! assert_eq!(report.total_calls, 3);
//! assert_eq!(report.error_breakdown["failed"], 1);
//! # Ok(())
//! # }
//! ```

pub mod audit;
mod collector;
#[cfg(feature = "dashboard")]
pub mod dashboard;
mod error;
pub mod logs;
#[cfg(feature = "otel")]
pub mod otel;
mod report;
mod row;
mod series;
mod store;

pub use collector::{DEFAULT_CAPACITY, TelemetryCollector, TelemetryCollectorBuilder};
pub use error::TelemetryError;
pub use report::{
    ANSWER, Percentiles, Report, TOP_TOOLS, TokenConsumption, ToolStats, period_label,
};
pub use row::{LlmCallRow, ToolCallRow, epoch_ms};
pub use series::Bucket;
pub use store::TelemetryStore;

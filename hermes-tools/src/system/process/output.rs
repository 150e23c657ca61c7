//! `process_output`: what a background process wrote since the last read, and whether
//! it still runs. Reading the exit releases the handle.

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::background::{Exit, Snapshot, Until};
use super::table::ProcessTable;
use crate::common::Shared;
use crate::system::result_cap;

/// The longest a call may wait for output.
const MAX_WAIT_SECONDS: u64 = 30;

/// The arguments of `process_output`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProcessOutputArgs {
    /// The handle process_start returned, e.g. `proc-1`.
    #[schemars(length(min = 1, max = 64))]
    handle: String,
    /// When nothing new was written yet and the process still runs, wait up to this many
    /// seconds for output or for its exit (0: answer at once).
    #[serde(default)]
    #[schemars(range(min = 0, max = MAX_WAIT_SECONDS))]
    wait_seconds: u64,
}

/// Whether a background process runs.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    Running,
    Exited,
}

/// The result of `process_output`, and of `process_kill` for a handle.
#[derive(Debug, Serialize)]
pub(crate) struct ProcessReport {
    pub(crate) handle: String,
    pub(crate) pid: u32,
    pub(crate) status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) signal: Option<i32>,
    /// Output since the previous read.
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    /// Bytes written since the previous read that were dropped (only the latest are kept).
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) stdout_dropped_bytes: u64,
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) stderr_dropped_bytes: u64,
    pub(crate) runtime_ms: u64,
    /// The last signal process_kill sent (`SIGTERM` or `SIGKILL`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) signal_sent: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) note: Option<String>,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

impl ProcessReport {
    /// A report of `snapshot` for the process behind `handle`.
    pub(crate) fn new(handle: &str, pid: u32, snapshot: Snapshot) -> Self {
        let Snapshot {
            stdout,
            stderr,
            exit,
            runtime,
        } = snapshot;
        let (status, exit_code, signal) = match exit {
            Some(Exit { code, signal, .. }) => (Status::Exited, code, signal),
            None => (Status::Running, None, None),
        };
        Self {
            handle: handle.to_owned(),
            pid,
            status,
            exit_code,
            signal,
            stdout: stdout.text,
            stderr: stderr.text,
            stdout_dropped_bytes: stdout.dropped,
            stderr_dropped_bytes: stderr.dropped,
            runtime_ms: u64::try_from(runtime.as_millis()).unwrap_or(u64::MAX),
            signal_sent: None,
            note: None,
        }
    }
}

/// The `process_output` tool.
#[derive(Debug)]
pub(crate) struct ProcessOutput {
    processes: Arc<ProcessTable>,
    spec: ToolSpec,
}

impl ProcessOutput {
    pub(crate) fn new(
        shared: &Arc<Shared>,
        processes: &Arc<ProcessTable>,
    ) -> Result<Self, hermes_core::Error> {
        let spec = crate::system::fixed_spec(
            ToolSpec::builder(
                "process_output",
                "Read what a background process wrote since the last read, and its status. \
                 The status is `running` or `exited` (with exit_code or signal). \
                 Answers at once unless wait_seconds (at most 30) asks to wait for new output \
                 or the exit. Only the latest bytes of each stream are kept between reads; \
                 `stdout_dropped_bytes` counts what was lost. Once a read reports the exit, the \
                 handle is released.",
            )
            .parameters_for::<ProcessOutputArgs>()
            .scope(Scope::Read)
            .permission("process:manage")
            .timeout(Duration::from_secs(MAX_WAIT_SECONDS + 10))
            .max_result_bytes(result_cap(shared.config.max_output_bytes())),
        )?;
        Ok(Self {
            processes: Arc::clone(processes),
            spec,
        })
    }
}

impl TypedTool for ProcessOutput {
    type Args = ProcessOutputArgs;
    type Output = ProcessReport;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: ProcessOutputArgs,
        ctx: &ToolContext,
    ) -> Result<ProcessReport, ToolError> {
        let background = self.processes.get(ctx.session_id(), &args.handle)?;
        let wait = Duration::from_secs(args.wait_seconds.min(MAX_WAIT_SECONDS));
        if !wait.is_zero() {
            background.wait(Until::OutputOrExit, wait, ctx).await;
        }
        let mut report = ProcessReport::new(&args.handle, background.pid(), background.drain());
        if matches!(report.status, Status::Exited) {
            self.processes.release(&args.handle);
            report.note = Some("the process has ended; its handle is now released".to_owned());
        }
        Ok(report)
    }
}

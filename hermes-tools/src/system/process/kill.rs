//! `process_kill`: stop a background process of the session (by handle), or, with a
//! human's approval, any other process (by pid): SIGTERM, then SIGKILL after a grace
//! period.

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{ArgKind, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use nix::errno::Errno;
use nix::sys::signal::Signal;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::background::{Background, Until};
use super::foreign::{self, Stopped};
use super::output::{ProcessReport, Status};
use super::table::ProcessTable;
use crate::common::Shared;
use crate::system::result_cap;

/// The longest grace period a call may ask for.
const MAX_GRACE_SECONDS: u64 = 30;
/// How long a killed group may take to be reaped and its output collected.
const KILL_WAIT: Duration = Duration::from_secs(5);

/// The arguments of `process_kill`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProcessKillArgs {
    /// The handle process_start returned, e.g. `proc-1`. Give this or `pid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 64))]
    handle: Option<String>,
    /// The id of a process this session did not start (see process_list); stopping it
    /// needs a human's approval. Give this or `handle`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 2))]
    pid: Option<u32>,
    /// Seconds to wait after SIGTERM before sending SIGKILL (0: at once).
    #[serde(default = "default_grace")]
    #[schemars(range(min = 0, max = MAX_GRACE_SECONDS))]
    grace_seconds: u64,
}

fn default_grace() -> u64 {
    5
}

/// A process the session did not start, stopped.
#[derive(Debug, Serialize)]
pub(crate) struct ForeignReport {
    pid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    /// The last signal sent (`SIGTERM` or `SIGKILL`).
    signal_sent: &'static str,
    /// Whether it is gone.
    stopped: bool,
}

/// The result of `process_kill`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum ProcessKillOutput {
    Handle(ProcessReport),
    Pid(ForeignReport),
}

/// The `process_kill` tool.
#[derive(Debug)]
pub(crate) struct ProcessKill {
    processes: Arc<ProcessTable>,
    spec: ToolSpec,
}

impl ProcessKill {
    pub(crate) fn new(
        shared: &Arc<Shared>,
        processes: &Arc<ProcessTable>,
    ) -> Result<Self, hermes_core::Error> {
        let spec = crate::system::fixed_spec(
            ToolSpec::builder(
                "process_kill",
                "Stop a background process, SIGTERM first and SIGKILL after a grace period. \
                 SIGTERM goes to its whole process group, SIGKILL follows if it still runs \
                 after grace_seconds (default 5, at most 30). Returns \
                 its final status and the output not read yet, and releases the handle. With \
                 `pid` instead of `handle` it stops a process this session did not start \
                 (found with process_list), which needs a human's approval.",
            )
            .parameters_for::<ProcessKillArgs>()
            .scope(Scope::Write)
            .permission("process:manage")
            .arg_kind("handle", ArgKind::Resource)
            .timeout(Duration::from_secs(MAX_GRACE_SECONDS) + 2 * KILL_WAIT)
            .max_result_bytes(result_cap(shared.config.max_output_bytes())),
        )?;
        Ok(Self {
            processes: Arc::clone(processes),
            spec,
        })
    }

    /// Stop a process of the session; its report.
    async fn stop(
        &self,
        background: &Background,
        grace: Duration,
        ctx: &ToolContext,
    ) -> ProcessReport {
        let mut sent = None;
        if background.exit().is_none() {
            background.signal(Signal::SIGTERM);
            sent = Some("SIGTERM");
            if !background.wait(Until::Exit, grace, ctx).await {
                background.signal(Signal::SIGKILL);
                sent = Some("SIGKILL");
                background.wait(Until::Exit, KILL_WAIT, ctx).await;
            }
        }
        let mut report =
            ProcessReport::new(background.handle(), background.pid(), background.drain());
        self.processes.release(background.handle());
        report.signal_sent = sent;
        report.note = Some(match (sent, report.status) {
            (None, _) => "it had already exited; the handle is released".to_owned(),
            (Some(_), Status::Exited) => "stopped; the handle is released".to_owned(),
            (Some(signal), Status::Running) => format!(
                "sent {signal}, but it had not ended when its handle was released; its group \
                 was killed again"
            ),
        });
        report
    }

    /// Stop a process the session did not start, once a human approved.
    async fn stop_foreign(
        &self,
        pid: u32,
        grace: Duration,
        args: &ProcessKillArgs,
        ctx: &ToolContext,
    ) -> Result<ForeignReport, ToolError> {
        if pid < 2 {
            return Err(ToolError::failed(format!(
                "pid {pid} is not a process that may be stopped; process_list shows the ones \
                 that run"
            )));
        }
        if pid == std::process::id() {
            return Err(ToolError::failed(format!(
                "pid {pid} is the process running these tools; it cannot stop itself"
            )));
        }
        let Some(found) = foreign::find(pid).await else {
            return Err(ToolError::failed(format!(
                "no running process has pid {pid}; process_list shows the processes that run"
            )));
        };
        if !ctx.was_approved() {
            let name = found.name.as_deref().unwrap_or("unknown program");
            let prompt = format!(
                "`process_kill` wants to stop process {pid} (`{name}`), which this session did \
                 not start. Allow it?"
            );
            let json = serde_json::to_value(args).unwrap_or(Value::Null);
            ctx.ask_approval(&self.spec, &json, prompt, None).await?;
        }
        let stopped = foreign::stop(pid, grace).await.map_err(|errno| {
            let hint = if errno == Errno::EPERM {
                "; it belongs to a user these tools may not signal"
            } else {
                ""
            };
            ToolError::failed_with(format!("could not signal process {pid}{hint}"), errno)
        })?;
        Ok(ForeignReport {
            pid,
            name: found.name,
            signal_sent: if stopped == Stopped::Terminated {
                "SIGTERM"
            } else {
                "SIGKILL"
            },
            stopped: stopped != Stopped::Survived,
        })
    }
}

impl TypedTool for ProcessKill {
    type Args = ProcessKillArgs;
    type Output = ProcessKillOutput;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: ProcessKillArgs,
        ctx: &ToolContext,
    ) -> Result<ProcessKillOutput, ToolError> {
        let grace = Duration::from_secs(args.grace_seconds.min(MAX_GRACE_SECONDS));
        let session = ctx.session_id();
        match (&args.handle, args.pid) {
            (Some(handle), None) => {
                let background = self.processes.get(session, handle)?;
                Ok(ProcessKillOutput::Handle(
                    self.stop(&background, grace, ctx).await,
                ))
            }
            (None, Some(pid)) => match self.processes.by_pid(session, pid) {
                Some(background) => Ok(ProcessKillOutput::Handle(
                    self.stop(&background, grace, ctx).await,
                )),
                None => Ok(ProcessKillOutput::Pid(
                    self.stop_foreign(pid, grace, &args, ctx).await?,
                )),
            },
            _ => Err(ToolError::failed(
                "give exactly one of `handle` (a process this session started) and `pid` (any \
                 other process)",
            )),
        }
    }
}

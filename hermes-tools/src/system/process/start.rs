//! `process_start`: start a long-running command in the background and hand back a
//! handle for `process_output` and `process_kill`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Access, ArgKind, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::table::{MAX_PER_SESSION, ProcessTable};
use crate::common::Shared;
use crate::common::output::truncate_middle;
use crate::system::screen::Screen;
use crate::system::shell::ShellCommand;

/// The arguments of `process_start`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProcessStartArgs {
    /// The command line, run with `sh -c` in its own process group, e.g.
    /// `python -m http.server 8000`. Do not end it with `&`: the handle lives as long as
    /// the command does.
    #[schemars(length(min = 1, max = 65536))]
    command: String,
    /// The directory to run in, relative to the workspace root (which is the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 4096))]
    cwd: Option<String>,
    /// Variables for this command only, added to the environment (over those set with
    /// env_set).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    env: BTreeMap<String, String>,
    /// Optional, for retries: a call carrying the same key as an earlier successful one
    /// returns that call's handle instead of starting another process. Without a key,
    /// every call starts a process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 128))]
    idempotency_key: Option<String>,
}

/// The result of `process_start`.
#[derive(Debug, Serialize)]
pub(crate) struct ProcessStartOutput {
    handle: String,
    pid: u32,
    command: String,
    note: &'static str,
}

/// The `process_start` tool.
#[derive(Debug)]
pub(crate) struct ProcessStart {
    shared: Arc<Shared>,
    processes: Arc<ProcessTable>,
    spec: ToolSpec,
    screen: Screen,
}

impl ProcessStart {
    pub(crate) fn new(
        shared: &Arc<Shared>,
        processes: &Arc<ProcessTable>,
    ) -> Result<Self, hermes_core::Error> {
        let description = format!(
            "Start a long-running shell command (`sh -c`) in the background and return a \
             handle at once. Read its output and status with process_output, stop it with \
             process_kill. It runs in its own process group, with no stdin, until it exits \
             (what it left running in its group is then stopped too) or is stopped; only the \
             latest {} KiB of each unread stream are kept. A session \
             holds at most {MAX_PER_SESSION} handles. The command passes the same safety \
             check as terminal. Use terminal for commands that finish quickly.",
            shared.config.max_output_bytes() / 1024
        );
        let spec = crate::system::fixed_spec(
            ToolSpec::builder("process_start", description)
                .parameters_for::<ProcessStartArgs>()
                .scope(Scope::Write)
                // Each call runs: the same command twice is two runs.
                .replays(false)
                .permission("terminal:execute")
                .permission("process:manage")
                .arg_kind("command", ArgKind::Command)
                .arg_kind("cwd", ArgKind::Path(Access::Read))
                .timeout(Duration::from_secs(30))
                .max_result_bytes(4 * 1024),
        )?;
        Ok(Self {
            shared: Arc::clone(shared),
            processes: Arc::clone(processes),
            screen: Screen::new(&spec)?,
            spec,
        })
    }
}

impl TypedTool for ProcessStart {
    type Args = ProcessStartArgs;
    type Output = ProcessStartOutput;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: ProcessStartArgs,
        ctx: &ToolContext,
    ) -> Result<ProcessStartOutput, ToolError> {
        let json = serde_json::to_value(&args).unwrap_or(Value::Null);
        self.screen
            .check(&self.spec, &args.command, &json, ctx)
            .await?;
        let program = ShellCommand {
            command: &args.command,
            cwd: args.cwd.as_deref(),
            env: args.env,
        }
        // A background process has no timeout: it runs until it exits or is stopped.
        .program(&self.shared, ctx, self.shared.config.max_command_timeout())
        .await?;
        let background = self
            .processes
            .start(ctx.session_id(), &args.command, &program)?;
        Ok(ProcessStartOutput {
            handle: background.handle().to_owned(),
            pid: background.pid(),
            command: truncate_middle(background.command().to_owned(), 512),
            note: "started; read its output with process_output (wait_seconds waits for \
                   more), stop it with process_kill",
        })
    }
}

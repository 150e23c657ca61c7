//! `terminal`: run a shell command to its end (or its timeout) and return its exit code
//! and output. The command is screened first ([`Screen`]).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::tool::schema_for;
use hermes_core::{Access, ArgKind, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::screen::Screen;
use super::shell::ShellCommand;
use crate::common::Shared;
use crate::common::process::{self, Finished};

/// How much longer than the longest command timeout the gateway waits for the tool, so
/// the tool's own timeout fires first and returns the output so far.
const TIMEOUT_MARGIN: Duration = Duration::from_secs(10);

/// The arguments of `terminal`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TerminalArgs {
    /// The command line, run with `sh -c` (pipes, `&&`, redirections and quotes work).
    #[schemars(length(min = 1, max = 65536))]
    command: String,
    /// The directory to run in, relative to the workspace root (which is the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 4096))]
    cwd: Option<String>,
    /// Variables for this command only, added to the environment (over those set with
    /// env_set), e.g. {"RUST_LOG": "debug"}.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    env: BTreeMap<String, String>,
    /// Seconds the command may run; past them it is killed and the output so far is
    /// returned with `timed_out: true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    timeout_seconds: Option<u64>,
    /// Optional, for retries: a call carrying the same key as an earlier successful one
    /// returns that call's result without running the command again (so a retry after
    /// a lost answer does not run it twice). Without a key, every call runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 128))]
    idempotency_key: Option<String>,
}

/// The result of `terminal`.
#[derive(Debug, Serialize)]
pub(crate) struct TerminalOutput {
    #[serde(flatten)]
    finished: Finished,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// The `terminal` tool.
#[derive(Debug)]
pub(crate) struct Terminal {
    shared: Arc<Shared>,
    spec: ToolSpec,
    screen: Screen,
}

impl Terminal {
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, hermes_core::Error> {
        let config = &shared.config;
        let default = config.command_timeout().as_secs().max(1);
        let max = config.max_command_timeout().as_secs().max(default);
        let kib = config.max_output_bytes() / 1024;
        let description = format!(
            "Run a shell command (`sh -c`) in the workspace and wait for it to end. Returns \
             exit_code, stdout and stderr (each capped at {kib} KiB, head and tail kept, \
             `truncated` says so), duration_ms and timed_out. The command is killed with its \
             whole process group after timeout_seconds (default {default}, at most {max}); \
             use process_start for servers and other long-running commands. Commands the \
             safety check finds catastrophic are refused; risky ones (recursive deletes, \
             force pushes, ...) need a human's approval. No stdin: interactive prompts get \
             end-of-file."
        );
        let spec = super::fixed_spec(
            ToolSpec::builder("terminal", description)
                .parameters(parameters(default, max))
                .scope(Scope::Write)
                // Each call runs: the same command twice is two runs.
                .replays(false)
                .permission("terminal:execute")
                .arg_kind("command", ArgKind::Command)
                .arg_kind("cwd", ArgKind::Path(Access::Read))
                .timeout(Duration::from_secs(max) + TIMEOUT_MARGIN)
                .max_result_bytes(super::result_cap(config.max_output_bytes())),
        )?;
        Ok(Self {
            shared: Arc::clone(shared),
            screen: Screen::new(&spec)?,
            spec,
        })
    }
}

/// The schema of the arguments, with the configured default and maximum timeout.
fn parameters(default: u64, max: u64) -> Value {
    let mut schema = schema_for::<TerminalArgs>();
    if let Some(timeout) = schema.pointer_mut("/properties/timeout_seconds") {
        timeout["default"] = Value::from(default);
        timeout["maximum"] = Value::from(max);
    }
    schema
}

impl TypedTool for Terminal {
    type Args = TerminalArgs;
    type Output = TerminalOutput;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: TerminalArgs,
        ctx: &ToolContext,
    ) -> Result<TerminalOutput, ToolError> {
        let json = serde_json::to_value(&args).unwrap_or(Value::Null);
        self.screen
            .check(&self.spec, &args.command, &json, ctx)
            .await?;
        let config = &self.shared.config;
        let timeout = args
            .timeout_seconds
            .map_or(config.command_timeout(), Duration::from_secs)
            .min(config.max_command_timeout())
            .max(Duration::from_secs(1));
        let program = ShellCommand {
            command: &args.command,
            cwd: args.cwd.as_deref(),
            env: args.env,
        }
        .program(&self.shared, ctx, timeout)
        .await?;
        let finished = process::run(&program, ctx).await?;
        let note = finished.timed_out.then(|| {
            format!(
                "the command ran past {} s and was killed with its process group; the output \
                 so far is above. Give it a longer timeout_seconds, or start it with \
                 process_start and read it with process_output",
                timeout.as_secs()
            )
        });
        Ok(TerminalOutput { finished, note })
    }
}

//! `code_execute`: run a snippet of Python, JavaScript, Bash or Rust in a fresh scratch
//! directory, sandboxed with bubblewrap when it works here, with resource limits, a
//! clean environment and a timeout, and report its exit code and bounded output.
//!
//! Scope: arbitrary code is dangerous unless sandboxed, but a spec's scope is fixed
//! while the sandbox is found at run time. So the tool is `write` (it runs code and
//! writes its scratch directory; a repeated call returns the first result) with the
//! `terminal:execute` permission, and when no sandbox works it asks for approval
//! itself before running anything, unless the call was approved already; an approval
//! "for the session" covers the class `code_execute:unsandboxed`.

mod environment;
mod language;
mod limits;
mod sandbox;
mod scratch;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{ArgKind, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::sync::OnceCell;

use super::FAMILY_TAG;
use crate::common::process::{self, Finished, Program};
use crate::common::{Shared, paths};
use language::Language;
use limits::Limits;
use sandbox::{Isolation, Mounts};
use scratch::Scratch;

/// A run's timeout when the call gives none, in seconds.
const DEFAULT_TIMEOUT_SECS: u64 = 30;
/// How long compiling (Rust) may take, on top of the run's timeout.
const COMPILE_TIMEOUT: Duration = Duration::from_secs(120);
/// The approval class of unsandboxed runs.
const UNSANDBOXED_CLASS: &str = "code_execute:unsandboxed";

/// The `code_execute` tool.
#[derive(Debug)]
pub(crate) struct CodeExecute {
    spec: ToolSpec,
    shared: Arc<Shared>,
    /// How snippets are isolated here, found by the first call.
    isolation: OnceCell<Isolation>,
}

/// The arguments of `code_execute`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CodeExecuteArgs {
    /// The language of `code`.
    language: Language,
    /// The program: a Python or Bash script, JavaScript for node, or a Rust file with
    /// `fn main`. It runs in an empty scratch directory, its working directory; the
    /// workspace is readable at `$HERMES_WORKSPACE`.
    #[schemars(length(min = 1, max = 65536))]
    code: String,
    /// Text sent to the program's standard input.
    #[schemars(length(max = 1048576))]
    stdin: Option<String>,
    /// Seconds the program may run before it is killed (compiling Rust has 120 more).
    timeout_seconds: Option<u64>,
}

/// The stage a run ended in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Stage {
    /// Compiling failed (or timed out): the output is the compiler's.
    Compile,
    /// The program ran.
    Run,
}

/// What `code_execute` returns.
#[derive(Debug, Serialize)]
pub(crate) struct CodeExecuteReport {
    /// The language run.
    language: Language,
    /// `compile` when compiling failed (the output is then the compiler's), else `run`.
    stage: Stage,
    /// The exit code; `null` when killed by a signal.
    exit_code: Option<i32>,
    /// The signal that ended it, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    signal: Option<i32>,
    /// Standard output (head and tail kept when long).
    stdout: String,
    /// Standard error (head and tail kept when long).
    stderr: String,
    /// Whether it ran past its timeout and was killed (the output is what it wrote
    /// until then).
    timed_out: bool,
    /// Whether output was cut.
    truncated: bool,
    /// Wall time of the stage, in milliseconds.
    duration_ms: u64,
    /// `bubblewrap`, or `none (rlimits only): <why>`.
    sandbox: String,
    /// What to make of the result, when there is something to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

impl CodeExecute {
    /// The tool.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, hermes_core::Error> {
        let config = &shared.config;
        let max = config.max_command_timeout();
        let schema = super::bound_seconds(
            hermes_core::tool::schema_for::<CodeExecuteArgs>(),
            "timeout_seconds",
            DEFAULT_TIMEOUT_SECS,
            max,
        );
        let result_bytes = (2 * config.max_output_bytes() + 8 * 1024).clamp(16 * 1024, 256 * 1024);
        let spec = ToolSpec::builder(
            "code_execute",
            "Run a Python, JavaScript (node), Bash or Rust snippet and get its exit code, \
             stdout and stderr. It runs in a fresh scratch directory with a clean \
             environment, resource limits and a timeout, sandboxed with bubblewrap when \
             available (read-only file system, no network); `sandbox` in the result says \
             which. Use it to compute, test an idea or check how code behaves; print what \
             you want to see.",
        )
        .parameters(schema)
        .tag(FAMILY_TAG)
        .scope(Scope::Write)
        // Each call runs: the same command twice is two runs.
        .replays(false)
        .permission("terminal:execute")
        .arg_kind("code", ArgKind::Command)
        .timeout(max + COMPILE_TIMEOUT + Duration::from_secs(30))
        .max_result_bytes(result_bytes)
        .build()?;
        Ok(Self {
            spec,
            shared: Arc::clone(shared),
            isolation: OnceCell::new(),
        })
    }

    /// How snippets are isolated here (probed once).
    async fn isolation(&self, ctx: &ToolContext) -> Result<&Isolation, ToolError> {
        self.isolation
            .get_or_try_init(|| Isolation::probe(self.shared.config.allow_network(), ctx))
            .await
    }

    /// Without a sandbox, a human must agree to run the code.
    async fn approve_unsandboxed(
        &self,
        args: &CodeExecuteArgs,
        isolation: &Isolation,
        ctx: &ToolContext,
    ) -> Result<(), ToolError> {
        if isolation.is_sandboxed() || ctx.was_approved() {
            return Ok(());
        }
        let shown = json!({
            "language": args.language,
            "code": args.code,
            "stdin": args.stdin,
            "timeout_seconds": args.timeout_seconds,
        });
        let prompt = format!(
            "Run this {} code WITHOUT a sandbox (sandbox: {})? It can read and change \
             whatever this user can, and use the network.",
            args.language.as_str(),
            isolation.describe()
        );
        ctx.ask_approval(
            &self.spec,
            &shown,
            prompt,
            Some(UNSANDBOXED_CLASS.to_owned()),
        )
        .await
    }

    /// A program for `command` in `scratch`, isolated and limited.
    fn program(
        &self,
        isolation: &Isolation,
        command: &[String],
        scratch: &Path,
        ctx: &ToolContext,
        timeout: Duration,
    ) -> Program {
        let workspace = paths::workspace_root(&self.shared, ctx);
        let env = environment::snippet_env(
            self.shared.session_env(ctx.session_id()),
            scratch,
            &workspace,
        );
        let mounts = Mounts {
            scratch,
            workspace: &workspace,
            network: self.shared.config.allow_network(),
        };
        let argv = isolation.argv(
            command,
            mounts,
            &env,
            Limits::for_seconds(timeout.as_secs()),
        );
        let (program, args) = argv.split_first().map_or_else(
            || (String::new(), Vec::new()),
            |(program, args)| (program.clone(), args.to_vec()),
        );
        Program::new(
            program,
            args,
            scratch.to_path_buf(),
            timeout,
            self.shared.config.max_output_bytes(),
        )
    }

    /// Write, compile (if need be) and run the snippet in `scratch`.
    async fn run_in(
        &self,
        args: CodeExecuteArgs,
        isolation: &Isolation,
        scratch: &Path,
        ctx: &ToolContext,
    ) -> Result<CodeExecuteReport, ToolError> {
        let timeout = super::seconds(
            args.timeout_seconds,
            DEFAULT_TIMEOUT_SECS,
            self.shared.config.max_command_timeout(),
        );
        let plan = args.language.plan(&args.code, scratch);
        tokio::fs::write(scratch.join(plan.source), &args.code)
            .await
            .map_err(|error| {
                ToolError::failed_with("cannot write the snippet to its scratch directory", error)
            })?;
        let report = |stage, finished: Finished, timeout: Duration| CodeExecuteReport {
            language: args.language,
            stage,
            note: note(
                stage,
                &finished,
                timeout,
                self.shared.config.max_command_timeout(),
            ),
            exit_code: finished.exit_code,
            signal: finished.signal,
            stdout: finished.stdout,
            stderr: finished.stderr,
            timed_out: finished.timed_out,
            truncated: finished.truncated,
            duration_ms: finished.duration_ms,
            sandbox: isolation.describe(),
        };
        if let Some(compile) = &plan.compile {
            let program = self.program(isolation, compile, scratch, ctx, COMPILE_TIMEOUT);
            let finished = process::run(&program, ctx).await.map_err(explain_start)?;
            if !finished.succeeded() {
                return Ok(report(Stage::Compile, finished, COMPILE_TIMEOUT));
            }
        }
        let mut program = self.program(isolation, &plan.run, scratch, ctx, timeout);
        program.stdin = args.stdin.as_ref().map(|stdin| stdin.clone().into_bytes());
        let finished = process::run(&program, ctx).await.map_err(explain_start)?;
        Ok(report(Stage::Run, finished, timeout))
    }
}

impl TypedTool for CodeExecute {
    type Args = CodeExecuteArgs;
    type Output = CodeExecuteReport;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: CodeExecuteArgs,
        ctx: &ToolContext,
    ) -> Result<CodeExecuteReport, ToolError> {
        let isolation = self.isolation(ctx).await?;
        self.approve_unsandboxed(&args, isolation, ctx).await?;
        let scratch = Scratch::create().await?;
        let outcome = self.run_in(args, isolation, scratch.path(), ctx).await;
        scratch.remove().await;
        outcome
    }
}

/// A start failure, with what to do about it.
fn explain_start(error: ToolError) -> ToolError {
    match error {
        ToolError::Failed { message, source } => ToolError::Failed {
            message: format!(
                "{message}; the interpreter or compiler for this language may be missing here"
            ),
            source,
        },
        other => other,
    }
}

/// What to make of a run that did not end normally.
fn note(stage: Stage, finished: &Finished, timeout: Duration, max: Duration) -> Option<String> {
    const SIGXCPU: i32 = 24;
    const SIGKILL: i32 = 9;
    const SIGSEGV: i32 = 11;
    if finished.timed_out {
        let what = match stage {
            Stage::Compile => "compiling",
            Stage::Run => "the program",
        };
        return Some(format!(
            "{what} ran longer than {} s and was killed; the output is what it wrote until \
             then. Make it faster, or raise timeout_seconds (at most {} s)",
            timeout.as_secs(),
            max.as_secs()
        ));
    }
    match (stage, finished.signal) {
        (_, Some(SIGXCPU)) => Some("killed: it used up its CPU-time limit".to_owned()),
        (_, Some(SIGKILL)) => {
            Some("killed (SIGKILL), perhaps for using too much memory".to_owned())
        }
        (_, Some(SIGSEGV)) => {
            Some("crashed (SIGSEGV); memory is limited to 2 GiB of address space".to_owned())
        }
        (Stage::Compile, _) => {
            Some("the code did not compile; the compiler's messages are in stderr".to_owned())
        }
        _ if finished.truncated => {
            Some("output was cut (head and tail kept); print less".to_owned())
        }
        _ => None,
    }
}

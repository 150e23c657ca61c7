//! `code_test`: run a project's tests with its runner (cargo, pytest, npm) and return
//! the counts and the failing tests with their messages, read from the runner's
//! output; when the output cannot be read (a build error, an unknown reporter), its
//! head and tail instead.
//!
//! Tests are code: the tool is `write` with `terminal:execute`, like `terminal`. It
//! runs unsandboxed (builds write their caches; tests may need the network), in the
//! project directory, with this process's environment plus the session's variables.

mod cargo;
mod detect;
mod node;
mod pytest;
mod summary;

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Access, ArgKind, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::FAMILY_TAG;
use crate::common::output::truncate_middle;
use crate::common::process::{self, Finished, Program};
use crate::common::{Shared, paths};
use detect::{Runner, RunnerChoice};
use summary::{Failure, Summary};

/// A run's timeout when the call gives none, in seconds.
const DEFAULT_TIMEOUT_SECS: u64 = 300;
/// How much of each output stream is kept for reading: more than is returned, so the
/// failures of a large suite are still found.
const CAPTURE_BYTES: usize = 4 * 1024 * 1024;
/// The most failures listed.
const MAX_FAILURES: usize = 50;

/// The `code_test` tool.
#[derive(Debug)]
pub(crate) struct CodeTest {
    spec: ToolSpec,
    shared: Arc<Shared>,
}

/// The arguments of `code_test`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CodeTestArgs {
    /// The project directory, relative to the workspace.
    #[serde(default = "default_path")]
    path: String,
    /// The test runner; `auto` tells it from the project's files.
    #[serde(default)]
    runner: RunnerChoice,
    /// Run only the tests whose names match: cargo's name filter, pytest's `-k`
    /// expression, node's `--test-name-pattern`, Jest's `-t`, Mocha's `--grep`.
    #[schemars(length(min = 1, max = 500))]
    filter: Option<String>,
    /// Seconds the run may take before it is stopped.
    timeout_seconds: Option<u64>,
}

fn default_path() -> String {
    ".".to_owned()
}

/// What `code_test` returns.
#[derive(Debug, Serialize)]
pub(crate) struct CodeTestReport {
    /// The runner used.
    runner: Runner,
    /// Why this runner (`Cargo.toml`, ...; `asked` when the call named it).
    detected_from: String,
    /// The command run.
    command: String,
    /// The project directory.
    path: String,
    /// Whether every test passed (the runner exited with 0).
    success: bool,
    /// Tests passed; `null` when the output could not be read.
    passed: Option<u64>,
    /// Tests failed (errors included); `null` when the output could not be read.
    failed: Option<u64>,
    /// Tests skipped or ignored; `null` when the output could not be read.
    ignored: Option<u64>,
    /// The failing tests, with their messages.
    failures: Vec<Failure>,
    /// Failing tests left out of `failures`.
    #[serde(skip_serializing_if = "is_zero")]
    failures_omitted: usize,
    /// The runner's exit code; `null` when killed.
    exit_code: Option<i32>,
    /// Whether it ran past its timeout and was stopped.
    timed_out: bool,
    /// Wall time, in milliseconds.
    duration_ms: u64,
    /// The runner's output (head and tail), when the summary above does not say what
    /// went wrong: a build error, an unknown reporter, a timeout.
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<String>,
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

impl CodeTest {
    /// The tool.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, hermes_core::Error> {
        let max = shared.config.max_command_timeout();
        let schema = super::bound_seconds(
            hermes_core::tool::schema_for::<CodeTestArgs>(),
            "timeout_seconds",
            DEFAULT_TIMEOUT_SECS,
            max,
        );
        let spec = ToolSpec::builder(
            "code_test",
            "Run a project's tests (cargo test, pytest or npm test, detected from \
             Cargo.toml, pytest files or package.json) and get the passed, failed and \
             ignored counts with each failing test's name and message. Use it after a \
             change to check it; `filter` runs only the matching tests.",
        )
        .parameters(schema)
        .tag(FAMILY_TAG)
        .scope(Scope::Write)
        // Each call runs: the same command twice is two runs.
        .replays(false)
        .permission("terminal:execute")
        .arg_kind("path", ArgKind::Path(Access::Read))
        .timeout(max + Duration::from_secs(30))
        .max_result_bytes(128 * 1024)
        .build()?;
        Ok(Self {
            spec,
            shared: Arc::clone(shared),
        })
    }

    /// The environment of a run: quiet, colourless runners, then the session's own.
    fn program(
        &self,
        argv: &[String],
        dir: std::path::PathBuf,
        timeout: Duration,
        ctx: &ToolContext,
    ) -> Program {
        let (program, args) = argv.split_first().map_or_else(
            || (String::new(), Vec::new()),
            |(program, args)| (program.clone(), args.to_vec()),
        );
        let mut program = Program::new(program, args, dir, timeout, CAPTURE_BYTES);
        for (name, value) in [
            ("CI", "1"),
            ("NO_COLOR", "1"),
            ("FORCE_COLOR", "0"),
            ("PY_COLORS", "0"),
            ("CARGO_TERM_COLOR", "never"),
            ("RUST_BACKTRACE", "0"),
            ("npm_config_update_notifier", "false"),
            ("npm_config_fund", "false"),
        ] {
            program.env.insert(name.to_owned(), value.to_owned());
        }
        program
            .env
            .extend(self.shared.session_env(ctx.session_id()));
        program
    }
}

impl TypedTool for CodeTest {
    type Args = CodeTestArgs;
    type Output = CodeTestReport;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: CodeTestArgs,
        ctx: &ToolContext,
    ) -> Result<CodeTestReport, ToolError> {
        let dir = paths::resolve(&self.shared, ctx, &args.path)?;
        let shown = paths::display(&self.shared, ctx, &dir);
        if !tokio::fs::metadata(&dir)
            .await
            .is_ok_and(|metadata| metadata.is_dir())
        {
            return Err(ToolError::failed(format!(
                "`{shown}` is not a directory; give the project's directory as `path`"
            )));
        }
        let (runner, detected_from) = match args.runner {
            RunnerChoice::Auto => detect::detect(&dir).await.map_err(ToolError::failed)?,
            RunnerChoice::Cargo => (Runner::Cargo, "asked".to_owned()),
            RunnerChoice::Pytest => (Runner::Pytest, "asked".to_owned()),
            RunnerChoice::Npm => (Runner::Npm, "asked".to_owned()),
        };
        let argv = detect::command(runner, &dir, args.filter.as_deref())
            .await
            .map_err(ToolError::failed)?;
        let timeout = super::seconds(
            args.timeout_seconds,
            DEFAULT_TIMEOUT_SECS,
            self.shared.config.max_command_timeout(),
        );
        let program = self.program(&argv, dir, timeout, ctx);
        let finished = process::run(&program, ctx).await?;
        Ok(self.report(runner, detected_from, argv.join(" "), shown, finished))
    }
}

impl CodeTest {
    /// The report of a finished run.
    fn report(
        &self,
        runner: Runner,
        detected_from: String,
        command: String,
        path: String,
        finished: Finished,
    ) -> CodeTestReport {
        let both = format!("{}\n{}", finished.stdout, finished.stderr);
        let summary: Option<Summary> = match runner {
            Runner::Cargo => cargo::parse(&finished.stdout),
            Runner::Pytest => pytest::parse(&finished.stdout),
            Runner::Npm => node::parse(&both),
        };
        let success = finished.succeeded();
        let explained = summary
            .as_ref()
            .is_some_and(|summary| success || !summary.failures.is_empty());
        let output = (!explained || finished.timed_out).then(|| {
            let text = if finished.stderr.trim().is_empty() {
                finished.stdout.clone()
            } else {
                format!("{}\n--- stderr ---\n{}", finished.stdout, finished.stderr)
            };
            truncate_middle(text, self.shared.config.max_output_bytes())
        });
        let (counts, mut failures) = match summary {
            Some(summary) => (
                Some((summary.passed, summary.failed, summary.ignored)),
                summary.failures,
            ),
            None => (None, Vec::new()),
        };
        let failures_omitted = failures.len().saturating_sub(MAX_FAILURES);
        failures.truncate(MAX_FAILURES);
        CodeTestReport {
            runner,
            detected_from,
            command,
            path,
            success,
            passed: counts.map(|counts| counts.0),
            failed: counts.map(|counts| counts.1),
            ignored: counts.map(|counts| counts.2),
            failures,
            failures_omitted,
            exit_code: finished.exit_code,
            timed_out: finished.timed_out,
            duration_ms: finished.duration_ms,
            output,
        }
    }
}

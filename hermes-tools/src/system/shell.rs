//! Shell commands as the family runs them: `sh -c COMMAND` in a directory of the
//! workspace, with the session's variables (set by `env_set`) and the call's own `env`
//! added to the inherited environment.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use hermes_core::{ToolContext, ToolError};

use super::env::names;
use crate::common::process::Program;
use crate::common::{Shared, paths};

/// What a call asks to run.
#[derive(Debug)]
pub(crate) struct ShellCommand<'a> {
    /// The command line, for `sh -c`.
    pub(crate) command: &'a str,
    /// The working directory as the model gave it; the workspace root when `None`.
    pub(crate) cwd: Option<&'a str>,
    /// Variables for this command only, over the session's.
    pub(crate) env: BTreeMap<String, String>,
}

impl ShellCommand<'_> {
    /// The program to run: `sh -c`, in the resolved directory, with the environment.
    ///
    /// # Errors
    ///
    /// A message for the model when a variable is malformed or the directory is outside
    /// the workspace, missing, or not a directory.
    pub(crate) async fn program(
        self,
        shared: &Shared,
        ctx: &ToolContext,
        timeout: Duration,
    ) -> Result<Program, ToolError> {
        names::check_all(&self.env)?;
        let cwd = working_dir(shared, ctx, self.cwd).await?;
        let mut program = Program::new(
            "sh",
            ["-c", self.command],
            cwd,
            timeout,
            shared.config.max_output_bytes(),
        );
        program.env = shared.session_env(ctx.session_id());
        program.env.extend(self.env);
        Ok(program)
    }
}

/// The directory a command runs in: `raw` resolved like any path, or the workspace root.
async fn working_dir(
    shared: &Shared,
    ctx: &ToolContext,
    raw: Option<&str>,
) -> Result<PathBuf, ToolError> {
    let Some(raw) = raw else {
        return Ok(paths::workspace_root(shared, ctx));
    };
    let dir = paths::resolve(shared, ctx, raw)?;
    match tokio::fs::metadata(&dir).await {
        Ok(metadata) if metadata.is_dir() => Ok(dir),
        Ok(_) => Err(ToolError::failed(format!(
            "cwd `{raw}` is a file, not a directory; give the directory that holds it"
        ))),
        Err(error) => Err(ToolError::failed_with(
            format!(
                "cwd `{raw}` ({}) cannot be used; give an existing directory (leave it out \
                 for the workspace root)",
                paths::display(shared, ctx, &dir)
            ),
            error,
        )),
    }
}

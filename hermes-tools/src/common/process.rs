//! Subprocesses: started in a process group of their own, with a timeout, the call's
//! cancellation, output capped as it streams, and the whole group killed when the call
//! ends early or its future is dropped. Every tool that runs a program goes through here.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use hermes_core::{ToolContext, ToolError};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde::Serialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};

use super::head_tail::HeadTail;

/// A program to run to completion.
#[derive(Debug, Clone)]
pub(crate) struct Program {
    pub(crate) program: String,
    pub(crate) args: Vec<String>,
    pub(crate) cwd: PathBuf,
    /// Added to (or replacing in) the inherited environment.
    pub(crate) env: BTreeMap<String, String>,
    pub(crate) stdin: Option<Vec<u8>>,
    pub(crate) timeout: Duration,
    /// The cap on each of stdout and stderr.
    pub(crate) max_output: usize,
}

impl Program {
    /// `program` with `args`, in `cwd`, with the defaults of `timeout` and `max_output`.
    pub(crate) fn new(
        program: impl Into<String>,
        args: impl IntoIterator<Item = impl Into<String>>,
        cwd: PathBuf,
        timeout: Duration,
        max_output: usize,
    ) -> Self {
        Self {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            cwd,
            env: BTreeMap::new(),
            stdin: None,
            timeout,
            max_output,
        }
    }

    /// The command, ready to spawn in its own process group.
    pub(crate) fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .current_dir(&self.cwd)
            .envs(&self.env)
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        command
    }
}

/// How a program ended.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Finished {
    /// The exit code, when it exited.
    pub(crate) exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) signal: Option<i32>,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    /// Whether it ran past its timeout and was killed.
    pub(crate) timed_out: bool,
    /// Whether output was cut (head and tail kept).
    pub(crate) truncated: bool,
    pub(crate) duration_ms: u64,
}

impl Finished {
    /// Exited with code 0.
    #[cfg_attr(not(feature = "code"), allow(dead_code))]
    pub(crate) fn succeeded(&self) -> bool {
        self.exit_code == Some(0)
    }
}

/// Kills the process group when dropped, unless disarmed: a call that times out, is
/// cancelled or whose future is dropped leaves nothing running.
#[derive(Debug)]
pub(crate) struct GroupGuard {
    pgid: Option<i32>,
}

impl GroupGuard {
    pub(crate) fn new(child: &Child) -> Self {
        Self {
            pgid: child.id().and_then(|id| i32::try_from(id).ok()),
        }
    }

    /// Send `signal` to the whole group.
    pub(crate) fn signal(&self, signal: Signal) {
        if let Some(pgid) = self.pgid {
            // The group may be gone already: nothing to do then.
            let _ = killpg(Pid::from_raw(pgid), signal);
        }
    }

    /// Leave the group alone from now on.
    pub(crate) fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.signal(Signal::SIGKILL);
    }
}

/// Start `program`: the child, in its own process group.
///
/// # Errors
///
/// A message for the model when the program cannot be started (not installed, say).
pub(crate) fn spawn(program: &Program) -> Result<Child, ToolError> {
    program.command().spawn().map_err(|error| {
        let hint = if error.kind() == std::io::ErrorKind::NotFound {
            " (is it installed and on PATH?)"
        } else {
            ""
        };
        ToolError::failed_with(
            format!("could not start `{}`{hint}: {error}", program.program),
            error,
        )
    })
}

/// Run `program` to the end, its timeout, or the call's cancellation.
///
/// A timeout is not an error: the result says `timed_out` and carries the output so
/// far. Cancellation is: the call is over.
///
/// # Errors
///
/// [`ToolError::Cancelled`] when the call is cancelled; a failure when the program
/// cannot be started.
pub(crate) async fn run(program: &Program, ctx: &ToolContext) -> Result<Finished, ToolError> {
    let started = Instant::now();
    let mut child = spawn(program)?;
    let mut group = GroupGuard::new(&child);
    if let (Some(input), Some(mut stdin)) = (program.stdin.clone(), child.stdin.take()) {
        tokio::spawn(async move {
            // A program that does not read its input closes the pipe: not our error.
            let _ = stdin.write_all(&input).await;
        });
    }
    // Read while waiting: a program whose pipe is full never exits.
    let stdout = tokio::spawn(collect(child.stdout.take(), program.max_output));
    let stderr = tokio::spawn(collect(child.stderr.take(), program.max_output));
    let mut timed_out = false;
    let status = tokio::select! {
        status = child.wait() => status.ok(),
        () = tokio::time::sleep(program.timeout) => {
            timed_out = true;
            None
        }
        () = ctx.cancellation().cancelled() => {
            return Err(ToolError::Cancelled { tool: program.program.clone() });
        }
    };
    // Whatever the program left running in its group goes with it; then the pipes
    // reach their end.
    group.signal(Signal::SIGKILL);
    let status = match status {
        Some(status) => Some(status),
        None => child.wait().await.ok(),
    };
    group.disarm();
    let (stdout, stderr) = (joined(stdout).await, joined(stderr).await);
    let truncated = stdout.was_cut() || stderr.was_cut();
    Ok(Finished {
        exit_code: status.and_then(|status| status.code()),
        signal: status.and_then(|status| {
            use std::os::unix::process::ExitStatusExt;
            status.signal()
        }),
        stdout: stdout.into_text(),
        stderr: stderr.into_text(),
        timed_out,
        truncated,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}

/// A reader task's result; an empty one if the task died.
async fn joined(task: tokio::task::JoinHandle<HeadTail>) -> HeadTail {
    task.await.unwrap_or_else(|_| HeadTail::new(0))
}

/// Read a stream to its end, keeping its head and tail.
pub(crate) async fn collect(stream: Option<impl AsyncRead + Unpin>, max: usize) -> HeadTail {
    let mut kept = HeadTail::new(max);
    let Some(mut stream) = stream else {
        return kept;
    };
    let mut buffer = vec![0; 8192];
    while let Ok(read @ 1..) = stream.read(&mut buffer).await {
        kept.push(&buffer[..read]);
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str, timeout: Duration) -> Program {
        Program::new("sh", ["-c", script], std::env::temp_dir(), timeout, 1000)
    }

    #[tokio::test]
    async fn runs_and_reports() {
        let mut program = sh(
            "echo out; echo err >&2; read line; echo \"got $line\"; exit 3",
            Duration::from_secs(10),
        );
        program.stdin = Some(b"hi\n".to_vec());
        program.env.insert("UNUSED".into(), "1".into());
        let finished = run(&program, &ToolContext::new("t")).await.unwrap();
        assert_eq!(finished.exit_code, Some(3));
        assert_eq!(finished.stdout, "out\ngot hi\n");
        assert_eq!(finished.stderr, "err\n");
        assert!(!finished.timed_out && !finished.truncated);
    }

    #[tokio::test]
    async fn a_timeout_kills_the_group_and_keeps_the_output() {
        let program = sh(
            "echo started; sleep 30 & sleep 30; echo never",
            Duration::from_millis(300),
        );
        let finished = run(&program, &ToolContext::new("t")).await.unwrap();
        assert!(finished.timed_out);
        assert_eq!(finished.stdout, "started\n");
        assert!(finished.duration_ms < 10_000);
    }

    #[tokio::test]
    async fn output_is_capped_while_it_streams() {
        let program = sh("yes hermes | head -c 5000000", Duration::from_secs(20));
        let finished = run(&program, &ToolContext::new("t")).await.unwrap();
        assert!(finished.truncated);
        assert!(finished.stdout.len() < 1200, "{}", finished.stdout.len());
        assert!(finished.stdout.contains("of 5000000 bytes cut"));
    }

    #[tokio::test]
    async fn a_missing_program_says_so() {
        let program = Program::new(
            "no-such-program-hermes",
            Vec::<String>::new(),
            std::env::temp_dir(),
            Duration::from_secs(1),
            100,
        );
        let error = run(&program, &ToolContext::new("t")).await.unwrap_err();
        assert!(error.to_string().contains("is it installed"), "{error}");
    }

    #[tokio::test]
    async fn cancellation_ends_the_call() {
        let ctx = ToolContext::new("t");
        let token = ctx.cancellation().clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            token.cancel();
        });
        let error = run(&sh("sleep 30", Duration::from_secs(60)), &ctx)
            .await
            .unwrap_err();
        assert_eq!(error.kind(), hermes_core::ToolErrorKind::Cancelled);
    }
}

//! Isolation: bubblewrap when it is installed and works here, found out once per tool
//! by running the sandbox on `true`; otherwise resource limits only, and the result and
//! the approval prompt say so.
//!
//! The sandbox: `/` read-only, a private `/tmp`, the workspace read-only, the scratch
//! directory writable and the working directory, fresh `/dev` and `/proc`, new PID,
//! IPC, UTS and cgroup namespaces, no network unless the configuration allows it, a
//! new session (no terminal injection), and killed with its parent.
//!
//! Set the environment variable [`NO_SANDBOX_VAR`] (to anything but `0` or empty)
//! before the first call to skip bubblewrap: for hosts where it misbehaves, and for
//! the tests of the unsandboxed path.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hermes_core::{ToolContext, ToolError};

use super::{environment, limits::Limits};
use crate::common::process::{self, Program};

/// The environment variable that turns the sandbox off.
pub(super) const NO_SANDBOX_VAR: &str = "HERMES_NO_SANDBOX";

/// How long the probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(15);

/// How snippets are isolated on this host.
#[derive(Debug, Clone)]
pub(super) struct Isolation {
    sandbox: Sandbox,
    /// `prlimit`, when installed.
    prlimit: Option<PathBuf>,
}

/// Whether snippets run in a sandbox.
#[derive(Debug, Clone)]
enum Sandbox {
    /// In bubblewrap (the `bwrap` found).
    Bubblewrap(PathBuf),
    /// As plain processes, for this reason.
    Unsandboxed(String),
}

/// What a sandboxed command sees of the file system and the network.
#[derive(Debug, Clone, Copy)]
pub(super) struct Mounts<'a> {
    /// The scratch directory: writable, the working directory.
    pub(super) scratch: &'a Path,
    /// The workspace root: readable.
    pub(super) workspace: &'a Path,
    /// Whether the network is reachable.
    pub(super) network: bool,
}

impl Isolation {
    /// Find out how snippets can be isolated here.
    ///
    /// # Errors
    ///
    /// [`ToolError::Cancelled`] when the call is cancelled meanwhile.
    pub(super) async fn probe(network: bool, ctx: &ToolContext) -> Result<Self, ToolError> {
        let prlimit = find_on_path("prlimit").await;
        let sandbox = match std::env::var(NO_SANDBOX_VAR) {
            Ok(value) if !value.is_empty() && value != "0" => {
                Sandbox::Unsandboxed(format!("turned off by {NO_SANDBOX_VAR}"))
            }
            _ => probe_bubblewrap(network, ctx).await?,
        };
        Ok(Self { sandbox, prlimit })
    }

    /// Whether snippets run in the sandbox.
    pub(super) fn is_sandboxed(&self) -> bool {
        matches!(self.sandbox, Sandbox::Bubblewrap(_))
    }

    /// `bubblewrap`, or `none (rlimits only): <why>`.
    pub(super) fn describe(&self) -> String {
        match &self.sandbox {
            Sandbox::Bubblewrap(_) => "bubblewrap".to_owned(),
            Sandbox::Unsandboxed(reason) => format!("none (rlimits only): {reason}"),
        }
    }

    /// The program and arguments that run `command` isolated, in exactly `env`, under
    /// `limits`.
    pub(super) fn argv(
        &self,
        command: &[String],
        mounts: Mounts<'_>,
        env: &BTreeMap<String, String>,
        limits: Limits,
    ) -> Vec<String> {
        let mut argv = match &self.sandbox {
            Sandbox::Bubblewrap(bwrap) => {
                let mut argv = vec![bwrap.to_string_lossy().into_owned()];
                argv.extend(bubblewrap_args(mounts));
                argv.push("--".to_owned());
                argv
            }
            Sandbox::Unsandboxed(_) => Vec::new(),
        };
        argv.extend(environment::prefix(env));
        argv.extend(limits.prefix(self.prlimit.as_deref()));
        argv.extend(command.iter().cloned());
        argv
    }
}

/// Run bubblewrap on `true` with the flags snippets get.
async fn probe_bubblewrap(network: bool, ctx: &ToolContext) -> Result<Sandbox, ToolError> {
    let Some(bwrap) = find_on_path("bwrap").await else {
        return Ok(Sandbox::Unsandboxed(
            "bubblewrap (`bwrap`) is not installed".to_owned(),
        ));
    };
    let temp = std::env::temp_dir();
    let mounts = Mounts {
        scratch: &temp,
        workspace: &temp,
        network,
    };
    let mut args = bubblewrap_args(mounts);
    args.extend(["--".to_owned(), "true".to_owned()]);
    let program = Program::new(
        bwrap.to_string_lossy().into_owned(),
        args,
        temp.clone(),
        PROBE_TIMEOUT,
        4096,
    );
    let finished = process::run(&program, ctx).await?;
    if finished.succeeded() {
        return Ok(Sandbox::Bubblewrap(bwrap));
    }
    let why = finished
        .stderr
        .lines()
        .find(|line| !line.trim().is_empty())
        .unwrap_or(if finished.timed_out {
            "it did not answer in time"
        } else {
            "it failed without a message"
        })
        .trim()
        .to_owned();
    Ok(Sandbox::Unsandboxed(format!(
        "bubblewrap does not work here ({why})"
    )))
}

/// The flags that build the sandbox of [`Mounts`].
fn bubblewrap_args(mounts: Mounts<'_>) -> Vec<String> {
    let path = |path: &Path| path.to_string_lossy().into_owned();
    let mut args: Vec<String> = [
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
    ]
    .map(str::to_owned)
    .to_vec();
    args.extend([
        "--ro-bind-try".to_owned(),
        path(mounts.workspace),
        path(mounts.workspace),
        "--bind".to_owned(),
        path(mounts.scratch),
        path(mounts.scratch),
        "--chdir".to_owned(),
        path(mounts.scratch),
    ]);
    args.extend(
        [
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--die-with-parent",
            "--new-session",
        ]
        .map(str::to_owned),
    );
    if !mounts.network {
        args.push("--unshare-net".to_owned());
    }
    args
}

/// The executable `name` on `PATH`.
async fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for dir in std::env::split_paths(&path) {
        let candidate = dir.join(name);
        if let Ok(metadata) = tokio::fs::metadata(&candidate).await {
            use std::os::unix::fs::PermissionsExt;
            if metadata.is_file() && metadata.permissions().mode() & 0o111 != 0 {
                return Some(candidate);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_is_read_only_but_for_the_scratch_directory() {
        let mounts = Mounts {
            scratch: Path::new("/tmp/s"),
            workspace: Path::new("/w"),
            network: false,
        };
        let args = bubblewrap_args(mounts).join(" ");
        assert!(args.starts_with("--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp"));
        assert!(args.contains("--ro-bind-try /w /w --bind /tmp/s /tmp/s --chdir /tmp/s"));
        assert!(args.ends_with("--unshare-net"));
        let open = bubblewrap_args(Mounts {
            network: true,
            ..mounts
        });
        assert!(!open.contains(&"--unshare-net".to_owned()));
    }

    #[test]
    fn commands_are_wrapped_in_order() {
        let isolation = Isolation {
            sandbox: Sandbox::Unsandboxed("test".to_owned()),
            prlimit: Some(PathBuf::from("/usr/bin/prlimit")),
        };
        let mounts = Mounts {
            scratch: Path::new("/tmp/s"),
            workspace: Path::new("/w"),
            network: false,
        };
        let env = BTreeMap::from([("PATH".to_owned(), "/bin".to_owned())]);
        let argv = isolation.argv(
            &["python3".to_owned(), "main.py".to_owned()],
            mounts,
            &env,
            Limits::for_seconds(1),
        );
        assert_eq!(&argv[..3], ["env", "-i", "PATH=/bin"]);
        assert_eq!(argv[3], "/usr/bin/prlimit");
        assert_eq!(&argv[argv.len() - 3..], ["--", "python3", "main.py"]);
        assert_eq!(isolation.describe(), "none (rlimits only): test");
        assert!(!isolation.is_sandboxed());
    }
}

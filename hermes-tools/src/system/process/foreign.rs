//! Processes the session did not start, named by a raw process id: whether one runs,
//! its name, and stopping it (SIGTERM, then SIGKILL after a grace period).

use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use sysinfo::{ProcessRefreshKind, ProcessStatus, ProcessesToUpdate, System};

/// How often a stopping process is looked at.
const POLL: Duration = Duration::from_millis(100);

/// What is known of a process.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    /// Its name (the program's), when readable.
    pub(crate) name: Option<String>,
}

/// The process `pid`, if it runs (a zombie, dead but not yet reaped, does not).
pub(crate) async fn find(pid: u32) -> Option<Found> {
    let raw = i32::try_from(pid).ok()?;
    if kill(Pid::from_raw(raw), None) == Err(Errno::ESRCH) {
        return None;
    }
    tokio::task::spawn_blocking(move || inspect(pid))
        .await
        .ok()
        .flatten()
}

fn inspect(pid: u32) -> Option<Found> {
    let pid = sysinfo::Pid::from_u32(pid);
    let mut system = System::new();
    system.refresh_processes_specifics(
        ProcessesToUpdate::Some(&[pid]),
        true,
        ProcessRefreshKind::nothing().without_tasks(),
    );
    let Some(process) = system.process(pid) else {
        // Not readable here (another platform's limits, say), yet it answered a signal.
        return Some(Found { name: None });
    };
    if matches!(
        process.status(),
        ProcessStatus::Zombie | ProcessStatus::Dead
    ) {
        return None;
    }
    Some(Found {
        name: Some(process.name().to_string_lossy().into_owned()),
    })
}

/// The signal that stopped a process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// It ended within the grace period after SIGTERM.
    Terminated,
    /// It had to be killed.
    Killed,
    /// It was still there after SIGKILL (uninterruptible, or not ours to kill).
    Survived,
}

/// Send `pid` SIGTERM, wait up to `grace` for it to end, then SIGKILL it.
///
/// # Errors
///
/// The errno when the signal cannot be sent (`EPERM`: not permitted).
pub(crate) async fn stop(pid: u32, grace: Duration) -> Result<Stopped, Errno> {
    let target = Pid::from_raw(i32::try_from(pid).map_err(|_| Errno::EINVAL)?);
    match kill(target, Signal::SIGTERM) {
        Err(Errno::ESRCH) => return Ok(Stopped::Terminated),
        Err(errno) => return Err(errno),
        Ok(()) => {}
    }
    if gone_within(pid, grace).await {
        return Ok(Stopped::Terminated);
    }
    match kill(target, Signal::SIGKILL) {
        Err(Errno::ESRCH) => return Ok(Stopped::Killed),
        Err(errno) => return Err(errno),
        Ok(()) => {}
    }
    if gone_within(pid, Duration::from_secs(5)).await {
        Ok(Stopped::Killed)
    } else {
        Ok(Stopped::Survived)
    }
}

/// Whether `pid` is gone within `within`.
async fn gone_within(pid: u32, within: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if find(pid).await.is_none() {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(POLL).await;
    }
}

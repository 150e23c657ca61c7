//! [`Background`]: one process started by `process_start`, in its own process group,
//! with reader tasks filling a bounded [`OutputRing`] per stream and a waiter task that
//! records how it ended.
//!
//! When the command (the group's leader) exits, whatever it left running in its group
//! is killed, so the pipes reach their end and the exit is recorded with all the output.
//! Dropping a `Background` kills its group and stops its tasks: nothing outlives it.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use hermes_core::{ToolContext, ToolError};
use nix::sys::signal::Signal;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Child;
use tokio::sync::watch;
use tokio::task::{AbortHandle, JoinHandle};

use super::ring::{Drained, OutputRing};
use crate::common::process::{self, GroupGuard, Program};

/// How long the pipes may stay open after the group was killed (a grandchild that left
/// the group can hold them) before the readers are stopped.
const READER_GRACE: Duration = Duration::from_secs(2);

/// How a background process ended.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Exit {
    /// Its exit code, when it exited.
    pub(crate) code: Option<i32>,
    /// The signal that ended it, when one did.
    pub(crate) signal: Option<i32>,
    /// How long it ran.
    pub(crate) after: Duration,
}

/// What a background process is waited for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Until {
    /// It exited.
    Exit,
    /// It wrote something not read yet, or exited.
    OutputOrExit,
}

/// What one read of a background process gives.
#[derive(Debug)]
pub(crate) struct Snapshot {
    pub(crate) stdout: Drained,
    pub(crate) stderr: Drained,
    /// How it ended, when it did; then the output above is all there will be.
    pub(crate) exit: Option<Exit>,
    /// How long it has run (or ran).
    pub(crate) runtime: Duration,
}

/// A process started in the background.
#[derive(Debug)]
pub(crate) struct Background {
    handle: String,
    session_id: String,
    command: String,
    pid: u32,
    started: Instant,
    output: Arc<Output>,
    tasks: Vec<AbortHandle>,
}

/// What the tasks of a background process share with it.
#[derive(Debug)]
struct Output {
    state: Mutex<State>,
    /// Bumped on every chunk of output and on exit.
    changes: watch::Sender<u64>,
    group: Mutex<GroupGuard>,
}

#[derive(Debug)]
struct State {
    stdout: OutputRing,
    stderr: OutputRing,
    exit: Option<Exit>,
}

/// Which stream a reader fills.
#[derive(Debug, Clone, Copy)]
enum Stream {
    Stdout,
    Stderr,
}

impl Background {
    /// Start `program` as the process behind `handle`, owned by `session_id`. Must run
    /// inside a tokio runtime.
    ///
    /// # Errors
    ///
    /// A message for the model when the program cannot be started.
    pub(crate) fn start(
        handle: String,
        session_id: &str,
        command: &str,
        program: &Program,
    ) -> Result<Self, ToolError> {
        let mut child = process::spawn(program)?;
        let pid = child.id().unwrap_or_default();
        let output = Arc::new(Output {
            state: Mutex::new(State {
                stdout: OutputRing::new(program.max_output),
                stderr: OutputRing::new(program.max_output),
                exit: None,
            }),
            changes: watch::channel(0).0,
            group: Mutex::new(GroupGuard::new(&child)),
        });
        let stdout = tokio::spawn(read(
            child.stdout.take(),
            Arc::clone(&output),
            Stream::Stdout,
        ));
        let stderr = tokio::spawn(read(
            child.stderr.take(),
            Arc::clone(&output),
            Stream::Stderr,
        ));
        let started = Instant::now();
        let mut tasks = vec![stdout.abort_handle(), stderr.abort_handle()];
        let waiter = tokio::spawn(wait(child, [stdout, stderr], Arc::clone(&output), started));
        tasks.push(waiter.abort_handle());
        Ok(Self {
            handle,
            session_id: session_id.to_owned(),
            command: command.to_owned(),
            pid,
            started,
            output,
            tasks,
        })
    }

    /// The handle the model names it by.
    pub(crate) fn handle(&self) -> &str {
        &self.handle
    }

    /// The session that started it.
    pub(crate) fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The command line it runs.
    pub(crate) fn command(&self) -> &str {
        &self.command
    }

    /// Its process id (also its process group's).
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    /// How it ended, if it did.
    pub(crate) fn exit(&self) -> Option<Exit> {
        self.output.lock().exit
    }

    /// Send `signal` to its whole group (nothing once it has exited).
    pub(crate) fn signal(&self, signal: Signal) {
        self.output.group().signal(signal);
    }

    /// Take the output not read yet, and the status.
    pub(crate) fn drain(&self) -> Snapshot {
        let mut state = self.output.lock();
        let partial = state.exit.is_none();
        Snapshot {
            stdout: state.stdout.drain(partial),
            stderr: state.stderr.drain(partial),
            exit: state.exit,
            runtime: state
                .exit
                .map_or_else(|| self.started.elapsed(), |exit| exit.after),
        }
    }

    /// Wait until `until` holds, for at most `within` or until the call is cancelled;
    /// whether it holds.
    pub(crate) async fn wait(&self, until: Until, within: Duration, ctx: &ToolContext) -> bool {
        let mut changes = self.output.changes.subscribe();
        let deadline = tokio::time::Instant::now() + within;
        loop {
            // Checked after subscribing, so a change in between is not missed.
            if self.holds(until) {
                return true;
            }
            tokio::select! {
                changed = changes.changed() => {
                    if changed.is_err() {
                        return self.holds(until);
                    }
                }
                () = tokio::time::sleep_until(deadline) => return false,
                () = ctx.cancellation().cancelled() => return false,
            }
        }
    }

    fn holds(&self, until: Until) -> bool {
        let state = self.output.lock();
        match until {
            Until::Exit => state.exit.is_some(),
            Until::OutputOrExit => {
                state.exit.is_some() || state.stdout.has_unread() || state.stderr.has_unread()
            }
        }
    }

    /// Kill the group and stop the tasks.
    pub(crate) fn stop(&self) {
        self.output.stop_group();
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Output {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn group(&self) -> MutexGuard<'_, GroupGuard> {
        self.group.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Kill what is left of the group, then leave it alone (its id may be reused).
    fn stop_group(&self) {
        let mut group = self.group();
        group.signal(Signal::SIGKILL);
        group.disarm();
    }

    fn push(&self, stream: Stream, bytes: &[u8]) {
        {
            let mut state = self.lock();
            match stream {
                Stream::Stdout => state.stdout.push(bytes),
                Stream::Stderr => state.stderr.push(bytes),
            }
        }
        self.changes
            .send_modify(|count| *count = count.wrapping_add(1));
    }

    fn record(&self, exit: Exit) {
        self.lock().exit = Some(exit);
        self.changes
            .send_modify(|count| *count = count.wrapping_add(1));
    }
}

/// Read one stream to its end into the process's ring.
async fn read(stream: Option<impl AsyncRead + Unpin>, output: Arc<Output>, which: Stream) {
    let Some(mut stream) = stream else {
        return;
    };
    let mut buffer = vec![0; 8192];
    while let Ok(read @ 1..) = stream.read(&mut buffer).await {
        output.push(which, &buffer[..read]);
    }
}

/// Wait for the leader to exit, end its group, let the readers finish, record the exit.
async fn wait(
    mut child: Child,
    readers: [JoinHandle<()>; 2],
    output: Arc<Output>,
    started: Instant,
) {
    let status = child.wait().await.ok();
    let after = started.elapsed();
    output.stop_group();
    for reader in readers {
        let abort = reader.abort_handle();
        if tokio::time::timeout(READER_GRACE, reader).await.is_err() {
            abort.abort();
        }
    }
    output.record(Exit {
        code: status.and_then(|status| status.code()),
        signal: status.and_then(|status| {
            use std::os::unix::process::ExitStatusExt;
            status.signal()
        }),
        after,
    });
}

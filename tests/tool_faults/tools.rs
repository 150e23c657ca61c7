//! Tools that misbehave, each in one way.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use async_trait::async_trait;
use hermes_core::{
    CancellationToken, Tool, ToolContext, ToolError, ToolFuture, ToolOutput, ToolSpec,
};
use serde_json::{Value, json};

/// How long a tool that will not finish may run.
pub const TOOL_TIMEOUT: Duration = Duration::from_millis(100);

/// A spec taking anything, with this timeout.
pub fn spec(name: &str, timeout: Duration) -> ToolSpec {
    ToolSpec::builder(name, "A tool that misbehaves, for tests.")
        .parameters(json!({"type": "object"}))
        .timeout(timeout)
        .build()
        .unwrap()
}

/// How a [`Faulty`] tool misbehaves.
#[derive(Debug, Clone)]
pub enum Fault {
    /// Panics inside `run`, before it returns a future.
    PanicAtOnce,
    /// Panics inside its future, after a wait.
    PanicLater,
    /// Waits far past its timeout (it would stop if dropped).
    Hang,
    /// Returns `Pending` forever without keeping the waker: nothing can wake it, and
    /// it never looks at its cancellation.
    NeverPolls,
    /// Blocks its runtime thread for this long, then never finishes.
    BlocksThread(Duration),
    /// Loops on a blocking thread until `release` is set, never checking the call's
    /// cancellation; `token` keeps that cancellation for the test to inspect.
    DeafLoop {
        release: Arc<AtomicBool>,
        token: Arc<Mutex<Option<CancellationToken>>>,
    },
    /// Returns this many bytes of text.
    Huge(usize),
    /// Returns these bytes, read as UTF-8 with what is not replaced.
    Bytes(Vec<u8>),
}

/// A tool with one [`Fault`].
pub struct Faulty {
    spec: ToolSpec,
    fault: Fault,
}

impl Faulty {
    /// The tool, with the short timeout.
    pub fn tool(name: &str, fault: Fault) -> Arc<dyn Tool> {
        Self::with_timeout(name, fault, TOOL_TIMEOUT)
    }

    pub fn with_timeout(name: &str, fault: Fault, timeout: Duration) -> Arc<dyn Tool> {
        Arc::new(Self {
            spec: spec(name, timeout),
            fault,
        })
    }
}

/// A future that is never ready and drops its waker.
struct Forgetful;

impl Future for Forgetful {
    type Output = Result<ToolOutput, ToolError>;

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Self::Output> {
        Poll::Pending
    }
}

impl Tool for Faulty {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn run<'a>(&'a self, _args: Value, ctx: &'a ToolContext) -> ToolFuture<'a> {
        match &self.fault {
            Fault::PanicAtOnce => panic!("the tool fell over at once"),
            Fault::PanicLater => ToolFuture::new(async {
                tokio::time::sleep(Duration::from_millis(5)).await;
                panic!("the tool fell over later");
            }),
            Fault::Hang => ToolFuture::new(async {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Ok(ToolOutput::text("woke up"))
            }),
            Fault::NeverPolls => ToolFuture::new(Forgetful),
            Fault::BlocksThread(how_long) => {
                let how_long = *how_long;
                ToolFuture::new(async move {
                    std::thread::sleep(how_long);
                    Forgetful.await
                })
            }
            Fault::DeafLoop { release, token } => {
                *token.lock().unwrap() = Some(ctx.cancellation().clone());
                let release = release.clone();
                ToolFuture::new(async move {
                    let looped = tokio::task::spawn_blocking(move || {
                        while !release.load(Ordering::SeqCst) {
                            std::thread::sleep(Duration::from_millis(5));
                        }
                    });
                    let _ = looped.await;
                    Ok(ToolOutput::text("released"))
                })
            }
            Fault::Huge(bytes) => ToolFuture::ready(Ok(ToolOutput::text("x".repeat(*bytes)))),
            Fault::Bytes(bytes) => ToolFuture::ready(Ok(ToolOutput::text(
                String::from_utf8_lossy(bytes).into_owned(),
            ))),
        }
    }
}

/// What a [`Lifecycle`] tool counts.
#[derive(Default)]
pub struct Counts {
    pub setups: AtomicUsize,
    pub runs: AtomicUsize,
    pub teardowns: AtomicUsize,
}

/// Where a [`Lifecycle`] tool breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breaks {
    /// Its setup returns an error.
    SetupFails,
    /// Its setup panics.
    SetupPanics,
    /// Its setup succeeds, its calls too; its teardown panics.
    TeardownPanics,
}

/// A lifecycle tool (setup, run, teardown) that breaks in one place, counting each step.
pub struct Lifecycle {
    spec: ToolSpec,
    breaks: Breaks,
    counts: Arc<Counts>,
}

impl Lifecycle {
    pub fn tool(name: &str, breaks: Breaks, counts: Arc<Counts>) -> Arc<dyn Tool> {
        Arc::new(Self {
            spec: spec(name, TOOL_TIMEOUT),
            breaks,
            counts,
        })
    }
}

#[async_trait]
impl Tool for Lifecycle {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn setup(&self) -> Result<(), ToolError> {
        self.counts.setups.fetch_add(1, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(5)).await;
        match self.breaks {
            Breaks::SetupFails => Err(ToolError::failed(
                "the database at 127.0.0.1:1 refused the connection",
            )),
            Breaks::SetupPanics => panic!("setup fell over"),
            Breaks::TeardownPanics => Ok(()),
        }
    }

    fn run<'a>(&'a self, _args: Value, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        self.counts.runs.fetch_add(1, Ordering::SeqCst);
        ToolFuture::ready(Ok(ToolOutput::text("ran")))
    }

    async fn teardown(&self) {
        self.counts.teardowns.fetch_add(1, Ordering::SeqCst);
        if self.breaks == Breaks::TeardownPanics {
            panic!("teardown fell over");
        }
    }
}

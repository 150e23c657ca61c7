use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::ToolOutput;
use crate::ToolError;

type Outcome = Result<ToolOutput, ToolError>;

/// What [`Tool::run`](super::Tool::run) returns: a result already computed, or a boxed
/// future.
///
/// A synchronous tool answers with [`ToolFuture::ready`] and costs the gateway no
/// allocation; an asynchronous one wraps its work with [`ToolFuture::new`] (one box, as
/// `async-trait` would make). [`TypedTool`](super::TypedTool) does the latter for you.
#[must_use = "a tool future does nothing unless awaited"]
pub struct ToolFuture<'a> {
    inner: Inner<'a>,
}

enum Inner<'a> {
    Ready(Option<Outcome>),
    Boxed(Pin<Box<dyn Future<Output = Outcome> + Send + 'a>>),
}

impl<'a> ToolFuture<'a> {
    /// A result computed on the spot.
    pub fn ready(outcome: Result<ToolOutput, ToolError>) -> Self {
        Self {
            inner: Inner::Ready(Some(outcome)),
        }
    }

    /// Work still to do.
    pub fn new(future: impl Future<Output = Result<ToolOutput, ToolError>> + Send + 'a) -> Self {
        Self {
            inner: Inner::Boxed(Box::pin(future)),
        }
    }

    /// The result, if it was computed on the spot and not taken yet.
    pub(crate) fn take_ready(&mut self) -> Option<Outcome> {
        match &mut self.inner {
            Inner::Ready(outcome) => outcome.take(),
            Inner::Boxed(_) => None,
        }
    }
}

impl Future for ToolFuture<'_> {
    type Output = Outcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        match &mut self.get_mut().inner {
            Inner::Ready(outcome) => Poll::Ready(outcome.take().unwrap_or_else(|| {
                Err(ToolError::failed(
                    "the tool's future was polled after it completed",
                ))
            })),
            Inner::Boxed(future) => future.as_mut().poll(cx),
        }
    }
}

impl fmt::Debug for ToolFuture<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.inner {
            Inner::Ready(Some(_)) => "ready",
            Inner::Ready(None) => "taken",
            Inner::Boxed(_) => "pending",
        };
        f.debug_tuple("ToolFuture").field(&state).finish()
    }
}

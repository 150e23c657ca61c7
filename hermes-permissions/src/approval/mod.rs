//! Approvers: who says yes or no when a call needs a human. All of them fail closed:
//! no answer in time, no terminal, or nobody listening means no.
//!
//! - [`FnApprover`]: a closure decides (tests, custom rules).
//! - [`ChannelApprover`]: requests go down a channel to a UI, which answers each once,
//!   for the session, or no.
//! - [`TerminalApprover`]: asks on the terminal (the `hermes` CLI).
//! - `hermes_core::DenyAll`: refuses everything (the default).

mod channel;
mod terminal;

use std::fmt;

use async_trait::async_trait;
use hermes_core::{Approval, ApprovalRequest, Approver};

pub use channel::{Answer, ChannelApprover, PendingApproval};
pub use terminal::TerminalApprover;

/// How long approvers wait for a human by default: 5 minutes.
pub const DEFAULT_APPROVAL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// An approver that asks a closure.
///
/// ```
/// use hermes_core::Approval;
/// use hermes_permissions::FnApprover;
///
/// // Approve reads of the docs folder, refuse the rest.
/// let approver = FnApprover::new(|request| {
///     if request.arguments["path"].as_str().is_some_and(|p| p.starts_with("docs/")) {
///         Approval::Approved
///     } else {
///         Approval::denied("only docs/ may be touched")
///     }
/// });
/// ```
pub struct FnApprover<F> {
    decide: F,
}

impl<F> FnApprover<F>
where
    F: Fn(&ApprovalRequest) -> Approval + Send + Sync + 'static,
{
    /// An approver that answers with `decide(request)`.
    pub fn new(decide: F) -> Self {
        Self { decide }
    }
}

impl<F> fmt::Debug for FnApprover<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FnApprover").finish_non_exhaustive()
    }
}

#[async_trait]
impl<F> Approver for FnApprover<F>
where
    F: Fn(&ApprovalRequest) -> Approval + Send + Sync + 'static,
{
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        (self.decide)(request)
    }
}

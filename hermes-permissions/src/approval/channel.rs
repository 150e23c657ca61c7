use std::time::Duration;

use async_trait::async_trait;
use hermes_core::{Approval, ApprovalRequest, Approver};
use tokio::sync::{mpsc, oneshot};

use super::DEFAULT_APPROVAL_TIMEOUT;

/// A UI's answer to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Yes, this call.
    Once,
    /// Yes, and every call of the same class for the rest of the session.
    Session,
    /// No.
    Deny {
        /// Why, for the model.
        reason: String,
    },
}

/// A request waiting for a UI's answer. Dropping it unanswered denies the call.
#[derive(Debug)]
pub struct PendingApproval {
    request: ApprovalRequest,
    reply: oneshot::Sender<Approval>,
}

impl PendingApproval {
    /// What is asked: the tool, its arguments, the reason, the class a session grant covers.
    pub fn request(&self) -> &ApprovalRequest {
        &self.request
    }

    /// Answer it.
    pub fn answer(self, answer: Answer) {
        let approval = match answer {
            Answer::Once => Approval::Approved,
            Answer::Session => Approval::ApprovedForSession,
            Answer::Deny { reason } => Approval::denied(reason),
        };
        // The caller may have stopped waiting (timeout, cancelled run): nothing to do.
        let _ = self.reply.send(approval);
    }
}

/// Sends each request down a channel to a UI and waits for its answer, at most the
/// timeout (then denies). Nobody listening denies at once.
///
/// ```
/// use hermes_permissions::{Answer, ChannelApprover};
///
/// # async fn ui() {
/// let (approver, mut requests) = ChannelApprover::new();
/// tokio::spawn(async move {
///     while let Some(pending) = requests.recv().await {
///         let ok = pending.request().tool != "rm";
///         pending.answer(if ok { Answer::Once } else { Answer::Deny { reason: "no".into() } });
///     }
/// });
/// // give `approver` to the agent or dispatcher
/// # drop(approver);
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct ChannelApprover {
    sender: mpsc::Sender<PendingApproval>,
    timeout: Duration,
}

impl ChannelApprover {
    /// An approver and the receiving end for the UI, with the default 5 minute timeout.
    pub fn new() -> (Self, mpsc::Receiver<PendingApproval>) {
        Self::with_timeout(DEFAULT_APPROVAL_TIMEOUT)
    }

    /// The same with another timeout.
    pub fn with_timeout(timeout: Duration) -> (Self, mpsc::Receiver<PendingApproval>) {
        let (sender, receiver) = mpsc::channel(64);
        (Self { sender, timeout }, receiver)
    }
}

#[async_trait]
impl Approver for ChannelApprover {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        let (reply, answer) = oneshot::channel();
        let pending = PendingApproval {
            request: request.clone(),
            reply,
        };
        let asked = async {
            if self.sender.send(pending).await.is_err() {
                return Approval::denied("no approval UI is listening; denied");
            }
            answer
                .await
                .unwrap_or_else(|_| Approval::denied("the approval UI dropped the request; denied"))
        };
        tokio::time::timeout(self.timeout, asked)
            .await
            .unwrap_or_else(|_| {
                Approval::denied(format!("no answer within {:?}; denied", self.timeout))
            })
    }
}

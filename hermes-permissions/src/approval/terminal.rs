use std::fmt;
use std::io::IsTerminal;
use std::time::Duration;

use async_trait::async_trait;
use hermes_core::{Approval, ApprovalRequest, Approver};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::DEFAULT_APPROVAL_TIMEOUT;

type Input = Box<dyn AsyncBufRead + Send + Unpin>;
type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// Asks on the terminal: `[y]es once, [s]ession, [N]o`. Without a terminal (a pipe, a
/// service) it denies at once; without an answer in time it denies.
pub struct TerminalApprover {
    io: Option<Mutex<(Input, Output)>>,
    timeout: Duration,
}

impl TerminalApprover {
    /// Ask on stdin/stderr, if stdin is a terminal; deny otherwise.
    pub fn new() -> Self {
        let io = std::io::stdin().is_terminal().then(|| {
            let input: Input = Box::new(BufReader::new(tokio::io::stdin()));
            let output: Output = Box::new(tokio::io::stderr());
            Mutex::new((input, output))
        });
        Self {
            io,
            timeout: DEFAULT_APPROVAL_TIMEOUT,
        }
    }

    /// Ask on other streams (tests, a pseudo-terminal).
    pub fn with_io(
        input: impl AsyncBufRead + Send + Unpin + 'static,
        output: impl AsyncWrite + Send + Unpin + 'static,
    ) -> Self {
        Self {
            io: Some(Mutex::new((Box::new(input), Box::new(output)))),
            timeout: DEFAULT_APPROVAL_TIMEOUT,
        }
    }

    /// Deny when no answer comes within `timeout`.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl Default for TerminalApprover {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for TerminalApprover {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TerminalApprover")
            .field("interactive", &self.io.is_some())
            .field("timeout", &self.timeout)
            .finish()
    }
}

#[async_trait]
impl Approver for TerminalApprover {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        let Some(io) = &self.io else {
            return Approval::denied("no terminal to ask for approval; denied");
        };
        // One question at a time: parallel calls wait their turn.
        let mut io = io.lock().await;
        let (input, output) = &mut *io;
        let question = question(request);
        if output.write_all(question.as_bytes()).await.is_err() || output.flush().await.is_err() {
            return Approval::denied("could not write the approval question; denied");
        }
        let mut line = String::new();
        match tokio::time::timeout(self.timeout, input.read_line(&mut line)).await {
            Err(_) => Approval::denied(format!("no answer within {:?}; denied", self.timeout)),
            Ok(Err(_) | Ok(0)) => Approval::denied("the terminal closed; denied"),
            Ok(Ok(_)) => match line.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" => Approval::Approved,
                "s" | "session" if request.class.is_some() => Approval::ApprovedForSession,
                _ => Approval::denied("the user said no"),
            },
        }
    }
}

fn question(request: &ApprovalRequest) -> String {
    let mut arguments = request.arguments.to_string();
    if arguments.len() > 500 {
        let cut = (0..=500)
            .rev()
            .find(|&i| arguments.is_char_boundary(i))
            .unwrap_or(0);
        arguments.truncate(cut);
        arguments.push_str("...");
    }
    let session = if request.class.is_some() {
        ", [s]ession"
    } else {
        ""
    };
    format!(
        "\napproval needed: {}\n  tool: {} ({} scope)\n  arguments: {arguments}\n{}allow? [y]es once{session}, [N]o: ",
        request.prompt,
        request.tool,
        request.scope,
        request
            .class
            .as_deref()
            .map(|class| format!("  a session grant covers: {class}\n"))
            .unwrap_or_default(),
    )
}

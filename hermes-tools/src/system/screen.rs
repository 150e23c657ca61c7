//! The check every shell command passes before it runs: the dangerous-command detector
//! of hermes-permissions ([`hermes_permissions::command::assess`]).
//!
//! - **hardline** (wiping `/`, formatting a disk, a fork bomb...): refused, always, with
//!   the detector's reason and rule; no approval can run it.
//! - **dangerous** (a recursive delete, a force push, `curl | sh`...): runs only once a
//!   human said yes. A call the gateway already put to a human
//!   ([`ToolContext::was_approved`]) goes on. Otherwise the policy is asked about the
//!   call as if the tool were `dangerous` (the [`Screen`]'s probe spec): the permission
//!   engine allows it only when the session was granted this command's class, and
//!   refuses it when a profile restricts the command; the default policy wants approval.
//!   When approval is wanted, the tool asks the approver itself, offering the
//!   detector's class for a session-wide grant.
//! - **safe**: runs.

use hermes_core::{Decision, Scope, ToolContext, ToolError, ToolSpec};
use hermes_permissions::command::{self, Verdict};
use serde_json::Value;

use crate::common::output::truncate_middle;

/// The most of a command line an approval prompt quotes (the request carries it whole).
const MAX_PROMPT_COMMAND: usize = 2000;

/// Screens the commands of one tool.
#[derive(Debug)]
pub(crate) struct Screen {
    /// The tool's spec with `dangerous` scope: what the policy is asked about when the
    /// detector flags a command the gateway let through.
    probe: ToolSpec,
}

impl Screen {
    /// A screen for the tool of `spec`.
    pub(crate) fn new(spec: &ToolSpec) -> Result<Self, hermes_core::Error> {
        let mut builder = ToolSpec::builder(spec.name(), spec.description())
            .parameters(spec.parameters().clone())
            .scope(Scope::Dangerous)
            .permissions(spec.permissions().iter().cloned());
        for (name, kind) in spec.arg_kinds() {
            builder = builder.arg_kind(name.clone(), *kind);
        }
        Ok(Self {
            probe: super::fixed_spec(builder)?,
        })
    }

    /// Let `command` run, or say why not.
    ///
    /// # Errors
    ///
    /// [`ToolError::Denied`] for a hardline command or one the policy refuses;
    /// [`ToolError::ApprovalDenied`] when a dangerous command was not approved;
    /// [`ToolError::Cancelled`] when the call ends while waiting for a human.
    pub(crate) async fn check(
        &self,
        spec: &ToolSpec,
        command: &str,
        args: &Value,
        ctx: &ToolContext,
    ) -> Result<(), ToolError> {
        let assessment = command::assess(command);
        let denied = |reason: String| ToolError::Denied {
            tool: spec.name().to_owned(),
            reason,
        };
        match assessment.verdict {
            Verdict::Safe => Ok(()),
            Verdict::Hardline => Err(denied(format!(
                "the command was not run: {} (rule `{}`); commands like this are never run, \
                 approved or not, so do not try variants of it",
                assessment.reason, assessment.rule
            ))),
            Verdict::Dangerous if ctx.was_approved() => Ok(()),
            Verdict::Dangerous => match ctx.policy().check(&self.probe, args, ctx) {
                Decision::Allow => Ok(()),
                Decision::Deny { reason } => Err(denied(reason)),
                _ => {
                    let prompt = format!(
                        "`{}` wants to run `{}`: {} (rule `{}`). Allow it?",
                        spec.name(),
                        truncate_middle(command.to_owned(), MAX_PROMPT_COMMAND),
                        assessment.reason,
                        assessment.rule
                    );
                    ctx.ask_approval(spec, args, prompt, Some(assessment.class))
                        .await
                }
            },
        }
    }
}

//! Step 4: ask the policy; dangerous tools always go to approval.

use serde_json::Value;

use crate::policy::{Decision, Policy};
use crate::{Scope, ToolContext, ToolError, ToolSpec};

/// What the gateway does next with a call.
#[derive(Debug)]
pub(crate) enum Verdict {
    Run,
    AskApproval {
        prompt: String,
        class: Option<String>,
    },
}

/// Deny wins; `dangerous` scope turns an `Allow` into a request for approval.
pub(crate) fn check(
    policy: &dyn Policy,
    spec: &ToolSpec,
    args: &Value,
    ctx: &ToolContext,
) -> Result<Verdict, ToolError> {
    match policy.check(spec, args, ctx) {
        Decision::Deny { reason } => Err(ToolError::Denied {
            tool: spec.name().to_owned(),
            reason,
        }),
        Decision::NeedsApproval { prompt, class } => Ok(Verdict::AskApproval { prompt, class }),
        Decision::Allow if spec.scope() == Scope::Dangerous => Ok(Verdict::AskApproval {
            prompt: format!("`{}` is a dangerous tool; allow this call?", spec.name()),
            class: None,
        }),
        Decision::Allow => Ok(Verdict::Run),
    }
}

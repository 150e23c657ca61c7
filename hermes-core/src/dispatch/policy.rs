//! Step 4: ask the policy; dangerous tools always go to approval.

use std::borrow::Cow;

use serde_json::Value;

use crate::observe::{Permission, PermissionDecision};
use crate::policy::{Decision, Judgement, Policy};
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

/// Deny wins; `dangerous` scope turns an `Allow` into a request for approval. What was
/// decided, and by which rule, goes to `permission` (an approval's answer is added by
/// the caller).
pub(crate) fn check(
    policy: &dyn Policy,
    spec: &ToolSpec,
    args: &Value,
    ctx: &ToolContext,
    permission: &mut Permission,
) -> Result<Verdict, ToolError> {
    let Judgement { decision, rule } = policy.judge(spec, args, ctx);
    let (decided, verdict) = match decision {
        Decision::Deny { reason } => (
            PermissionDecision::Denied,
            Err(ToolError::Denied {
                tool: spec.name().to_owned(),
                reason,
            }),
        ),
        Decision::NeedsApproval { prompt, class } => (
            PermissionDecision::Refused,
            Ok(Verdict::AskApproval { prompt, class }),
        ),
        Decision::Allow if spec.scope() == Scope::Dangerous => {
            *permission = Permission::new(
                PermissionDecision::Refused,
                Some(rule.unwrap_or(Cow::Borrowed("scope:dangerous"))),
            );
            return Ok(Verdict::AskApproval {
                prompt: format!("`{}` is a dangerous tool; allow this call?", spec.name()),
                class: None,
            });
        }
        Decision::Allow => (PermissionDecision::Allowed, Ok(Verdict::Run)),
    };
    // An approval starts as refused: only a yes turns it into `approved`.
    *permission = Permission::new(decided, rule);
    verdict
}

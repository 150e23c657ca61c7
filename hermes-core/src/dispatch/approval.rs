//! Step 4b: ask the approver, giving up if the run is cancelled meanwhile.

use serde_json::Value;

use crate::policy::{Approval, ApprovalRequest};
use crate::tool::Gate;
use crate::{AgentEvent, RunContext, ToolContext, ToolError, ToolSpec};

pub(crate) async fn ask(
    gate: &Gate,
    spec: &ToolSpec,
    args: &Value,
    (prompt, class): (String, Option<String>),
    ctx: &ToolContext,
    run: &RunContext,
) -> Result<(), ToolError> {
    let name = spec.name();
    run.emit(|| AgentEvent::ApprovalRequested {
        tool_call_id: ctx.tool_call_id().to_owned(),
        name: name.to_owned(),
        prompt: prompt.clone(),
    });
    let request = ApprovalRequest {
        tool: name.to_owned(),
        scope: spec.scope(),
        arguments: args.clone(),
        prompt,
        class,
        tool_call_id: ctx.tool_call_id().to_owned(),
        trace_id: ctx.trace_id().to_owned(),
        session_id: ctx.session_id().to_owned(),
    };
    tokio::select! {
        () = ctx.cancellation().cancelled() => Err(ToolError::Cancelled { tool: name.to_owned() }),
        answer = gate.approver.approve(&request) => match answer {
            Approval::Approved => Ok(()),
            Approval::ApprovedForSession => {
                if let Some(class) = &request.class {
                    gate.policy.grant(&request.session_id, class);
                }
                Ok(())
            }
            Approval::Denied { reason } => Err(ToolError::ApprovalDenied {
                tool: name.to_owned(),
                reason,
            }),
        },
    }
}

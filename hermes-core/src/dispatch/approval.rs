//! Step 4b: ask the approver (through the call's context, which remembers the answer),
//! giving up if the run is cancelled meanwhile.

use serde_json::Value;

use crate::{AgentEvent, RunContext, ToolContext, ToolError, ToolSpec};

pub(crate) async fn ask(
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
    ctx.ask_approval(spec, args, prompt, class).await
}

use hermes_core::{ToolContext, tool};

/// Change the context.
#[tool]
fn meddle(ctx: &mut ToolContext) -> String {
    ctx.trace_id().to_owned()
}

fn main() {}

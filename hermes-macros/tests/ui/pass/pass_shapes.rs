use hermes_core::{Registry, Tool, ToolContext, ToolError, ToolOutput, tool};

/// A sync tool with no parameters.
#[tool]
fn ping() -> &'static str {
    "pong"
}

/// An async tool with the context, an option and a `Result` with a custom error.
#[tool(name = "greet", scope = "write", timeout = "2m", handle = Greeter)]
pub async fn greet(ctx: &ToolContext, name: Option<String>) -> Result<String, std::io::Error> {
    Ok(format!("hello {} from {}", name.unwrap_or_default(), ctx.tool_call_id()))
}

/// A blocking tool that returns a ToolOutput or a ToolError.
#[tool(blocking, max_result_bytes = 4096)]
fn read_text(#[arg(desc = "The text.")] text: String) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::text(text))
}

/// A tool with nothing to return.
#[tool(scope = "dangerous")]
fn reset() {}

fn main() {
    let registry = Registry::from_linked().unwrap();
    assert_eq!(registry.names(), ["greet", "ping", "read_text", "reset"]);
    assert_eq!(Greeter.spec().name(), "greet");
    assert_eq!(PingTool.spec().name(), "ping");
    assert_eq!(ReadTextTool.spec().max_result_bytes(), 4096);
    assert_eq!(ResetTool.spec().scope(), hermes_core::Scope::Dangerous);
}

//! MCP: the tools of an MCP server, used by an agent through the hermes gateway.
//!
//! Shows: the reference server `@modelcontextprotocol/server-everything` spawned over
//! stdio; its tools registered as `mcp_everything_<tool>` with the scope the
//! configuration gives them (the server's own hints are ignored); a (scripted) model
//! calling two of them; a third refused because, unconfigured, it is `dangerous` and
//! nobody approves; the results fenced as outside content.
//! Needs: Node.js and the server: `eval "$(scripts/mcp-peers)"` sets
//! HERMES_MCP_EVERYTHING; without it the example runs `npx -y
//! @modelcontextprotocol/server-everything` (which needs the npm registry).
//! Then: `cargo run --example mcp_client`.
//! Prints: the registered tools and the run's trace.
#![allow(clippy::print_stdout, reason = "an example prints its results")]

use hermes::mcp::client::{McpClient, ServerConfig, ToolOverride};
use hermes::{Agent, Registry, Scope, ScriptedBackend, ScriptedTurn, ToolCall};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = match std::env::var("HERMES_MCP_EVERYTHING") {
        Ok(command) => ServerConfig::stdio(command).args(["stdio"]),
        Err(_) => ServerConfig::stdio("npx").args([
            "-y",
            "@modelcontextprotocol/server-everything",
            "stdio",
        ]),
    };
    // Trust two tools to read; leave out the ones that start background work.
    let server = server
        .tool("echo", ToolOverride::default().scope(Scope::Read))
        .tool("get-sum", ToolOverride::default().scope(Scope::Read))
        .exclude(["toggle-*", "trigger-*", "simulate-*", "gzip-*"]);

    let registry = Registry::new();
    let client = McpClient::connect("everything", server, &registry).await?;
    println!("registered from MCP server `{}`:", client.name());
    for name in client.tools() {
        let tool = registry.get(&name).ok_or("a listed tool is missing")?;
        println!("  {name} ({})", tool.spec().scope());
    }

    let backend = ScriptedBackend::new([
        ScriptedTurn::tool_calls([
            ToolCall::new(
                "c1",
                "mcp_everything_echo",
                r#"{"message": "hello from hermes"}"#,
            ),
            ToolCall::new("c2", "mcp_everything_get-sum", r#"{"a": 19, "b": 23}"#),
            ToolCall::new("c3", "mcp_everything_get-env", "{}"),
        ]),
        ScriptedTurn::text(
            "The server echoed, added 19 and 23, and would not show its environment.",
        ),
    ]);
    let agent = Agent::builder()
        .backend(backend)
        .registry(registry)
        .build()?;
    let outcome = agent.run("Try the MCP server's tools.").await;
    print!("\n{}", outcome.trace());
    client.shutdown().await;
    Ok(())
}

//! The command line, as clap types. No tool logic here.

use clap::{Args, Parser, Subcommand};

/// hermes: tool-calling LLM agents in Rust.
///
/// Every `tool call` goes through the full gateway a model's call goes through: lookup,
/// JSON parsing, schema validation, permission policy, approval, idempotency, timeout,
/// result cap. Set HERMES_LOG=debug for logs on stderr.
#[derive(Debug, Parser)]
#[command(name = "hermes", version, propagate_version = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List, inspect and call the registered tools.
    #[command(subcommand)]
    Tool(ToolCommand),
}

#[derive(Debug, Subcommand)]
pub(crate) enum ToolCommand {
    /// List the tools: name, scope, description.
    List(ListArgs),
    /// Print a tool's OpenAI function object as JSON.
    Schema(SchemaArgs),
    /// Call a tool through the gateway and print the tool message content.
    ///
    /// Exits 0 when the tool succeeded, 1 when the call failed (the content is then
    /// {"error": {"kind", "message"}}), 2 on usage errors.
    Call(CallArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Print one JSON array instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SchemaArgs {
    /// The tool's name.
    pub(crate) name: String,
}

#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    /// The tool's name, as a model would send it.
    pub(crate) name: String,
    /// The arguments: a JSON object, as a model would send it.
    #[arg(long, value_name = "JSON", default_value = "{}")]
    pub(crate) args: String,
    /// Approve the call if it needs approval (dangerous tools, policy requests).
    #[arg(long)]
    pub(crate) yes: bool,
    /// The session the call belongs to (idempotency keys are per session).
    #[arg(long, value_name = "ID", default_value = "cli")]
    pub(crate) session: String,
}

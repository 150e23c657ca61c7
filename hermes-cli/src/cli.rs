//! The command line, as clap types. No tool logic here.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

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
    /// Check commands and calls against the permission engine.
    #[command(subcommand)]
    Permissions(PermissionsCommand),
    /// Run an agent with the registered tools against a model server.
    ///
    /// Prints each event as it happens (the model's text, each tool call and result,
    /// the answer); exits 0 when the run completed, 1 when it ended otherwise (round
    /// limit, timeout, backend failure), 2 on usage or configuration errors.
    Run(RunArgs),
    /// Usage figures of past runs, read from the telemetry store `hermes run` records
    /// into.
    #[command(subcommand)]
    Telemetry(TelemetryCommand),
    /// Serve a local web dashboard of the telemetry store, on 127.0.0.1 only.
    ///
    /// Charts of calls and error rate over time, latency per tool, the top tools and
    /// token use; the page refreshes itself. Stop it with Ctrl-C.
    Dashboard(DashboardArgs),
    /// Read raw model output on stdin and print the tool calls found in it.
    ///
    /// Prints {"calls": [{"name", "arguments"}], "content", "reasoning", "errors":
    /// [{"kind", "block_index", "message"}], "warnings": [...]}.
    Parse(ParseArgs),
    /// Serve the registered tools to MCP clients.
    #[command(subcommand)]
    Mcp(McpCommand),
}

#[derive(Debug, Subcommand)]
pub(crate) enum McpCommand {
    /// Serve the tools over MCP: stdio by default (until the client closes stdin), or
    /// streamable HTTP at http://127.0.0.1:PORT/mcp with --http.
    ///
    /// Every call goes through the gateway, judged by the profile's permission engine
    /// (without --profiles, the default policy: read and write tools run, dangerous
    /// ones need approval). There is nobody to ask over MCP: calls that need approval
    /// are refused (an `approval_denied` error) unless --yes.
    ///
    /// Which tools are exposed (listed and callable; any other is `not_found`):
    /// without a profile, every read and write tool except those that run programs
    /// (declaring `terminal:execute`: terminal, code_execute, code_test,
    /// process_start). With a profile, a read or write tool when the profile grants
    /// every permission it declares (an allow entry covers it, no deny entry does) and
    /// no `tools:` rule denies it. A dangerous tool, or one that runs programs, only
    /// when the profile allows it explicitly: it passes that test, and either the
    /// profile has a `tools:` entry naming it, or each permission it declares is
    /// allowed by an entry naming its domain (`docker:run` or `docker:*`; `*` alone is
    /// not explicit).
    ///
    /// Logs go to stderr; with --http, `listening on http://127.0.0.1:PORT/mcp` is
    /// printed there once the port is bound.
    Serve(McpServeArgs),
}

#[derive(Debug, Args)]
pub(crate) struct McpServeArgs {
    /// Serve streamable HTTP on 127.0.0.1:PORT instead of stdio (0 picks a free port).
    #[arg(long, value_name = "PORT")]
    pub(crate) http: Option<u16>,
    #[command(flatten)]
    pub(crate) policy: PolicyArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Backend {
    /// OpenAI-compatible Chat Completions.
    Openai,
    /// The Hermes text format over a completions endpoint.
    Hermes,
    /// Anthropic Messages.
    Anthropic,
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// What to ask.
    pub(crate) prompt: String,
    /// The backend.
    #[arg(long, value_enum, default_value = "openai")]
    pub(crate) backend: Backend,
    /// The API root (default: HERMES_BASE_URL, then OPENAI_BASE_URL; Anthropic's for --backend anthropic).
    #[arg(long, value_name = "URL")]
    pub(crate) base_url: Option<String>,
    /// The model (default: HERMES_MODEL, then OPENAI_MODEL).
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// The environment variable holding the API key (default: HERMES_API_KEY, then
    /// OPENAI_API_KEY; ANTHROPIC_API_KEY for --backend anthropic).
    #[arg(long, value_name = "VAR")]
    pub(crate) api_key_env: Option<String>,
    /// `auto`, `none`, `required`, or a tool's name to force it (first round only).
    #[arg(long, value_name = "CHOICE", default_value = "auto")]
    pub(crate) tool_choice: String,
    /// The tool choice after the first round: `auto` or `none` (small models answer
    /// sooner with `none`).
    #[arg(long, value_name = "CHOICE", default_value = "auto")]
    pub(crate) then_tool_choice: String,
    /// Hermes backend: send a GBNF grammar for forced calls (llama.cpp servers).
    #[arg(long)]
    pub(crate) grammar: bool,
    /// Sampling temperature.
    #[arg(long)]
    pub(crate) temperature: Option<f32>,
    /// Most model calls in the run.
    #[arg(long, default_value_t = 10)]
    pub(crate) max_rounds: u32,
    /// A limit on the whole run, in seconds.
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<f64>,
    /// Print the outcome as one JSON object instead of the events.
    #[arg(long)]
    pub(crate) json: bool,
    /// Offer only these tools to the model (comma-separated names; default: all).
    /// Small models choose better from a short list.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub(crate) tools: Vec<String>,
    /// Use the tools of the MCP servers in FILE (`mcp_servers:` YAML; default:
    /// $HERMES_HOME/mcp.yaml, else ~/.config/hermes/mcp.yaml, when it exists). They are
    /// named mcp_<server>_<tool>, go through the same gateway, and are `dangerous`
    /// (approval needed) unless the file gives them a scope.
    #[arg(long, value_name = "FILE")]
    pub(crate) mcp: Option<PathBuf>,
    /// Do not record the run in the telemetry store.
    #[arg(long)]
    pub(crate) no_telemetry: bool,
    /// Append an audit entry per tool call to FILE: JSON Lines for `.jsonl`, else a
    /// SQLite table. Arguments and ids are PII-masked.
    #[arg(long, value_name = "FILE")]
    pub(crate) audit: Option<PathBuf>,
    /// The user the run is for (recorded in telemetry and the audit trail, masked;
    /// never sent to the model).
    #[arg(long, value_name = "ID")]
    pub(crate) user: Option<String>,
    #[command(flatten)]
    pub(crate) policy: PolicyArgs,
}

#[derive(Debug, Subcommand)]
pub(crate) enum TelemetryCommand {
    /// Tool calls, success rate, top tools, errors by kind, tokens and latency over the
    /// last hours.
    ///
    /// With --json, prints {"period", "total_calls", "success_rate", "top_tools":
    /// [{"name", "calls", "avg_latency_ms", "error_rate"}], "error_breakdown": {kind: n},
    /// "token_consumption": {"total", "by_tool": {name: n}}, "latency_ms": {tool:
    /// {"p50", "p95"}}}.
    Report(ReportArgs),
}

/// Which telemetry store to read.
#[derive(Debug, Args)]
pub(crate) struct StoreArgs {
    /// The store (default: HERMES_TELEMETRY_DB, else $HERMES_HOME/telemetry.db, else
    /// ~/.local/share/hermes/telemetry.db).
    #[arg(long, value_name = "FILE")]
    pub(crate) db: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// The period, in hours back from now.
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u32).range(1..=87_600))]
    pub(crate) hours: u32,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) store: StoreArgs,
}

#[derive(Debug, Args)]
pub(crate) struct DashboardArgs {
    /// The port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8686)]
    pub(crate) port: u16,
    #[command(flatten)]
    pub(crate) store: StoreArgs,
}

/// Who decides about calls: the permission engine under a profile, and approval.
#[derive(Debug, Args)]
pub(crate) struct PolicyArgs {
    /// Approve calls that need approval (dangerous tools, policy requests); without it,
    /// approval is asked on the terminal, and refused when there is none.
    #[arg(long)]
    pub(crate) yes: bool,
    /// Judge calls with the permission engine under this profile file.
    #[arg(long, value_name = "FILE", requires = "profile")]
    pub(crate) profiles: Option<PathBuf>,
    /// The profile to apply (with --profiles).
    #[arg(long, value_name = "NAME", requires = "profiles")]
    pub(crate) profile: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// `<tool_call>{...}</tool_call>` blocks, `<think>` reasoning.
    Hermes,
}

#[derive(Debug, Args)]
pub(crate) struct ParseArgs {
    /// The output format.
    #[arg(long, value_enum)]
    pub(crate) format: Format,
    /// Accept `parameters`, several objects or an array in a block, Python dicts.
    #[arg(long)]
    pub(crate) lenient: bool,
    /// The output starts inside a `<think>` block (the prompt opened it).
    #[arg(long)]
    pub(crate) think_open: bool,
    /// Feed the streaming parser N characters at a time (the result must not change).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) chunk_size: Option<u64>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum PermissionsCommand {
    /// Judge a shell command: prints {"verdict": "hardline"|"dangerous"|"safe", "rule", "reason"}.
    ///
    /// Always exits 0 when the command could be judged: read the verdict.
    CheckCommand(CheckCommandArgs),
    /// Judge a tool call, or a bare permission and value, under a profile.
    ///
    /// Prints {"decision": "allow"|"deny"|"needs_approval", "layer", "rule", "reason"}.
    /// Exits 0 for allow, 1 for deny or needs_approval, 2 on usage errors (a bad
    /// profile file, an unknown tool or profile).
    Check(CheckArgs),
}

#[derive(Debug, Args)]
pub(crate) struct CheckCommandArgs {
    /// The command line, as one argument.
    pub(crate) command: String,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The profile file (YAML).
    #[arg(long, value_name = "FILE")]
    pub(crate) profiles: PathBuf,
    /// The profile to apply.
    #[arg(long, value_name = "NAME")]
    pub(crate) profile: String,
    /// A tool to call (its declared permissions and path/command/URL parameters are judged).
    #[arg(
        long,
        value_name = "TOOL",
        conflicts_with = "permission",
        required_unless_present = "permission"
    )]
    pub(crate) tool: Option<String>,
    /// The tool call's arguments, as JSON.
    #[arg(long, value_name = "JSON", default_value = "{}")]
    pub(crate) args: String,
    /// A bare permission to check (`file:write`), optionally with one value.
    #[arg(long, value_name = "PERM")]
    pub(crate) permission: Option<String>,
    /// A path used under --permission.
    #[arg(long, value_name = "P", requires = "permission", conflicts_with_all = ["command", "url"])]
    pub(crate) path: Option<String>,
    /// A shell command used under --permission.
    #[arg(
        long,
        value_name = "C",
        requires = "permission",
        conflicts_with = "url"
    )]
    pub(crate) command: Option<String>,
    /// A URL used under --permission.
    #[arg(long, value_name = "U", requires = "permission")]
    pub(crate) url: Option<String>,
    /// The working directory relative paths are resolved against (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub(crate) cwd: Option<PathBuf>,
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
    /// Register the HTTP tools of a YAML file: validate it whole, copy it into the tool
    /// directory ($HERMES_HOME/tools, else $XDG_CONFIG_HOME/hermes/tools, else
    /// ~/.config/hermes/tools) and list what it registered.
    ///
    /// A file with any problem registers nothing; each problem is printed with its line
    /// and column. Registering a file of the same name again replaces it.
    Register(RegisterArgs),
    /// Remove a tool registered from a YAML file (the file keeps its other tools).
    Unregister(UnregisterArgs),
}

#[derive(Debug, Args)]
pub(crate) struct RegisterArgs {
    /// The YAML file of tools.
    #[arg(long, value_name = "FILE")]
    pub(crate) config: PathBuf,
    /// Print what was registered as JSON: {"file", "tools": [...]}.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct UnregisterArgs {
    /// The tool's name.
    pub(crate) name: String,
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
    #[command(flatten)]
    pub(crate) policy: PolicyArgs,
    /// The session the call belongs to (idempotency keys are per session).
    #[arg(long, value_name = "ID", default_value = "cli")]
    pub(crate) session: String,
}

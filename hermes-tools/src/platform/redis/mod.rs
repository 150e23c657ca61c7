//! `redis_command`: one command against the configured Redis server, its reply as JSON.
//! Reads need `database:read`; writes (and commands this module does not know) also
//! need the policy to grant `database:write` ([`write_gate`](super::config::write_gate));
//! server-wide commands must be allowed in [`PlatformConfig`](crate::PlatformConfig)
//! too; commands that would change the shared connection never run.

mod commands;
mod reply;
mod server;

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Error, Scope, Tool, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::write_gate::WriteGate;
use crate::common::Shared;
use crate::common::output::truncate_middle;
use commands::Class;
use server::Server;

/// The tool's name.
const NAME: &str = "redis_command";
/// The longest `timeout_ms` a call may ask for.
const MAX_TIMEOUT_MS: u64 = 60_000;
/// The cap on one result.
const MAX_RESULT_BYTES: usize = 128 * 1024;

/// Every redis tool.
pub(crate) fn tools(shared: &Arc<Shared>) -> Result<Vec<Arc<dyn Tool>>, Error> {
    Ok(vec![Arc::new(RedisCommand::new(shared)?)])
}

/// An argument: text, or a number or boolean sent as its text.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Argument {
    /// Text.
    Text(String),
    /// A number.
    Number(serde_json::Number),
    /// A boolean.
    Flag(bool),
}

impl Argument {
    fn into_text(self) -> String {
        match self {
            Self::Text(text) => text,
            Self::Number(number) => number.to_string(),
            Self::Flag(flag) => flag.to_string(),
        }
    }
}

/// The arguments of `redis_command`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RedisCommandArgs {
    /// The command, e.g. `GET`, `HGETALL`, `SET`, `LRANGE`.
    #[schemars(
        length(min = 1, max = 64),
        regex(pattern = r"^[A-Za-z][A-Za-z0-9_.|-]*$")
    )]
    command: String,
    /// Its arguments in order, e.g. `["user:1"]` or `["list", 0, -1]`.
    #[serde(default)]
    #[schemars(length(max = 1000))]
    args: Vec<Argument>,
    /// How long to wait for the reply, in milliseconds (at most 60000).
    #[serde(default = "default_timeout_ms")]
    #[schemars(range(min = 1, max = 60_000))]
    timeout_ms: u64,
}

fn default_timeout_ms() -> u64 {
    10_000
}

/// A command's reply.
#[derive(Debug, Serialize)]
pub(crate) struct CommandResult {
    /// The server, without its password.
    server: String,
    /// The command, upper case.
    command: String,
    /// The reply as JSON.
    result: Value,
    /// Whether the reply was cut to fit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
}

/// `redis_command`.
#[derive(Debug)]
pub(crate) struct RedisCommand {
    spec: ToolSpec,
    server: Server,
    server_wide: bool,
    gate: WriteGate,
    budget: usize,
}

impl RedisCommand {
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let platform = shared.config.platform();
        let spec = ToolSpec::builder(
            NAME,
            "Run one Redis command (command + args) against the configured server. Returns \
             {server, command, result}: bulk strings as text (or {base64} when not \
             UTF-8), integers, null for nil, arrays, HGETALL as an object. Reads need \
             database:read; writes need the policy to grant database:write; server-wide \
             commands (FLUSHALL, CONFIG, SHUTDOWN...) are refused unless configured.",
        )
        .parameters_for::<RedisCommandArgs>()
        .scope(Scope::Read)
        .permission("database:read")
        .timeout(Duration::from_millis(MAX_TIMEOUT_MS) + Duration::from_secs(10))
        .max_result_bytes(MAX_RESULT_BYTES)
        .tag(super::FAMILY_TAG)
        .build()?;
        Ok(Self {
            spec,
            server: Server::new(platform.redis().map(str::to_owned)),
            server_wide: platform.redis_dangerous_allowed(),
            gate: WriteGate::new()?,
            budget: (shared.config.max_output_bytes * 3).clamp(8 * 1024, 96 * 1024),
        })
    }

    /// Whether the command may run; why not, if not.
    fn check(
        &self,
        command: &str,
        class: Class,
        target: &str,
        ctx: &ToolContext,
    ) -> Result<(), ToolError> {
        let needs_write = |what: &str| {
            ToolError::failed(format!(
                "`{command}` {what}, which needs the permission database:write; the policy does \
                 not grant it, so only read commands run (GET, HGETALL, LRANGE, SCAN...)"
            ))
        };
        match class {
            Class::Read => Ok(()),
            Class::Connection => Err(ToolError::failed(format!(
                "`{command}` would change or block the connection every call shares \
                 (transactions, SELECT, subscriptions and blocking pops are not supported); \
                 use single commands, with the database in the server URL"
            ))),
            Class::ServerWide if !self.server_wide => Err(ToolError::failed(format!(
                "`{command}` acts on the whole server (wipe, configuration, shutdown, scripts) \
                 and is refused; the application must allow it with \
                 PlatformConfig::allow_dangerous_redis_commands"
            ))),
            Class::ServerWide => {
                if self.gate.allows(NAME, target, ctx) {
                    Ok(())
                } else {
                    Err(needs_write("acts on the whole server"))
                }
            }
            Class::Write => {
                if self.gate.allows(NAME, target, ctx) {
                    Ok(())
                } else {
                    Err(needs_write("changes data (or is not known to only read)"))
                }
            }
        }
    }
}

impl TypedTool for RedisCommand {
    type Args = RedisCommandArgs;
    type Output = CommandResult;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: RedisCommandArgs,
        ctx: &ToolContext,
    ) -> Result<CommandResult, ToolError> {
        let command = args.command.to_ascii_uppercase();
        let words: Vec<String> = args.args.into_iter().map(Argument::into_text).collect();
        let class = commands::classify(&command, &words);
        let target = match words.first() {
            Some(key) => format!("{command} {key}"),
            None => command.clone(),
        };
        self.check(&command, class, &target, ctx)?;
        let (mut connection, shown) = self.server.connection().await?;
        let mut request = redis::cmd(&command);
        for word in &words {
            request.arg(word);
        }
        let timeout = Duration::from_millis(args.timeout_ms.min(MAX_TIMEOUT_MS));
        let reply = tokio::time::timeout(
            timeout,
            request.query_async::<redis::Value>(&mut connection),
        )
        .await
        .map_err(|_| {
            ToolError::failed(format!(
                "Redis did not answer `{command}` within {} ms; ask for less (SCAN with \
                     COUNT instead of KEYS) or raise timeout_ms",
                timeout.as_millis()
            ))
        })?
        .map_err(|error| explain(&command, &shown, &error))?;
        let mut converter = reply::Converter::new(self.budget);
        let mut result = converter.convert(&reply);
        if command == "HGETALL" || command == "CONFIG" {
            result = reply::pair_up(result);
        }
        Ok(CommandResult {
            server: shown,
            command,
            result,
            truncated: converter.truncated,
        })
    }

    async fn teardown(&self) {
        self.server.close().await;
    }
}

/// An error from Redis in words the model can act on.
fn explain(command: &str, shown: &str, error: &redis::RedisError) -> ToolError {
    if error.is_io_error() || error.is_connection_dropped() || error.is_connection_refusal() {
        return ToolError::failed(format!(
            "lost the connection to Redis at {shown} running `{command}`: {error}; check the \
             server and call again"
        ));
    }
    let message = match (error.code(), error.detail()) {
        (Some(code), Some(detail)) => format!("{code} {detail}"),
        _ => error.to_string(),
    };
    let message = truncate_middle(message, 4096);
    ToolError::failed(format!(
        "Redis answered `{command}` with an error: {message}; fix the command or its arguments"
    ))
}

//! `env_set`: set or unset a variable for the session's commands, never for the process
//! running the tools.

use std::sync::Arc;

use hermes_core::{Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::names::{self, MAX_NAME_LEN, MAX_VALUE_LEN};
use super::secrets;
use crate::common::Shared;

/// The arguments of `env_set`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EnvSetArgs {
    /// The variable: letters, digits and `_`, not starting with a digit (`MY_VAR`).
    #[schemars(regex(pattern = r"^[A-Za-z_][A-Za-z0-9_]*$"), length(max = MAX_NAME_LEN))]
    name: String,
    /// The value to set; leave it out or send null to unset what this session set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = MAX_VALUE_LEN))]
    value: Option<String>,
    /// Optional, for retries: a call carrying the same key as an earlier successful one
    /// returns that call's result without setting again. Without a key, every call
    /// sets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 128))]
    #[expect(dead_code, reason = "the gateway reads it, to key the call")]
    idempotency_key: Option<String>,
}

/// The result of `env_set`.
#[derive(Debug, Serialize)]
pub(crate) struct EnvSetOutput {
    action: Action,
    name: String,
    /// Whether the session had set it before this call.
    was_set: bool,
    /// The new value's length in bytes (the value itself is not echoed).
    #[serde(skip_serializing_if = "Option::is_none")]
    length: Option<usize>,
    note: String,
}

/// What `env_set` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Action {
    Set,
    Unset,
}

/// The `env_set` tool.
#[derive(Debug)]
pub(crate) struct EnvSet {
    shared: Arc<Shared>,
    spec: ToolSpec,
}

impl EnvSet {
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, hermes_core::Error> {
        let spec = super::super::fixed_spec(
            ToolSpec::builder(
                "env_set",
                "Set or unset an environment variable for this session's commands. The value \
                 is added to the environment of every later terminal and process_start \
                 command of the session; the host process's environment is never changed. \
                 Unsetting removes only what the session set (an inherited variable shows \
                 again). Names follow the shell rule; loader and shell-start variables \
                 (LD_*, DYLD_*, BASH_ENV, ENV) are refused; values are at most 32 KiB.",
            )
            .parameters_for::<EnvSetArgs>()
            .scope(Scope::Write)
            // Each call runs: the same command twice is two runs.
            .replays(false)
            .permission("env:write")
            .timeout(std::time::Duration::from_secs(5))
            .max_result_bytes(4 * 1024),
        )?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl TypedTool for EnvSet {
    type Args = EnvSetArgs;
    type Output = EnvSetOutput;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: EnvSetArgs, ctx: &ToolContext) -> Result<EnvSetOutput, ToolError> {
        names::check_name(&args.name)?;
        if let Some(value) = &args.value {
            names::check_value(&args.name, value)?;
        }
        let session = ctx.session_id();
        let was_set = self.shared.session_env(session).contains_key(&args.name);
        let length = args.value.as_ref().map(String::len);
        let action = if args.value.is_some() {
            Action::Set
        } else {
            Action::Unset
        };
        self.shared.set_session_env(session, &args.name, args.value);
        let note = match action {
            Action::Set if secrets::is_secret(&args.name) => format!(
                "set for this session's commands; env_get shows it masked (the name marks a \
                 secret); commands read it as ${}",
                args.name
            ),
            Action::Set => "set for this session's commands (terminal, process_start)".to_owned(),
            Action::Unset if std::env::var_os(&args.name).is_some() => format!(
                "the session's value is gone; commands see the inherited `{}` again",
                args.name
            ),
            Action::Unset => "the session's value is gone".to_owned(),
        };
        Ok(EnvSetOutput {
            name: args.name,
            action,
            was_set,
            length,
            note,
        })
    }
}

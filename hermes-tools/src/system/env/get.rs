//! `env_get`: read one variable, or list names, from the session's variables over the
//! process environment. Secret values are masked unless the policy allows reading them
//! ([`super::secrets`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use hermes_core::{Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::secrets::{self, SecretGate};
use crate::common::Shared;
use crate::common::output::truncate_middle;

/// The arguments of `env_get`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EnvGetArgs {
    /// The variable to read, e.g. `HOME`. Leave it out to list names instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 256))]
    name: Option<String>,
    /// List the variable names that start with this (case-sensitive); an empty string
    /// lists every name. Only names are listed, never values. Not used with `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 256))]
    prefix: Option<String>,
    /// The most names a listing returns.
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 1000))]
    limit: usize,
}

fn default_limit() -> usize {
    200
}

/// Where a variable's value comes from.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Source {
    /// Set by this session with `env_set`.
    Session,
    /// Inherited from the process running the tools.
    Process,
}

/// One variable read.
#[derive(Debug, Serialize)]
pub(crate) struct Variable {
    name: String,
    set: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<Source>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    /// The value's length in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    length: Option<usize>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    masked: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// A name in a listing.
#[derive(Debug, Serialize)]
pub(crate) struct Listed {
    name: String,
    source: Source,
}

/// Names matching a prefix.
#[derive(Debug, Serialize)]
pub(crate) struct Listing {
    prefix: String,
    names: Vec<Listed>,
    /// How many names match in all.
    total: usize,
    truncated: bool,
}

/// The result of `env_get`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum EnvGetOutput {
    Variable(Variable),
    Listing(Listing),
}

/// The `env_get` tool.
#[derive(Debug)]
pub(crate) struct EnvGet {
    shared: Arc<Shared>,
    spec: ToolSpec,
    secrets: SecretGate,
}

impl EnvGet {
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, hermes_core::Error> {
        let spec = super::super::fixed_spec(
            ToolSpec::builder(
                "env_get",
                "Read an environment variable, or list variable names by prefix. With `name`, \
                 returns whether it is set, its value and where it comes from (`session`: set \
                 with env_set for this session's commands; `process`: inherited). Values of \
                 names that look like secrets (*_KEY, *_TOKEN, *_SECRET, *PASSWORD*, *_PASS) \
                 are masked to `****` with their length unless the permission policy allows \
                 reading secrets. With `prefix` (or neither), lists matching names, never \
                 values.",
            )
            .parameters_for::<EnvGetArgs>()
            .scope(Scope::Read)
            .permission("env:read")
            .timeout(std::time::Duration::from_secs(5))
            .max_result_bytes(128 * 1024),
        )?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
            secrets: SecretGate::new()?,
        })
    }

    fn read(&self, name: String, ctx: &ToolContext) -> Variable {
        let session = self.shared.session_env(ctx.session_id());
        let found = match session.get(&name) {
            Some(value) => Some((Source::Session, value.clone())),
            None => std::env::var_os(&name)
                .map(|value| (Source::Process, value.to_string_lossy().into_owned())),
        };
        let Some((source, value)) = found else {
            return Variable {
                note: Some(format!(
                    "`{name}` is not set; env_get with a `prefix` lists the names that are"
                )),
                name,
                set: false,
                source: None,
                value: None,
                length: None,
                masked: false,
            };
        };
        let length = value.len();
        if secrets::is_secret(&name) && !self.secrets.allows(&name, ctx) {
            return Variable {
                note: Some(format!(
                    "the name marks a secret, so its value is masked; commands this session \
                     runs still see it (use `${name}` in them)"
                )),
                name,
                set: true,
                source: Some(source),
                value: Some(secrets::MASK.to_owned()),
                length: Some(length),
                masked: true,
            };
        }
        Variable {
            name,
            set: true,
            source: Some(source),
            value: Some(truncate_middle(
                value,
                self.shared.config.max_output_bytes(),
            )),
            length: Some(length),
            masked: false,
            note: None,
        }
    }

    fn list(&self, prefix: String, limit: usize, ctx: &ToolContext) -> Listing {
        let mut names: BTreeMap<String, Source> = std::env::vars_os()
            .filter_map(|(name, _)| name.into_string().ok())
            .filter(|name| name.starts_with(&prefix))
            .map(|name| (name, Source::Process))
            .collect();
        for name in self.shared.session_env(ctx.session_id()).into_keys() {
            if name.starts_with(&prefix) {
                names.insert(name, Source::Session);
            }
        }
        let total = names.len();
        Listing {
            prefix,
            names: names
                .into_iter()
                .take(limit)
                .map(|(name, source)| Listed { name, source })
                .collect(),
            total,
            truncated: total > limit,
        }
    }
}

impl TypedTool for EnvGet {
    type Args = EnvGetArgs;
    type Output = EnvGetOutput;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: EnvGetArgs, ctx: &ToolContext) -> Result<EnvGetOutput, ToolError> {
        match (args.name, args.prefix) {
            (Some(_), Some(_)) => Err(ToolError::failed(
                "give `name` to read one variable or `prefix` to list names, not both",
            )),
            (Some(name), None) => Ok(EnvGetOutput::Variable(self.read(name, ctx))),
            (None, prefix) => Ok(EnvGetOutput::Listing(self.list(
                prefix.unwrap_or_default(),
                args.limit,
                ctx,
            ))),
        }
    }
}

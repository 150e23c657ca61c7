//! Which variables hold secrets, and whether the policy lets this call read them.
//!
//! A name is a secret when it matches one of [`SECRET_NAMES`] (case-insensitive). Its
//! value is shown only when the policy allows the `env_secret` check: a probe spec of
//! that name, needing `env:read`, with `dangerous` scope, asked through
//! [`ToolContext::policy`] with the variable's name as its argument.
//!
//! - The default policy wants approval for anything `dangerous`, so secrets are masked.
//! - The permission engine allows the probe when the profile grants `env:read` and has
//!   no tool rule against `env_secret`: a profile masks secrets with
//!   `tools: {env_secret: {deny: true}}` (or `approval_required: true`), and reveals
//!   them by granting `env:read` without such a rule.
//! - A custom policy decides on the tool name `env_secret`.
//!
//! Nothing asks a human here: an answer other than "allow" masks the value.

use hermes_core::{Decision, Scope, ToolContext, ToolSpec};
use serde_json::json;

/// How a secret name is recognised.
#[derive(Debug, Clone, Copy)]
enum NamePattern {
    /// The name ends with this.
    Suffix(&'static str),
    /// The name contains this.
    Contains(&'static str),
    /// The name is this.
    Exact(&'static str),
}

/// The names whose values are secrets, upper case; matched case-insensitively.
const SECRET_NAMES: &[NamePattern] = &[
    NamePattern::Exact("API_KEY"),
    NamePattern::Suffix("_KEY"),
    NamePattern::Suffix("_TOKEN"),
    NamePattern::Suffix("_SECRET"),
    NamePattern::Suffix("_PASS"),
    NamePattern::Suffix("_PASSWD"),
    NamePattern::Suffix("_CREDENTIALS"),
    NamePattern::Contains("PASSWORD"),
];

/// The name of the probe the policy is asked about.
pub(crate) const PROBE_NAME: &str = "env_secret";

/// What a masked value reads as.
pub(crate) const MASK: &str = "****";

/// Whether `name` names a secret.
pub(crate) fn is_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_NAMES.iter().any(|pattern| match pattern {
        NamePattern::Suffix(suffix) => upper.ends_with(suffix),
        NamePattern::Contains(part) => upper.contains(part),
        NamePattern::Exact(exact) => upper == *exact,
    })
}

/// Asks the policy whether a call may read secret values.
#[derive(Debug)]
pub(crate) struct SecretGate {
    probe: ToolSpec,
}

impl SecretGate {
    pub(crate) fn new() -> Result<Self, hermes_core::Error> {
        let builder = ToolSpec::builder(
            PROBE_NAME,
            "Read the value of an environment variable whose name marks it a secret \
             (asked by env_get; not a callable tool).",
        )
        .parameters(json!({
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        }))
        .scope(Scope::Dangerous)
        .permission("env:read");
        Ok(Self {
            probe: super::super::fixed_spec(builder)?,
        })
    }

    /// Whether the policy allows reading the secret `name` in this call.
    pub(crate) fn allows(&self, name: &str, ctx: &ToolContext) -> bool {
        matches!(
            ctx.policy().check(&self.probe, &json!({"name": name}), ctx),
            Decision::Allow
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names() {
        for secret in [
            "API_KEY",
            "api_key",
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "CLIENT_SECRET",
            "PGPASSWORD",
            "db_password_file",
            "SMTP_PASS",
        ] {
            assert!(is_secret(secret), "{secret}");
        }
        for plain in [
            "PATH",
            "HOME",
            "KEYBOARD",
            "TOKENIZER",
            "PASSAGE",
            "SECRETARY_NAME",
        ] {
            assert!(!is_secret(plain), "{plain}");
        }
    }

    #[test]
    fn the_default_policy_masks() {
        let gate = SecretGate::new().unwrap();
        assert!(!gate.allows("API_KEY", &ToolContext::new("t")));
    }
}

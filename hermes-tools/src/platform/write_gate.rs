//! Whether a call may change data: asked of the policy, not of the model.
//!
//! `database_query` and `redis_command` need `database:read` to run; a change needs
//! `database:write` as well. The gateway has already judged the call on its declared
//! permissions, so the tool asks once more, through [`ToolContext::policy`], about a
//! probe spec named [`PROBE_NAME`] that needs `database:write` and has `dangerous` scope:
//!
//! - the default policy wants approval for anything `dangerous`, and nothing asks a
//!   human here, so without a permission engine every call is read-only;
//! - the permission engine allows the probe when the profile grants `database:write`
//!   (and no tool rule denies `database_write` or wants approval for it);
//! - a custom policy decides on the tool name `database_write`; its argument names the
//!   tool asking and the target (a database with the password masked, a Redis key).
//!
//! One probe instead of two permission levels in the tool's own spec: the spec stays
//! `database:read`, so a read-only profile can call the tool at all.

use hermes_core::{Decision, Error, Scope, ToolContext, ToolSpec};
use serde_json::json;

/// The name of the probe the policy is asked about.
pub(crate) const PROBE_NAME: &str = "database_write";

/// Asks the policy whether a call may write.
#[derive(Debug)]
pub(crate) struct WriteGate {
    probe: ToolSpec,
}

impl WriteGate {
    /// The probe, built once per tool.
    pub(crate) fn new() -> Result<Self, Error> {
        let probe = ToolSpec::builder(
            PROBE_NAME,
            "Change data in a database or a Redis server (asked by database_query and \
             redis_command before a write; not a callable tool).",
        )
        .parameters(json!({
            "type": "object",
            "properties": {
                "tool": {"type": "string"},
                "target": {"type": "string"},
            },
            "required": ["tool", "target"],
        }))
        .scope(Scope::Dangerous)
        .permission("database:write")
        .tag(super::FAMILY_TAG)
        .build()?;
        Ok(Self { probe })
    }

    /// Whether the policy lets `tool` write to `target` in this call.
    pub(crate) fn allows(&self, tool: &str, target: &str, ctx: &ToolContext) -> bool {
        matches!(
            ctx.policy()
                .check(&self.probe, &json!({"tool": tool, "target": target}), ctx),
            Decision::Allow
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_policy_keeps_calls_read_only() {
        let gate = WriteGate::new().unwrap();
        assert!(!gate.allows("database_query", "db", &ToolContext::new("t")));
    }
}

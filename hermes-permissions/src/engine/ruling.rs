//! What the engine decided about one call, and why.

use std::fmt;

use serde::Serialize;

/// The engine's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Run it.
    Allow,
    /// Refuse it.
    Deny,
    /// Ask a human first.
    NeedsApproval,
}

impl Outcome {
    /// `allow`, `deny` or `needs_approval`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Deny => "deny",
            Self::NeedsApproval => "needs_approval",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The layer whose rule decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// The engine's own profile.
    Global,
    /// The session's profile.
    Session,
    /// A profile's rule for this tool.
    Tool,
    /// A restriction on a parameter's value (a path, a command, a host).
    Parameter,
}

impl Layer {
    /// `global`, `session`, `tool` or `parameter`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Global => "global",
            Self::Session => "session",
            Self::Tool => "tool",
            Self::Parameter => "parameter",
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A decision with the rule that produced it, so a user can see why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Ruling {
    /// Allow, deny, or ask.
    pub decision: Outcome,
    /// The layer of the deciding rule.
    pub layer: Layer,
    /// The profile the rule belongs to, if any.
    pub profile: Option<String>,
    /// The permission at stake, if one.
    pub permission: Option<String>,
    /// The rule: a permission pattern, a restriction's pattern, or a detector rule id.
    pub rule: String,
    /// Why, in words.
    pub reason: String,
    /// For approvals: what a session-wide approval would cover.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
}

impl Ruling {
    pub(crate) fn new(
        decision: Outcome,
        layer: Layer,
        rule: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Self {
            decision,
            layer,
            profile: None,
            permission: None,
            rule: rule.into(),
            reason: reason.into(),
            class: None,
        }
    }

    pub(crate) fn profile(mut self, profile: &str) -> Self {
        self.profile = Some(profile.to_owned());
        self
    }

    pub(crate) fn permission(mut self, permission: impl ToString) -> Self {
        self.permission = Some(permission.to_string());
        self
    }

    pub(crate) fn class(mut self, class: impl Into<String>) -> Self {
        self.class = Some(class.into());
        self
    }

    /// One line for people and for the model: the reason, then where the rule is.
    pub fn explain(&self) -> String {
        let mut text = format!("{} ({} layer", self.reason, self.layer);
        if let Some(profile) = &self.profile {
            text.push_str(&format!(", profile `{profile}`"));
        }
        if let Some(permission) = &self.permission {
            text.push_str(&format!(", permission `{permission}`"));
        }
        text.push_str(&format!(", rule `{}`)", self.rule));
        text
    }
}

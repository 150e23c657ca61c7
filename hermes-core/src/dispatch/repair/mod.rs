//! Repairs of what small models get slightly wrong: a misspelt tool name, JSON with a
//! trailing comma, `"42"` for an integer, the same call twice. Each is on by default,
//! can be switched off ([`Repairs`]), and is reported (`tool_call_repaired`).

mod coerce;
mod json;
mod name;

use std::fmt;

use serde::{Deserialize, Serialize};

pub(crate) use coerce::coerce;
pub(crate) use json::{JsonRepair, repair as repair_json};
pub(crate) use name::repair as repair_name;

/// Which repairs the gateway makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Repairs {
    /// Case, `-`/space/camelCase, a `Tool` suffix, quotes and attribute debris, then
    /// one clearly closest name.
    pub names: bool,
    /// Trailing commas, one missing or extra closing brace, raw control characters in
    /// strings, an empty or `null` argument string for a tool without required ones.
    pub json: bool,
    /// Values of the wrong JSON type the schema can read unambiguously (`"42"` for an
    /// integer, `"true"` for a boolean, one value for an array...).
    pub types: bool,
    /// The same call twice in one message runs once.
    pub duplicates: bool,
}

impl Default for Repairs {
    fn default() -> Self {
        Self::all()
    }
}

impl Repairs {
    /// Every repair.
    pub const fn all() -> Self {
        Self {
            names: true,
            json: true,
            types: true,
            duplicates: true,
        }
    }

    /// No repair: the gateway is strict.
    pub const fn none() -> Self {
        Self {
            names: false,
            json: false,
            types: false,
            duplicates: false,
        }
    }
}

/// What kind of repair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RepairKind {
    /// The tool name.
    Name,
    /// The argument JSON.
    Json,
    /// Argument types.
    Types,
    /// A duplicate call answered with the first one's result.
    Duplicate,
}

impl RepairKind {
    /// `name`, `json`, `types` or `duplicate`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::Json => "json",
            Self::Types => "types",
            Self::Duplicate => "duplicate",
        }
    }
}

/// One repair the gateway made to a call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Repair {
    /// What was repaired.
    pub kind: RepairKind,
    /// What changed, in words (`"TERMINAL" -> "terminal"`).
    pub detail: String,
}

impl Repair {
    pub(crate) fn new(kind: RepairKind, detail: impl Into<String>) -> Self {
        Self {
            kind,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Repair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.as_str(), self.detail)
    }
}

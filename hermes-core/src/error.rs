//! Errors: [`ToolError`] for one failed call (sent back to the model), [`Error`] for
//! the library's own failures (registration, configuration), [`LlmError`] for backends.

use std::borrow::Cow;
use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};

use crate::text::{bound_chars, defuse_tags};

/// A boxed error cause, kept in `#[source]` fields.
pub type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// One rule of a tool's JSON Schema that the arguments broke.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Violation {
    /// JSON Pointer to the offending value (`/days`, `/items/2`); empty for the root.
    pub path: String,
    /// The schema keyword that failed (`type`, `required`, `enum`, `maximum`, ...).
    pub keyword: String,
    /// What is wrong, in words.
    pub message: String,
}

impl Violation {
    /// A violation at `path` of the rule `keyword`.
    pub fn new(
        path: impl Into<String>,
        keyword: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            path: path.into(),
            keyword: keyword.into(),
            message: message.into(),
        }
    }
}

impl Violation {
    /// A copy fit to send: the message bounded and defused.
    fn bounded(&self) -> Self {
        Self {
            path: bound_chars(&self.path, MAX_VIOLATION_CHARS).into_owned(),
            keyword: self.keyword.clone(),
            message: defuse_tags(&bound_chars(&self.message, MAX_VIOLATION_CHARS)).into_owned(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        };
        write!(f, "at `{path}`: {} [{}]", self.message, self.keyword)
    }
}

/// Why one tool call failed.
///
/// The gateway never lets a `ToolError` end an agent run: it becomes the content of the
/// call's tool message, `{"error": {"kind": .., "message": ..}}` (see
/// [`ToolError::to_content`]), and the model decides what to do next. Messages are
/// written for the model: they say what went wrong and what to try instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// No tool of that name is registered.
    #[error("unknown tool `{name}`; {}", suggest(close, available))]
    NotFound {
        /// The name the model asked for.
        name: String,
        /// Registered names close to it, best first.
        close: Vec<String>,
        /// Every registered name, sorted.
        available: Vec<String>,
    },
    /// The argument string is not valid JSON.
    #[error(
        "arguments are not valid JSON ({message} at line {line} column {column}); send one JSON object"
    )]
    BadJson {
        /// The parser's message.
        message: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
    },
    /// The argument string was cut off (the model hit its token limit).
    #[error(
        "your call was cut off: {reason}; the tool did not run. Send shorter arguments (split the work) and call again"
    )]
    Truncated {
        /// Where it stops.
        reason: String,
    },
    /// The arguments do not match the tool's JSON Schema.
    #[error(
        "arguments do not match the schema: {}; fix them and call again",
        join(violations)
    )]
    InvalidArguments {
        /// Every rule broken, in schema order.
        violations: Vec<Violation>,
    },
    /// The permission policy refused the call.
    #[error("permission denied for `{tool}`: {reason}; do not retry this call as is")]
    Denied {
        /// The tool called.
        tool: String,
        /// The policy's reason.
        reason: String,
    },
    /// The call needed human approval and did not get it.
    #[error("`{tool}` needs human approval, which was not given: {reason}")]
    ApprovalDenied {
        /// The tool called.
        tool: String,
        /// Why approval was refused.
        reason: String,
    },
    /// The tool ran past its timeout.
    #[error("tool `{tool}` timed out after {after:?}; ask for less or split the task")]
    TimedOut {
        /// The tool called.
        tool: String,
        /// The timeout it ran into.
        after: Duration,
    },
    /// The run was cancelled while the call was in flight.
    #[error("tool `{tool}` was cancelled because the run was stopped")]
    Cancelled {
        /// The tool called.
        tool: String,
    },
    /// The tool panicked; the panic was caught.
    #[error("tool `{tool}` crashed ({message}); this is a bug in the tool, try another approach")]
    Panicked {
        /// The tool called.
        tool: String,
        /// The panic payload, when it was a string.
        message: String,
    },
    /// The tool's `setup` failed, so it cannot be used.
    #[error("tool `{tool}` is unavailable: {reason}")]
    Unavailable {
        /// The tool called.
        tool: String,
        /// Why setup failed.
        reason: String,
    },
    /// The tool ran and failed.
    #[error("{message}")]
    Failed {
        /// What went wrong, for the model.
        message: String,
        /// The underlying error, if any.
        #[source]
        source: Option<BoxError>,
    },
}

/// How many names an unknown-tool message lists at most.
const MAX_LISTED_TOOLS: usize = 40;

fn suggest(close: &[String], available: &[String]) -> String {
    if available.is_empty() {
        return "no tools are registered".to_owned();
    }
    if !close.is_empty() {
        return format!("did you mean {}?", close.join(", "));
    }
    let listed = available.iter().take(MAX_LISTED_TOOLS).map(String::as_str);
    let mut message = format!("the tools are: {}", listed.collect::<Vec<_>>().join(", "));
    if available.len() > MAX_LISTED_TOOLS {
        message.push_str(&format!(
            " (and {} more)",
            available.len() - MAX_LISTED_TOOLS
        ));
    }
    message
}

/// The longest error message sent to the model, in chars.
const MAX_MESSAGE_CHARS: usize = 2000;
/// The most violations listed one by one in an error's JSON; `more_violations` counts
/// the rest. With each bounded, the JSON stays whole under any result cap.
const MAX_VIOLATIONS: usize = 20;
/// The longest violation message kept (a message can quote a whole argument value).
const MAX_VIOLATION_CHARS: usize = 300;

fn join(violations: &[Violation]) -> String {
    let parts: Vec<String> = violations.iter().map(ToString::to_string).collect();
    parts.join("; ")
}

impl ToolError {
    /// A failure with a message for the model.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::Failed {
            message: message.into(),
            source: None,
        }
    }

    /// A failure with a message for the model and the error that caused it.
    pub fn failed_with(
        message: impl Into<String>,
        source: impl StdError + Send + Sync + 'static,
    ) -> Self {
        Self::Failed {
            message: message.into(),
            source: Some(Box::new(source)),
        }
    }

    /// Arguments that could not be read into the tool's parameter type.
    ///
    /// Used by the typed layer when `serde` rejects arguments that passed the schema
    /// (a schema looser than the Rust type, say).
    pub fn invalid_arguments(error: impl fmt::Display) -> Self {
        Self::InvalidArguments {
            violations: vec![Violation::new("", "type", error.to_string())],
        }
    }

    /// A copy for a duplicate call's report: the same kind and message; a `Failed`
    /// error's causes are folded into its message.
    pub(crate) fn duplicate(&self) -> Self {
        match self {
            Self::NotFound {
                name,
                close,
                available,
            } => Self::NotFound {
                name: name.clone(),
                close: close.clone(),
                available: available.clone(),
            },
            Self::BadJson {
                message,
                line,
                column,
            } => Self::BadJson {
                message: message.clone(),
                line: *line,
                column: *column,
            },
            Self::Truncated { reason } => Self::Truncated {
                reason: reason.clone(),
            },
            Self::InvalidArguments { violations } => Self::InvalidArguments {
                violations: violations.clone(),
            },
            Self::Denied { tool, reason } => Self::Denied {
                tool: tool.clone(),
                reason: reason.clone(),
            },
            Self::ApprovalDenied { tool, reason } => Self::ApprovalDenied {
                tool: tool.clone(),
                reason: reason.clone(),
            },
            Self::TimedOut { tool, after } => Self::TimedOut {
                tool: tool.clone(),
                after: *after,
            },
            Self::Cancelled { tool } => Self::Cancelled { tool: tool.clone() },
            Self::Panicked { tool, message } => Self::Panicked {
                tool: tool.clone(),
                message: message.clone(),
            },
            Self::Unavailable { tool, reason } => Self::Unavailable {
                tool: tool.clone(),
                reason: reason.clone(),
            },
            Self::Failed { .. } => Self::failed(self.full_message()),
        }
    }

    /// The kind of failure, for `match` and for the wire.
    pub fn kind(&self) -> ToolErrorKind {
        match self {
            Self::NotFound { .. } => ToolErrorKind::NotFound,
            Self::BadJson { .. } => ToolErrorKind::BadJson,
            Self::Truncated { .. } => ToolErrorKind::Truncated,
            Self::InvalidArguments { .. } => ToolErrorKind::InvalidArguments,
            Self::Denied { .. } => ToolErrorKind::Denied,
            Self::ApprovalDenied { .. } => ToolErrorKind::ApprovalDenied,
            Self::TimedOut { .. } => ToolErrorKind::TimedOut,
            Self::Cancelled { .. } => ToolErrorKind::Cancelled,
            Self::Panicked { .. } => ToolErrorKind::Panicked,
            Self::Unavailable { .. } => ToolErrorKind::Unavailable,
            Self::Failed { .. } => ToolErrorKind::Failed,
        }
    }

    /// The message with its chain of causes, `: `-joined.
    pub fn full_message(&self) -> String {
        let mut message = self.to_string();
        let mut source = self.source();
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        message
    }

    /// The JSON object sent to the model as the tool message content.
    ///
    /// Always `{"error": {"kind", "message"}}`; schema failures add `violations`
    /// (`[{path, keyword, message}]`), unknown tools add `close_names`, and refused
    /// approvals add `requires_confirmation: true`.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self.wire())
            .unwrap_or_else(|_| json!({"error": {"kind": self.kind().as_str()}}))
    }

    /// [`ToolError::to_json`] as a string: the tool message content, members in a fixed
    /// order (`kind`, `message`, then the extras).
    pub fn to_content(&self) -> String {
        serde_json::to_string(&self.wire())
            .unwrap_or_else(|_| format!(r#"{{"error":{{"kind":"{}"}}}}"#, self.kind().as_str()))
    }

    fn wire(&self) -> WireError<'_> {
        // Tool messages can quote outside text (a server's error page, say): defused
        // and bounded, they cannot pose as a call or run on for pages.
        let message = self.full_message();
        let message = defuse_tags(&bound_chars(&message, MAX_MESSAGE_CHARS)).into_owned();
        let mut body = WireBody {
            kind: self.kind().as_str(),
            message,
            violations: None,
            more_violations: None,
            close_names: None,
            requires_confirmation: None,
        };
        match self {
            Self::InvalidArguments { violations } => {
                body.violations = Some(
                    violations
                        .iter()
                        .take(MAX_VIOLATIONS)
                        .map(Violation::bounded)
                        .collect(),
                );
                body.more_violations = violations
                    .len()
                    .checked_sub(MAX_VIOLATIONS)
                    .filter(|more| *more > 0);
            }
            Self::NotFound { close, .. } => body.close_names = Some(close),
            Self::ApprovalDenied { .. } => body.requires_confirmation = Some(true),
            _ => {}
        }
        WireError { error: body }
    }
}

#[derive(Serialize)]
struct WireError<'a> {
    error: WireBody<'a>,
}

#[derive(Serialize)]
struct WireBody<'a> {
    kind: &'static str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    violations: Option<Vec<Violation>>,
    /// How many violations were left out of `violations`.
    #[serde(skip_serializing_if = "Option::is_none")]
    more_violations: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    close_names: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    requires_confirmation: Option<bool>,
}

/// What kind of failure a [`ToolError`] is. The `as_str` names are the wire names and
/// are stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// `not_found`: no such tool.
    NotFound,
    /// `bad_json`: the argument string did not parse.
    BadJson,
    /// `truncated`: the argument string was cut off.
    Truncated,
    /// `invalid_arguments`: the arguments broke the schema.
    InvalidArguments,
    /// `denied`: the policy refused.
    Denied,
    /// `approval_denied`: approval was needed and not given.
    ApprovalDenied,
    /// `timeout`: the tool ran past its timeout.
    TimedOut,
    /// `cancelled`: the run was stopped.
    Cancelled,
    /// `panicked`: the tool panicked.
    Panicked,
    /// `unavailable`: the tool's setup failed.
    Unavailable,
    /// `failed`: the tool reported an error.
    Failed,
}

impl ToolErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [Self; 11] = [
        Self::NotFound,
        Self::BadJson,
        Self::Truncated,
        Self::InvalidArguments,
        Self::Denied,
        Self::ApprovalDenied,
        Self::TimedOut,
        Self::Cancelled,
        Self::Panicked,
        Self::Unavailable,
        Self::Failed,
    ];

    /// The kind with this wire name.
    pub fn from_wire(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.as_str() == name)
    }

    /// The stable wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::NotFound => "not_found",
            Self::BadJson => "bad_json",
            Self::Truncated => "truncated",
            Self::InvalidArguments => "invalid_arguments",
            Self::Denied => "denied",
            Self::ApprovalDenied => "approval_denied",
            Self::TimedOut => "timeout",
            Self::Cancelled => "cancelled",
            Self::Panicked => "panicked",
            Self::Unavailable => "unavailable",
            Self::Failed => "failed",
        }
    }
}

impl fmt::Display for ToolErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The library's own errors: registration, configuration, agent construction.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A tool name outside `^[A-Za-z0-9_-]{1,64}$`.
    #[error(
        "invalid tool name `{name}`: use 1 to 64 ASCII letters, digits, `_` or `-` (OpenAI's rule)"
    )]
    InvalidToolName {
        /// The rejected name.
        name: String,
    },
    /// A parameters schema that is not usable.
    #[error("invalid parameters schema for tool `{tool}`: {reason}")]
    InvalidSchema {
        /// The tool whose schema was rejected.
        tool: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A second tool with a name already registered.
    #[error("a tool named `{name}` is already registered; use `Registry::replace` to swap it")]
    DuplicateTool {
        /// The name in use.
        name: String,
    },
    /// Two `#[tool]` functions linked into one binary share a name.
    #[error("two #[tool] functions are named `{name}`: at {first} and at {second}; rename one")]
    DuplicateLinkedTool {
        /// The shared name.
        name: String,
        /// Where the first is (`file:line`).
        first: &'static str,
        /// Where the second is.
        second: &'static str,
    },
    /// A tool that is not registered.
    #[error("no tool named `{name}` is registered")]
    UnknownTool {
        /// The missing name.
        name: String,
    },
    /// A builder was missing a required setting.
    #[error("{what} is required: call `{method}` on the builder")]
    MissingSetting {
        /// What is missing.
        what: &'static str,
        /// The builder method that sets it.
        method: &'static str,
    },
    /// A setting out of its range.
    #[error("invalid setting `{setting}`: {reason}")]
    InvalidSetting {
        /// The setting.
        setting: &'static str,
        /// What is wrong.
        reason: Cow<'static, str>,
    },
}

/// A failure of an LLM backend.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// The request did not reach the server or the connection broke.
    #[error("could not reach the model server: {message}")]
    Transport {
        /// What happened.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<BoxError>,
    },
    /// The server answered with an error status.
    #[error("the model server answered {status}: {body}")]
    Status {
        /// HTTP status code.
        status: u16,
        /// What the server said.
        body: String,
    },
    /// The server's answer could not be understood.
    #[error("the model server's response is not understood: {message}")]
    InvalidResponse {
        /// What is wrong with it.
        message: String,
    },
    /// A [`ScriptedBackend`](crate::ScriptedBackend) ran out of turns.
    #[error(
        "the scripted backend has no turn left (it was given {given}); add turns to the script"
    )]
    ScriptExhausted {
        /// How many turns the script had.
        given: usize,
    },
    /// Anything else.
    #[error("{message}")]
    Other {
        /// What happened.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<BoxError>,
    },
}

impl LlmError {
    /// A short name for the kind of failure, for telemetry: `transport`, `status`,
    /// `invalid_response`, `script_exhausted` or `other`.
    pub const fn kind(&self) -> &'static str {
        match self {
            Self::Transport { .. } => "transport",
            Self::Status { .. } => "status",
            Self::InvalidResponse { .. } => "invalid_response",
            Self::ScriptExhausted { .. } => "script_exhausted",
            Self::Other { .. } => "other",
        }
    }

    /// Whether trying the same request again may succeed (transport errors, 408, 429, 5xx).
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Transport { .. } => true,
            Self::Status { status, .. } => matches!(status, 408 | 429 | 500..=599),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_shape_of_a_schema_error() {
        let err = ToolError::InvalidArguments {
            violations: vec![
                Violation::new("/days", "maximum", "9 is greater than the maximum of 7"),
                Violation::new("", "required", "\"city\" is a required property"),
            ],
        };
        let value = err.to_json();
        assert_eq!(value["error"]["kind"], "invalid_arguments");
        assert_eq!(value["error"]["violations"][0]["path"], "/days");
        let message = value["error"]["message"].as_str().unwrap();
        assert!(message.contains("at `/days`: 9 is greater"), "{message}");
        assert!(message.contains("at `(root)`"), "{message}");
    }

    #[test]
    fn many_long_violations_stay_within_bounds() {
        let long = "x".repeat(10_000);
        let err = ToolError::InvalidArguments {
            violations: (0..2000)
                .map(|i| {
                    Violation::new(
                        format!("/tags/{i}"),
                        "type",
                        format!("{long} is not a string"),
                    )
                })
                .collect(),
        };
        let content = err.to_content();
        assert!(content.len() < 16 * 1024, "{} bytes", content.len());
        let value: serde_json::Value = serde_json::from_str(&content).unwrap();
        assert_eq!(
            value["error"]["violations"].as_array().unwrap().len(),
            MAX_VIOLATIONS
        );
        assert_eq!(value["error"]["more_violations"], 2000 - MAX_VIOLATIONS);
        let few = ToolError::InvalidArguments {
            violations: vec![Violation::new("/a", "type", "short")],
        };
        assert!(few.to_json()["error"].get("more_violations").is_none());
    }

    #[test]
    fn approval_denial_asks_for_confirmation() {
        let err = ToolError::ApprovalDenied {
            tool: "rm".into(),
            reason: "no approver".into(),
        };
        assert_eq!(err.to_json()["error"]["requires_confirmation"], true);
    }

    #[test]
    fn full_message_joins_causes() {
        let io = std::io::Error::other("disk full");
        let err = ToolError::failed_with("could not save the file", io);
        assert_eq!(err.full_message(), "could not save the file: disk full");
    }

    #[test]
    fn retryable_statuses() {
        let status = |status| LlmError::Status {
            status,
            body: String::new(),
        };
        assert!(status(429).is_retryable());
        assert!(status(503).is_retryable());
        assert!(!status(400).is_retryable());
    }
}

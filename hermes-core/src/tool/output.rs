use serde::Serialize;
use serde_json::Value;

use crate::ToolError;

/// A tool's result: the text that becomes the tool message content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    content: String,
}

impl ToolOutput {
    /// A result serialized as JSON.
    ///
    /// # Errors
    ///
    /// [`ToolError::Failed`] if `value` cannot be serialized (a map with non-string
    /// keys, a failing `Serialize` impl).
    pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<Self, ToolError> {
        serde_json::to_string(value)
            .map(|content| Self { content })
            .map_err(|source| {
                ToolError::failed_with("the tool's result could not be serialized", source)
            })
    }

    /// A plain-text result, sent as is.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
        }
    }

    /// The content.
    pub fn content(&self) -> &str {
        &self.content
    }

    /// The content, owned.
    pub fn into_content(self) -> String {
        self.content
    }
}

impl From<Value> for ToolOutput {
    fn from(value: Value) -> Self {
        Self {
            content: value.to_string(),
        }
    }
}

/// What a typed tool may return: a [`ToolOutput`], or any `Serialize` value (sent as JSON).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's result",
    label = "return a type that implements `serde::Serialize`, or a `ToolOutput`",
    note = "derive `Serialize` for it, or build a `ToolOutput` with `ToolOutput::json` / `ToolOutput::text`"
)]
pub trait IntoToolOutput {
    /// Turn the value into the tool message content.
    ///
    /// # Errors
    ///
    /// [`ToolError::Failed`] if serialization fails.
    fn into_tool_output(self) -> Result<ToolOutput, ToolError>;
}

impl IntoToolOutput for ToolOutput {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        Ok(self)
    }
}

impl<T: Serialize> IntoToolOutput for T {
    fn into_tool_output(self) -> Result<ToolOutput, ToolError> {
        ToolOutput::json(&self)
    }
}

/// `content` cut to at most `max` bytes plus a one-line marker saying how much was cut,
/// keeping the first two thirds and the last third of the budget (the start says what
/// it is, the end how it ended), on char boundaries. The gateway cuts results this way;
/// tools that bound their own output (a command's stdout, a file's text) should too.
///
/// ```
/// let long = format!("{}{}", "a".repeat(1000), "z".repeat(1000));
/// let cut = hermes_core::tool::truncate_middle(long, 300);
/// assert!(cut.starts_with("aaaa") && cut.ends_with("zzzz"));
/// assert!(cut.contains("[... 1700 of 2000 bytes cut"));
/// ```
pub fn truncate_middle(content: String, max: usize) -> String {
    crate::dispatch::cap::cap(content, max)
}

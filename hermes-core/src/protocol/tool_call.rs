use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One tool call requested by the model: `{id, type: "function", function: {name, arguments}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The id the tool message must echo as `tool_call_id`.
    pub id: String,
    /// Always `"function"` today.
    #[serde(rename = "type", default)]
    pub kind: ToolCallKind,
    /// The function to call and its arguments.
    pub function: FunctionCall,
}

/// The `type` of a [`ToolCall`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ToolCallKind {
    /// A function call, the only kind OpenAI-compatible servers send for tools.
    #[default]
    Function,
}

/// The `function` member of a [`ToolCall`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The tool's name.
    pub name: String,
    /// The arguments as the model wrote them: a JSON document in a string, not yet parsed.
    pub arguments: String,
}

impl ToolCall {
    /// A function call with its arguments as a raw JSON string.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            kind: ToolCallKind::Function,
            function: FunctionCall {
                name: name.into(),
                arguments: arguments.into(),
            },
        }
    }

    /// A function call whose arguments are serialized from a JSON value.
    pub fn with_args(id: impl Into<String>, name: impl Into<String>, arguments: &Value) -> Self {
        Self::new(id, name, arguments.to_string())
    }

    /// The tool's name.
    pub fn name(&self) -> &str {
        &self.function.name
    }

    /// The raw argument string.
    pub fn arguments(&self) -> &str {
        &self.function.arguments
    }
}

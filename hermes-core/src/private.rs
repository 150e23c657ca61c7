//! Support for `#[tool]`'s generated code. Not a public API: it changes without notice.

use std::time::Duration;

use serde_json::{Map, Value};

pub use crate::linked::LinkedTool;
pub use crate::{
    ArgKind, IntoToolOutput, Scope, Tool, ToolContext, ToolError, ToolFuture, ToolOutput, ToolSpec,
    parse_args,
};
pub use inventory;
pub use schemars;
pub use serde;
pub use serde_json;
pub use std::sync::{Arc, LazyLock};

/// What `#[tool]` knows about one parameter, applied to the generated schema.
#[derive(Debug)]
pub struct ParamDoc {
    /// The parameter's name.
    pub name: &'static str,
    /// Keywords to set on its property, as JSON object text (made by the macro).
    pub keywords: &'static str,
    /// Whether it has a default (and so is not required).
    pub has_default: bool,
    /// What its value is for the permission engine (`path:write`, `command`, ...), or "".
    pub kind: &'static str,
}

/// A tool's spec, from the macro's checked parts: the name, timeout and size were
/// validated at compile time and the schema comes from `schemars` for a struct.
#[allow(clippy::too_many_arguments, reason = "one call site: generated code")]
pub fn spec(
    name: &str,
    description: &str,
    mut parameters: Value,
    params: &[ParamDoc],
    scope: Scope,
    timeout_ms: u64,
    tags: &[&str],
    permissions: &[&str],
    max_result_bytes: usize,
) -> ToolSpec {
    patch(&mut parameters, params);
    let arg_kinds = params
        .iter()
        .filter_map(|param| ArgKind::parse(param.kind).map(|kind| (param.name.to_owned(), kind)))
        .collect();
    ToolSpec::from_checked_parts(
        name.to_owned(),
        description.to_owned(),
        parameters,
        scope,
        Duration::from_millis(timeout_ms),
        tags.iter().map(|&tag| tag.to_owned()).collect(),
        permissions.iter().map(|&p| p.to_owned()).collect(),
        max_result_bytes,
        arg_kinds,
    )
}

/// Set each parameter's keywords on its property; drop defaulted ones from `required`.
fn patch(schema: &mut Value, params: &[ParamDoc]) {
    let Some(root) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Object(properties)) = root.get_mut("properties") {
        for param in params {
            let Some(Value::Object(property)) = properties.get_mut(param.name) else {
                continue;
            };
            if let Ok(Value::Object(keywords)) = serde_json::from_str::<Value>(param.keywords) {
                merge(property, keywords);
            }
        }
    }
    if let Some(Value::Array(required)) = root.get_mut("required") {
        required.retain(|name| {
            !params
                .iter()
                .any(|param| param.has_default && name.as_str() == Some(param.name))
        });
    }
}

fn merge(property: &mut Map<String, Value>, keywords: Map<String, Value>) {
    for (keyword, value) in keywords {
        property.insert(keyword, value);
    }
}

/// Turn a tool function's `Result` error into a [`ToolError`] by its `Display`.
pub fn display_error(error: impl std::fmt::Display) -> ToolError {
    ToolError::failed(error.to_string())
}

/// The result of a tool function that returns `()`: `{"ok": true}`.
pub fn unit_output() -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput::text(r#"{"ok":true}"#))
}

/// Run a synchronous tool function on tokio's blocking pool (`#[tool(blocking)]`).
pub async fn run_blocking<F>(tool: &str, function: F) -> Result<ToolOutput, ToolError>
where
    F: FnOnce() -> Result<ToolOutput, ToolError> + Send + 'static,
{
    match tokio::task::spawn_blocking(function).await {
        Ok(outcome) => outcome,
        Err(join) if join.is_panic() => {
            let payload = join.into_panic();
            let message = payload
                .downcast_ref::<&str>()
                .map(|text| (*text).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_owned());
            Err(ToolError::Panicked {
                tool: tool.to_owned(),
                message,
            })
        }
        Err(_cancelled) => Err(ToolError::failed("the blocking task was cancelled")),
    }
}

pub use crate::tool::schema_for;

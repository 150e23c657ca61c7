//! One `tools/call`: the exposure check, the hermes [`ToolCall`], and the
//! [`CallReport`] as a `CallToolResult`.

use hermes_core::{CallReport, RunContext, ToolCall, ToolError};
use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::Value;

use super::{McpServer, exposure};

impl McpServer {
    /// Run one MCP tool call through the gateway: `arguments` (none is `{}`) become
    /// the call's JSON string, `id` its `tool_call_id`, `run` its trace, session and
    /// cancellation.
    ///
    /// Never fails: a gateway failure, and a tool that does not exist or is not
    /// exposed, give a result with `isError: true` whose text and structured content
    /// are `{"error": {"kind", "message"}}` (kind `not_found` for the latter, listing
    /// close names among the exposed tools only).
    pub async fn call(
        &self,
        id: impl Into<String>,
        name: &str,
        arguments: Option<JsonObject>,
        run: &RunContext,
    ) -> CallToolResult {
        if let Err(error) = self.callable(name) {
            tracing::debug!(trace_id = run.trace_id(), tool = name, %error, "MCP call of a tool not exposed");
            return failure(&error.to_content());
        }
        let arguments =
            arguments.map_or_else(|| "{}".to_owned(), |args| Value::Object(args).to_string());
        let call = ToolCall::new(id, name, arguments);
        let report = self.dispatcher.dispatch(&call, run).await;
        into_result(report)
    }

    /// `Ok` if `name` is exactly the name of an exposed tool. The gateway would repair
    /// a near name (`CALC`), possibly into a tool this server hides: MCP clients send
    /// the listed names, so only those pass.
    fn callable(&self, name: &str) -> Result<(), ToolError> {
        let registry = self.dispatcher.registry();
        if registry
            .get(name)
            .is_some_and(|tool| self.exposes(tool.spec()))
        {
            return Ok(());
        }
        let available: Vec<String> = registry
            .list()
            .iter()
            .map(|tool| tool.spec())
            .filter(|spec| self.exposes(spec))
            .map(|spec| spec.name().to_owned())
            .collect();
        Err(ToolError::NotFound {
            name: name.to_owned(),
            close: exposure::close_names(name, &available),
            available,
        })
    }
}

/// A report as MCP's result: the content as text, and as `structuredContent` when it
/// is a JSON object; `isError` when the call failed.
fn into_result(report: CallReport) -> CallToolResult {
    let content = report.message.content;
    if report.error.is_some() {
        return failure(&content);
    }
    match serde_json::from_str::<Value>(&content) {
        Ok(value @ Value::Object(_)) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(content)]);
            result.structured_content = Some(value);
            result
        }
        _ => CallToolResult::success(vec![ContentBlock::text(content)]),
    }
}

/// A failed call: the error JSON as text, and as structured content.
fn failure(content: &str) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(content.to_owned())]);
    if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(content) {
        result.structured_content = Some(value);
    }
    result
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use hermes_core::demo::Calc;
    use hermes_core::{Dispatcher, Registry};
    use serde_json::json;

    use super::*;

    fn server() -> McpServer {
        let registry = Registry::new();
        registry.register(Calc::new()).unwrap();
        McpServer::new(Dispatcher::new(registry))
    }

    fn object(value: Value) -> Option<JsonObject> {
        value.as_object().cloned()
    }

    fn text(result: &CallToolResult) -> &str {
        &result.content[0].as_text().unwrap().text
    }

    #[tokio::test]
    async fn a_success_is_text_and_structured_content() {
        let result = server()
            .call(
                "1",
                "calc",
                object(json!({"expression": "2*3"})),
                &RunContext::new(),
            )
            .await;
        assert_eq!(result.is_error, Some(false));
        assert_eq!(text(&result), r#"{"expression":"2*3","result":6}"#);
        assert_eq!(
            result.structured_content,
            Some(json!({"expression": "2*3", "result": 6}))
        );
    }

    #[tokio::test]
    async fn a_gateway_failure_is_a_tool_error_with_the_error_json() {
        let result = server().call("1", "calc", None, &RunContext::new()).await;
        assert_eq!(result.is_error, Some(true));
        let error: Value = serde_json::from_str(text(&result)).unwrap();
        assert_eq!(error["error"]["kind"], "invalid_arguments");
        assert_eq!(result.structured_content, Some(error));
    }

    #[tokio::test]
    async fn a_hidden_tool_is_not_found_and_near_names_are_not_repaired() {
        let hidden = server().expose(|spec| spec.name() != "calc");
        let result = hidden
            .call(
                "1",
                "calc",
                object(json!({"expression": "1"})),
                &RunContext::new(),
            )
            .await;
        let error: Value = serde_json::from_str(text(&result)).unwrap();
        assert_eq!(error["error"]["kind"], "not_found");
        assert_eq!(error["error"]["close_names"], json!([]));
        // The hidden tool's name is not given away.
        assert!(
            error["error"]["message"]
                .as_str()
                .unwrap()
                .contains("no tools are registered")
        );

        let result = server()
            .call(
                "1",
                "CALC",
                object(json!({"expression": "1"})),
                &RunContext::new(),
            )
            .await;
        let error: Value = serde_json::from_str(text(&result)).unwrap();
        assert_eq!(error["error"]["kind"], "not_found");
        assert_eq!(error["error"]["close_names"], json!(["calc"]));
    }
}

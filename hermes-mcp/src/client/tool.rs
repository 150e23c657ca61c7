//! A server tool as a hermes [`Tool`]: its spec from the configuration, its calls
//! forwarded to the server's current connection.

use std::borrow::Cow;
use std::sync::{Arc, PoisonError, RwLock};

use hermes_core::{Scope, Tool, ToolContext, ToolError, ToolFuture, ToolOutput, ToolSpec};
use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::Peer;
use serde_json::Value;

use super::config::{DEFAULT_PERMISSION, DEFAULT_TIMEOUT, ServerConfig};

/// The longest description taken from a server; the rest is cut. A server's text is
/// untrusted and goes into every prompt.
const MAX_DESCRIPTION: usize = 1024;
/// The most of a result sent on to the gateway (which caps it further per tool).
const MAX_RESULT_BYTES: usize = 256 * 1024;
/// The tag every MCP tool carries: the gateway fences its output as outside content.
pub(crate) const MCP_TAG: &str = "mcp";

/// What every tool of one server shares: the live connection, or why there is none.
#[derive(Debug)]
pub(crate) struct Link {
    server: String,
    state: RwLock<LinkState>,
}

#[derive(Debug)]
enum LinkState {
    Up(Peer<RoleClient>),
    Down(String),
}

impl Link {
    pub(crate) fn new(server: &str) -> Self {
        Self {
            server: server.to_owned(),
            state: RwLock::new(LinkState::Down("not connected yet".into())),
        }
    }

    pub(crate) fn server(&self) -> &str {
        &self.server
    }

    pub(crate) fn up(&self, peer: Peer<RoleClient>) {
        *self.state.write().unwrap_or_else(PoisonError::into_inner) = LinkState::Up(peer);
    }

    pub(crate) fn down(&self, why: impl Into<String>) {
        *self.state.write().unwrap_or_else(PoisonError::into_inner) = LinkState::Down(why.into());
    }

    /// The connection, or why there is none.
    fn peer(&self) -> Result<Peer<RoleClient>, String> {
        match &*self.state.read().unwrap_or_else(PoisonError::into_inner) {
            LinkState::Up(peer) => Ok(peer.clone()),
            LinkState::Down(why) => Err(why.clone()),
        }
    }

    pub(crate) fn is_up(&self) -> bool {
        matches!(
            &*self.state.read().unwrap_or_else(PoisonError::into_inner),
            LinkState::Up(_)
        )
    }
}

/// One tool of an MCP server.
#[derive(Debug)]
pub(crate) struct McpTool {
    spec: ToolSpec,
    /// The server's name for it.
    remote: Cow<'static, str>,
    link: Arc<Link>,
}

impl McpTool {
    /// The hermes tool for the server's `tool`, named `name`, with the scope,
    /// permissions and timeout the configuration gives it.
    pub(crate) fn new(
        name: String,
        tool: &rmcp::model::Tool,
        config: &ServerConfig,
        link: Arc<Link>,
    ) -> Result<Self, hermes_core::Error> {
        let settings = config.tools.overrides.get(tool.name.as_ref());
        let scope = settings
            .and_then(|s| s.scope)
            .or(config.scope)
            .unwrap_or(Scope::Dangerous);
        let permissions = settings
            .and_then(|s| s.permissions.clone())
            .or_else(|| config.permissions.clone())
            .unwrap_or_else(|| vec![DEFAULT_PERMISSION.to_owned()]);
        let timeout = settings
            .and_then(|s| s.timeout)
            .or(config.timeout)
            .unwrap_or(DEFAULT_TIMEOUT);
        let spec = ToolSpec::builder(name, description(tool, link.server()))
            .parameters(Value::Object((*tool.input_schema).clone()))
            .scope(scope)
            .permissions(permissions)
            .tag(MCP_TAG)
            .tag(format!("source:mcp:{}", link.server()))
            .timeout(timeout)
            .max_result_bytes(MAX_RESULT_BYTES)
            .build()?;
        Ok(Self {
            spec,
            remote: tool.name.clone(),
            link,
        })
    }

    async fn call(&self, args: Value) -> Result<ToolOutput, ToolError> {
        let peer = self.link.peer().map_err(|why| ToolError::Unavailable {
            tool: self.spec.name().to_owned(),
            reason: format!(
                "MCP server `{}` is not connected: {why}",
                self.link.server()
            ),
        })?;
        let mut params = CallToolRequestParams::new(self.remote.clone());
        if let Value::Object(arguments) = args {
            params.arguments = Some(arguments);
        }
        // Dropping this future (timeout, cancellation) cancels the request on the server.
        let result = peer.call_tool(params).await.map_err(|error| {
            ToolError::failed(format!(
                "MCP server `{}` did not answer the call: {error}",
                self.link.server()
            ))
        })?;
        render(result)
    }
}

impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn run<'a>(&'a self, args: Value, _ctx: &'a ToolContext) -> ToolFuture<'a> {
        ToolFuture::new(self.call(args))
    }
}

/// The server's description, cut to a sane length, or a plain one when it gave none.
fn description(tool: &rmcp::model::Tool, server: &str) -> String {
    let text = tool
        .description
        .as_deref()
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_owned)
        .or_else(|| tool.title.clone())
        .unwrap_or_else(|| format!("The `{}` tool of the MCP server `{server}`.", tool.name));
    if text.len() <= MAX_DESCRIPTION {
        return text;
    }
    let mut end = MAX_DESCRIPTION;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

/// A call's result as one string: the structured content when there is one, else the
/// content blocks, text as is and the rest described. An error result is a failure.
fn render(result: CallToolResult) -> Result<ToolOutput, ToolError> {
    let text = match (&result.structured_content, result.is_error) {
        (Some(structured), Some(false) | None) => structured.to_string(),
        _ => blocks(&result),
    };
    if result.is_error == Some(true) {
        let message = if text.is_empty() {
            "the MCP tool reported an error without a message".to_owned()
        } else {
            text
        };
        return Err(ToolError::failed(message));
    }
    Ok(ToolOutput::text(text))
}

fn blocks(result: &CallToolResult) -> String {
    let parts: Vec<String> = result
        .content
        .iter()
        .filter_map(|block| serde_json::to_value(block).ok())
        .map(|block| describe(&block))
        .collect();
    parts.join("\n")
}

/// One content block in words: text as is, media and resources by what they are.
fn describe(block: &Value) -> String {
    let field = |name: &str| block.get(name).and_then(Value::as_str).unwrap_or_default();
    match field("type") {
        "text" => field("text").to_owned(),
        kind @ ("image" | "audio") => format!(
            "[{kind} {}, {} bytes of base64]",
            field("mimeType"),
            field("data").len()
        ),
        "resource" => {
            let resource = &block["resource"];
            match resource.get("text").and_then(Value::as_str) {
                Some(text) => text.to_owned(),
                None => format!(
                    "[resource {}]",
                    resource
                        .get("uri")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                ),
            }
        }
        "resource_link" => format!("[resource link {}]", field("uri")),
        other => format!("[{other} content]"),
    }
}

/// `prefix` + the server's tool name with every character a tool name cannot hold
/// replaced by `_`; names longer than 64 keep their start and end in a hash.
pub(crate) fn hermes_name(prefix: &str, tool: &str) -> Option<String> {
    let mut name: String = prefix.to_owned();
    name.extend(tool.chars().map(|c| {
        if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            c
        } else {
            '_'
        }
    }));
    if name.len() > 64 {
        // FNV-1a: stable across runs and Rust releases, unlike std's hasher.
        let hash = tool.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        name.truncate(55);
        name.push_str(&format!("_{:08x}", hash & 0xffff_ffff));
    }
    hermes_core::tool::is_valid_tool_name(&name).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_made_valid_and_stay_stable() {
        assert_eq!(
            hermes_name("mcp_fs_", "read_file").as_deref(),
            Some("mcp_fs_read_file")
        );
        assert_eq!(
            hermes_name("mcp_e_", "get-annotated.message/v2").as_deref(),
            Some("mcp_e_get-annotated_message_v2")
        );
        let long = "x".repeat(80);
        let a = hermes_name("mcp_s_", &long).unwrap();
        assert_eq!(a.len(), 64);
        assert_eq!(a, hermes_name("mcp_s_", &long).unwrap());
        assert_ne!(a, hermes_name("mcp_s_", &format!("{long}y")).unwrap());
        assert_eq!(hermes_name("", ""), None);
    }

    #[test]
    fn results_become_text_and_errors_failures() {
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "mimeType": "image/png", "data": "AAAA"},
                {"type": "resource", "resource": {"uri": "file:///a", "text": "inside"}},
                {"type": "resource_link", "uri": "file:///b", "name": "b"}
            ]
        }))
        .unwrap();
        assert_eq!(
            render(result).unwrap().into_content(),
            "hello\n[image image/png, 4 bytes of base64]\ninside\n[resource link file:///b]"
        );
        let structured: CallToolResult = serde_json::from_value(json!({
            "content": [{"type": "text", "text": "{\"sum\": 3}"}],
            "structuredContent": {"sum": 3}
        }))
        .unwrap();
        assert_eq!(render(structured).unwrap().into_content(), r#"{"sum":3}"#);
        let failed: CallToolResult = serde_json::from_value(json!({
            "content": [{"type": "text", "text": "no such file"}],
            "isError": true
        }))
        .unwrap();
        let error = render(failed).unwrap_err();
        assert!(error.to_string().contains("no such file"), "{error}");
    }
}

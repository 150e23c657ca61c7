//! The reference server `@modelcontextprotocol/server-everything`, over stdio.

use hermes_core::{DefaultPolicy, Registry, Scope};
use hermes_mcp::client::{McpClient, ServerConfig, ToolOverride};
use serde_json::json;

use super::common::{call, fenced, gateway, gateway_with, kind, peer};

fn config(command: String) -> ServerConfig {
    ServerConfig::stdio(command)
        .args(["stdio"])
        .exclude([
            "gzip-file-as-resource",
            "trigger-*",
            "toggle-*",
            "simulate-*",
        ])
        .tool("echo", ToolOverride::default().scope(Scope::Read))
        .tool("get-sum", ToolOverride::default().scope(Scope::Read))
}

#[tokio::test]
async fn its_tools_are_registered_and_called_through_the_gateway() {
    let Some(command) = peer("HERMES_MCP_EVERYTHING") else {
        return;
    };
    let registry = Registry::new();
    let client = McpClient::connect("everything", config(command), &registry)
        .await
        .unwrap();
    assert!(client.is_connected());
    let tools = client.tools();
    for name in [
        "mcp_everything_echo",
        "mcp_everything_get-sum",
        "mcp_everything_get-env",
    ] {
        assert!(
            tools.contains(&name.to_owned()),
            "{name} missing from {tools:?}"
        );
    }
    assert!(
        !tools.iter().any(|name| name.contains("toggle")),
        "{tools:?}"
    );
    assert_eq!(
        registry.source_of("mcp_everything_echo").as_deref(),
        Some("mcp:everything")
    );
    let spec = registry.get("mcp_everything_echo").unwrap().spec().clone();
    assert_eq!(spec.scope(), Scope::Read);
    assert_eq!(spec.permissions(), ["mcp:call"]);
    assert!(spec.tags().contains(&"mcp".to_owned()));

    let gateway = gateway(&registry);
    let report = call(
        &gateway,
        "mcp_everything_echo",
        json!({"message": "hello, hermes"}),
    )
    .await;
    assert_eq!(kind(&report), "ok", "{}", report.message.content);
    assert!(
        fenced(&report).contains("hello, hermes"),
        "{}",
        report.message.content
    );

    let report = call(&gateway, "mcp_everything_get-sum", json!({"a": 2, "b": 40})).await;
    assert!(fenced(&report).contains("42"), "{}", report.message.content);

    // The server's schema is checked here, before anything is sent.
    let report = call(&gateway, "mcp_everything_echo", json!({"mesage": "typo"})).await;
    assert_eq!(
        kind(&report),
        "invalid_arguments",
        "{}",
        report.message.content
    );
    client.shutdown().await;
    assert!(!registry.contains("mcp_everything_echo"));
}

#[tokio::test]
async fn an_unconfigured_tool_is_dangerous_and_needs_approval() {
    let Some(command) = peer("HERMES_MCP_EVERYTHING") else {
        return;
    };
    let registry = Registry::new();
    let _client = McpClient::connect("everything", config(command), &registry)
        .await
        .unwrap();
    let spec = registry
        .get("mcp_everything_get-env")
        .unwrap()
        .spec()
        .clone();
    assert_eq!(spec.scope(), Scope::Dangerous);
    // No approver: refused, and the server never asked.
    let refusing = gateway_with(&registry, DefaultPolicy);
    let report = call(&refusing, "mcp_everything_get-env", json!({})).await;
    assert_eq!(
        kind(&report),
        "approval_denied",
        "{}",
        report.message.content
    );
    // Approved: it runs.
    let report = call(&gateway(&registry), "mcp_everything_get-env", json!({})).await;
    assert_eq!(kind(&report), "ok", "{}", report.message.content);
}

//! A server written with the official Python SDK: results and errors, a changing tool
//! list, a crash and the restart, streamable HTTP with headers.

use std::net::TcpListener;
use std::time::Duration;

use hermes_core::{AgentEvent, EventSink, Registry, Scope};
use hermes_mcp::client::{McpClient, McpClients, McpConfig, ServerConfig};
use serde_json::json;

use super::common::{TOY_SERVER, call, event, fenced, gateway, kind, peer};

fn stdio(python: String) -> ServerConfig {
    ServerConfig::stdio(python)
        .args([TOY_SERVER])
        .scope(Scope::Read)
}

#[tokio::test]
async fn results_errors_and_a_changed_tool_list() {
    let Some(python) = peer("HERMES_MCP_PYTHON") else {
        return;
    };
    let registry = Registry::new();
    let events = EventSink::new();
    let client = McpClient::builder("toy", stdio(python), &registry)
        .events(events.clone())
        .connect()
        .await
        .unwrap();
    assert!(!registry.contains("mcp_toy_shout"));
    let gateway = gateway(&registry);

    let sum = call(&gateway, "mcp_toy_add", json!({"a": 2, "b": 3})).await;
    assert_eq!(fenced(&sum), r#"{"result":5}"#, "{}", sum.message.content);
    // A string the schema reads as an integer is coerced by the gateway first.
    let coerced = call(&gateway, "mcp_toy_add", json!({"a": "2", "b": 3})).await;
    assert_eq!(kind(&coerced), "ok", "{}", coerced.message.content);

    let failed = call(&gateway, "mcp_toy_fail", json!({})).await;
    assert_eq!(kind(&failed), "failed");
    assert!(
        failed.message.content.contains("always fails"),
        "{}",
        failed.message.content
    );

    let grown = call(&gateway, "mcp_toy_grow", json!({})).await;
    assert_eq!(kind(&grown), "ok", "{}", grown.message.content);
    let reloaded = event(&events, |event| {
        matches!(event, AgentEvent::ToolsReloaded { added, .. } if added.contains(&"mcp_toy_shout".to_owned()))
    })
    .await;
    assert!(matches!(reloaded, AgentEvent::ToolsReloaded { source, .. } if source == "mcp:toy"));
    let shouted = call(&gateway, "mcp_toy_shout", json!({"text": "hi"})).await;
    assert_eq!(
        fenced(&shouted),
        r#"{"result":"HI"}"#,
        "{}",
        shouted.message.content
    );
    client.shutdown().await;
}

#[tokio::test]
async fn a_crashed_server_is_reported_its_tools_answer_unavailable_and_it_comes_back() {
    let Some(python) = peer("HERMES_MCP_PYTHON") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // While this file exists, the server refuses to start: the outage lasts until the
    // test removes it, so what the tools answer meanwhile is not a race.
    let block = dir.path().join("down");
    let config = stdio(python).env("TOY_BLOCK_FILE", block.to_str().unwrap());
    let registry = Registry::new();
    let events = EventSink::new();
    let client = McpClient::builder("toy", config, &registry)
        .events(events.clone())
        .connect()
        .await
        .unwrap();
    let gateway = gateway(&registry);

    std::fs::write(&block, "down").unwrap();
    let crashed = call(&gateway, "mcp_toy_crash", json!({})).await;
    assert_eq!(kind(&crashed), "failed", "{}", crashed.message.content);
    event(&events, |event| {
        matches!(event, AgentEvent::ToolsReloadFailed { error, .. } if error.contains("went away"))
    })
    .await;
    assert!(!client.is_connected());
    let meanwhile = call(&gateway, "mcp_toy_add", json!({"a": 1, "b": 1})).await;
    assert_eq!(
        kind(&meanwhile),
        "unavailable",
        "{}",
        meanwhile.message.content
    );
    assert!(
        meanwhile
            .message
            .content
            .contains("MCP server `toy` is not connected"),
        "{}",
        meanwhile.message.content
    );

    std::fs::remove_file(&block).unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let report = call(&gateway, "mcp_toy_add", json!({"a": 20, "b": 22})).await;
        if kind(&report) == "ok" {
            assert_eq!(fenced(&report), r#"{"result":42}"#);
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never came back: {}",
            report.message.content
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(client.is_connected());
}

#[tokio::test]
async fn streamable_http_with_headers_from_the_environment() {
    let Some(python) = peer("HERMES_MCP_PYTHON") else {
        return;
    };
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _server = KillOnDrop(
        std::process::Command::new(python)
            .args([TOY_SERVER, "http", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the HTTP server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let yaml = format!(
        "mcp_servers:\n  toy:\n    url: http://127.0.0.1:{port}/mcp\n    headers: {{X-Hermes-Test: \"${{PATH}}\"}}\n    scope: read\n"
    );
    let config = McpConfig::from_yaml(&yaml).unwrap();
    let registry = Registry::new();
    let clients = McpClients::start(&config, &registry, &EventSink::new())
        .await
        .unwrap();
    let gateway = gateway(&registry);
    let sum = call(&gateway, "mcp_toy_add", json!({"a": 40, "b": 2})).await;
    assert_eq!(fenced(&sum), r#"{"result":42}"#, "{}", sum.message.content);
    let who = call(&gateway, "mcp_toy_whoami", json!({})).await;
    let expected = serde_json::json!({"result": std::env::var("PATH").unwrap()}).to_string();
    assert_eq!(fenced(&who), expected, "{}", who.message.content);
    clients.shutdown().await;
    assert!(!registry.contains("mcp_toy_add"));
}

/// A child process killed when the test ends, passed or not.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn a_server_that_cannot_start_is_a_clear_error() {
    let registry = Registry::new();
    let error = McpClient::connect(
        "ghost",
        ServerConfig::stdio("/nonexistent/mcp-server"),
        &registry,
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("MCP server `ghost`") && error.contains("/nonexistent/mcp-server"),
        "{error}"
    );
    let Some(python) = peer("HERMES_MCP_PYTHON") else {
        return;
    };
    // A program that is not an MCP server: the handshake fails, named.
    let error = McpClient::connect(
        "silent",
        ServerConfig::stdio(python).args(["-c", "print('hello')"]),
        &registry,
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("MCP server `silent`: cannot connect"),
        "{error}"
    );
    assert!(registry.names().is_empty());
}

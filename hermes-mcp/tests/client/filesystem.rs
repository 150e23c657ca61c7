//! The reference server `@modelcontextprotocol/server-filesystem`, over stdio, confined
//! to a temporary directory; and the permission engine judging its tools.

use hermes_core::{Registry, Scope};
use hermes_mcp::client::{McpClient, ServerConfig};
use hermes_permissions::{PermissionEngine, Profile};
use serde_json::json;

use super::common::{call, fenced, gateway, gateway_with, kind, peer};

fn config(command: String, root: &std::path::Path) -> ServerConfig {
    ServerConfig::stdio(command)
        .args([root.to_str().unwrap()])
        .prefix("fs_")
        .scope(Scope::Read)
        .permissions(["file:read"])
        .include(["read_text_file", "list_directory", "search_files"])
}

#[tokio::test]
async fn only_the_included_tools_come_and_they_read_the_directory() {
    let Some(command) = peer("HERMES_MCP_FILESYSTEM") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.md"), "remember the milk\n").unwrap();
    let registry = Registry::new();
    let client = McpClient::connect("fs", config(command, &root), &registry)
        .await
        .unwrap();
    assert_eq!(
        client.tools(),
        ["fs_list_directory", "fs_read_text_file", "fs_search_files"]
    );

    let gateway = gateway(&registry);
    let listing = call(&gateway, "fs_list_directory", json!({"path": root})).await;
    assert!(
        fenced(&listing).contains("notes.md"),
        "{}",
        listing.message.content
    );
    let read = call(
        &gateway,
        "fs_read_text_file",
        json!({"path": root.join("notes.md")}),
    )
    .await;
    assert!(
        fenced(&read).contains("remember the milk"),
        "{}",
        read.message.content
    );

    // The server refuses paths outside its root; the refusal comes back as a failure.
    let outside = call(
        &gateway,
        "fs_read_text_file",
        json!({"path": "/etc/hostname"}),
    )
    .await;
    assert_eq!(kind(&outside), "failed", "{}", outside.message.content);
    assert!(
        outside.message.content.contains("denied") || outside.message.content.contains("outside"),
        "{}",
        outside.message.content
    );
}

#[tokio::test]
async fn the_permission_engine_judges_the_configured_permissions() {
    let Some(command) = peer("HERMES_MCP_FILESYSTEM") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let registry = Registry::new();
    let _client = McpClient::connect("fs", config(command, &root), &registry)
        .await
        .unwrap();
    let readonly = Profile::builder("readonly")
        .allow("file:read")
        .build()
        .unwrap();
    let report = call(
        &gateway_with(&registry, PermissionEngine::new(readonly)),
        "fs_list_directory",
        json!({"path": root}),
    )
    .await;
    assert_eq!(kind(&report), "ok", "{}", report.message.content);
    let nothing = Profile::builder("nothing")
        .allow("network:fetch")
        .build()
        .unwrap();
    let report = call(
        &gateway_with(&registry, PermissionEngine::new(nothing)),
        "fs_list_directory",
        json!({"path": root}),
    )
    .await;
    assert_eq!(kind(&report), "denied", "{}", report.message.content);
}

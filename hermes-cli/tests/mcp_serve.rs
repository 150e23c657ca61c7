//! `hermes mcp serve`, driven by the official Python SDK's client (PyPI `mcp`, set up by
//! `eval "$(scripts/mcp-peers)"`) over stdio and over streamable HTTP.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    missing_docs
)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

mod common;

use common::mcp_python;

const HERMES: &str = env!("CARGO_BIN_EXE_hermes");
const CLIENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../hermes-mcp/tests/python/mcp_client.py"
);

/// A profile that reads files under one directory only, denies writing, grants no
/// network, and allows `docker:run` by name (so the dangerous `docker_run` is exposed).
fn profiles(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("profiles.yaml");
    let allowed = dir.join("readable").display().to_string();
    std::fs::write(
        &path,
        format!(
            "profiles:\n  mcp_test:\n    allow: [file:read, docker:run]\n    deny: [file:write]\n    restrictions:\n      file:read:\n        allowed_paths: [\"{allowed}/**\"]\n"
        ),
    )
    .unwrap();
    path
}

/// Run the Python client with `spec` on stdin; its JSON report.
fn client(python: &str, spec: &Value) -> Value {
    let mut child = Command::new(python)
        .arg(CLIENT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(spec.to_string().as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python client failed:\n{stderr}"
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "{error}: {}\n{stderr}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// The client's spec for `hermes mcp serve ARGS` over stdio, HERMES_HOME in `home`.
fn stdio(home: &Path, args: &[&str], ops: Value) -> Value {
    let mut argv = vec!["mcp", "serve"];
    argv.extend_from_slice(args);
    json!({
        "transport": "stdio",
        "command": HERMES,
        "args": argv,
        "env": {"HERMES_HOME": home},
        "ops": ops,
    })
}

fn names(listed: &Value) -> Vec<&str> {
    listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect()
}

/// The `{"error": ..}` of a failed call result, as text and as structured content.
fn error_of(result: &Value) -> &Value {
    assert_eq!(result["isError"], true, "{result}");
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, result["structuredContent"]);
    &result["structuredContent"]["error"]
}

#[test]
fn stdio_without_a_profile_serves_all_but_dangerous_tools_and_program_runners() {
    let Some(python) = mcp_python() else { return };
    let home = tempfile::tempdir().unwrap();
    let report = client(
        &python,
        &stdio(
            home.path(),
            &[],
            json!([
                {"op": "list"},
                {"op": "call", "name": "calculator", "arguments": {"expression": "6*7"}},
                {"op": "call", "name": "calculator", "arguments": {"expression": 6}},
                {"op": "call", "name": "docker_run", "arguments": {"image": "alpine"}},
            ]),
        ),
    );
    assert_eq!(report["server"]["name"], "hermes");
    let results = report["results"].as_array().unwrap();
    let listed = names(&results[0]);
    for present in ["calculator", "file_read", "file_write"] {
        assert!(listed.contains(&present), "{present} missing: {listed:?}");
    }
    for absent in ["docker_run", "terminal", "code_execute", "process_start"] {
        assert!(
            !listed.contains(&absent),
            "{absent} should be hidden: {listed:?}"
        );
    }
    let calculator = results[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "calculator")
        .unwrap();
    assert_eq!(calculator["inputSchema"]["required"], json!(["expression"]));
    assert_eq!(calculator["annotations"]["readOnlyHint"], true);

    assert_eq!(results[1]["isError"], false, "{}", results[1]);
    assert_eq!(
        results[1]["structuredContent"],
        json!({"expression": "6*7", "result": 42})
    );
    assert_eq!(error_of(&results[2])["kind"], "invalid_arguments");
    assert_eq!(error_of(&results[3])["kind"], "not_found");
}

#[test]
fn stdio_with_a_profile_serves_what_it_grants_and_refuses_what_it_denies() {
    let Some(python) = mcp_python() else { return };
    let home = tempfile::tempdir().unwrap();
    let profiles = profiles(home.path());
    let report = client(
        &python,
        &stdio(
            home.path(),
            &[
                "--profiles",
                profiles.to_str().unwrap(),
                "--profile",
                "mcp_test",
            ],
            json!([
                {"op": "list"},
                {"op": "call", "name": "file_read", "arguments": {"path": "/etc/hostname"}},
                {"op": "call", "name": "docker_run", "arguments": {"image": "alpine:3.20"}},
                {"op": "call", "name": "file_write", "arguments": {"path": "x", "content": "y"}},
                {"op": "call", "name": "calculator", "arguments": {"expression": "2**10"}},
            ]),
        ),
    );
    let results = report["results"].as_array().unwrap();
    let listed = names(&results[0]);
    for present in ["calculator", "file_read", "docker_run"] {
        assert!(listed.contains(&present), "{present} missing: {listed:?}");
    }
    // Denied (file:write) or not granted (network:fetch, terminal:execute): hidden.
    for absent in ["file_write", "web_fetch", "terminal"] {
        assert!(!listed.contains(&absent), "{absent} listed: {listed:?}");
    }

    let denied = error_of(&results[1]);
    assert_eq!(denied["kind"], "denied", "{denied}");
    // Explicitly allowed, but dangerous: nobody can approve over MCP without --yes.
    let refused = error_of(&results[2]);
    assert_eq!(refused["kind"], "approval_denied", "{refused}");
    assert_eq!(error_of(&results[3])["kind"], "not_found");
    assert_eq!(results[4]["structuredContent"]["result"], 1024);
}

/// `hermes mcp serve --http 0`, killed on drop.
struct HttpServer {
    child: Child,
    url: String,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_http(home: &Path) -> HttpServer {
    let mut child = Command::new(HERMES)
        .args(["mcp", "serve", "--http", "0"])
        .env("HERMES_HOME", home)
        .env_remove("HERMES_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut lines = BufReader::new(stderr).lines();
    let url = loop {
        let Some(line) = lines.next() else {
            let _ = child.kill();
            panic!("hermes mcp serve --http 0 ended without saying where it listens");
        };
        let line = line.unwrap();
        if let Some(url) = line.strip_prefix("listening on ") {
            break url.to_owned();
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    HttpServer { child, url }
}

#[test]
fn http_on_port_0_says_where_it_listens_and_serves_the_tools() {
    let Some(python) = mcp_python() else { return };
    let home = tempfile::tempdir().unwrap();
    let mut server = serve_http(home.path());
    assert!(
        server.url.starts_with("http://127.0.0.1:") && server.url.ends_with("/mcp"),
        "{}",
        server.url
    );
    let report = client(
        &python,
        &json!({
            "transport": "http",
            "url": server.url,
            "ops": [
                {"op": "list"},
                {"op": "call", "name": "calculator", "arguments": {"expression": "1+1"}},
                {"op": "call", "name": "calculator", "arguments": {}},
            ],
        }),
    );
    let results = report["results"].as_array().unwrap();
    let listed = names(&results[0]);
    assert!(listed.contains(&"calculator"), "{listed:?}");
    assert!(!listed.contains(&"docker_run"), "{listed:?}");
    assert_eq!(results[1]["structuredContent"]["result"], 2);
    assert_eq!(error_of(&results[2])["kind"], "invalid_arguments");

    // Still serving after the client left; stdout stayed empty (the protocol is HTTP).
    assert!(server.child.try_wait().unwrap().is_none());
    server.child.kill().unwrap();
    let mut stdout = String::new();
    std::io::Read::read_to_string(server.child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    assert_eq!(stdout, "");
}

#[test]
fn stdio_stdout_carries_only_json_rpc() {
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(HERMES)
        .args(["mcp", "serve"])
        .env("HERMES_HOME", home.path())
        .env("HERMES_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let logs = std::thread::spawn(move || {
        let mut logs = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut logs).unwrap();
        logs
    });
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    });
    writeln!(stdin, "{initialize}").unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["result"]["serverInfo"]["name"], "hermes");

    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "calculator", "arguments": {"expression": "3*3"}}})
    )
    .unwrap();
    line.clear();
    stdout.read_line(&mut line).unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(answer["result"]["structuredContent"]["result"], 9);

    // Closing stdin ends the server, cleanly; nothing else was printed to stdout.
    drop(stdin);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    for extra in rest.lines() {
        let message: Value = serde_json::from_str(extra)
            .unwrap_or_else(|error| panic!("not JSON-RPC on stdout ({error}): {extra}"));
        assert_eq!(message["jsonrpc"], "2.0");
    }
    // The debug logs went to stderr.
    assert!(!logs.join().unwrap().is_empty());
}

//! The built-in tools (hermes-tools) through the gateway, in a scratch workspace.
//!
//! Shows: files written, edited, searched, outlined and archived; a shell command; the
//! calculator, a jq query and a diff; and what the tools refuse: a path outside the
//! workspace, a catastrophic command, a zip-slip archive name.
//! Needs: nothing beyond `sh`: `cargo run --example builtin_tools`.
//! Prints: each call and the start of its result.
#![allow(clippy::print_stdout, reason = "an example prints its results")]

use hermes::tools::{ToolsConfig, builtin};
use hermes::{ApproveAll, Dispatcher, RunContext, ToolCall};
use serde_json::{Value, json};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let workspace = std::env::temp_dir().join(format!("hermes-example-{}", std::process::id()));
    std::fs::create_dir_all(&workspace)?;
    let registry = builtin(ToolsConfig::builder().workspace_root(&workspace).build())?;
    println!(
        "{} tools, workspace {}",
        registry.len(),
        workspace.display()
    );
    // An approver that says yes: this example runs only harmless commands, and the
    // catastrophic one is refused before any approver is asked.
    let dispatcher = Dispatcher::builder(registry).approver(ApproveAll).build()?;
    let run = RunContext::new().with_session("example");

    let calls: [(&str, Value); 13] = [
        (
            "file_write",
            json!({"path": "src/app.py", "create_dirs": true,
                   "content": "def greet(name):\n    return 'hi ' + name\n\nclass Shop:\n    def buy(self):\n        pass\n"}),
        ),
        (
            "file_edit",
            json!({"path": "src/app.py", "old_text": "'hi '", "new_text": "'hello '"}),
        ),
        (
            "file_read",
            json!({"path": "src/app.py", "start_line": 1, "end_line": 2}),
        ),
        ("file_search", json!({"path": ".", "regex": "hello"})),
        ("code_analyze", json!({"path": "src/app.py"})),
        ("terminal", json!({"command": "ls -R && python3 --version"})),
        (
            "calculator",
            json!({"expression": "2 ** 10 % 1000 + sqrt(16)"}),
        ),
        (
            "json_query",
            json!({"filter": "[.items[] | select(.price > 2) | .name]",
                   "input": {"items": [{"name": "tea", "price": 3}, {"name": "gum", "price": 1}]}}),
        ),
        (
            "text_diff",
            json!({"old": "a\nb\nc\n", "new": "a\nB\nc\nd\n"}),
        ),
        (
            "archive",
            json!({"action": "create", "archive": "src.zip", "sources": ["src"]}),
        ),
        // Refused: outside the workspace.
        ("file_read", json!({"path": "../../etc/passwd"})),
        // Refused before it runs, whatever the approver says.
        ("terminal", json!({"command": "rm -rf /"})),
        // Refused: an archive path that climbs out.
        (
            "archive",
            json!({"action": "extract", "archive": "src.zip", "destination": "../elsewhere"}),
        ),
    ];
    for (i, (tool, args)) in calls.into_iter().enumerate() {
        let call = ToolCall::with_args(format!("call_{i}"), tool, &args);
        let report = dispatcher.dispatch(&call, &run).await;
        let verdict = if report.is_success() { "ok" } else { "refused" };
        println!(
            "\n{tool} {args}\n  {verdict}: {}",
            preview(&report.message.content)
        );
    }
    std::fs::remove_dir_all(&workspace)?;
    Ok(())
}

/// The first 300 characters of a result, on one line.
fn preview(content: &str) -> String {
    let flat = content.replace('\n', "\\n");
    match flat.char_indices().nth(300) {
        Some((at, _)) => format!("{}...", &flat[..at]),
        None => flat,
    }
}

//! Tools from a YAML file, hot reloaded: the seed's Jira example against a stand-in
//! Jira on 127.0.0.1.
//!
//! Shows: `examples/tools/custom_tools.yaml` loaded and registered; a call whose
//! `summary` holds quotes and a newline, and the exact JSON body the server got; an edit
//! to the file swapped in while the program runs (`tools_reloaded`); a broken edit
//! refused with its line and column while the previous tools keep serving
//! (`tools_reload_failed`).
//! Needs: nothing; set JIRA_USERNAME and JIRA_API_TOKEN to any values to see the call
//! succeed (without them the tool says which variable is missing):
//! `JIRA_USERNAME=demo JIRA_API_TOKEN=demo cargo run --example yaml_tools`.
//! Prints: each step and its result.
#![allow(clippy::print_stdout, reason = "an example prints its results")]

use std::time::Duration;

use hermes::tools::yaml::{ToolFile, Watcher};
use hermes::{AgentEvent, ApproveAll, Dispatcher, EventSink, Registry, RunContext, ToolCall};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let jira = stand_in_jira().await?;
    let dir = std::env::temp_dir().join(format!("hermes-yaml-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("custom_tools.yaml");
    let original = include_str!("tools/custom_tools.yaml")
        .replace("https://your-company.atlassian.net", &jira);
    std::fs::write(&path, &original)?;

    let registry = Registry::new();
    let events = EventSink::new();
    let _watcher = Watcher::builder(registry.clone())
        .events(events.clone())
        .debounce(Duration::from_millis(100))
        .start([&path])?;
    println!("registered from {}: {:?}", path.display(), registry.names());

    let dispatcher = Dispatcher::builder(registry.clone())
        .approver(ApproveAll)
        .build()?;
    let args = json!({
        "project_key": "DEMO",
        "summary": "Login fails with \"invalid token\"\nafter the upgrade",
        "issue_type": "Bug",
    });
    let call = ToolCall::with_args("call_1", "jira_create_issue", &args);
    let report = dispatcher.dispatch(&call, &RunContext::new()).await;
    println!("\njira_create_issue -> {}", report.message.content);

    // Edit the file: a new description for one tool.
    let edited = original.replace(
        "Create an issue in a Jira project.",
        "Open a Jira issue (edited while running).",
    );
    std::fs::write(&path, edited)?;
    println!("\n{}", next_event(&events, 0).await);
    println!(
        "the description now: {}",
        registry
            .get("jira_create_issue")
            .map(|tool| tool.spec().description().to_owned())
            .unwrap_or_default()
    );

    // Break it: an unknown placeholder. The previous version keeps serving.
    std::fs::write(&path, original.replace("{{summary}}", "{{sumary}}"))?;
    println!("\n{}", next_event(&events, 1).await);
    println!("still registered: {:?}", registry.names());

    // The same check, without a registry: what `hermes tool register` prints.
    if let Err(error) = ToolFile::load(&path) {
        println!("\nToolFile::load says:\n{error}");
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// The first event after the first `seen` ones.
async fn next_event(events: &EventSink, seen: usize) -> AgentEvent {
    loop {
        if let Some(event) = events.events().get(seen) {
            return event.clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A server that answers every request like Jira's "create issue", and prints the body
/// it got. Returns its base URL.
async fn stand_in_jira() -> std::io::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut request = Vec::new();
            let mut buffer = [0; 4096];
            // Read the head, then as much body as Content-Length says.
            while let Ok(read) = stream.read(&mut buffer).await {
                if read == 0 {
                    break;
                }
                request.extend_from_slice(&buffer[..read]);
                let text = String::from_utf8_lossy(&request);
                if let Some(head_end) = text.find("\r\n\r\n") {
                    let length = text[..head_end]
                        .lines()
                        .find_map(|line| {
                            let (name, value) = line.split_once(':')?;
                            name.eq_ignore_ascii_case("content-length")
                                .then(|| value.trim().parse::<usize>().ok())?
                        })
                        .unwrap_or(0);
                    if request.len() >= head_end + 4 + length {
                        println!(
                            "  (stand-in Jira got: {})",
                            String::from_utf8_lossy(&request[head_end + 4..])
                        );
                        break;
                    }
                }
            }
            let body = r#"{"id":"10001","key":"DEMO-1","self":"http://jira.local/rest/api/2/issue/10001"}"#;
            let response = format!(
                "HTTP/1.1 201 Created\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(response.as_bytes()).await;
        }
    });
    Ok(base)
}

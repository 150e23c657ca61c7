//! Hot reload: a changed file is swapped in as one; calls in flight finish on the
//! version they started with; a broken edit keeps the old set serving.

use std::time::Duration;

use futures_util::future::join_all;
use hermes_core::{AgentEvent, EventSink, Registry};
use hermes_tools::yaml::Watcher;
use serde_json::json;

use super::server::{Server, call, err, gateway, ok, write};

fn version(server: &Server, version: u32, extra_tool: bool) -> String {
    let mut text = format!(
        "tools:\n  - name: gated\n    description: Answers when the test opens the gate (version {version}).\n    type: http_wrapper\n    endpoint: '{}/gate/v{version}'\n",
        server.url("")
    );
    if extra_tool {
        text.push_str(&format!(
            "  - name: extra\n    description: A second tool, present in version 1 only.\n    type: http_wrapper\n    endpoint: '{}/text'\n",
            server.url("")
        ));
    }
    text
}

/// Wait for the next reload event after the first `seen` events.
async fn next_event(events: &EventSink, seen: usize) -> AgentEvent {
    for _ in 0..400 {
        if let Some(event) = events.events().get(seen) {
            return event.clone();
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!(
        "no reload event after 10 s; events so far: {:#?}",
        events.events()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_during_fifty_calls_loses_none() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "tools.yaml", &version(&server, 1, true));
    let registry = Registry::new();
    let events = EventSink::new();
    let _watcher = Watcher::builder(registry.clone())
        .events(events.clone())
        .debounce(Duration::from_millis(50))
        .start([&path])
        .unwrap();
    assert_eq!(registry.names(), ["extra", "gated"]);
    let dispatcher = gateway(registry.clone());

    // Fifty calls on version 1, all waiting at the server.
    let in_flight = join_all((0..50).map(|i| {
        let dispatcher = dispatcher.clone();
        async move { call(&dispatcher, &format!("old{i}"), "gated", json!({})).await }
    }));
    let in_flight = tokio::spawn(in_flight);
    for _ in 0..400 {
        if server.count("/gate/v1") == 50 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(server.count("/gate/v1"), 50);

    // Version 2: `gated` changes, `extra` goes.
    write(dir.path(), "tools.yaml", &version(&server, 2, false));
    let event = next_event(&events, 0).await;
    let AgentEvent::ToolsReloaded {
        source,
        added,
        changed,
        removed,
        ..
    } = event
    else {
        panic!("expected tools_reloaded, got {event:?}");
    };
    assert_eq!(source, path.display().to_string());
    assert!(added.is_empty());
    assert_eq!(changed, ["gated"]);
    assert_eq!(removed, ["extra"]);
    assert_eq!(registry.names(), ["gated"]);

    // The next call uses version 2 while the fifty still wait on version 1.
    server.open_gate("v2", 1);
    let fresh = call(&dispatcher, "new", "gated", json!({})).await;
    assert_eq!(ok(&fresh)["data"], json!({"version": "v2"}));
    let (kind, _) = err(&call(&dispatcher, "gone", "extra", json!({})).await);
    assert_eq!(kind, "not_found");

    server.open_gate("v1", 50);
    let reports = in_flight.await.unwrap();
    assert_eq!(reports.len(), 50);
    for report in &reports {
        assert_eq!(ok(report)["data"], json!({"version": "v1"}));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_edit_keeps_the_old_set_serving_and_a_fix_recovers() {
    let server = Server::start().await;
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "tools.yaml", &version(&server, 1, true));
    let registry = Registry::new();
    let events = EventSink::new();
    let _watcher = Watcher::builder(registry.clone())
        .events(events.clone())
        .debounce(Duration::from_millis(50))
        .start([&path])
        .unwrap();
    let dispatcher = gateway(registry.clone());

    // Broken: one good tool and one with an unknown key. Nothing changes.
    let broken = format!("{}    retries: 3\n", version(&server, 2, true));
    write(dir.path(), "tools.yaml", &broken);
    let event = next_event(&events, 0).await;
    let AgentEvent::ToolsReloadFailed { error, .. } = &event else {
        panic!("expected tools_reload_failed, got {event:?}");
    };
    assert!(error.contains("retries"), "{error}");
    assert!(error.contains("tools.yaml:10:5"), "{error}");
    assert_eq!(registry.names(), ["extra", "gated"]);
    server.open_gate("v1", 1);
    let report = call(&dispatcher, "c1", "gated", json!({})).await;
    assert_eq!(ok(&report)["data"], json!({"version": "v1"}));

    // Fixed: version 2 arrives.
    write(dir.path(), "tools.yaml", &version(&server, 2, true));
    let event = next_event(&events, 1).await;
    assert!(
        matches!(&event, AgentEvent::ToolsReloaded { changed, .. } if changed == &["gated"]),
        "{event:?}"
    );
    server.open_gate("v2", 1);
    let report = call(&dispatcher, "c2", "gated", json!({})).await;
    assert_eq!(ok(&report)["data"], json!({"version": "v2"}));

    // Deleting the file keeps the tools (unregister them explicitly).
    std::fs::remove_file(&path).unwrap();
    let event = next_event(&events, 2).await;
    assert!(
        matches!(&event, AgentEvent::ToolsReloadFailed { error, .. } if error.contains("cannot read")),
        "{event:?}"
    );
    assert_eq!(registry.names(), ["extra", "gated"]);
}

//! Finding the peers, and running calls through a gateway.

use std::time::Duration;

use hermes_core::{
    AgentEvent, ApproveAll, CallReport, Dispatcher, EventSink, Policy, Registry, RunContext,
    ToolCall,
};
use serde_json::Value;

/// The value of `var` (set by `scripts/mcp-peers`); `None`, loudly, when it is unset
/// outside CI.
pub(crate) fn peer(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(value) if !value.is_empty() => Some(value),
        _ if std::env::var_os("CI").is_some() => {
            panic!("CI is set but {var} is not: run `eval \"$(scripts/mcp-peers)\"`")
        }
        _ => {
            eprintln!("\n*** SKIPPED: needs {var} from `eval \"$(scripts/mcp-peers)\"`. ***\n");
            None
        }
    }
}

/// The Python server of these tests.
pub(crate) const TOY_SERVER: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/toy_server.py");

/// A gateway over `registry` that approves what needs approval.
pub(crate) fn gateway(registry: &Registry) -> Dispatcher {
    Dispatcher::builder(registry.clone())
        .approver(ApproveAll)
        .build()
        .unwrap()
}

/// A gateway over `registry` judging calls with `policy`, approving nothing.
pub(crate) fn gateway_with(registry: &Registry, policy: impl Policy) -> Dispatcher {
    Dispatcher::builder(registry.clone())
        .policy(policy)
        .build()
        .unwrap()
}

/// Call `tool` with `args` through `gateway`.
pub(crate) async fn call(gateway: &Dispatcher, tool: &str, args: Value) -> CallReport {
    let call = ToolCall::new("call_1", tool, args.to_string());
    gateway.dispatch(&call, &RunContext::new()).await
}

/// The error kind of a failed report, or `ok`.
pub(crate) fn kind(report: &CallReport) -> String {
    report.outcome().as_str().to_owned()
}

/// The text inside the untrusted-content fence (which every MCP result must have).
pub(crate) fn fenced(report: &CallReport) -> String {
    let content = &report.message.content;
    assert!(
        content.starts_with("<untrusted-content "),
        "an MCP result must be fenced: {content}"
    );
    let start = content.find('\n').unwrap() + 1;
    let end = content.rfind("\n</untrusted-content").unwrap();
    content[start..end].to_owned()
}

/// Wait (at most 30 s) for an event of `events` that `wanted` accepts.
pub(crate) async fn event(events: &EventSink, wanted: impl Fn(&AgentEvent) -> bool) -> AgentEvent {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(found) = events.events().into_iter().find(|event| wanted(event)) {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no such event in 30 s; got {:?}",
            events.events()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

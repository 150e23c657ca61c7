//! Observers: one record per call, with the origin, the decision and its rule.

use std::sync::{Arc, Mutex};

use hermes_core::observe::{Observer, PermissionDecision, ToolCallRecord};
use hermes_core::{
    ApproveAll, CallOutcome, Decision, Dispatcher, Judgement, Policy, RunContext, Scope, ToolCall,
    ToolContext, ToolErrorKind, ToolSpec,
};
use serde_json::{Value, json};

use crate::common::{echo, registry_with};

/// An owned copy of what an observer is told.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    trace_id: String,
    session_id: String,
    user_id: Option<String>,
    tool_call_id: String,
    tool: String,
    arguments: String,
    decision: PermissionDecision,
    rule: Option<String>,
    outcome: CallOutcome,
    replayed: bool,
}

#[derive(Debug, Default)]
struct Tape(Mutex<Vec<Seen>>);

impl Observer for Tape {
    fn tool_call(&self, record: &ToolCallRecord<'_>) {
        assert_eq!(
            record.error.map(|error| error.kind()),
            match record.outcome {
                CallOutcome::Success => None,
                CallOutcome::Failure(kind) => Some(kind),
            }
        );
        self.0.lock().unwrap().push(Seen {
            trace_id: record.origin.trace_id.to_owned(),
            session_id: record.origin.session_id.to_owned(),
            user_id: record.origin.user_id.map(str::to_owned),
            tool_call_id: record.tool_call_id.to_owned(),
            tool: record.tool.to_owned(),
            arguments: record.arguments.to_owned(),
            decision: record.permission.decision,
            rule: record.permission.rule.as_deref().map(str::to_owned),
            outcome: record.outcome,
            replayed: record.replayed,
        });
    }
}

impl Tape {
    fn seen(&self) -> Vec<Seen> {
        self.0.lock().unwrap().clone()
    }
}

/// Refuses paths under /etc, naming its rule.
#[derive(Debug)]
struct NoEtc;

impl Policy for NoEtc {
    fn check(&self, spec: &ToolSpec, args: &Value, ctx: &ToolContext) -> Decision {
        self.judge(spec, args, ctx).decision
    }

    fn judge(&self, _spec: &ToolSpec, args: &Value, _ctx: &ToolContext) -> Judgement {
        if args["path"]
            .as_str()
            .is_some_and(|path| path.starts_with("/etc"))
        {
            Judgement::new(Decision::deny("not under /etc")).with_rule("deny:/etc/**")
        } else {
            Judgement::new(Decision::Allow).with_rule("allow:*")
        }
    }
}

fn tools() -> hermes_core::Registry {
    let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}});
    registry_with([
        Arc::new(echo("rm", schema.clone(), Scope::Dangerous)) as _,
        Arc::new(echo("read", schema, Scope::Read)) as _,
    ])
}

#[tokio::test]
async fn every_call_is_recorded_with_its_origin_decision_and_rule() {
    let tape = Arc::new(Tape::default());
    let dispatcher = Dispatcher::builder(tools())
        .policy(NoEtc)
        .observer_arc(tape.clone())
        .build()
        .unwrap();
    let run = RunContext::new()
        .with_trace_id("trace1")
        .with_session("s1")
        .with_user("ada@example.com");
    let calls = [
        ToolCall::new("c1", "read", r#"{"path": "/tmp/a"}"#),
        ToolCall::new("c2", "read", r#"{"path": "/etc/shadow"}"#),
        ToolCall::new("c3", "nope", "{}"),
        ToolCall::new("c4", "read", r#"{"path": 7}"#),
    ];
    dispatcher.dispatch_all(&calls, &run).await;
    let mut seen = tape.seen();
    seen.sort_by(|a, b| a.tool_call_id.cmp(&b.tool_call_id));
    let summary: Vec<_> = seen
        .iter()
        .map(|s| {
            (
                s.tool_call_id.as_str(),
                s.tool.as_str(),
                s.decision,
                s.rule.as_deref(),
                s.outcome.as_str(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (
                "c1",
                "read",
                PermissionDecision::Allowed,
                Some("allow:*"),
                "ok"
            ),
            (
                "c2",
                "read",
                PermissionDecision::Denied,
                Some("deny:/etc/**"),
                "denied"
            ),
            (
                "c3",
                "nope",
                PermissionDecision::NotReached,
                None,
                "not_found"
            ),
            (
                "c4",
                "read",
                PermissionDecision::NotReached,
                None,
                "invalid_arguments"
            ),
        ]
    );
    for s in &seen {
        assert_eq!(s.trace_id, "trace1");
        assert_eq!(s.session_id, "s1");
        assert_eq!(s.user_id.as_deref(), Some("ada@example.com"));
    }
    assert_eq!(seen[1].arguments, r#"{"path": "/etc/shadow"}"#);
}

#[tokio::test]
async fn approvals_and_replays_are_told_apart() {
    let tape = Arc::new(Tape::default());
    let approving = Dispatcher::builder(tools())
        .approver(ApproveAll)
        .observer_arc(tape.clone())
        .build()
        .unwrap();
    let refusing = Dispatcher::builder(tools())
        .observer_arc(tape.clone())
        .build()
        .unwrap();
    let run = RunContext::new();
    let rm = ToolCall::new("c1", "rm", r#"{"path": "/tmp/x"}"#);
    approving.dispatch(&rm, &run).await;
    refusing.dispatch(&rm, &run).await;
    // The same call twice in one message: the second is a replay of the first.
    let twice = [
        ToolCall::new("d1", "read", r#"{"path": "/tmp/a"}"#),
        ToolCall::new("d2", "read", r#"{"path": "/tmp/a"}"#),
    ];
    approving.dispatch_all(&twice, &run).await;

    let seen = tape.seen();
    assert_eq!(seen.len(), 4);
    assert_eq!(seen[0].decision, PermissionDecision::Approved);
    assert_eq!(seen[0].rule.as_deref(), Some("scope:dangerous"));
    assert_eq!(seen[0].outcome, CallOutcome::Success);
    assert_eq!(seen[1].decision, PermissionDecision::Refused);
    assert_eq!(
        seen[1].outcome,
        CallOutcome::Failure(ToolErrorKind::ApprovalDenied)
    );
    let replays: Vec<_> = seen[2..]
        .iter()
        .map(|s| (s.tool_call_id.as_str(), s.replayed))
        .collect();
    assert!(replays.contains(&("d1", false)) && replays.contains(&("d2", true)));
    assert!(
        seen[2..]
            .iter()
            .all(|s| s.decision == PermissionDecision::Allowed)
    );
}

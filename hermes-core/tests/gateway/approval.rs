//! Policy decisions and human approval.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use hermes_core::{
    AgentEvent, Approval, ApprovalRequest, ApproveAll, Approver, Decision, Dispatcher, EventSink,
    Policy, RunContext, Scope, ToolCall, ToolContext, ToolSpec,
};
use serde_json::{Value, json};

use crate::common::{echo, error_of, registry_with};

fn tools() -> hermes_core::Registry {
    let schema = json!({"type": "object", "properties": {"path": {"type": "string"}}});
    registry_with([
        Arc::new(echo("rm", schema.clone(), Scope::Dangerous)) as _,
        Arc::new(echo("read", schema, Scope::Read)) as _,
    ])
}

fn rm() -> ToolCall {
    ToolCall::new("c1", "rm", r#"{"path": "/tmp/x"}"#)
}

#[tokio::test]
async fn dangerous_call_is_refused_by_default_asking_for_confirmation() {
    let sink = EventSink::new();
    let report = Dispatcher::new(tools())
        .dispatch(&rm(), &RunContext::new().with_events(sink.clone()))
        .await;
    let error = error_of(&report.message.content);
    assert_eq!(error["kind"], "approval_denied");
    assert_eq!(error["requires_confirmation"], true);
    assert!(sink.events().iter().any(|event| matches!(
        event,
        AgentEvent::ApprovalRequested { name, .. } if name == "rm"
    )));
}

#[tokio::test]
async fn approved_dangerous_call_runs() {
    let dispatcher = Dispatcher::builder(tools())
        .approver(ApproveAll)
        .build()
        .unwrap();
    let report = dispatcher.dispatch(&rm(), &RunContext::new()).await;
    assert!(report.is_success(), "{}", report.message.content);
    assert_eq!(report.message.content, r#"{"path":"/tmp/x"}"#);
}

/// Records what it was asked and answers as told.
#[derive(Debug, Default)]
struct Recorder {
    asked: Mutex<Vec<ApprovalRequest>>,
    answer_yes: bool,
}

#[async_trait]
impl Approver for Recorder {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        self.asked.lock().unwrap().push(request.clone());
        if self.answer_yes {
            Approval::Approved
        } else {
            Approval::denied("the user said no")
        }
    }
}

#[tokio::test]
async fn approver_sees_the_call_and_its_refusal_reaches_the_model() {
    let recorder = Arc::new(Recorder::default());
    let dispatcher = Dispatcher::builder(tools())
        .approver_arc(recorder.clone())
        .build()
        .unwrap();
    let run = RunContext::new().with_session("s-42");
    let report = dispatcher.dispatch(&rm(), &run).await;
    let error = error_of(&report.message.content);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("the user said no")
    );
    let asked = recorder.asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].tool, "rm");
    assert_eq!(asked[0].arguments, json!({"path": "/tmp/x"}));
    assert_eq!(asked[0].session_id, "s-42");
    assert_eq!(asked[0].trace_id, run.trace_id());
}

/// Denies paths under /etc, asks about paths under /home, allows the rest.
#[derive(Debug)]
struct PathPolicy;

impl Policy for PathPolicy {
    fn check(&self, _spec: &ToolSpec, args: &Value, _ctx: &ToolContext) -> Decision {
        let path = args["path"].as_str().unwrap_or_default();
        if path.starts_with("/etc") {
            Decision::deny("/etc is outside the workspace")
        } else if path.starts_with("/home") {
            Decision::needs_approval(format!("read {path}?"))
        } else {
            Decision::Allow
        }
    }
}

#[tokio::test]
async fn deny_wins_even_with_an_approver_that_says_yes() {
    let dispatcher = Dispatcher::builder(tools())
        .policy(PathPolicy)
        .approver(ApproveAll)
        .build()
        .unwrap();
    let call = ToolCall::new("c1", "read", r#"{"path": "/etc/shadow"}"#);
    let report = dispatcher.dispatch(&call, &RunContext::new()).await;
    let error = error_of(&report.message.content);
    assert_eq!(error["kind"], "denied");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("/etc is outside the workspace")
    );
}

#[tokio::test]
async fn policy_can_ask_for_approval_of_a_read_tool() {
    let recorder = Arc::new(Recorder {
        answer_yes: true,
        ..Recorder::default()
    });
    let dispatcher = Dispatcher::builder(tools())
        .policy(PathPolicy)
        .approver_arc(recorder.clone())
        .build()
        .unwrap();
    let asks = ToolCall::new("c1", "read", r#"{"path": "/home/me/notes"}"#);
    assert!(
        dispatcher
            .dispatch(&asks, &RunContext::new())
            .await
            .is_success()
    );
    let direct = ToolCall::new("c2", "read", r#"{"path": "/tmp/notes"}"#);
    assert!(
        dispatcher
            .dispatch(&direct, &RunContext::new())
            .await
            .is_success()
    );
    let asked = recorder.asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].prompt, "read /home/me/notes?");
}

#[tokio::test]
async fn tools_see_the_policy_of_the_dispatcher_that_called_them() {
    let spec = ToolSpec::builder("which_policy", "Names the policy in force.")
        .build()
        .unwrap();
    let tool = hermes_core::FnTool::new(spec, |_: Value, ctx: ToolContext| async move {
        Ok::<_, hermes_core::ToolError>(format!("{:?}", ctx.policy()))
    });
    let registry = registry_with([Arc::new(tool) as _]);
    let plain = Dispatcher::new(registry.clone());
    let strict = Dispatcher::builder(registry)
        .policy(PathPolicy)
        .build()
        .unwrap();
    // One run served by both: each call must carry its own dispatcher's policy.
    let run = RunContext::new();
    let call = ToolCall::new("c1", "which_policy", "{}");
    for _ in 0..2 {
        let a = plain.dispatch(&call, &run).await;
        let b = strict.dispatch(&call, &run).await;
        assert_eq!(a.message.content, r#""DefaultPolicy""#);
        assert_eq!(b.message.content, r#""PathPolicy""#);
    }
}

/// Asks about everything under one class and records the grants it is given.
#[derive(Debug, Default)]
struct GrantRecorder {
    grants: Mutex<Vec<(String, String)>>,
}

impl Policy for GrantRecorder {
    fn check(&self, _spec: &ToolSpec, _args: &Value, ctx: &ToolContext) -> Decision {
        let granted = self
            .grants
            .lock()
            .unwrap()
            .iter()
            .any(|(session, _)| session == ctx.session_id());
        if granted {
            Decision::Allow
        } else {
            Decision::needs_approval_for("read this?", "reads")
        }
    }

    fn grant(&self, session_id: &str, class: &str) {
        self.grants
            .lock()
            .unwrap()
            .push((session_id.to_owned(), class.to_owned()));
    }
}

#[derive(Debug)]
struct ForSession;

#[async_trait]
impl Approver for ForSession {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        assert_eq!(request.class.as_deref(), Some("reads"));
        Approval::ApprovedForSession
    }
}

#[tokio::test]
async fn approval_for_the_session_is_handed_to_the_policy() {
    let policy = Arc::new(GrantRecorder::default());
    let dispatcher = Dispatcher::builder(tools())
        .policy_arc(policy.clone())
        .approver(ForSession)
        .build()
        .unwrap();
    let call = ToolCall::new("c1", "read", r#"{"path": "/tmp/a"}"#);
    let run = RunContext::new().with_session("s9");
    assert!(dispatcher.dispatch(&call, &run).await.is_success());
    assert_eq!(
        *policy.grants.lock().unwrap(),
        [("s9".to_owned(), "reads".to_owned())]
    );
    // The policy now allows without asking.
    assert!(dispatcher.dispatch(&call, &run).await.is_success());
    assert_eq!(policy.grants.lock().unwrap().len(), 1);
}

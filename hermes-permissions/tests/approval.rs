//! Approvers fail closed, and a session grant covers one class of call only.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{
    Approval, ApprovalRequest, Approver, ArgKind, Dispatcher, FnTool, Registry, RunContext, Scope,
    ToolCall, ToolError, ToolSpec,
};
use hermes_permissions::{
    Answer, ChannelApprover, FnApprover, PermissionEngine, Profile, TerminalApprover,
};
use serde_json::{Value, json};

fn request(class: Option<&str>) -> ApprovalRequest {
    let request = ApprovalRequest::new(
        "rm",
        Scope::Dangerous,
        json!({"path": "/tmp/x"}),
        "remove /tmp/x?",
    );
    match class {
        Some(class) => request.with_class(class),
        None => request,
    }
}

#[tokio::test(start_paused = true)]
async fn channel_approver_answers_and_fails_closed() {
    let (approver, mut requests) = ChannelApprover::with_timeout(Duration::from_secs(30));
    let ui = tokio::spawn(async move {
        let answers = [
            Answer::Once,
            Answer::Session,
            Answer::Deny {
                reason: "not on prod".into(),
            },
        ];
        for answer in answers {
            let pending = requests.recv().await.unwrap();
            assert_eq!(pending.request().tool, "rm");
            pending.answer(answer);
        }
        // Take the fourth and never answer: the approver times out.
        let _unanswered = requests.recv().await.unwrap();
        tokio::time::sleep(Duration::from_secs(3600)).await;
    });
    let req = request(Some("dangerous.rm:rm"));
    assert_eq!(approver.approve(&req).await, Approval::Approved);
    assert_eq!(approver.approve(&req).await, Approval::ApprovedForSession);
    assert_eq!(
        approver.approve(&req).await,
        Approval::denied("not on prod")
    );
    let timed_out = approver.approve(&req).await;
    assert!(
        matches!(&timed_out, Approval::Denied { reason } if reason.contains("no answer within")),
        "{timed_out:?}"
    );
    ui.abort();
}

#[tokio::test]
async fn channel_approver_without_a_ui_denies() {
    let (approver, requests) = ChannelApprover::new();
    drop(requests);
    let answer = approver.approve(&request(None)).await;
    assert!(
        matches!(&answer, Approval::Denied { reason } if reason.contains("no approval UI")),
        "{answer:?}"
    );
}

#[tokio::test]
async fn terminal_approver_reads_the_answer() {
    let cases = [
        ("y\n", Some("c"), Approval::Approved),
        ("yes\n", None, Approval::Approved),
        ("s\n", Some("c"), Approval::ApprovedForSession),
        // No class: a session answer cannot be remembered, so it is not offered.
        ("s\n", None, Approval::denied("the user said no")),
        ("\n", Some("c"), Approval::denied("the user said no")),
        ("n\n", Some("c"), Approval::denied("the user said no")),
        (
            "",
            Some("c"),
            Approval::denied("the terminal closed; denied"),
        ),
    ];
    for (input, class, expected) in cases {
        let approver = TerminalApprover::with_io(input.as_bytes(), Vec::new());
        let answer = approver.approve(&request(class)).await;
        assert_eq!(answer, expected, "input {input:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn terminal_approver_times_out() {
    let (reader, _writer) = tokio::io::duplex(64);
    let approver = TerminalApprover::with_io(tokio::io::BufReader::new(reader), Vec::new())
        .timeout(Duration::from_secs(10));
    let answer = approver.approve(&request(Some("c"))).await;
    assert!(
        matches!(&answer, Approval::Denied { reason } if reason.contains("no answer within 10s")),
        "{answer:?}"
    );
}

/// A shell tool whose command the engine judges.
fn shell() -> impl hermes_core::Tool {
    let spec = ToolSpec::builder("shell", "Run a command.")
        .parameters(json!({"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}))
        .permission("terminal:execute")
        .arg_kind("command", ArgKind::Command)
        .build()
        .unwrap();
    FnTool::new(spec, |args: Value, _ctx| async move {
        Ok::<_, ToolError>(format!(
            "ran {}",
            args["command"].as_str().unwrap_or_default()
        ))
    })
}

#[tokio::test]
async fn a_session_grant_covers_its_class_through_the_gateway() {
    let engine = PermissionEngine::new(
        Profile::builder("dev")
            .allow("terminal:execute")
            .build()
            .unwrap(),
    );
    let asked = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = asked.clone();
    let approver = FnApprover::new(move |request: &ApprovalRequest| {
        log.lock().unwrap().push(request.class.clone());
        Approval::ApprovedForSession
    });
    let registry = Registry::new();
    registry.register(shell()).unwrap();
    let dispatcher = Dispatcher::builder(registry)
        .policy(engine.clone())
        .approver(approver)
        .idempotency_store(engine.clone())
        .build()
        .unwrap();
    let run = RunContext::new().with_session("s1");
    let call = |command: &str| ToolCall::with_args("c", "shell", &json!({"command": command}));

    for _ in 0..3 {
        let report = dispatcher
            .dispatch(&call("git push --force origin main"), &run)
            .await;
        assert!(report.is_success(), "{}", report.message.content);
    }
    // Asked once; the grant covered the next two.
    assert_eq!(asked.lock().unwrap().len(), 1);
    let class = asked.lock().unwrap()[0].clone().unwrap();
    assert!(engine.is_granted("s1", &class));
    // Another session is asked again.
    let other = RunContext::new().with_session("s2");
    dispatcher
        .dispatch(&call("git push --force origin main"), &other)
        .await;
    assert_eq!(asked.lock().unwrap().len(), 2);
    // A hardline command is refused without asking, grant or not.
    let report = dispatcher.dispatch(&call("rm -rf /"), &run).await;
    let error: Value = serde_json::from_str(&report.message.content).unwrap();
    assert_eq!(error["error"]["kind"], "denied");
    assert_eq!(asked.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn terminal_approver_shows_what_it_asks() {
    use tokio::io::AsyncReadExt;
    let (writer, mut reader) = tokio::io::duplex(4096);
    let approver = TerminalApprover::with_io("n\n".as_bytes(), writer);
    approver.approve(&request(Some("dangerous.rm:rm"))).await;
    drop(approver);
    let mut shown = String::new();
    reader.read_to_string(&mut shown).await.unwrap();
    for part in [
        "remove /tmp/x?",
        "tool: rm (dangerous scope)",
        r#"{"path":"/tmp/x"}"#,
        "dangerous.rm:rm",
        "[s]ession",
    ] {
        assert!(shown.contains(part), "`{part}` not in:\n{shown}");
    }
}

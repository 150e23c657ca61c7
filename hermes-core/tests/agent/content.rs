//! The content audit hook: input and output checked, a block ends the run.

use std::sync::Arc;

use hermes_core::content_check::KeywordCheck;
use hermes_core::{Agent, Registry, RunStatus, ScriptedBackend, ScriptedTurn};

fn agent(backend: Arc<ScriptedBackend>) -> Agent {
    Agent::builder()
        .backend_arc(backend)
        .registry(Registry::new())
        .content_check(KeywordCheck::new(["forbidden topic", "SECRET PLAN"]))
        .build()
        .unwrap()
}

#[tokio::test]
async fn blocked_input_never_reaches_the_model() {
    let backend = Arc::new(ScriptedBackend::new([ScriptedTurn::text("hello")]));
    let outcome = agent(backend.clone())
        .run("tell me about the Forbidden Topic")
        .await;
    assert_eq!(outcome.status, RunStatus::Blocked);
    assert_eq!(outcome.status.to_string(), "blocked");
    assert!(backend.requests().is_empty());
    let error = outcome.error.unwrap();
    assert!(
        error.contains("input") && error.contains("forbidden topic"),
        "{error}"
    );
    assert_eq!(outcome.answer, None);
}

#[tokio::test]
async fn blocked_output_ends_the_run_without_an_answer() {
    let backend = Arc::new(ScriptedBackend::new([ScriptedTurn::text(
        "Here is the secret plan: ...",
    )]));
    let outcome = agent(backend.clone()).run("what is the plan?").await;
    assert_eq!(outcome.status, RunStatus::Blocked);
    assert_eq!(outcome.answer, None);
    assert!(outcome.error.unwrap().contains("output"));
    assert_eq!(backend.requests().len(), 1);
}

#[tokio::test]
async fn clean_runs_pass() {
    let backend = Arc::new(ScriptedBackend::new([ScriptedTurn::text("all fine")]));
    let outcome = agent(backend).run("hello").await;
    assert_eq!(outcome.status, RunStatus::Completed);
    assert_eq!(outcome.answer.as_deref(), Some("all fine"));
}

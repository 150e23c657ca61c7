//! Observers hear each model call with its usage and the tools it asked for.

use std::sync::{Arc, Mutex};

use hermes_core::observe::{LlmCallRecord, Observer, ToolCallRecord};
use hermes_core::{
    Agent, Registry, RunStatus, ScriptedBackend, ScriptedTurn, ToolCall, Usage, demo::Calc,
};

/// Round, usage, tools called, error kind, user.
type LlmSeen = (
    u32,
    Option<Usage>,
    Vec<String>,
    Option<&'static str>,
    Option<String>,
);

#[derive(Debug, Default)]
struct Tape {
    llm: Mutex<Vec<LlmSeen>>,
    tools: Mutex<Vec<(String, Option<String>)>>,
}

impl Observer for Tape {
    fn tool_call(&self, record: &ToolCallRecord<'_>) {
        self.tools.lock().unwrap().push((
            record.tool.to_owned(),
            record.origin.user_id.map(str::to_owned),
        ));
    }

    fn llm_call(&self, record: &LlmCallRecord<'_>) {
        self.llm.lock().unwrap().push((
            record.round,
            record.usage,
            record.tools.iter().map(|name| (*name).to_owned()).collect(),
            record.error,
            record.origin.user_id.map(str::to_owned),
        ));
    }
}

#[tokio::test]
async fn each_model_call_is_recorded_with_usage_and_the_tools_it_called() {
    let registry = Registry::new();
    registry.register(Calc::new()).unwrap();
    let backend = ScriptedBackend::new([
        ScriptedTurn::tool_calls([
            ToolCall::new("c1", "calc", r#"{"expression": "1+1"}"#),
            ToolCall::new("c2", "calc", r#"{"expression": "2+2"}"#),
        ])
        .with_usage(Usage::new(100, 20)),
        ScriptedTurn::text("2 and 4").with_usage(Usage::new(150, 5)),
    ]);
    let tape = Arc::new(Tape::default());
    let agent = Agent::builder()
        .backend(backend)
        .registry(registry)
        .observer_arc(tape.clone())
        .user_id("u-7")
        .build()
        .unwrap();
    let outcome = agent.run("add").await;
    assert_eq!(outcome.status, RunStatus::Completed);

    let llm = tape.llm.lock().unwrap().clone();
    let user = Some("u-7".to_owned());
    assert_eq!(
        llm,
        [
            (
                1,
                Some(Usage::new(100, 20)),
                vec!["calc".to_owned(), "calc".to_owned()],
                None,
                user.clone()
            ),
            (2, Some(Usage::new(150, 5)), vec![], None, user.clone()),
        ]
    );
    let tools = tape.tools.lock().unwrap().clone();
    assert_eq!(
        tools,
        [("calc".to_owned(), user.clone()), ("calc".to_owned(), user)]
    );
}

#[tokio::test]
async fn a_failed_model_call_is_recorded_with_its_kind() {
    let tape = Arc::new(Tape::default());
    let agent = Agent::builder()
        .backend(ScriptedBackend::new([]))
        .observer_arc(tape.clone())
        .build()
        .unwrap();
    let outcome = agent.run("hello").await;
    assert_eq!(outcome.status, RunStatus::Failed);
    let llm = tape.llm.lock().unwrap().clone();
    assert_eq!(llm.len(), 1);
    assert_eq!(llm[0].3, Some("script_exhausted"));
    assert_eq!(llm[0].1, None);
}

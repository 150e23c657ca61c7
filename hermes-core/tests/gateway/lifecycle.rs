//! Registration, setup once, teardown after the last call, hot replace in flight.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hermes_core::{
    Availability, Dispatcher, Error, Registry, RunContext, Scope, ToolCall, ToolContext, ToolError,
    ToolSpec, TypedTool,
};
use serde_json::{Value, json};

use crate::common::{Gates, add, echo, error_of};

#[tokio::test]
async fn hot_replace_keeps_the_call_in_flight_on_the_old_tool() {
    let gates = Gates::new();
    let registry = Registry::new();
    let v1 = gates.tool("wait", 1);
    let (v1_torn_down, v1_teardowns) = (v1.torn_down.clone(), v1.teardowns.clone());
    registry.register(v1).unwrap();
    let dispatcher = Dispatcher::new(registry.clone());
    let run = RunContext::new();

    let in_flight = ToolCall::new("a", "wait", r#"{"gate":"a"}"#);
    let (old_report, ()) = tokio::join!(dispatcher.dispatch(&in_flight, &run), async {
        gates.wait_entered(1).await;
        let replaced = registry.replace(gates.tool("wait", 2)).unwrap();
        assert!(replaced.is_some());
        // New calls go to the new tool at once.
        gates.open("b");
        let fresh = ToolCall::new("b", "wait", r#"{"gate":"b"}"#);
        let new_report = dispatcher.dispatch(&fresh, &run).await;
        assert_eq!(new_report.message.content, r#"{"gate":"b","version":2}"#);
        // The old tool is still serving its call: no teardown yet.
        assert_eq!(v1_teardowns.load(Ordering::SeqCst), 0);
        gates.open("a");
    });
    assert_eq!(old_report.message.content, r#"{"gate":"a","version":1}"#);
    // Its last call ended, so the old tool is torn down, once.
    v1_torn_down.notified().await;
    assert_eq!(v1_teardowns.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn unregister_lets_the_call_in_flight_finish() {
    let gates = Gates::new();
    let registry = Registry::new();
    let tool = gates.tool("wait", 1);
    let torn_down = tool.torn_down.clone();
    registry.register(tool).unwrap();
    let dispatcher = Dispatcher::new(registry.clone());
    let run = RunContext::new();
    let call = ToolCall::new("a", "wait", r#"{"gate":"a"}"#);
    let (report, ()) = tokio::join!(dispatcher.dispatch(&call, &run), async {
        gates.wait_entered(1).await;
        registry.unregister("wait").unwrap();
        let gone = dispatcher
            .dispatch(&ToolCall::new("b", "wait", "{}"), &run)
            .await;
        assert_eq!(error_of(&gone.message.content)["kind"], "not_found");
        gates.open("a");
    });
    assert!(report.is_success());
    torn_down.notified().await;
}

/// Counts setups; fails them when told to.
struct Lifecycle {
    spec: ToolSpec,
    setups: Arc<AtomicUsize>,
    fail: bool,
}

impl TypedTool for Lifecycle {
    type Args = Value;
    type Output = &'static str;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn setup(&self) -> Result<(), ToolError> {
        self.setups.fetch_add(1, Ordering::SeqCst);
        if self.fail {
            Err(ToolError::failed(
                "the database at localhost:5432 refused the connection",
            ))
        } else {
            Ok(())
        }
    }

    async fn call(&self, _args: Value, _ctx: &ToolContext) -> Result<&'static str, ToolError> {
        Ok("done")
    }
}

fn lifecycle(name: &str, fail: bool) -> (Lifecycle, Arc<AtomicUsize>) {
    let setups = Arc::new(AtomicUsize::new(0));
    let tool = Lifecycle {
        spec: ToolSpec::builder(name, "Has a lifecycle.").build().unwrap(),
        setups: setups.clone(),
        fail,
    };
    (tool, setups)
}

#[tokio::test]
async fn setup_runs_once_before_first_use() {
    let (tool, setups) = lifecycle("db", false);
    let registry = Registry::new();
    registry.register(tool).unwrap();
    assert_eq!(registry.availability("db"), Some(Availability::NotStarted));
    assert_eq!(setups.load(Ordering::SeqCst), 0);
    let dispatcher = Dispatcher::new(registry.clone());
    let calls: Vec<ToolCall> = (0..4)
        .map(|i| ToolCall::new(format!("c{i}"), "db", "{}"))
        .collect();
    let reports = dispatcher.dispatch_all(&calls, &RunContext::new()).await;
    assert!(reports.iter().all(|r| r.message.content == r#""done""#));
    assert_eq!(setups.load(Ordering::SeqCst), 1);
    assert_eq!(registry.availability("db"), Some(Availability::Ready));
}

#[tokio::test]
async fn failed_setup_makes_the_tool_unavailable_with_the_reason() {
    let (tool, setups) = lifecycle("db", true);
    let registry = Registry::new();
    registry.register(tool).unwrap();
    let report = registry.prepare().await;
    let reason = "the database at localhost:5432 refused the connection".to_owned();
    assert_eq!(
        report,
        [(
            "db".to_owned(),
            Availability::Unavailable {
                reason: reason.clone()
            }
        )]
    );
    let dispatcher = Dispatcher::new(registry);
    for id in ["c1", "c2"] {
        let report = dispatcher
            .dispatch(&ToolCall::new(id, "db", "{}"), &RunContext::new())
            .await;
        let error = error_of(&report.message.content);
        assert_eq!(error["kind"], "unavailable");
        assert!(error["message"].as_str().unwrap().contains(&reason));
    }
    assert_eq!(setups.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn shutdown_tears_down_every_tool_that_was_set_up() {
    let gates = Gates::new();
    let registry = Registry::new();
    let used = gates.tool("used", 1);
    let unused = gates.tool("unused", 1);
    let (used_count, unused_count) = (used.teardowns.clone(), unused.teardowns.clone());
    registry.register(used).unwrap();
    registry.register(unused).unwrap();
    gates.open("x");
    let dispatcher = Dispatcher::new(registry.clone());
    let report = dispatcher
        .dispatch(
            &ToolCall::new("c", "used", r#"{"gate":"x"}"#),
            &RunContext::new(),
        )
        .await;
    assert!(report.is_success());
    registry.shutdown().await;
    assert!(registry.is_empty());
    assert_eq!(used_count.load(Ordering::SeqCst), 1);
    assert_eq!(
        unused_count.load(Ordering::SeqCst),
        0,
        "never set up, so never torn down"
    );
}

#[test]
fn duplicate_name_is_an_error_naming_the_tool() {
    let registry = Registry::new();
    registry.register(add()).unwrap();
    let err = registry.register(add()).unwrap_err();
    assert!(matches!(&err, Error::DuplicateTool { name } if name == "add"));
    assert!(err.to_string().contains("`add`"), "{err}");
}

#[test]
fn schemas_are_sorted_by_name_and_stable() {
    let registry = Registry::new();
    let schema = json!({"type": "object", "properties": {}});
    for name in ["zeta", "alpha", "mid"] {
        registry
            .register(echo(name, schema.clone(), Scope::Read))
            .unwrap();
    }
    let names: Vec<String> = registry
        .schemas()
        .iter()
        .map(|schema| schema["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["alpha", "mid", "zeta"]);
    assert_eq!(registry.schemas(), registry.schemas());
    assert_eq!(registry.schemas()[0]["type"], "function");
}

#[test]
fn a_schema_that_does_not_compile_is_refused_at_registration() {
    let registry = Registry::new();
    let broken = echo(
        "broken",
        json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": "one"}}}),
        Scope::Read,
    );
    let err = registry.register(broken).unwrap_err();
    assert!(
        matches!(&err, Error::InvalidSchema { tool, .. } if tool == "broken"),
        "{err}"
    );
    assert!(registry.is_empty());
}

#[test]
fn unregistering_an_unknown_tool_is_an_error() {
    let err = Registry::new().unregister("ghost").unwrap_err();
    assert!(matches!(err, Error::UnknownTool { .. }));
}

#[test]
fn draft_7_schemas_are_accepted() {
    let registry = Registry::new();
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"tags": {"type": "array", "items": [{"type": "string"}], "additionalItems": false}}
    });
    registry
        .register(echo("draft7", schema, Scope::Read))
        .unwrap();
}

#[tokio::test]
async fn a_source_swaps_as_one_and_leaves_other_tools_alone() {
    let gates = Gates::new();
    let registry = Registry::new();
    registry.register(add()).unwrap();
    let tool =
        |name: &str, version| Arc::new(gates.tool(name, version)) as Arc<dyn hermes_core::Tool>;

    let first = registry
        .swap_source("a.yaml", vec![tool("one", 1), tool("two", 1)])
        .unwrap();
    assert_eq!(
        (first.added, first.replaced, first.removed),
        (vec!["one".to_owned(), "two".to_owned()], vec![], vec![])
    );
    assert_eq!(registry.source_of("one").as_deref(), Some("a.yaml"));
    assert_eq!(registry.source_of("add"), None);

    // A name taken by a tool of another origin, or twice in the set: refused, nothing
    // changes.
    let taken = registry.swap_source("a.yaml", vec![tool("add", 2)]);
    assert!(matches!(taken, Err(Error::DuplicateTool { name }) if name == "add"));
    let twice = registry.swap_source("b.yaml", vec![tool("three", 1), tool("three", 2)]);
    assert!(matches!(twice, Err(Error::DuplicateTool { name }) if name == "three"));
    let stolen = registry.swap_source("b.yaml", vec![tool("one", 2)]);
    assert!(matches!(stolen, Err(Error::DuplicateTool { name }) if name == "one"));
    assert_eq!(registry.names(), ["add", "one", "two"]);

    // The next version: one kept (swapped), two gone, three new.
    let second = registry
        .swap_source("a.yaml", vec![tool("one", 2), tool("three", 1)])
        .unwrap();
    assert_eq!(second.added, ["three"]);
    assert_eq!(second.replaced, ["one"]);
    assert_eq!(second.removed, ["two"]);
    assert_eq!(registry.names(), ["add", "one", "three"]);
    let dispatcher = Dispatcher::new(registry.clone());
    gates.open("g");
    let report = dispatcher
        .dispatch(
            &ToolCall::new("c", "one", r#"{"gate":"g"}"#),
            &RunContext::new(),
        )
        .await;
    assert_eq!(report.message.content, r#"{"gate":"g","version":2}"#);
    let gone = dispatcher
        .dispatch(
            &ToolCall::new("d", "two", r#"{"gate":"g"}"#),
            &RunContext::new(),
        )
        .await;
    assert_eq!(error_of(&gone.message.content)["kind"], "not_found");
}

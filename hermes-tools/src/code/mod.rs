//! The `code` family: run snippets and test suites, outline source files, and small
//! exact tools a model should not do in its head (arithmetic, jq queries, diffs).
//!
//! One module per tool:
//!
//! - [`execute`]: `code_execute`, a snippet of Python, JavaScript, Bash or Rust in a
//!   fresh directory, sandboxed with bubblewrap when it works here;
//! - [`test_runner`]: `code_test`, a project's tests (cargo, pytest, npm), summarised;
//! - [`analyze`]: `code_analyze`, the definitions and line counts of a source file;
//! - [`calculator`]: `calculator`, safe arithmetic with a real parser;
//! - [`json_query`]: `json_query`, a jq filter run by jaq;
//! - [`text_diff`]: `text_diff`, a unified diff with its statistics.
//!
//! [`text_file`] reads the files the read-only tools take, once for all of them.

mod analyze;
mod calculator;
mod execute;
mod json_query;
mod test_runner;
mod text_diff;
mod text_file;

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Error, Tool};
use serde_json::{Value, json};

use crate::common::Shared;

/// The tag every tool of the family carries; the README's table reads it.
const FAMILY_TAG: &str = "family:code";

/// Every tool of the family.
///
/// # Errors
///
/// An invalid spec: the specs are constants of this crate, so a bug the tests catch.
pub(crate) fn tools(shared: &Arc<Shared>) -> Result<Vec<Arc<dyn Tool>>, Error> {
    Ok(vec![
        Arc::new(execute::CodeExecute::new(shared)?),
        Arc::new(test_runner::CodeTest::new(shared)?),
        Arc::new(analyze::CodeAnalyze::new(shared)?),
        Arc::new(calculator::Calculator::new()?),
        Arc::new(json_query::JsonQuery::new(shared)?),
        Arc::new(text_diff::TextDiff::new(shared)?),
    ])
}

/// `schema` with the integer property `property` (seconds) bounded by the configured
/// `max` and defaulting to `default` (or `max`, when smaller): the limits depend on the
/// [`ToolsConfig`](crate::ToolsConfig), so they are written into the schema at
/// registration, where the gateway enforces them and the model reads them.
fn bound_seconds(mut schema: Value, property: &str, default: u64, max: Duration) -> Value {
    let max = max.as_secs().max(1);
    if let Some(slot) = schema
        .get_mut("properties")
        .and_then(|properties| properties.get_mut(property))
        .and_then(Value::as_object_mut)
    {
        slot.insert("minimum".to_owned(), json!(1));
        slot.insert("maximum".to_owned(), json!(max));
        slot.insert("default".to_owned(), json!(default.min(max)));
    }
    schema
}

/// Seconds asked for by a call, within `1..=max`, or `default` (within the same bounds).
fn seconds(asked: Option<u64>, default: u64, max: Duration) -> Duration {
    let max = max.as_secs().max(1);
    Duration::from_secs(asked.unwrap_or(default).clamp(1, max))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolsConfig;

    #[test]
    fn every_tool_builds_with_its_family_tag() {
        let shared = Arc::new(Shared::new(ToolsConfig::default()));
        let tools = tools(&shared).unwrap();
        let mut names: Vec<&str> = tools.iter().map(|tool| tool.spec().name()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "calculator",
                "code_analyze",
                "code_execute",
                "code_test",
                "json_query",
                "text_diff"
            ]
        );
        for tool in &tools {
            let spec = tool.spec();
            assert!(
                spec.tags().iter().any(|tag| tag == FAMILY_TAG),
                "{}",
                spec.name()
            );
            assert!(spec.max_result_bytes() <= 256 * 1024, "{}", spec.name());
            assert!(spec.description().len() >= 40, "{}", spec.name());
        }
    }

    #[test]
    fn timeouts_follow_the_configuration() {
        let schema = json!({"type": "object", "properties": {"t": {"type": "integer"}}});
        let bounded = bound_seconds(schema, "t", 300, Duration::from_secs(120));
        assert_eq!(bounded["properties"]["t"]["maximum"], 120);
        assert_eq!(bounded["properties"]["t"]["default"], 120);
        assert_eq!(seconds(None, 30, Duration::from_secs(10)).as_secs(), 10);
        assert_eq!(seconds(Some(0), 30, Duration::from_secs(10)).as_secs(), 1);
        assert_eq!(seconds(Some(5), 30, Duration::from_secs(10)).as_secs(), 5);
    }
}

//! A [`ToolSpec`] as an MCP tool, and the names close to an unknown one.

use std::sync::Arc;

use hermes_core::{Scope, ToolSpec};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::Value;

/// `spec` as `tools/list` shows it: name, description, its parameters schema as
/// `inputSchema`, and the hints its scope supports honestly: `readOnlyHint` for a
/// `read` tool, `destructiveHint` for a `dangerous` one (a `write` tool gets
/// `readOnlyHint: false` and no destructive claim either way).
pub(super) fn describe(spec: &ToolSpec) -> Tool {
    let annotations = match spec.scope() {
        Scope::Read => ToolAnnotations::new().read_only(true),
        Scope::Write => ToolAnnotations::new().read_only(false),
        Scope::Dangerous => ToolAnnotations::new().read_only(false).destructive(true),
    };
    Tool::new(
        spec.name().to_owned(),
        spec.description().to_owned(),
        input_schema(spec.parameters()),
    )
    .annotate(annotations)
}

/// The parameters schema as an object; MCP requires `"type": "object"` at the root,
/// which every hermes schema has (a tool without parameters gets the empty object).
fn input_schema(parameters: &Value) -> Arc<JsonObject> {
    let mut schema = match parameters {
        Value::Object(object) => object.clone(),
        _ => JsonObject::new(),
    };
    schema
        .entry("type")
        .or_insert_with(|| Value::from("object"));
    Arc::new(schema)
}

/// The names in `available` close to `name`, best first: the same name but for case
/// and `-`/`_`, then those at most two edits away, then those containing it.
pub(super) fn close_names(name: &str, available: &[String]) -> Vec<String> {
    let wanted = normalise(name);
    let mut scored: Vec<(usize, &String)> = available
        .iter()
        .filter_map(|candidate| {
            let other = normalise(candidate);
            let score = if other == wanted {
                0
            } else {
                match distance(&wanted, &other) {
                    edits @ 1..=2 => edits,
                    _ if wanted.len() >= 3 && other.contains(&wanted) => 3,
                    _ => return None,
                }
            };
            Some((score, candidate))
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(5)
        .map(|(_, name)| name.clone())
        .collect()
}

fn normalise(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c == '-' {
                '_'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

/// Levenshtein distance, in chars.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = Vec::with_capacity(b.len() + 1);
        current.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != *cb);
            current.push(substitute.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use serde_json::json;

    use super::*;

    #[test]
    fn scope_becomes_honest_hints() {
        let spec = |scope| {
            ToolSpec::builder("t", "a tool")
                .parameters(json!({"type": "object", "properties": {"x": {"type": "string"}}}))
                .scope(scope)
                .build()
                .unwrap()
        };
        let read = serde_json::to_value(describe(&spec(Scope::Read))).unwrap();
        assert_eq!(read["annotations"], json!({"readOnlyHint": true}));
        assert_eq!(read["inputSchema"]["properties"]["x"]["type"], "string");
        assert_eq!(read["description"], "a tool");
        let write = serde_json::to_value(describe(&spec(Scope::Write))).unwrap();
        assert_eq!(write["annotations"], json!({"readOnlyHint": false}));
        let dangerous = serde_json::to_value(describe(&spec(Scope::Dangerous))).unwrap();
        assert_eq!(
            dangerous["annotations"],
            json!({"readOnlyHint": false, "destructiveHint": true})
        );
    }

    #[test]
    fn a_schema_without_type_gets_object() {
        assert_eq!(input_schema(&json!({}))["type"], "object");
        assert_eq!(input_schema(&Value::Null)["type"], "object");
    }

    #[test]
    fn close_names_rank_case_then_edits_then_containment() {
        let available: Vec<String> = ["calc", "calculator", "file_read", "web_search"]
            .map(String::from)
            .into();
        assert_eq!(close_names("CALC", &available), ["calc", "calculator"]);
        assert_eq!(close_names("clac", &available), ["calc"]);
        assert_eq!(close_names("file-read", &available), ["file_read"]);
        assert_eq!(close_names("search", &available), ["web_search"]);
        assert!(close_names("zzz", &available).is_empty());
    }
}

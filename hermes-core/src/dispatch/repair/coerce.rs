//! Values of the wrong JSON type that the schema reads unambiguously: `"42"` -> 42 for
//! an integer (`"3.0"` -> 3, `"3.14"` stays), `"true"` -> true (`"1"` does not), a
//! JSON-encoded array or object in a string -> the value, one value -> a one-element
//! array, `"null"` -> null when nullable. Unions are tried in order. `"inf"` and
//! `"nan"` are never numbers.

use serde_json::{Number, Value};

/// Coerce `value` toward `schema` (`root` resolves `$ref`s); returns what changed, as
/// `path: before -> after`.
pub(crate) fn coerce(value: &mut Value, schema: &Value, root: &Value) -> Vec<String> {
    let mut changes = Vec::new();
    walk(value, schema, root, &mut String::new(), &mut changes, 0);
    changes
}

const MAX_DEPTH: usize = 32;

fn walk(
    value: &mut Value,
    schema: &Value,
    root: &Value,
    path: &mut String,
    changes: &mut Vec<String>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let schema = resolve(schema, root);
    // Unions: keep a value one branch accepts as is; else the first branch it converts to.
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let branches: Vec<&Value> = branches.iter().map(|b| resolve(b, root)).collect();
            if branches.iter().any(|branch| fits(value, branch)) {
                if let Some(branch) = branches.iter().find(|branch| fits(value, branch)) {
                    walk(value, branch, root, path, changes, depth + 1);
                }
                return;
            }
            for branch in branches {
                if let Some(converted) = convert(value, &types(branch)) {
                    record(path, value, &converted, changes);
                    *value = converted;
                    walk(value, branch, root, path, changes, depth + 1);
                    return;
                }
            }
            return;
        }
    }
    let allowed = types(schema);
    if !allowed.is_empty() && !allowed.iter().any(|t| is_type(value, t)) {
        if let Some(converted) = convert(value, &allowed) {
            record(path, value, &converted, changes);
            *value = converted;
        }
    }
    match value {
        Value::Object(members) => {
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, member) in members.iter_mut() {
                    if let Some(property) = properties.get(name) {
                        let len = path.len();
                        path.push('/');
                        path.push_str(name);
                        walk(member, property, root, path, changes, depth + 1);
                        path.truncate(len);
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").filter(|s| s.is_object()) {
                for (index, item) in items.iter_mut().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("/{index}"));
                    walk(item, item_schema, root, path, changes, depth + 1);
                    path.truncate(len);
                }
            }
        }
        _ => {}
    }
}

fn record(path: &str, before: &Value, after: &Value, changes: &mut Vec<String>) {
    let at = if path.is_empty() { "(root)" } else { path };
    changes.push(format!("{at}: {before} -> {after}"));
}

/// A local `$ref` (`#/$defs/Unit`) resolved, once per level.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
        .unwrap_or(schema)
}

/// The `type` keyword as a list.
fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn fits(value: &Value, schema: &Value) -> bool {
    let allowed = types(schema);
    allowed.is_empty() || allowed.iter().any(|t| is_type(value, t))
}

fn is_type(value: &Value, kind: &str) -> bool {
    match kind {
        "integer" => {
            value.as_i64().is_some()
                || value.as_u64().is_some()
                || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        "number" => value.is_number(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    }
}

/// The first of `allowed` that `value` converts to without guessing.
fn convert(value: &Value, allowed: &[&str]) -> Option<Value> {
    allowed.iter().find_map(|kind| convert_to(value, kind))
}

fn convert_to(value: &Value, kind: &str) -> Option<Value> {
    let text = value.as_str().map(str::trim);
    match kind {
        "integer" => {
            let text = text?;
            if let Ok(int) = text.parse::<i64>() {
                return Some(Value::from(int));
            }
            let float = finite(text)?;
            (float.fract() == 0.0 && float.abs() < 9.0e15).then(|| Value::from(float as i64))
        }
        "number" => {
            let text = text?;
            match text.parse::<i64>() {
                Ok(int) => Some(Value::from(int)),
                Err(_) => Number::from_f64(finite(text)?).map(Value::Number),
            }
        }
        "boolean" => match text? {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "null" => (text? == "null").then_some(Value::Null),
        "array" => match value {
            Value::String(raw) => match serde_json::from_str::<Value>(raw.trim()) {
                Ok(array @ Value::Array(_)) => Some(array),
                _ => Some(Value::Array(vec![value.clone()])),
            },
            Value::Object(_) | Value::Number(_) | Value::Bool(_) => {
                Some(Value::Array(vec![value.clone()]))
            }
            _ => None,
        },
        "object" => match serde_json::from_str::<Value>(text?) {
            Ok(object @ Value::Object(_)) => Some(object),
            _ => None,
        },
        _ => None,
    }
}

/// A finite number written in plain digits (`inf`, `nan`, `1e999` are not).
fn finite(text: &str) -> Option<f64> {
    let plain = text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'));
    let number: f64 = text.parse().ok()?;
    (plain && number.is_finite()).then_some(number)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "flag": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "integer"}},
                "meta": {"type": "object", "properties": {"n": {"type": "integer"}}},
                "maybe": {"type": ["integer", "null"]},
                "either": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
                "unit": {"$ref": "#/$defs/Level"}
            },
            "$defs": {"Level": {"type": "integer"}}
        })
    }

    fn run(args: Value) -> (Value, usize) {
        let mut args = args;
        let schema = schema();
        let changes = coerce(&mut args, &schema, &schema);
        (args, changes.len())
    }

    #[test]
    fn the_examples() {
        let (args, n) = run(json!({
            "count": "42", "ratio": "2.5", "flag": "true", "tags": "[1, \"2\"]",
            "meta": "{\"n\": \"7\"}", "maybe": "null", "either": "false", "unit": "3"
        }));
        assert_eq!(
            args,
            json!({
                "count": 42, "ratio": 2.5, "flag": true, "tags": [1, 2],
                "meta": {"n": 7}, "maybe": null, "either": false, "unit": 3
            })
        );
        assert_eq!(
            n, 10,
            "every member, plus the string inside the decoded array"
        );
    }

    #[test]
    fn what_is_not_coerced() {
        for (value, key) in [
            (json!("3.14"), "count"),
            (json!("1"), "flag"),
            (json!("inf"), "ratio"),
            (json!("nan"), "ratio"),
            (json!("NaN"), "count"),
            (json!("1e999"), "ratio"),
        ] {
            let (args, n) = run(json!({ key: value.clone() }));
            assert_eq!((args[key].clone(), n), (value.clone(), 0), "{key}: {value}");
        }
        let (args, _) = run(json!({"count": "3.0"}));
        assert_eq!(args["count"], 3);
    }

    #[test]
    fn a_single_value_becomes_an_array() {
        let (args, _) = run(json!({"tags": 5}));
        assert_eq!(args["tags"], json!([5]));
        let (args, _) = run(json!({"tags": "7"}));
        assert_eq!(args["tags"], json!([7]));
    }
}

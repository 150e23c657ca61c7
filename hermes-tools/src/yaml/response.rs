//! `response_mapping`: when a response counts as success, and which fields of it the
//! model gets.

use serde_json::{Map, Value};

use super::raw::RawMapping;

/// A compiled response mapping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mapping {
    /// A field whose presence means success.
    pub(crate) success_field: Option<FieldPath>,
    /// The fields returned (all of the body when empty).
    pub(crate) output_fields: Vec<FieldPath>,
}

impl Mapping {
    /// Check `raw`'s paths.
    ///
    /// # Errors
    ///
    /// An empty path or path segment.
    pub(crate) fn from_raw(raw: &RawMapping) -> Result<Self, String> {
        Ok(Self {
            success_field: raw
                .success_field
                .as_deref()
                .map(FieldPath::parse)
                .transpose()?,
            output_fields: raw
                .output_fields
                .iter()
                .map(|path| FieldPath::parse(path))
                .collect::<Result<_, _>>()?,
        })
    }

    /// What the model gets of `body`: the output fields by their path (missing ones as
    /// null), or the whole body when none are named.
    pub(crate) fn pick(&self, body: Value) -> Value {
        if self.output_fields.is_empty() {
            return body;
        }
        let picked: Map<String, Value> = self
            .output_fields
            .iter()
            .map(|path| {
                (
                    path.text.clone(),
                    path.lookup(&body).cloned().unwrap_or(Value::Null),
                )
            })
            .collect();
        Value::Object(picked)
    }
}

/// A dotted path into a JSON value: `fields.summary`, `items.0.id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldPath {
    /// As written.
    pub(crate) text: String,
    steps: Vec<String>,
}

impl FieldPath {
    /// Parse `text`.
    ///
    /// # Errors
    ///
    /// An empty path or segment (`a..b`).
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let steps: Vec<String> = text.split('.').map(str::to_owned).collect();
        if text.is_empty() || steps.iter().any(String::is_empty) {
            return Err(format!(
                "response_mapping: `{text}` is not a field path (write `name` or `outer.inner.0`)"
            ));
        }
        Ok(Self {
            text: text.to_owned(),
            steps,
        })
    }

    /// The value at this path in `value`: object members by name, array elements by
    /// index.
    pub(crate) fn lookup<'a>(&self, value: &'a Value) -> Option<&'a Value> {
        self.steps.iter().try_fold(value, |at, step| match at {
            Value::Object(members) => members.get(step),
            Value::Array(items) => step
                .parse::<usize>()
                .ok()
                .and_then(|index| items.get(index)),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn paths_reach_into_objects_and_arrays() {
        let body = json!({"key": "PROJ-1", "fields": {"labels": ["a", "b"]}});
        let path = FieldPath::parse("fields.labels.1").unwrap();
        assert_eq!(path.lookup(&body), Some(&json!("b")));
        assert_eq!(FieldPath::parse("nope.x").unwrap().lookup(&body), None);
        assert!(FieldPath::parse("a..b").is_err());
        let mapping = Mapping::from_raw(&RawMapping {
            success_field: Some("key".into()),
            output_fields: vec!["key".into(), "fields.labels.0".into(), "gone".into()],
        })
        .unwrap();
        assert_eq!(
            mapping.pick(body),
            json!({"key": "PROJ-1", "fields.labels.0": "a", "gone": null})
        );
    }
}

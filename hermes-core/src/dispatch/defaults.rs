//! Step 2b: fill in the `default` of each top-level property the model left out, so
//! validation and the tool both see complete arguments.

use jsonschema::Validator;
use serde_json::{Map, Value};

use crate::Error;

/// The top-level `properties.*.default` values of one schema, collected at registration.
#[derive(Debug, Default)]
pub(crate) struct Defaults(Vec<(String, Value)>);

impl Defaults {
    /// Collect the defaults of `schema` and check each against its own property's rules
    /// (with the whole validator, so `$ref`s resolve).
    pub(crate) fn of(tool: &str, schema: &Value, validator: &Validator) -> Result<Self, Error> {
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return Ok(Self::default());
        };
        let mut defaults = Vec::new();
        for (name, property) in properties {
            let Some(default) = property.get("default") else {
                continue;
            };
            let probe = Value::Object(Map::from_iter([(name.clone(), default.clone())]));
            let pointer = format!("/{}", name.replace('~', "~0").replace('/', "~1"));
            if let Some(error) = validator
                .iter_errors(&probe)
                .find(|error| error.instance_path().as_str().starts_with(&pointer))
            {
                return Err(Error::InvalidSchema {
                    tool: tool.to_owned(),
                    reason: format!("the default of `{name}` breaks its own schema: {error}"),
                });
            }
            defaults.push((name.clone(), default.clone()));
        }
        Ok(Self(defaults))
    }

    /// Insert the defaults missing from `args` (only when `args` is an object).
    pub(crate) fn apply(&self, args: &mut Value) {
        if self.0.is_empty() {
            return;
        }
        if let Value::Object(members) = args {
            for (name, default) in &self.0 {
                if !members.contains_key(name) {
                    members.insert(name.clone(), default.clone());
                }
            }
        }
    }
}

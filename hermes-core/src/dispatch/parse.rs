//! Step 2: parse the model's argument string, repairing what is unambiguous and
//! refusing what was cut off.

use serde_json::{Map, Value};

use super::repair::{JsonRepair, Repair, RepairKind, repair_json};
use crate::ToolError;

/// The arguments as JSON. With `repair`, an empty or `null` argument string for a tool
/// without required arguments reads as `{}`, and almost-JSON is fixed. Arguments cut
/// off mid-way are never run: the model is told.
pub(crate) fn arguments(
    raw: &str,
    repair: bool,
    schema: &Value,
) -> Result<(Value, Option<Repair>), ToolError> {
    let takes_nothing = || {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_none_or(Vec::is_empty)
    };
    let empty = || Value::Object(Map::new());
    let error = match serde_json::from_str(raw) {
        Ok(Value::Null) if repair && takes_nothing() => {
            return Ok((empty(), Some(Repair::new(RepairKind::Json, "null -> {}"))));
        }
        Ok(value) => return Ok((value, None)),
        Err(error) => error,
    };
    if repair && takes_nothing() && raw.trim().is_empty() {
        let repaired = Repair::new(RepairKind::Json, "empty arguments -> {}");
        return Ok((empty(), Some(repaired)));
    }
    match repair_json(raw) {
        JsonRepair::Truncated(reason) => Err(ToolError::Truncated { reason }),
        JsonRepair::Fixed(value, fixes) if repair => {
            Ok((value, Some(Repair::new(RepairKind::Json, fixes.join(", ")))))
        }
        JsonRepair::Fixed(..) | JsonRepair::Failed => Err(bad_json(&error)),
    }
}

fn bad_json(err: &serde_json::Error) -> ToolError {
    let full = err.to_string();
    // serde_json appends " at line L column C"; keep the message, report the position apart.
    let message = full
        .rsplit_once(" at line ")
        .map_or(full.as_str(), |(message, _)| message)
        .to_owned();
    ToolError::BadJson {
        message,
        line: err.line(),
        column: err.column(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn required() -> Value {
        json!({"type": "object", "required": ["a"]})
    }

    fn optional() -> Value {
        json!({"type": "object", "properties": {"a": {"type": "integer"}}})
    }

    #[test]
    fn reports_message_and_position() {
        let err = arguments("{\"a\": 1,\n \"b\": }", true, &required()).unwrap_err();
        let ToolError::BadJson {
            message,
            line,
            column,
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!((*line, *column), (2, 7));
        assert_eq!(message, "expected value");
        assert!(
            err.to_string()
                .contains("expected value at line 2 column 7")
        );
    }

    #[test]
    fn nothing_means_no_arguments_only_when_none_are_required() {
        for raw in ["", "  ", "null"] {
            let (value, repair) = arguments(raw, true, &optional()).unwrap();
            assert_eq!(value, json!({}), "{raw:?}");
            assert_eq!(repair.unwrap().kind, RepairKind::Json);
        }
        assert!(arguments("", true, &required()).is_err());
        assert_eq!(arguments("null", true, &required()).unwrap().0, Value::Null);
        assert!(arguments("", false, &optional()).is_err(), "repairs off");
    }

    #[test]
    fn fixes_only_when_repairing_and_always_refuses_cut_off_calls() {
        let raw = r#"{"expression": "1+2",}"#;
        let (value, repair) = arguments(raw, true, &required()).unwrap();
        assert_eq!(value, json!({"expression": "1+2"}));
        assert_eq!(repair.unwrap().detail, "removed trailing commas");
        assert_eq!(
            arguments(raw, false, &required()).unwrap_err().kind(),
            crate::ToolErrorKind::BadJson
        );
        let cut = r#"{"content": "the start of a long"#;
        for repair in [true, false] {
            let err = arguments(cut, repair, &required()).unwrap_err();
            assert_eq!(err.kind(), crate::ToolErrorKind::Truncated);
            assert!(err.to_string().contains("cut off"), "{err}");
        }
    }
}

//! The values a query runs on: a JSON value given as is, or JSON text (a string or a
//! file) holding one value or several, whitespace-separated (JSON Lines), as jq reads.

use serde_json::Value;

/// The most values one text may hold.
pub(super) const MAX_VALUES: usize = 10_000;

/// The values in `text`; `source` names it in errors (`input`, a file's path).
///
/// # Errors
///
/// Where the text stops being JSON, in lines and columns, or that it holds no value or
/// too many.
pub(super) fn parse_stream(text: &str, source: &str) -> Result<Vec<Value>, String> {
    let mut values = Vec::new();
    for value in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        let value = value.map_err(|error| {
            format!(
                "{source} is not valid JSON: {error}; fix it, or pass the value itself rather than text"
            )
        })?;
        if values.len() == MAX_VALUES {
            return Err(format!(
                "{source} holds more than {MAX_VALUES} JSON values; query a smaller part"
            ));
        }
        values.push(value);
    }
    if values.is_empty() {
        return Err(format!("{source} holds no JSON value"));
    }
    Ok(values)
}

/// The values of the `input` argument: a string is JSON text, anything else a value.
///
/// # Errors
///
/// As [`parse_stream`] for a string.
pub(super) fn from_argument(input: Value) -> Result<Vec<Value>, String> {
    match input {
        Value::String(text) => parse_stream(&text, "`input` (a string, read as JSON text)"),
        value => Ok(vec![value]),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_values_text_and_streams() {
        assert_eq!(from_argument(json!({"a": 1})), Ok(vec![json!({"a": 1})]));
        assert_eq!(from_argument(json!("[1, 2]")), Ok(vec![json!([1, 2])]));
        assert_eq!(
            parse_stream("{\"a\":1}\n{\"a\":2}\n", "f"),
            Ok(vec![json!({"a": 1}), json!({"a": 2})])
        );
        assert_eq!(from_argument(json!("\"text\"")), Ok(vec![json!("text")]));
    }

    #[test]
    fn errors_say_where() {
        let error = parse_stream("{\"a\":\n  tru}", "input").unwrap_err();
        assert!(error.contains("line 2 column"), "{error}");
        assert!(
            parse_stream("  ", "input")
                .unwrap_err()
                .contains("no JSON value")
        );
    }
}

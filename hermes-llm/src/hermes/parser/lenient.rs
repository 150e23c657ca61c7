//! Lenient readings of a block: Python-literal dicts and several JSON values in a row.

use serde_json::Value;

/// Every JSON value in `text`, one after another (whitespace between them).
pub(super) fn values(text: &str) -> Result<Vec<Value>, serde_json::Error> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .collect()
}

/// `text` with Python literals made JSON: single-quoted strings, `True`, `False`,
/// `None`. Returns `None` when nothing needed changing.
pub(super) fn python_to_json(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push('"');
                let mut escaped = false;
                for d in chars.by_ref() {
                    out.push(d);
                    if escaped {
                        escaped = false;
                    } else if d == '\\' {
                        escaped = true;
                    } else if d == '"' {
                        break;
                    }
                }
            }
            '\'' => {
                changed = true;
                let mut value = String::new();
                let mut escaped = false;
                for d in chars.by_ref() {
                    if escaped {
                        value.push(if d == '\'' { '\'' } else { d });
                        if d != '\'' {
                            value.insert(value.len() - d.len_utf8(), '\\');
                        }
                        escaped = false;
                    } else if d == '\\' {
                        escaped = true;
                    } else if d == '\'' {
                        break;
                    } else if d == '"' {
                        value.push_str("\\\"");
                    } else {
                        value.push(d);
                    }
                }
                out.push('"');
                out.push_str(&value);
                out.push('"');
            }
            c if c.is_ascii_alphabetic() => {
                let mut word = String::from(c);
                while let Some(&d) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' {
                        word.push(d);
                        chars.next();
                    } else {
                        break;
                    }
                }
                let json = match word.as_str() {
                    "True" => "true",
                    "False" => "false",
                    "None" => "null",
                    other => other,
                };
                changed |= json != word;
                out.push_str(json);
            }
            other => out.push(other),
        }
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn python_dicts_become_json() {
        let text = python_to_json(
            r#"{'name': 'f', 'arguments': {'a': True, 'b': None, 'c': 'it\'s "x"'}}"#,
        )
        .unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            value,
            json!({"name": "f", "arguments": {"a": true, "b": null, "c": "it's \"x\""}})
        );
        assert_eq!(python_to_json(r#"{"a": "True"}"#), None);
    }

    #[test]
    fn several_values() {
        assert_eq!(values("{\"a\":1} {\"b\":2}").unwrap().len(), 2);
        assert!(values("{\"a\":1} {").is_err());
    }
}

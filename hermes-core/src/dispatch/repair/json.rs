//! Argument JSON the model almost got right: trailing commas, one missing or extra
//! closing brace, raw newlines and control characters inside strings. Output cut off in
//! the middle of a string is not repaired: the model is told.

use serde_json::Value;

/// What could be made of a broken argument string.
#[derive(Debug, PartialEq)]
pub(crate) enum JsonRepair {
    /// It parses after these fixes.
    Fixed(Value, Vec<&'static str>),
    /// The model's output was cut off: do not guess the rest.
    Truncated(String),
    /// Nothing safe to do.
    Failed,
}

/// Try the fixes, one after another, until the text parses.
pub(crate) fn repair(raw: &str) -> JsonRepair {
    let trimmed = raw.trim();
    if !trimmed.starts_with('{') {
        return JsonRepair::Failed;
    }
    let scan = Scan::of(trimmed);
    if scan.in_string {
        return JsonRepair::Truncated("the arguments end inside a string".to_owned());
    }
    if scan.open_brackets > 0 {
        return JsonRepair::Truncated("an array is not closed".to_owned());
    }
    if scan.open_braces > 1 {
        return JsonRepair::Truncated(format!("{} closing braces are missing", scan.open_braces));
    }
    if scan.open_braces == 1 && trimmed.ends_with([',', ':']) {
        return JsonRepair::Truncated(format!(
            "the arguments stop after `{}`",
            &trimmed[trimmed.len() - 1..]
        ));
    }
    let mut text = trimmed.to_owned();
    let mut fixes = Vec::new();
    if let Some(escaped) = escape_controls(&text) {
        text = escaped;
        fixes.push("escaped control characters inside strings");
    }
    if let Some(cleaned) = drop_trailing_commas(&text) {
        text = cleaned;
        fixes.push("removed trailing commas");
    }
    if let Ok(value) = serde_json::from_str::<Value>(&text) {
        return if fixes.is_empty() {
            JsonRepair::Failed
        } else {
            JsonRepair::Fixed(value, fixes)
        };
    }
    let balance = Scan::of(&text).open_braces;
    if balance == 1 {
        text.push('}');
        fixes.push("added the missing closing brace");
    } else if balance == -1 && text.ends_with('}') {
        text.pop();
        fixes.push("removed an extra closing brace");
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(value) if !fixes.is_empty() => JsonRepair::Fixed(value, fixes),
        _ => JsonRepair::Failed,
    }
}

/// Where a character of JSON text stands: inside a string (after its opening quote,
/// up to and including its closing quote) or outside.
#[derive(Default)]
struct Strings {
    inside: bool,
    escaped: bool,
}

impl Strings {
    /// Read `c`; whether it is part of a string (quotes included).
    fn read(&mut self, c: char) -> bool {
        if !self.inside {
            self.inside = c == '"';
            return self.inside;
        }
        if self.escaped {
            self.escaped = false;
        } else if c == '\\' {
            self.escaped = true;
        } else if c == '"' {
            self.inside = false;
        }
        true
    }

    /// Whether `c`, read next, would be an unescaped character inside a string.
    fn is_raw_inside(&self) -> bool {
        self.inside && !self.escaped
    }
}

/// Braces and strings, read string-aware.
struct Scan {
    in_string: bool,
    /// `{` minus `}` outside strings.
    open_braces: i64,
    /// `[` minus `]` outside strings.
    open_brackets: i64,
}

impl Scan {
    fn of(text: &str) -> Self {
        let mut strings = Strings::default();
        let (mut open_braces, mut open_brackets) = (0i64, 0i64);
        for c in text.chars() {
            if strings.read(c) {
                continue;
            }
            match c {
                '{' => open_braces += 1,
                '}' => open_braces -= 1,
                '[' => open_brackets += 1,
                ']' => open_brackets -= 1,
                _ => {}
            }
        }
        Self {
            in_string: strings.inside,
            open_braces,
            open_brackets,
        }
    }
}

/// Raw control characters inside strings, written as escapes; `None` if there were none.
fn escape_controls(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let (mut strings, mut changed) = (Strings::default(), false);
    for c in text.chars() {
        if strings.is_raw_inside() && (c as u32) < 0x20 {
            changed = true;
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                other => out.push_str(&format!("\\u{:04x}", other as u32)),
            }
            continue;
        }
        strings.read(c);
        out.push(c);
    }
    changed.then_some(out)
}

/// `,` right before `}` or `]` (outside strings) removed; `None` if there were none.
fn drop_trailing_commas(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let (mut strings, mut changed) = (Strings::default(), false);
    for (at, &c) in chars.iter().enumerate() {
        if !strings.read(c) && c == ',' {
            let next = chars[at + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}' | ']') | None) {
                changed = true;
                continue;
            }
        }
        out.push(c);
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fixed(raw: &str) -> Value {
        match repair(raw) {
            JsonRepair::Fixed(value, _) => value,
            other => panic!("{raw}: {other:?}"),
        }
    }

    #[test]
    fn fixes() {
        assert_eq!(
            fixed(r#"{"expression": "1+2",}"#),
            json!({"expression": "1+2"})
        );
        assert_eq!(
            fixed(r#"{"a": [1, 2,], "b": 3, }"#),
            json!({"a": [1, 2], "b": 3})
        );
        assert_eq!(fixed(r#"{"a": {"b": 1}"#), json!({"a": {"b": 1}}));
        assert_eq!(fixed(r#"{"a": 1}}"#), json!({"a": 1}));
        assert_eq!(
            fixed("{\"text\": \"line one\nline two\ttab\"}"),
            json!({"text": "line one\nline two\ttab"})
        );
        assert_eq!(fixed("{\"text\": \"a,}\",}"), json!({"text": "a,}"}));
    }

    #[test]
    fn truncation_is_reported_not_repaired() {
        assert!(matches!(
            repair(r#"{"content": "a long text that was cu"#),
            JsonRepair::Truncated(_)
        ));
        assert!(matches!(
            repair(r#"{"a": {"b": {"c": 1"#),
            JsonRepair::Truncated(_)
        ));
        assert!(matches!(
            repair(r#"{"items": [1, 2"#),
            JsonRepair::Truncated(_)
        ));
        assert!(matches!(
            repair(r#"{"path": "a.txt", "#),
            JsonRepair::Truncated(_)
        ));
        assert!(matches!(repair(r#"{"path":"#), JsonRepair::Truncated(_)));
    }

    #[test]
    fn hopeless_input_fails() {
        assert_eq!(repair("not json"), JsonRepair::Failed);
        assert_eq!(
            repair(r#"{"a": 1}"#),
            JsonRepair::Failed,
            "nothing to repair"
        );
        assert_eq!(repair(r#"{"a" 1}"#), JsonRepair::Failed);
        assert_eq!(
            repair(r#"say "hi"#),
            JsonRepair::Failed,
            "not an object: not a cut-off call"
        );
    }
}

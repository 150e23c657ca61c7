//! `request_template`: a JSON body with `{{param}}` placeholders, filled in without ever
//! splicing text into JSON.
//!
//! The template is parsed once, at load time, into a tree; a call fills the tree with
//! argument values and serializes the result. A value can therefore never break out of
//! its place, whatever quotes, backslashes or newlines it holds.
//!
//! - In a JSON text template, a placeholder inside a string (`"{{summary}}"`,
//!   `"Bug: {{title}}"`) becomes text in that string; a bare one (`{"count": {{n}}}`)
//!   becomes the argument's JSON value, typed.
//! - In a template written as YAML (a mapping), a string that is exactly one placeholder
//!   takes the typed value; other strings take text.
//! - An absent optional argument drops the member (or array element) that uses it. Give
//!   the parameter a `default` to send a value instead.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::placeholder::{self, Piece};

/// A compiled request template.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BodyTemplate {
    root: Node,
}

/// A node of the template tree.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    /// Sent as is.
    Literal(Value),
    /// The argument's value, typed.
    Value(String),
    /// A string made of text and arguments' text.
    Text(Vec<Piece>),
    /// An object; members whose value is absent are dropped.
    Object(Vec<(String, Node)>),
    /// An array; absent elements are dropped.
    Array(Vec<Node>),
}

impl BodyTemplate {
    /// Compile a template given as JSON text (a YAML string) or as a YAML structure.
    ///
    /// # Errors
    ///
    /// Text that is not JSON once bare placeholders are read as values, or a malformed
    /// placeholder; the message says where in the template.
    pub(crate) fn compile(template: &Value) -> Result<Self, TemplateError> {
        let unplaced = |message: String| TemplateError { message, at: None };
        let root = match template {
            Value::String(text) => {
                let json = quote_bare_placeholders(text).map_err(unplaced)?;
                let value: Value = serde_json::from_str(&json).map_err(|error| TemplateError {
                    message: format!("request_template is not valid JSON: {error}"),
                    at: Some((error.line(), error.column())),
                })?;
                node(&value, Whole::Text).map_err(unplaced)?
            }
            other => node(other, Whole::Value).map_err(unplaced)?,
        };
        Ok(Self { root })
    }

    /// Every parameter the template uses.
    pub(crate) fn params(&self) -> BTreeSet<&str> {
        let mut out = BTreeSet::new();
        self.root.params(&mut out);
        out
    }

    /// The body for `args` (`None` when even the root is absent).
    pub(crate) fn render(&self, args: &Map<String, Value>) -> Option<Value> {
        self.root.render(args)
    }
}

/// Why a template does not compile, and where in its text (1-based line and column),
/// when it is text.
#[derive(Debug)]
pub(crate) struct TemplateError {
    pub(crate) message: String,
    pub(crate) at: Option<(usize, usize)>,
}

/// Where the placeholder `{{name}}` first appears in `text`: 1-based line and column.
pub(crate) fn locate(text: &str, name: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(open) = text[from..].find("{{").map(|i| i + from) {
        let inner = &text[open + 2..];
        let close = inner.find("}}")?;
        if inner[..close].trim() == name {
            let before = &text[..open];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            return Some((line, column));
        }
        from = open + 2;
    }
    None
}

/// How a string that is exactly one placeholder is filled.
#[derive(Debug, Clone, Copy)]
enum Whole {
    /// With the argument's text (a JSON text template: the author wrote quotes).
    Text,
    /// With the argument's typed value (a YAML template; and bare placeholders, which
    /// arrive here as [`BARE`]-marked strings).
    Value,
}

/// Marks a placeholder that stood outside any string in a JSON text template (a string
/// starting with U+0001, which no sensible template holds).
const BARE: char = '\u{1}';

fn node(value: &Value, whole: Whole) -> Result<Node, String> {
    Ok(match value {
        Value::String(text) => {
            if let Some(name) = text.strip_prefix(BARE) {
                return Ok(Node::Value(name.to_owned()));
            }
            let pieces = placeholder::split(text)?;
            match (pieces.as_slice(), whole) {
                ([Piece::Param(name)], Whole::Value) => Node::Value(name.clone()),
                _ if pieces.iter().all(|piece| matches!(piece, Piece::Text(_))) => {
                    Node::Literal(value.clone())
                }
                _ => Node::Text(pieces),
            }
        }
        Value::Object(members) => {
            let mut out = Vec::with_capacity(members.len());
            for (key, member) in members {
                if key.contains("{{") {
                    return Err(format!(
                        "request_template: placeholders may not appear in keys (`{key}`)"
                    ));
                }
                out.push((key.clone(), node(member, whole)?));
            }
            Node::Object(out)
        }
        Value::Array(items) => Node::Array(
            items
                .iter()
                .map(|item| node(item, whole))
                .collect::<Result<_, _>>()?,
        ),
        other => Node::Literal(other.clone()),
    })
}

impl Node {
    fn params<'a>(&'a self, out: &mut BTreeSet<&'a str>) {
        match self {
            Self::Literal(_) => {}
            Self::Value(name) => {
                out.insert(name);
            }
            Self::Text(pieces) => out.extend(placeholder::params(pieces)),
            Self::Object(members) => members.iter().for_each(|(_, node)| node.params(out)),
            Self::Array(items) => items.iter().for_each(|node| node.params(out)),
        }
    }

    fn render(&self, args: &Map<String, Value>) -> Option<Value> {
        match self {
            Self::Literal(value) => Some(value.clone()),
            Self::Value(name) => args.get(name).filter(|value| !value.is_null()).cloned(),
            Self::Text(pieces) => {
                let mut text = String::new();
                for piece in pieces {
                    match piece {
                        Piece::Text(literal) => text.push_str(literal),
                        Piece::Param(name) => match args.get(name) {
                            None | Some(Value::Null) => return None,
                            Some(Value::String(value)) => text.push_str(value),
                            Some(other) => text.push_str(&other.to_string()),
                        },
                    }
                }
                Some(Value::String(text))
            }
            Self::Object(members) => Some(Value::Object(
                members
                    .iter()
                    .filter_map(|(key, node)| Some((key.clone(), node.render(args)?)))
                    .collect(),
            )),
            Self::Array(items) => Some(Value::Array(
                items.iter().filter_map(|node| node.render(args)).collect(),
            )),
        }
    }
}

/// Turn each placeholder outside a JSON string into a [`BARE`]-marked string, so the
/// text parses as JSON and the placeholder takes a typed value.
fn quote_bare_placeholders(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if rest.starts_with("{{") {
            let close = rest
                .find("}}")
                .ok_or("request_template: `{{` without a closing `}}`")?;
            let name = rest[2..close].trim();
            if !placeholder::is_name(name) {
                return Err(format!(
                    "request_template: `{}` is not a placeholder: write `{{{{parameter_name}}}}`",
                    &rest[..close + 2]
                ));
            }
            // JSON text may not hold the control character raw: write its escape.
            out.push_str("\"\\u0001");
            out.push_str(name);
            out.push('"');
            rest = &rest[close + 2..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn args(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn values_cannot_break_out_of_their_string() {
        let template = BodyTemplate::compile(&json!(
            r#"{"fields": {"summary": "{{summary}}", "note": "by {{who}}"}}"#
        ))
        .unwrap();
        let hostile = r#"x", "admin": true, "y": "\n"#;
        let body = template
            .render(&args(json!({"summary": hostile, "who": "a\"b"})))
            .unwrap();
        assert_eq!(body["fields"]["summary"], hostile);
        assert_eq!(body["fields"]["note"], "by a\"b");
        assert_eq!(body["fields"].as_object().unwrap().len(), 2);
    }

    #[test]
    fn bare_placeholders_are_typed_and_absent_ones_drop_their_member() {
        let template = BodyTemplate::compile(&json!(
            r#"{"n": {{count}}, "tags": [{{tag}}, "fixed"], "s": "{{count}}"}"#
        ))
        .unwrap();
        assert_eq!(
            template.params().into_iter().collect::<Vec<_>>(),
            ["count", "tag"]
        );
        let body = template.render(&args(json!({"count": 3}))).unwrap();
        assert_eq!(body, json!({"n": 3, "tags": ["fixed"], "s": "3"}));
    }

    #[test]
    fn yaml_templates_take_typed_values_for_whole_placeholders() {
        let template =
            BodyTemplate::compile(&json!({"a": "{{n}}", "b": "n={{n}}", "c": [1, "{{flag}}"]}))
                .unwrap();
        let body = template
            .render(&args(json!({"n": 2, "flag": false})))
            .unwrap();
        assert_eq!(body, json!({"a": 2, "b": "n=2", "c": [1, false]}));
    }

    #[test]
    fn broken_templates_are_refused_with_where() {
        let error = BodyTemplate::compile(&json!("{\"a\": \"{{x}}\",\n \"b\": }")).unwrap_err();
        assert_eq!(error.at, Some((2, 7)), "{error:?}");
        assert_eq!(locate("{\n  \"a\": \"{{ x }}\"}", "x"), Some((2, 9)));
        assert!(BodyTemplate::compile(&json!(r#"{"a": {{x}"#)).is_err());
        assert!(BodyTemplate::compile(&json!({"{{k}}": 1})).is_err());
        assert!(BodyTemplate::compile(&json!(r#"{"a": {{not a name}}}"#)).is_err());
    }
}

//! GBNF grammars (llama.cpp's) that make a model answer with a `<tool_call>` block for
//! one of the offered tools, its arguments shaped by the tool's schema. Small local
//! models rarely write the format on their own; with a grammar they always do.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

/// Longest string a grammar lets a model write inside an argument.
const MAX_STRING: usize = 160;

/// A grammar for one `<tool_call>` block calling one of `tools` (OpenAI function
/// objects). Schemas it cannot follow (`$ref`, `anyOf`...) fall back to any JSON value.
pub fn tool_call_grammar(tools: &[Value]) -> String {
    grammar(
        tools,
        "root ::= \"<tool_call>\\n\" call \"\\n</tool_call>\"",
    )
}

/// A grammar for a whole answer when `tools` are offered and the model may choose:
/// either plain text (without `<`, so it cannot start a malformed block), or one or
/// more `<tool_call>` blocks, each calling one of `tools` with arguments shaped by its
/// schema. Valid calls by construction, whatever the model's size.
pub fn answer_or_tool_calls_grammar(tools: &[Value]) -> String {
    grammar(
        tools,
        "root ::= answer | block ( \"\\n\" block )*\n\
         answer ::= [^<]+\n\
         block ::= \"<tool_call>\\n\" call \"\\n</tool_call>\"",
    )
}

/// `root` (and the rules it names, besides `call`) followed by `call ::=` one of
/// `tools`, and the rules of their schemas.
fn grammar(tools: &[Value], root: &str) -> String {
    let mut rules = Rules::default();
    let mut alternatives = Vec::new();
    for tool in tools {
        let function = tool.get("function").unwrap_or(tool);
        let Some(name) = function.get("name").and_then(Value::as_str) else {
            continue;
        };
        let parameters = function.get("parameters").cloned().unwrap_or(Value::Null);
        let arguments = rules.schema(&format!("args-{}", rule_name(name)), &parameters);
        let head = literal(&format!(
            "{{\"name\": {}, \"arguments\": ",
            Value::String(name.to_owned())
        ));
        alternatives.push(format!("{head} {arguments} \"}}\""));
    }
    if alternatives.is_empty() {
        alternatives.push("value".to_owned());
        rules.generic();
    }
    let mut grammar = String::new();
    let _ = writeln!(grammar, "{root}");
    let _ = writeln!(grammar, "call ::= {}", alternatives.join(" | "));
    for (name, body) in &rules.rules {
        let _ = writeln!(grammar, "{name} ::= {body}");
    }
    grammar
}

#[derive(Default)]
struct Rules {
    rules: BTreeMap<String, String>,
}

impl Rules {
    /// The rule (or inline expression) for a value of `schema`, named from `name`.
    fn schema(&mut self, name: &str, schema: &Value) -> String {
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            let options: Vec<String> = values.iter().map(|v| literal(&v.to_string())).collect();
            if !options.is_empty() {
                return self.add(name, options.join(" | "));
            }
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("object") => self.object(name, schema),
            Some("array") => {
                let item = match schema.get("items") {
                    Some(items) => self.schema(&format!("{name}-item"), items),
                    None => self.generic(),
                };
                self.add(
                    name,
                    format!("\"[\" ws ( {item} ( \",\" ws {item} )* )? ws \"]\""),
                )
            }
            Some("string") => self.primitive(
                "string",
                &format!("\"\\\"\" [^\"\\\\\\x7F\\x00-\\x1F]{{1,{MAX_STRING}}} \"\\\"\""),
            ),
            Some("integer") => self.primitive("integer", "\"-\"? [0-9]{1,15}"),
            Some("number") => self.primitive("number", "\"-\"? [0-9]{1,15} ( \".\" [0-9]{1,10} )?"),
            Some("boolean") => self.primitive("boolean", "\"true\" | \"false\""),
            Some("null") => self.primitive("null", "\"null\""),
            _ => self.generic(),
        }
    }

    fn object(&mut self, name: &str, schema: &Value) -> String {
        let properties = schema.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let (Some(properties), false) = (properties, required.is_empty()) else {
            // Nothing required: any object will do.
            self.generic();
            return "object".to_owned();
        };
        let mut parts = Vec::new();
        for key in required {
            let Some(property) = properties.get(key) else {
                continue;
            };
            let value = self.schema(&format!("{name}-{}", rule_name(key)), property);
            parts.push(format!(
                "{} ws \":\" ws {value}",
                literal(&Value::String(key.to_owned()).to_string())
            ));
        }
        let body = parts.join(" \",\" ws ");
        self.add(name, format!("\"{{\" ws {body} ws \"}}\""))
    }

    fn primitive(&mut self, name: &str, body: &str) -> String {
        self.rules
            .entry(name.to_owned())
            .or_insert_with(|| body.to_owned());
        self.rules
            .entry("ws".to_owned())
            .or_insert_with(|| "[ ]?".to_owned());
        name.to_owned()
    }

    /// Any JSON value (and the rules it needs).
    fn generic(&mut self) -> String {
        let rules = [
            (
                "value",
                "object | array | string | number | \"true\" | \"false\" | \"null\"",
            ),
            (
                "object",
                "\"{\" ws ( string ws \":\" ws value ( \",\" ws string ws \":\" ws value )* )? ws \"}\"",
            ),
            ("array", "\"[\" ws ( value ( \",\" ws value )* )? ws \"]\""),
            ("ws", "[ ]?"),
        ];
        for (name, body) in rules {
            self.rules
                .entry(name.to_owned())
                .or_insert_with(|| body.to_owned());
        }
        self.primitive(
            "string",
            &format!("\"\\\"\" [^\"\\\\\\x7F\\x00-\\x1F]{{1,{MAX_STRING}}} \"\\\"\""),
        );
        self.primitive("number", "\"-\"? [0-9]{1,15} ( \".\" [0-9]{1,10} )?");
        "value".to_owned()
    }

    fn add(&mut self, name: &str, body: String) -> String {
        self.rules
            .entry("ws".to_owned())
            .or_insert_with(|| "[ ]?".to_owned());
        self.rules.insert(name.to_owned(), body);
        name.to_owned()
    }
}

/// A GBNF string literal for `text`.
fn literal(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Rule names: lowercase letters, digits and `-`.
fn rule_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_answer_or_blocks_grammar_shares_the_call_rules() {
        let tools = vec![
            json!({"type": "function", "function": {"name": "add", "parameters": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"]
            }}}),
        ];
        let grammar = answer_or_tool_calls_grammar(&tools);
        let root = grammar.lines().next().unwrap();
        assert_eq!(root, "root ::= answer | block ( \"\\n\" block )*");
        assert!(grammar.contains("\nanswer ::= [^<]+\n"), "{grammar}");
        assert!(
            grammar.contains("\nblock ::= \"<tool_call>\\n\" call \"\\n</tool_call>\"\n"),
            "{grammar}"
        );
        // The call rules are the forced grammar's.
        let forced = tool_call_grammar(&tools);
        let call_rules = |text: &str| {
            text.lines()
                .skip_while(|line| !line.starts_with("call ::="))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(call_rules(&grammar), call_rules(&forced));
    }

    #[test]
    fn a_grammar_per_tool_schema() {
        let tools = vec![
            json!({"type": "function", "function": {"name": "get_weather", "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "unit": {"enum": ["c", "f"]}},
                "required": ["city", "unit"]
            }}}),
        ];
        let grammar = tool_call_grammar(&tools);
        assert!(
            grammar.starts_with("root ::= \"<tool_call>\\n\" call \"\\n</tool_call>\""),
            "{grammar}"
        );
        assert!(
            grammar.contains(
                r#"call ::= "{\"name\": \"get_weather\", \"arguments\": " args-get-weather "}""#
            ),
            "{grammar}"
        );
        assert!(grammar.contains(r#"args-get-weather ::= "{" ws "\"city\"" ws ":" ws string "," ws "\"unit\"" ws ":" ws args-get-weather-unit ws "}""#), "{grammar}");
        assert!(
            grammar.contains(r#"args-get-weather-unit ::= "\"c\"" | "\"f\"""#),
            "{grammar}"
        );
        assert!(
            !grammar.contains("days"),
            "optional properties are left out: {grammar}"
        );
    }

    #[test]
    fn unknown_shapes_fall_back_to_any_value() {
        let tools = vec![
            json!({"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}),
        ];
        let grammar = tool_call_grammar(&tools);
        assert!(
            grammar.contains(r#"call ::= "{\"name\": \"f\", \"arguments\": " object "}""#),
            "{grammar}"
        );
        assert!(grammar.contains("value ::= object | array"), "{grammar}");
    }
}

//! The Hermes `<tool_call>` parser: every convention, each case read whole and fed in
//! chunks of 1, 3 and 7 characters, with the same outcome every time.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use hermes_llm::hermes::parser::{HermesParser, ParseEvent, ParseOutcome, ParserOptions, parse};
use serde_json::{Value, json};

/// Feed `text` `size` characters at a time.
fn chunked(text: &str, size: usize, options: ParserOptions) -> (Vec<ParseEvent>, ParseOutcome) {
    let mut parser = HermesParser::new(options);
    let mut events = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    for piece in chars.chunks(size) {
        events.extend(parser.push(&piece.iter().collect::<String>()));
    }
    let (last, outcome) = parser.finish();
    events.extend(last);
    (events, outcome)
}

/// The outcome as JSON, with warnings and errors reduced to what tests pin.
fn summary(outcome: &ParseOutcome) -> Value {
    json!({
        "calls": outcome.calls,
        "content": outcome.content,
        "reasoning": outcome.reasoning,
        "errors": outcome.errors.iter().map(|e| json!([e.kind, e.block_index])).collect::<Vec<_>>(),
        "warnings": outcome.warnings.len(),
    })
}

struct Case {
    name: &'static str,
    text: &'static str,
    options: ParserOptions,
    want: Value,
}

fn case(name: &'static str, text: &'static str, want: Value) -> Case {
    Case {
        name,
        text,
        options: ParserOptions::new(),
        want,
    }
}

fn lenient(name: &'static str, text: &'static str, want: Value) -> Case {
    Case {
        name,
        text,
        options: ParserOptions::new().lenient(true),
        want,
    }
}

fn out(calls: Value, content: Value, reasoning: Value, errors: Value, warnings: usize) -> Value {
    json!({"calls": calls, "content": content, "reasoning": reasoning, "errors": errors, "warnings": warnings})
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

fn cases() -> Vec<Case> {
    vec![
        case(
            "plain text",
            "Hello there.",
            out(json!([]), json!("Hello there."), Value::Null, json!([]), 0),
        ),
        case(
            "empty output",
            "",
            out(json!([]), Value::Null, Value::Null, json!([]), 0),
        ),
        case(
            "whitespace only",
            "  \n ",
            out(json!([]), Value::Null, Value::Null, json!([]), 0),
        ),
        case(
            "one call",
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
            out(
                json!([call("get_weather", json!({"city": "Paris"}))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "call without whitespace",
            "<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>",
            out(
                json!([call("f", json!({}))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "text around a call",
            "Let me check.\n<tool_call>{\"name\": \"f\", \"arguments\": {\"x\": 1}}</tool_call>\nDone.",
            out(
                json!([call("f", json!({"x": 1}))]),
                json!("Let me check.\n\nDone."),
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "two calls",
            "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call>\n<tool_call>{\"name\": \"b\", \"arguments\": {\"k\": [1, 2]}}</tool_call>",
            out(
                json!([call("a", json!({})), call("b", json!({"k": [1, 2]}))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "arguments as a JSON string",
            "<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"q\\\": \\\"rust\\\"}\"}</tool_call>",
            out(
                json!([call("f", json!({"q": "rust"}))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "arguments as a plain string",
            "<tool_call>{\"name\": \"f\", \"arguments\": \"hello\"}</tool_call>",
            out(
                json!([call("f", json!("hello"))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "arguments missing",
            "<tool_call>{\"name\": \"f\"}</tool_call>",
            out(
                json!([call("f", json!({}))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "arguments null",
            "<tool_call>{\"name\": \"f\", \"arguments\": null}</tool_call>",
            out(
                json!([call("f", json!({}))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "closing tag inside a JSON string",
            "<tool_call>{\"name\": \"echo\", \"arguments\": {\"text\": \"a </tool_call> b\"}}</tool_call>",
            out(
                json!([call("echo", json!({"text": "a </tool_call> b"}))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "escaped quote before a tag-like string",
            "<tool_call>{\"name\": \"echo\", \"arguments\": {\"text\": \"\\\"</tool_call>\"}}</tool_call>",
            out(
                json!([call("echo", json!({"text": "\"</tool_call>"}))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "think then call",
            "<think>The user wants weather.</think>\n<tool_call>{\"name\": \"w\", \"arguments\": {}}</tool_call>",
            out(
                json!([call("w", json!({}))]),
                Value::Null,
                json!("The user wants weather."),
                json!([]),
                0,
            ),
        ),
        case(
            "call inside think is not a call",
            "<think>maybe <tool_call>{\"name\": \"x\"}</tool_call> no</think>Answer.",
            out(
                json!([]),
                json!("Answer."),
                json!("maybe <tool_call>{\"name\": \"x\"}</tool_call> no"),
                json!([]),
                0,
            ),
        ),
        case(
            "unclosed think",
            "<think>still thinking",
            out(
                json!([]),
                Value::Null,
                json!("still thinking"),
                json!([]),
                1,
            ),
        ),
        Case {
            name: "think already open",
            text: "reasoning here</think>The answer is 4.",
            options: ParserOptions::new().think_open(true),
            want: out(
                json!([]),
                json!("The answer is 4."),
                json!("reasoning here"),
                json!([]),
                0,
            ),
        },
        Case {
            name: "think open, call after",
            text: "plan</think><tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>",
            options: ParserOptions::new().think_open(true),
            want: out(
                json!([call("f", json!({}))]),
                Value::Null,
                json!("plan"),
                json!([]),
                0,
            ),
        },
        case(
            "a less-than sign",
            "x < y and y > z",
            out(
                json!([]),
                json!("x < y and y > z"),
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "a tag-like word",
            "use <toolbox> here",
            out(
                json!([]),
                json!("use <toolbox> here"),
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "a prefix at the end",
            "almost <tool_",
            out(json!([]), json!("almost <tool_"), Value::Null, json!([]), 0),
        ),
        case(
            "a stray closing tag",
            "oops </tool_call> ok",
            out(
                json!([]),
                json!("oops </tool_call> ok"),
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "double less-than",
            "<<tool_call>{\"name\": \"f\"}</tool_call>",
            out(
                json!([call("f", json!({}))]),
                json!("<"),
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "end of turn dropped",
            "Done.<|im_end|>",
            out(json!([]), json!("Done."), Value::Null, json!([]), 0),
        ),
        case(
            "eot_id dropped after a call",
            "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call><|eot_id|>",
            out(
                json!([call("f", json!({}))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "malformed JSON keeps the other calls",
            "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call><tool_call>{\"name\": \"b\", \"arguments\": {x}}</tool_call><tool_call>{\"name\": \"c\"}</tool_call>",
            out(
                json!([call("a", json!({})), call("c", json!({}))]),
                Value::Null,
                Value::Null,
                json!([["malformed_json", 1]]),
                0,
            ),
        ),
        case(
            "missing name",
            "<tool_call>{\"arguments\": {}}</tool_call>",
            out(
                json!([]),
                Value::Null,
                Value::Null,
                json!([["missing_name", 0]]),
                0,
            ),
        ),
        case(
            "empty name",
            "<tool_call>{\"name\": \"\", \"arguments\": {}}</tool_call>",
            out(
                json!([]),
                Value::Null,
                Value::Null,
                json!([["missing_name", 0]]),
                0,
            ),
        ),
        case(
            "name not a string",
            "<tool_call>{\"name\": 3}</tool_call>",
            out(
                json!([]),
                Value::Null,
                Value::Null,
                json!([["missing_name", 0]]),
                0,
            ),
        ),
        case(
            "empty block",
            "<tool_call>  </tool_call>",
            out(
                json!([]),
                Value::Null,
                Value::Null,
                json!([["empty_block", 0]]),
                0,
            ),
        ),
        case(
            "complete JSON without a closing tag",
            "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}",
            out(
                json!([call("f", json!({"a": 1}))]),
                Value::Null,
                Value::Null,
                json!([]),
                1,
            ),
        ),
        case(
            "cut off mid-way",
            "<tool_call>{\"name\": \"f\", \"arguments\": {\"text\": \"abc",
            out(
                json!([]),
                Value::Null,
                Value::Null,
                json!([["incomplete", 0]]),
                0,
            ),
        ),
        case(
            "cut off inside a closed block",
            "<tool_call>{\"name\": \"f\", \"arguments\": {</tool_call>",
            out(
                json!([]),
                Value::Null,
                Value::Null,
                json!([["incomplete", 0]]),
                0,
            ),
        ),
        case(
            "an array is refused when strict",
            "<tool_call>[{\"name\": \"a\"}]</tool_call>",
            out(
                json!([]),
                Value::Null,
                Value::Null,
                json!([["malformed_json", 0]]),
                0,
            ),
        ),
        case(
            "parameters is refused when strict",
            "<tool_call>{\"name\": \"f\", \"parameters\": {\"a\": 1}}</tool_call>",
            out(
                json!([call("f", json!({}))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "unicode in arguments",
            "<tool_call>{\"name\": \"translate\", \"arguments\": {\"text\": \"héllo wörld 日本 🦀\"}}</tool_call>",
            out(
                json!([call("translate", json!({"text": "héllo wörld 日本 🦀"}))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "unicode text around",
            "Größe 🦀 ",
            out(json!([]), json!("Größe 🦀"), Value::Null, json!([]), 0),
        ),
        case(
            "nested arguments",
            "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": {\"b\": [{\"c\": \"}\"}]}}}</tool_call>",
            out(
                json!([call("f", json!({"a": {"b": [{"c": "}"}]}}))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        case(
            "arguments before name",
            "<tool_call>{\"arguments\": {\"x\": true}, \"name\": \"late\"}</tool_call>",
            out(
                json!([call("late", json!({"x": true}))]),
                Value::Null,
                Value::Null,
                json!([]),
                0,
            ),
        ),
        lenient(
            "lenient: parameters",
            "<tool_call>{\"name\": \"f\", \"parameters\": {\"a\": 1}}</tool_call>",
            out(
                json!([call("f", json!({"a": 1}))]),
                Value::Null,
                Value::Null,
                json!([]),
                1,
            ),
        ),
        lenient(
            "lenient: two objects in one block",
            "<tool_call>{\"name\": \"a\", \"arguments\": {}}\n{\"name\": \"b\", \"arguments\": {}}</tool_call>",
            out(
                json!([call("a", json!({})), call("b", json!({}))]),
                Value::Null,
                Value::Null,
                json!([]),
                1,
            ),
        ),
        lenient(
            "lenient: an array of calls",
            "<tool_call>[{\"name\": \"a\", \"arguments\": {}}, {\"name\": \"b\", \"arguments\": {\"n\": 2}}]</tool_call>",
            out(
                json!([call("a", json!({})), call("b", json!({"n": 2}))]),
                Value::Null,
                Value::Null,
                json!([]),
                1,
            ),
        ),
        lenient(
            "lenient: a Python dict",
            "<tool_call>{'name': 'f', 'arguments': {'flag': True, 'none': None, 'text': 'hi'}}</tool_call>",
            out(
                json!([call("f", json!({"flag": true, "none": null, "text": "hi"}))]),
                Value::Null,
                Value::Null,
                json!([]),
                1,
            ),
        ),
        lenient(
            "lenient: still malformed",
            "<tool_call>{name: f}</tool_call>",
            out(
                json!([]),
                Value::Null,
                Value::Null,
                json!([["malformed_json", 0]]),
                0,
            ),
        ),
        case(
            "a call then text then a broken call",
            "<tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call> and <tool_call>{\"name\": \"b\", \"arguments\": ",
            out(
                json!([call("a", json!({}))]),
                json!("and"),
                Value::Null,
                json!([["incomplete", 1]]),
                0,
            ),
        ),
        case(
            "think, text, call, end of turn",
            "<think>a</think>b<tool_call>{\"name\": \"c\", \"arguments\": {}}</tool_call><|im_end|>",
            out(
                json!([call("c", json!({}))]),
                json!("b"),
                json!("a"),
                json!([]),
                0,
            ),
        ),
    ]
}

#[test]
fn every_convention_whole_and_chunked() {
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut wrong = Vec::new();
    for case in &cases {
        let whole = parse(case.text, case.options);
        if summary(&whole) != case.want {
            wrong.push(format!(
                "{}: whole: got {}\n  want {}",
                case.name,
                summary(&whole),
                case.want
            ));
        }
        for size in [1, 3, 7] {
            let (_, piecewise) = chunked(case.text, size, case.options);
            if piecewise != whole {
                wrong.push(format!(
                    "{}: chunks of {size} differ: {:?}\n  vs {:?}",
                    case.name, piecewise, whole
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} problems:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn events_come_as_soon_as_known() {
    let text = "Checking.<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>";
    for size in [1, 3, 7, 1000] {
        let (events, _) = chunked(text, size, ParserOptions::new());
        let mut text_seen = String::new();
        let mut arguments = String::new();
        let mut order = Vec::new();
        for event in &events {
            match event {
                ParseEvent::Text(t) => {
                    text_seen.push_str(t);
                    order.push("text");
                }
                ParseEvent::CallStart { name, .. } => {
                    assert_eq!(name, "get_weather");
                    order.push("start");
                }
                ParseEvent::CallArguments { delta, .. } => {
                    arguments.push_str(delta);
                    order.push("args");
                }
                ParseEvent::CallEnd { result, .. } => {
                    assert!(result.is_ok());
                    order.push("end");
                }
                other => panic!("{other:?}"),
            }
        }
        order.dedup();
        assert_eq!(order, ["text", "start", "args", "end"], "chunks of {size}");
        assert_eq!(text_seen, "Checking.");
        assert_eq!(arguments, "{\"city\": \"Paris\"}", "chunks of {size}");
    }
}

#[test]
fn block_errors_carry_the_block_text() {
    let outcome = parse(
        "<tool_call>{\"name\": \"f\", \"arguments\": {oops}}</tool_call>",
        ParserOptions::new(),
    );
    let issue = &outcome.errors[0];
    assert_eq!(issue.name.as_deref(), Some("f"));
    assert!(issue.text.contains("{oops}"));
    assert!(
        issue.message.contains("block 0 is not valid JSON"),
        "{}",
        issue.message
    );
}

mod properties {
    use proptest::prelude::*;

    use super::*;

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("<tool_call>".to_owned()),
            Just("</tool_call>".to_owned()),
            Just("<think>".to_owned()),
            Just("</think>".to_owned()),
            Just("<|im_end|>".to_owned()),
            Just("{\"name\": \"f\", \"arguments\": {\"a\": \"<x>\"}}".to_owned()),
            Just("\"".to_owned()),
            Just("<".to_owned()),
            "[a-z {}:,\"<>/é]{0,6}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn chunking_never_changes_the_outcome(parts in prop::collection::vec(piece(), 0..12), size in 1usize..9) {
            let text: String = parts.concat();
            let whole = parse(&text, ParserOptions::new());
            let (_, piecewise) = chunked(&text, size, ParserOptions::new());
            prop_assert_eq!(piecewise, whole);
        }
    }
}

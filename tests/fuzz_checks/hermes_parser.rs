//! The Hermes `<tool_call>` parser: the whole text and the same text fed in pieces give
//! the same outcome (calls, content, reasoning, errors, warnings) and the same events
//! once adjacent deltas are joined; and the events agree with the outcome (a block's
//! `CallStart` names its call, its argument deltas are its arguments).
//!
//! Input: `[flags, count, position.., text..]`; bit 0 of `flags` is `lenient`, bit 1
//! `think_open`.

use hermes_llm::hermes::parser::{
    HermesParser, ParseEvent, ParseOutcome, ParsedCall, ParserOptions, parse,
};
use serde_json::Value;

use super::input::{Split, text_pieces};

/// Check one input.
pub(crate) fn check(data: &[u8]) {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let options = ParserOptions::new()
        .lenient(flags & 1 != 0)
        .think_open(flags & 2 != 0);
    let split = Split::read(rest);
    let text = String::from_utf8_lossy(split.body);
    let (whole_events, whole) = feed(options, &[&text]);
    let pieces = text_pieces(&text, &split.cuts);
    let (piece_events, piecewise) = feed(options, &pieces);
    assert_eq!(
        piecewise, whole,
        "the outcome changed when the text came in pieces {pieces:?}"
    );
    assert_eq!(
        whole,
        parse(&text, options),
        "`parse` differs from push + finish"
    );
    let (whole_events, piece_events) = (joined(whole_events), joined(piece_events));
    assert_eq!(
        piece_events, whole_events,
        "the events changed when the text came in pieces {pieces:?}"
    );
    agree(&whole_events, options);
}
/// Push each piece, then finish: every event and the outcome.
fn feed(options: ParserOptions, pieces: &[&str]) -> (Vec<ParseEvent>, ParseOutcome) {
    let mut parser = HermesParser::new(options);
    let mut events = Vec::new();
    for piece in pieces {
        events.extend(parser.push(piece));
    }
    let (last, outcome) = parser.finish();
    events.extend(last);
    (events, outcome)
}

/// The events with each run of text, reasoning or one block's argument deltas joined
/// into one: how they are cut depends on the pieces, what they say must not.
fn joined(events: Vec<ParseEvent>) -> Vec<ParseEvent> {
    let mut out: Vec<ParseEvent> = Vec::new();
    for event in events {
        match (out.last_mut(), event) {
            (Some(ParseEvent::Text(all)), ParseEvent::Text(more))
            | (Some(ParseEvent::Reasoning(all)), ParseEvent::Reasoning(more)) => {
                all.push_str(&more);
            }
            (
                Some(ParseEvent::CallArguments {
                    block_index: a,
                    delta: all,
                }),
                ParseEvent::CallArguments {
                    block_index: b,
                    delta: more,
                },
            ) if *a == b => all.push_str(&more),
            (_, event) => out.push(event),
        }
    }
    out
}

/// A block that ends in exactly one call, read strictly: the name its `CallStart` gave
/// is the call's, and its argument deltas, read as the parser reads `arguments`, are
/// the call's arguments.
fn agree(events: &[ParseEvent], options: ParserOptions) {
    if options.lenient {
        return;
    }
    let mut started: Option<(usize, &str)> = None;
    let mut arguments: Option<(usize, &str)> = None;
    for event in events {
        match event {
            ParseEvent::CallStart { block_index, name } => started = Some((*block_index, name)),
            ParseEvent::CallArguments { block_index, delta } => {
                arguments = Some((*block_index, delta));
            }
            ParseEvent::CallEnd {
                block_index,
                result: Ok(calls),
            } => {
                if let [call] = calls.as_slice() {
                    let name = started.filter(|(at, _)| at == block_index).map(|(_, n)| n);
                    assert_eq!(name, Some(call.name.as_str()), "CallStart vs the call");
                    let streamed = arguments
                        .filter(|(at, _)| at == block_index)
                        .map(|(_, a)| a);
                    same_arguments(streamed, call);
                }
            }
            _ => {}
        }
    }
}

/// The streamed argument text, as the parser reads `arguments`, is the call's.
fn same_arguments(streamed: Option<&str>, call: &ParsedCall) {
    let read = match streamed.map(serde_json::from_str::<Value>) {
        None | Some(Ok(Value::Null)) => Value::Object(serde_json::Map::new()),
        Some(Ok(Value::String(text))) => match serde_json::from_str::<Value>(&text) {
            Ok(object @ Value::Object(_)) => object,
            _ => Value::String(text),
        },
        Some(Ok(other)) => other,
        Some(Err(error)) => panic!("the streamed arguments {streamed:?} do not parse: {error}"),
    };
    assert_eq!(read, call.arguments, "the streamed arguments {streamed:?}");
}

//! The Hermes `<tool_call>` parser: one incremental parser for whole and streamed
//! output. Each character is looked at once (a possible tag prefix is held, never more
//! than a tag's length), and the outcome is the same however the text is chunked.
//!
//! - content: the text outside tool-call blocks and `<think>`, trimmed (`None` when
//!   empty); reasoning: the text inside `<think>...</think>`. A `<tool_call>` inside a
//!   think block is not a call.
//! - Inside a block the JSON is read string-aware, so `</tool_call>` in a string does
//!   not end it. `arguments` may be an object, a string holding an object (decoded
//!   once), another string (kept), or missing / `null` (`{}`).
//! - Problems are per block: one malformed block does not lose the others.
//! - Trailing end-of-turn tokens (`<|im_end|>`, `<|eot_id|>`) are dropped.

mod block;
mod lenient;
mod tags;

use serde::Serialize;
use serde_json::{Map, Value};

use block::Block;
use tags::{Matcher, Opening, Step, Tag};

/// How to read the output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParserOptions {
    /// Also accept `parameters` for `arguments`, several JSON objects in one block, a
    /// JSON array of calls in one block, and Python-literal dicts, each with a warning.
    pub lenient: bool,
    /// The prompt already opened a `<think>` block: the output starts inside it.
    pub think_open: bool,
}

impl ParserOptions {
    /// Strict reading, output starting outside any think block.
    pub const fn new() -> Self {
        Self {
            lenient: false,
            think_open: false,
        }
    }

    /// Set [`lenient`](Self::lenient).
    #[must_use]
    pub const fn lenient(mut self, lenient: bool) -> Self {
        self.lenient = lenient;
        self
    }

    /// Set [`think_open`](Self::think_open).
    #[must_use]
    pub const fn think_open(mut self, think_open: bool) -> Self {
        self.think_open = think_open;
        self
    }
}

/// A tool call read from the output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParsedCall {
    /// The tool's name.
    pub name: String,
    /// Its arguments (normally an object).
    pub arguments: Value,
    /// The block it came from.
    #[serde(skip)]
    pub block_index: usize,
}

/// What went wrong with one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum IssueKind {
    /// The block's JSON does not parse.
    MalformedJson,
    /// The JSON was cut off before it ended.
    Incomplete,
    /// No `name`, or not a string.
    MissingName,
    /// Nothing between the tags.
    EmptyBlock,
}

/// A problem with one block; the other blocks are unaffected.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParseIssue {
    /// What kind of problem.
    pub kind: IssueKind,
    /// The block's position among all blocks of the output (0-based).
    pub block_index: usize,
    /// What is wrong, in words.
    pub message: String,
    /// The block's text, for showing the model what it wrote.
    #[serde(skip)]
    pub text: String,
    /// The name, when it could be read.
    #[serde(skip)]
    pub name: Option<String>,
}

/// Everything read from one output.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ParseOutcome {
    /// The calls, in order.
    pub calls: Vec<ParsedCall>,
    /// The text outside blocks and think, trimmed.
    pub content: Option<String>,
    /// The text inside think blocks, trimmed.
    pub reasoning: Option<String>,
    /// Problems, per block.
    pub errors: Vec<ParseIssue>,
    /// Things accepted anyway (an unclosed block, lenient readings).
    pub warnings: Vec<String>,
}

/// What the parser knows as soon as it knows it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ParseEvent {
    /// More content text.
    Text(String),
    /// More reasoning text.
    Reasoning(String),
    /// A call's name is known.
    CallStart {
        /// The block's index.
        block_index: usize,
        /// The tool's name.
        name: String,
    },
    /// More of a call's raw argument text.
    CallArguments {
        /// The block's index.
        block_index: usize,
        /// The new text.
        delta: String,
    },
    /// A block ended: its calls (several only in lenient mode), or its problem.
    CallEnd {
        /// The block's index.
        block_index: usize,
        /// What it held.
        result: Result<Vec<ParsedCall>, ParseIssue>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Text,
    Think,
    Call,
}

/// The incremental parser. Feed chunks with [`push`](Self::push), end with
/// [`finish`](Self::finish); or read a whole text with [`parse`].
#[derive(Debug)]
pub struct HermesParser {
    options: ParserOptions,
    mode: Mode,
    matcher: Matcher,
    content: String,
    reasoning: String,
    block: Option<Block>,
    blocks: usize,
    started: bool,
    outcome: ParseOutcome,
    events: Vec<ParseEvent>,
    /// Where the content not yet handed out as a [`ParseEvent::Text`] starts.
    text_from: usize,
    /// Where the reasoning not yet handed out starts.
    reasoning_from: usize,
}

/// The part of `text` from `*from` on, if any; `*from` moves to the end.
fn tail(text: &str, from: &mut usize) -> Option<String> {
    let delta = text
        .get(*from..)
        .filter(|delta| !delta.is_empty())?
        .to_owned();
    *from = text.len();
    Some(delta)
}

/// Read a whole output at once.
pub fn parse(text: &str, options: ParserOptions) -> ParseOutcome {
    let mut parser = HermesParser::new(options);
    parser.push(text);
    parser.finish().1
}

impl HermesParser {
    /// A parser at the start of an output.
    pub fn new(options: ParserOptions) -> Self {
        Self {
            options,
            mode: if options.think_open {
                Mode::Think
            } else {
                Mode::Text
            },
            matcher: Matcher::default(),
            content: String::new(),
            reasoning: String::new(),
            block: None,
            blocks: 0,
            started: false,
            outcome: ParseOutcome::default(),
            events: Vec::new(),
            text_from: 0,
            reasoning_from: 0,
        }
    }

    /// Take the next piece of output; returns what became known.
    pub fn push(&mut self, chunk: &str) -> Vec<ParseEvent> {
        let mut rest = chunk;
        while let Some(c) = rest.chars().next() {
            // Outside a call, and with no tag half read, everything up to the next `<`
            // is plain text or reasoning (every tag starts with `<`): take it whole.
            if matches!(self.mode, Mode::Text | Mode::Think) && !self.matcher.is_holding() {
                let run = rest.find('<').unwrap_or(rest.len());
                if run > 0 {
                    self.plain(&rest[..run]);
                    rest = &rest[run..];
                    continue;
                }
                // A `<`: with the tag's length in this chunk, tell at once what it opens.
                match tags::opening(rest, self.allowed()) {
                    Opening::Tag(tag, len) => {
                        self.tag(tag);
                        rest = &rest[len..];
                    }
                    Opening::Partial => {
                        self.matcher.hold(rest);
                        rest = "";
                    }
                    Opening::Text => {
                        self.plain("<");
                        rest = &rest[1..];
                    }
                }
                continue;
            }
            self.step(c);
            rest = &rest[c.len_utf8()..];
        }
        self.flush_deltas();
        std::mem::take(&mut self.events)
    }

    /// Text or reasoning without a tag in it, as `normal` would take it char by char.
    fn plain(&mut self, text: &str) {
        match self.mode {
            Mode::Text => {
                self.content.push_str(text);
            }
            Mode::Think => {
                self.reasoning.push_str(text);
            }
            Mode::Call => {
                for c in text.chars() {
                    self.normal(c);
                }
            }
        }
    }

    /// The output ended: the last events, and everything read.
    pub fn finish(mut self) -> (Vec<ParseEvent>, ParseOutcome) {
        for c in self.matcher.flush().chars() {
            self.normal(c);
        }
        match self.mode {
            Mode::Call => {
                if let Some(block) = self.block.take() {
                    if block.is_complete_json() {
                        self.outcome.warnings.push(format!(
                            "block {} has no closing </tool_call>; its complete JSON was accepted",
                            block.index
                        ));
                        self.end_block(block);
                    } else {
                        self.flush_deltas();
                        let issue = ParseIssue {
                            kind: IssueKind::Incomplete,
                            block_index: block.index,
                            message: format!(
                                "block {} was cut off before its JSON ended (the output stopped inside the call)",
                                block.index
                            ),
                            name: block.name.clone(),
                            text: block.text,
                        };
                        self.fail(issue);
                    }
                }
            }
            Mode::Think => self.outcome.warnings.push(
                "the output ended inside <think>: the rest was taken as reasoning".to_owned(),
            ),
            Mode::Text => {}
        }
        self.flush_deltas();
        let trimmed = |text: &str| Some(text.trim().to_owned()).filter(|text| !text.is_empty());
        self.outcome.content = trimmed(&self.content);
        self.outcome.reasoning = trimmed(&self.reasoning);
        (std::mem::take(&mut self.events), self.outcome)
    }

    /// The tags that count in the current mode.
    fn allowed(&self) -> &'static [Tag] {
        match self.mode {
            Mode::Text => &[Tag::OpenCall, Tag::OpenThink, Tag::EndOfTurn],
            Mode::Think => &[Tag::CloseThink, Tag::EndOfTurn],
            Mode::Call if self.block.as_ref().is_some_and(Block::outside_string) => {
                &[Tag::CloseCall, Tag::EndOfTurn]
            }
            Mode::Call => &[],
        }
    }

    fn step(&mut self, c: char) {
        let allowed = self.allowed();
        // Every tag starts with `<`: anything else, with no tag half read, is content.
        if (allowed.is_empty() || c != '<') && !self.matcher.is_holding() {
            self.normal(c);
            return;
        }
        match self.matcher.push(c, allowed) {
            Step::Held => {}
            Step::Tag(tag) => self.tag(tag),
            Step::Text(text) => {
                for c in text.chars() {
                    self.normal(c);
                }
            }
        }
    }

    fn tag(&mut self, tag: Tag) {
        self.flush_deltas();
        match (self.mode, tag) {
            (Mode::Text, Tag::OpenCall) => {
                self.mode = Mode::Call;
                self.block = Some(Block::new(self.blocks));
                self.blocks += 1;
                self.started = false;
            }
            (Mode::Text, Tag::OpenThink) => self.mode = Mode::Think,
            (Mode::Think, Tag::CloseThink) => self.mode = Mode::Text,
            (Mode::Call, Tag::CloseCall) => {
                self.mode = Mode::Text;
                if let Some(block) = self.block.take() {
                    self.end_block(block);
                }
            }
            // End-of-turn tokens are dropped wherever they are.
            _ => {}
        }
    }

    fn normal(&mut self, c: char) {
        match self.mode {
            Mode::Text => {
                self.content.push(c);
            }
            Mode::Think => {
                self.reasoning.push(c);
            }
            Mode::Call => {
                if let Some(block) = &mut self.block {
                    block.push(c);
                    if !self.started {
                        if let Some(name) = &block.name {
                            self.started = true;
                            self.events.push(ParseEvent::CallStart {
                                block_index: block.index,
                                name: name.clone(),
                            });
                        }
                    }
                }
            }
        }
    }

    fn flush_deltas(&mut self) {
        // The deltas are the tails of the whole texts: copied out once, here.
        if let Some(delta) = tail(&self.content, &mut self.text_from) {
            self.events.push(ParseEvent::Text(delta));
        }
        if let Some(delta) = tail(&self.reasoning, &mut self.reasoning_from) {
            self.events.push(ParseEvent::Reasoning(delta));
        }
        if self.started {
            if let Some(block) = &mut self.block {
                let delta = block.take_arguments_delta();
                if !delta.is_empty() {
                    self.events.push(ParseEvent::CallArguments {
                        block_index: block.index,
                        delta,
                    });
                }
            }
        }
    }

    fn end_block(&mut self, mut block: Block) {
        if self.started {
            let delta = block.take_arguments_delta();
            if !delta.is_empty() {
                self.events.push(ParseEvent::CallArguments {
                    block_index: block.index,
                    delta,
                });
            }
        }
        match self.read_block(&block) {
            Ok(calls) => {
                self.outcome.calls.extend(calls.iter().cloned());
                self.events.push(ParseEvent::CallEnd {
                    block_index: block.index,
                    result: Ok(calls),
                });
            }
            Err(issue) => self.fail(issue),
        }
    }

    fn fail(&mut self, issue: ParseIssue) {
        self.outcome.errors.push(issue.clone());
        self.events.push(ParseEvent::CallEnd {
            block_index: issue.block_index,
            result: Err(issue),
        });
    }

    /// The calls of a closed block, or why it holds none.
    fn read_block(&mut self, block: &Block) -> Result<Vec<ParsedCall>, ParseIssue> {
        let index = block.index;
        let issue = |kind: IssueKind, message: String| ParseIssue {
            kind,
            block_index: index,
            message,
            text: block.text.clone(),
            name: block.name.clone(),
        };
        let text = block.text.trim();
        if text.is_empty() {
            return Err(issue(
                IssueKind::EmptyBlock,
                format!("block {index} is empty"),
            ));
        }
        if let Some(key) = block.repeated {
            return Err(issue(
                IssueKind::MalformedJson,
                format!("block {index} has more than one `{key}` key; write each key once"),
            ));
        }
        let values = match serde_json::from_str::<Value>(text) {
            Ok(value) => vec![value],
            Err(error) if !self.options.lenient => {
                return Err(issue(json_kind(&error), json_message(index, &error)));
            }
            Err(error) => self
                .lenient_values(text, index)
                .ok_or_else(|| issue(json_kind(&error), json_message(index, &error)))?,
        };
        let mut calls = Vec::new();
        for value in values {
            match value {
                Value::Array(items) if self.options.lenient => {
                    self.outcome.warnings.push(format!(
                        "block {index} holds a JSON array of {} calls",
                        items.len()
                    ));
                    for item in items {
                        calls.push(
                            self.call(item, index)
                                .map_err(|message| issue(IssueKind::MissingName, message))?,
                        );
                    }
                }
                Value::Array(_) => {
                    return Err(issue(
                        IssueKind::MalformedJson,
                        format!(
                            "block {index} holds a JSON array; write one call object per block"
                        ),
                    ));
                }
                other => calls.push(
                    self.call(other, index)
                        .map_err(|message| issue(IssueKind::MissingName, message))?,
                ),
            }
        }
        Ok(calls)
    }

    fn lenient_values(&mut self, text: &str, index: usize) -> Option<Vec<Value>> {
        if let Ok(values) = lenient::values(text) {
            if values.len() > 1 {
                self.outcome.warnings.push(format!(
                    "block {index} holds {} JSON values; each was read as a call",
                    values.len()
                ));
            }
            return Some(values);
        }
        let converted = lenient::python_to_json(text)?;
        let values = lenient::values(&converted).ok()?;
        self.outcome.warnings.push(format!(
            "block {index} was written as a Python literal; it was read as JSON"
        ));
        Some(values)
    }

    fn call(&mut self, value: Value, index: usize) -> Result<ParsedCall, String> {
        let Value::Object(mut object) = value else {
            return Err(format!("block {index} is not a JSON object with a `name`"));
        };
        let name = match object.remove("name") {
            Some(Value::String(name)) if !name.trim().is_empty() => name,
            _ => return Err(format!("block {index} has no `name` (a non-empty string)")),
        };
        let mut arguments = object.remove("arguments");
        if arguments.is_none() && self.options.lenient {
            if let Some(parameters) = object.remove("parameters") {
                self.outcome.warnings.push(format!(
                    "block {index} says `parameters`; read as `arguments`"
                ));
                arguments = Some(parameters);
            }
        }
        Ok(ParsedCall {
            name,
            arguments: normalise_arguments(arguments),
            block_index: index,
        })
    }
}

/// An object as is; a string holding a JSON object decoded once; another string kept;
/// missing or `null` as `{}`.
fn normalise_arguments(arguments: Option<Value>) -> Value {
    match arguments {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(&text) {
            Ok(object @ Value::Object(_)) => object,
            _ => Value::String(text),
        },
        Some(other) => other,
    }
}

fn json_kind(error: &serde_json::Error) -> IssueKind {
    if error.is_eof() {
        IssueKind::Incomplete
    } else {
        IssueKind::MalformedJson
    }
}

fn json_message(index: usize, error: &serde_json::Error) -> String {
    if error.is_eof() {
        format!("block {index} was cut off: its JSON ends early ({error})")
    } else {
        format!("block {index} is not valid JSON: {error}")
    }
}

//! One `<tool_call>` block: its text, kept string-aware (a `</tool_call>` inside a JSON
//! string does not end it), and the top-level `name` and `arguments` noticed as they
//! stream by, for early events.

/// Where the top-level object's scan is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the opening `{`.
    Start,
    /// Expecting a key (or `}`).
    Key,
    /// Inside a key string.
    InKey,
    /// After a key, before its value starts.
    Colon,
    /// Inside a value (or just after it, until the `,`).
    Value,
    /// Past the end of the object.
    Done,
}

/// How the `arguments` value is written, which decides where it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Container,
    Text,
    Literal,
}

/// The text of one block and what has been seen of it.
#[derive(Debug)]
pub(super) struct Block {
    /// The block's index among all blocks of the output.
    pub(super) index: usize,
    pub(super) text: String,
    depth: u32,
    in_string: bool,
    escaped: bool,
    phase: Phase,
    key: String,
    /// The raw text of the `name` value while it streams.
    name_raw: String,
    /// The `name`, once its string closed.
    pub(super) name: Option<String>,
    /// Where the `arguments` value starts and ends in `text`, and how it is written.
    arguments: Option<(usize, Option<usize>, Shape)>,
    /// How much of the arguments text was handed out.
    arguments_taken: usize,
    /// The top-level keys that matter, as they were seen: `name`, `arguments`.
    seen: [bool; 2],
    /// The first of them written twice: the block is refused (which one counts would
    /// depend on how the text was chunked).
    pub(super) repeated: Option<&'static str>,
}

impl Block {
    pub(super) fn new(index: usize) -> Self {
        Self {
            index,
            text: String::new(),
            depth: 0,
            in_string: false,
            escaped: false,
            phase: Phase::Start,
            key: String::new(),
            name_raw: String::new(),
            name: None,
            arguments: None,
            arguments_taken: 0,
            seen: [false; 2],
            repeated: None,
        }
    }

    /// Whether a `<` here could start the closing tag (it is outside any string).
    pub(super) fn outside_string(&self) -> bool {
        !self.in_string
    }

    /// Take one character of the block.
    pub(super) fn push(&mut self, c: char) {
        let at = self.text.len();
        self.text.push(c);
        let (was_phase, was_depth, was_in_string) = (self.phase, self.depth, self.in_string);
        self.scan(c);
        // The first `arguments` value is the one streamed; a second one makes the block
        // an error (`repeated`), whatever the chunks.
        if self.key == "arguments"
            && self.arguments.is_none()
            && self.depth <= 2
            && was_phase == Phase::Colon
            && self.phase == Phase::Value
        {
            let shape = match c {
                '{' | '[' => Shape::Container,
                '"' => Shape::Text,
                _ => Shape::Literal,
            };
            self.arguments = Some((at, None, shape));
            self.arguments_taken = at;
            return;
        }
        if let Some((start, end @ None, shape)) = &mut self.arguments {
            let ended = match shape {
                Shape::Container => {
                    !was_in_string && matches!(c, '}' | ']') && was_depth == 2 && self.depth == 1
                }
                Shape::Text => was_in_string && !self.in_string && self.depth == 1,
                Shape::Literal => !was_in_string && matches!(c, ',' | '}') && was_depth == 1,
            };
            if ended {
                *end = Some(if *shape == Shape::Literal {
                    at
                } else {
                    self.text.len()
                });
            }
            let _ = start;
        }
    }

    fn scan(&mut self, c: char) {
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if c == '\\' {
                self.escaped = true;
            } else if c == '"' {
                self.in_string = false;
                self.end_string();
                return;
            }
            self.in_string_char(c);
            return;
        }
        match c {
            '"' => {
                self.in_string = true;
                if self.depth == 1 {
                    match self.phase {
                        Phase::Key => {
                            self.phase = Phase::InKey;
                            self.key.clear();
                        }
                        Phase::Colon => self.phase = Phase::Value,
                        _ => {}
                    }
                }
            }
            '{' | '[' => {
                if self.depth == 0 && self.phase == Phase::Start && c == '{' {
                    self.phase = Phase::Key;
                } else if self.depth == 1 && self.phase == Phase::Colon {
                    self.phase = Phase::Value;
                }
                self.depth += 1;
            }
            '}' | ']' => {
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 && self.phase != Phase::Start {
                    self.phase = Phase::Done;
                }
            }
            // Past the first object (lenient: several in one block) nothing is tracked.
            ',' if self.depth == 1 && self.phase != Phase::Done => self.phase = Phase::Key,
            ':' => {}
            c if c.is_whitespace() => {}
            _ if self.depth == 1 && self.phase == Phase::Colon => self.phase = Phase::Value,
            _ => {}
        }
    }

    fn in_string_char(&mut self, c: char) {
        if self.depth != 1 {
            return;
        }
        match self.phase {
            Phase::InKey => self.key.push(c),
            Phase::Value if self.key == "name" && self.name.is_none() => self.name_raw.push(c),
            _ => {}
        }
    }

    fn end_string(&mut self) {
        if self.depth != 1 {
            return;
        }
        match self.phase {
            Phase::InKey => {
                self.phase = Phase::Colon;
                self.note_key();
            }
            Phase::Value if self.key == "name" && self.name.is_none() => {
                let raw = format!("\"{}\"", self.name_raw);
                self.name = serde_json::from_str::<String>(&raw)
                    .ok()
                    .filter(|name| !name.is_empty());
            }
            _ => {}
        }
    }

    /// Remember a top-level `name` or `arguments` key, and the first one repeated.
    fn note_key(&mut self) {
        let (slot, key) = match self.key.as_str() {
            "name" => (0, "name"),
            "arguments" => (1, "arguments"),
            _ => return,
        };
        if std::mem::replace(&mut self.seen[slot], true) && self.repeated.is_none() {
            self.repeated = Some(key);
        }
    }

    /// Argument text seen since the last call.
    pub(super) fn take_arguments_delta(&mut self) -> String {
        let Some((_, end, _)) = self.arguments else {
            return String::new();
        };
        let until = end.unwrap_or(self.text.len());
        if until <= self.arguments_taken {
            return String::new();
        }
        let delta = self.text[self.arguments_taken..until].to_owned();
        self.arguments_taken = until;
        delta
    }

    /// Whether the top-level JSON value is complete (the block could end here).
    pub(super) fn is_complete_json(&self) -> bool {
        self.phase == Phase::Done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Block {
        let mut block = Block::new(0);
        for c in text.chars() {
            block.push(c);
        }
        block
    }

    #[test]
    fn notices_name_and_streams_arguments() {
        let mut block =
            scan(r#"{"name": "get_weather", "arguments": {"city": "Paris", "n": [1, 2]}}"#);
        assert_eq!(block.name.as_deref(), Some("get_weather"));
        assert_eq!(
            block.take_arguments_delta(),
            r#"{"city": "Paris", "n": [1, 2]}"#
        );
        assert!(block.is_complete_json());
    }

    #[test]
    fn a_repeated_key_is_noticed_and_the_first_arguments_stream() {
        let mut block = scan(r#"{"name": "f", "arguments": {"a": 1}, "arguments": {"b": 2}}"#);
        assert_eq!(block.repeated, Some("arguments"));
        assert_eq!(block.take_arguments_delta(), r#"{"a": 1}"#);
        let block = scan(r#"{"name": "a", "name": "b", "arguments": {}}"#);
        assert_eq!(
            (block.repeated, block.name.as_deref()),
            (Some("name"), Some("a"))
        );
        let nested = scan(r#"{"name": "a", "arguments": {"name": "x", "arguments": 1}}"#);
        assert_eq!(
            nested.repeated, None,
            "keys inside the arguments are theirs"
        );
    }

    #[test]
    fn strings_hide_structure() {
        let block = scan(r#"{"arguments": {"q": "a \"}\" </tool_call> b"}, "name": "x\u0041"}"#);
        assert_eq!(block.name.as_deref(), Some("xA"));
        assert!(block.is_complete_json());
        let open = scan(r#"{"name": "x", "arguments": {"q": "unfinished"#);
        assert!(!open.is_complete_json() && !open.outside_string());
    }
}

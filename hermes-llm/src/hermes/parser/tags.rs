//! Recognising tags in a stream of characters without ever looking back more than the
//! longest tag: a possible tag prefix is held until it completes or cannot.

/// The tags the parser reacts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tag {
    OpenCall,
    CloseCall,
    OpenThink,
    CloseThink,
    EndOfTurn,
}

const TAGS: &[(&str, Tag)] = &[
    ("<tool_call>", Tag::OpenCall),
    ("</tool_call>", Tag::CloseCall),
    ("<think>", Tag::OpenThink),
    ("</think>", Tag::CloseThink),
    ("<|im_end|>", Tag::EndOfTurn),
    ("<|eot_id|>", Tag::EndOfTurn),
];

/// What one character did to the matcher.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Held as a possible tag prefix.
    Held,
    /// A whole tag.
    Tag(Tag),
    /// Not a tag: these characters are plain text, in order. The matcher may be
    /// holding a new prefix that started inside them.
    Text(String),
}

/// Matches tags among `allowed` as characters arrive.
#[derive(Debug, Default)]
pub(super) struct Matcher {
    held: String,
}

impl Matcher {
    /// Feed one character. `allowed` says which tags count in the current mode.
    pub(super) fn push(&mut self, c: char, allowed: &[Tag]) -> Step {
        if self.held.is_empty() && c != '<' {
            return Step::Text(c.to_string());
        }
        self.held.push(c);
        if let Some(tag) = whole(&self.held, allowed) {
            self.held.clear();
            return Step::Tag(tag);
        }
        if is_prefix(&self.held, allowed) {
            return Step::Held;
        }
        // The held text is not a tag. Its first character is text; a later `<` may
        // start a new prefix, so look again from there (at most one tag's length).
        let held = std::mem::take(&mut self.held);
        let mut text = String::new();
        let rest = held.char_indices().skip(1);
        let first_len = held.chars().next().map_or(0, char::len_utf8);
        text.push_str(&held[..first_len]);
        for (at, ch) in rest {
            if ch == '<' && is_prefix(&held[at..], allowed) {
                self.held = held[at..].to_owned();
                return Step::Text(text);
            }
            text.push(ch);
        }
        Step::Text(text)
    }

    /// Whatever is held, as text (the output ended).
    pub(super) fn flush(&mut self) -> String {
        std::mem::take(&mut self.held)
    }

    /// Whether a prefix is being held.
    pub(super) fn is_holding(&self) -> bool {
        !self.held.is_empty()
    }
}

fn whole(text: &str, allowed: &[Tag]) -> Option<Tag> {
    TAGS.iter()
        .find(|(spelling, tag)| allowed.contains(tag) && *spelling == text)
        .map(|(_, tag)| *tag)
}

fn is_prefix(text: &str, allowed: &[Tag]) -> bool {
    TAGS.iter()
        .any(|(spelling, tag)| allowed.contains(tag) && spelling.starts_with(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT_MODE: &[Tag] = &[Tag::OpenCall, Tag::OpenThink, Tag::EndOfTurn];

    fn run(input: &str) -> (String, Vec<Tag>) {
        let mut matcher = Matcher::default();
        let (mut text, mut tags) = (String::new(), Vec::new());
        for c in input.chars() {
            match matcher.push(c, TEXT_MODE) {
                Step::Held => {}
                Step::Tag(tag) => tags.push(tag),
                Step::Text(t) => text.push_str(&t),
            }
        }
        text.push_str(&matcher.flush());
        (text, tags)
    }

    #[test]
    fn tags_and_near_misses() {
        assert_eq!(run("a<tool_call>b"), ("ab".to_owned(), vec![Tag::OpenCall]));
        assert_eq!(
            run("x < y <toolbox>"),
            ("x < y <toolbox>".to_owned(), vec![])
        );
        assert_eq!(run("<<tool_call>"), ("<".to_owned(), vec![Tag::OpenCall]));
        assert_eq!(
            run("<thin<think>"),
            ("<thin".to_owned(), vec![Tag::OpenThink])
        );
        assert_eq!(
            run("end<|im_end|>"),
            ("end".to_owned(), vec![Tag::EndOfTurn])
        );
        assert_eq!(run("<tool_"), ("<tool_".to_owned(), vec![]));
        assert_eq!(run("</tool_call>"), ("</tool_call>".to_owned(), vec![]));
    }
}

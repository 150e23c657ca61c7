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

    /// Hold `prefix`, the start of a possible tag that the chunk ended inside.
    pub(super) fn hold(&mut self, prefix: &str) {
        self.held.push_str(prefix);
    }

    /// Whether a prefix is being held.
    pub(super) fn is_holding(&self) -> bool {
        !self.held.is_empty()
    }
}

/// What a `<` at the start of `text` opens, with no prefix held.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Opening {
    /// A whole tag, `len` bytes long.
    Tag(Tag, usize),
    /// All of `text` could still become a tag: the chunk ended inside it.
    Partial,
    /// No tag: the `<` is text.
    Text,
}

/// Look at a `<` and what follows it in the same chunk at once: the common case, which
/// needs no character-by-character matching and no allocation.
pub(super) fn opening(text: &str, allowed: &[Tag]) -> Opening {
    // Every tag goes on with `t`, `/` or `|`: most stray `<`s stop here.
    if !matches!(text.as_bytes().get(1), None | Some(b't' | b'/' | b'|')) {
        return Opening::Text;
    }
    for (spelling, tag) in TAGS {
        if !allowed.contains(tag) {
            continue;
        }
        if text.starts_with(spelling) {
            return Opening::Tag(*tag, spelling.len());
        }
        if spelling.starts_with(text) {
            return Opening::Partial;
        }
    }
    Opening::Text
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
    fn the_quick_refusal_knows_every_tag() {
        for (spelling, tag) in TAGS {
            assert_eq!(
                opening(spelling, &[*tag]),
                Opening::Tag(*tag, spelling.len())
            );
        }
    }

    #[test]
    fn openings_seen_whole() {
        assert_eq!(
            opening("<tool_call>{", TEXT_MODE),
            Opening::Tag(Tag::OpenCall, 11)
        );
        assert_eq!(opening("<tool_ca", TEXT_MODE), Opening::Partial);
        assert_eq!(opening("<", TEXT_MODE), Opening::Partial);
        assert_eq!(opening("<b>bold", TEXT_MODE), Opening::Text);
        assert_eq!(
            opening("</think>", TEXT_MODE),
            Opening::Text,
            "not allowed here"
        );
        assert_eq!(
            opening("<|eot_id|>", TEXT_MODE),
            Opening::Tag(Tag::EndOfTurn, 10)
        );
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

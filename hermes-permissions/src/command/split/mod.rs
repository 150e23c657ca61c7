//! Shell-aware splitting of a command line into simple commands and words.
//!
//! The scanner knows enough of the POSIX shell grammar to find every simple
//! command a line would run:
//!
//! * separators `;`, `&&`, `||`, `|`, `|&`, `&`, newlines, and the
//!   parentheses of subshells;
//! * single quotes, double quotes, backslashes, `$'...'` (decoded) and
//!   `${...}` (kept whole);
//! * command substitutions `$(...)` and backticks, and process substitutions
//!   `<(...)` and `>(...)`: their contents are parsed as commands of their
//!   own, appended to the same list and linked from the word holding them;
//! * redirections with their targets, including here-documents (the body is
//!   attached to the command and not parsed as commands) and here-strings;
//! * comments.
//!
//! It is a single left-to-right pass per nesting level. The contents of a
//! substitution are rescanned once at the next level, and nesting is capped
//! at [`MAX_DEPTH`], so the total work stays linear in the input size.
//!
//! Byte-level scanning is safe for UTF-8: every byte the scanner reacts to is
//! ASCII, and multi-byte characters are copied through untouched.

use std::ops::Range;

use super::engine::MAX_DEPTH;

mod escape;
mod scanner;

use scanner::parse_into;

/// One word of a simple command after quote removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// The value with quotes and escapes removed, letter case preserved.
    /// Substitutions are kept as their raw text, e.g. `$(pwd)`.
    pub(crate) orig: String,
    /// `orig` lowercased: what most rules compare against.
    pub(crate) text: String,
    /// Commands parsed out of substitutions inside this word, as indices into
    /// [`Parsed::commands`].
    pub(crate) subst: Option<Range<usize>>,
    /// The word is a process substitution, `<(...)` or `>(...)`.
    pub(crate) proc_subst: bool,
}

/// What a redirection does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RedirectKind {
    /// `>`, `>|`, `&>`, and `>&file`.
    Write,
    /// `>>`, `&>>`.
    Append,
    /// `<>`.
    ReadWrite,
    /// `<`.
    Read,
    /// `<<` and `<<-`; the target is the delimiter.
    HereDoc,
    /// `<<<`; the target is the text fed to standard input.
    HereString,
    /// `>&N`, `<&N`, `>&-`: descriptor duplication, touches no file.
    Duplicate,
}

/// A redirection and its target word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    /// The operator.
    pub(crate) kind: RedirectKind,
    /// The file name, delimiter or here-string text.
    pub(crate) target: Word,
}

/// One simple command: words, redirections and here-document input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SimpleCommand {
    /// Words in order, assignments and wrappers included.
    pub(crate) words: Vec<Word>,
    /// Redirections, wherever they appeared in the command.
    pub(crate) redirects: Vec<Redirect>,
    /// Bodies of its here-documents, concatenated.
    pub(crate) heredoc: Option<String>,
    /// Commands with the same id are connected by pipes.
    pub(crate) pipeline: usize,
    /// Byte offset where the command starts in the parsed text.
    pub(crate) start: usize,
    /// How many substitutions deep the command sits.
    pub(crate) depth: usize,
}

/// Result of splitting one source text.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    /// Every simple command, in the order they start in the text.
    pub(crate) commands: Vec<SimpleCommand>,
    /// Some substitution was nested deeper than [`MAX_DEPTH`] and skipped.
    pub(crate) too_deep: bool,
    /// Number of pipeline ids handed out.
    pub(crate) pipelines: usize,
}

impl Parsed {
    fn new_pipeline(&mut self) -> usize {
        let id = self.pipelines;
        self.pipelines += 1;
        id
    }
}

/// The words of the first simple command of `line` (for unit tests of the rules).
#[cfg(test)]
pub(crate) fn first_words(line: &str) -> Vec<Word> {
    parse(line, 0)
        .commands
        .into_iter()
        .next()
        .map(|command| command.words)
        .unwrap_or_default()
}

/// Split `source`, which sits `depth` levels deep, into simple commands.
pub(crate) fn parse(source: &str, depth: usize) -> Parsed {
    let mut parsed = Parsed::default();
    parse_into(&mut parsed, source.as_bytes(), 0, depth);
    parsed
}

/// Index of the first `needle` at or after `from`, or `src.len()`.
pub(crate) fn find_byte(src: &[u8], from: usize, needle: u8) -> usize {
    src.get(from..)
        .and_then(|rest| rest.iter().position(|&b| b == needle))
        .map_or(src.len(), |offset| from + offset)
}

/// Parse the contents of a substitution one level deeper; returns the range
/// of commands it produced.
fn nested(parsed: &mut Parsed, inner: &[u8], base: usize, depth: usize) -> Range<usize> {
    let start = parsed.commands.len();
    if depth >= MAX_DEPTH {
        parsed.too_deep = true;
    } else {
        parse_into(parsed, inner, base, depth + 1);
    }
    start..parsed.commands.len()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Nest {
    Paren,
    Quote,
    Tick,
    Brace,
}

/// Find the `)` closing a `$(`, `<(` or array `(` whose contents start at
/// `start`. Returns (end of contents, index after the `)`); an unclosed
/// parenthesis runs to the end of the text.
pub(crate) fn find_close_paren(src: &[u8], start: usize) -> (usize, usize) {
    let mut stack = vec![Nest::Paren];
    let mut i = start;
    while let Some(&c) = src.get(i) {
        let Some(&top) = stack.last() else { break };
        match top {
            Nest::Paren | Nest::Brace => match c {
                b'\\' => i += 1,
                b'\'' => i = find_byte(src, i + 1, b'\''),
                b'"' => stack.push(Nest::Quote),
                b'`' => stack.push(Nest::Tick),
                b'(' => stack.push(Nest::Paren),
                b'$' if src.get(i + 1) == Some(&b'{') => {
                    stack.push(Nest::Brace);
                    i += 1;
                }
                b'}' if top == Nest::Brace => {
                    stack.pop();
                }
                b')' if top == Nest::Paren => {
                    stack.pop();
                    if stack.is_empty() {
                        return (i, i + 1);
                    }
                }
                _ => {}
            },
            Nest::Quote => match c {
                b'\\' => i += 1,
                b'"' => {
                    stack.pop();
                }
                b'`' => stack.push(Nest::Tick),
                b'$' if src.get(i + 1) == Some(&b'(') => {
                    stack.push(Nest::Paren);
                    i += 1;
                }
                _ => {}
            },
            Nest::Tick => match c {
                b'\\' => i += 1,
                b'`' => {
                    stack.pop();
                }
                _ => {}
            },
        }
        i += 1;
    }
    (src.len(), src.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(parsed: &Parsed) -> Vec<Vec<String>> {
        parsed
            .commands
            .iter()
            .map(|c| c.words.iter().map(|w| w.orig.clone()).collect())
            .collect()
    }

    fn split(source: &str) -> Vec<Vec<String>> {
        words(&parse(source, 0))
    }

    fn v(items: &[&[&str]]) -> Vec<Vec<String>> {
        items
            .iter()
            .map(|c| c.iter().map(|s| (*s).to_owned()).collect())
            .collect()
    }

    #[test]
    fn splits_on_separators() {
        assert_eq!(
            split("a 1; b 2 && c || d | e & f\ng"),
            v(&[
                &["a", "1"],
                &["b", "2"],
                &["c"],
                &["d"],
                &["e"],
                &["f"],
                &["g"]
            ])
        );
    }

    #[test]
    fn quotes_and_escapes() {
        assert_eq!(
            split(r#"echo 'a b' "c $d" e\ f "g\"h" 'i'"j"k"#),
            v(&[&["echo", "a b", "c $d", "e f", "g\"h", "ijk"]])
        );
        assert_eq!(
            split(r"find . -exec rm {} \;"),
            v(&[&["find", ".", "-exec", "rm", "{}", ";"]])
        );
    }

    #[test]
    fn unbalanced_quotes_run_to_the_end() {
        assert_eq!(split("echo 'abc; rm"), v(&[&["echo", "abc; rm"]]));
        assert_eq!(split("echo \"abc"), v(&[&["echo", "abc"]]));
    }

    #[test]
    fn command_substitutions_become_commands() {
        let parsed = parse("echo $(rm -rf /) `ls -l` \"$(id)\"", 0);
        assert_eq!(
            words(&parsed),
            v(&[
                &["echo", "$(rm -rf /)", "`ls -l`", "$(id)"],
                &["rm", "-rf", "/"],
                &["ls", "-l"],
                &["id"]
            ])
        );
        let echo = &parsed.commands[0];
        assert_eq!(echo.words[1].subst, Some(1..2));
        assert_eq!(echo.words[3].subst, Some(3..4));
    }

    #[test]
    fn process_substitution() {
        let parsed = parse("bash <(curl -s x)", 0);
        assert_eq!(
            words(&parsed),
            v(&[&["bash", "<(curl -s x)"], &["curl", "-s", "x"]])
        );
        assert!(parsed.commands[0].words[1].proc_subst);
    }

    #[test]
    fn nested_substitutions_and_parens() {
        assert_eq!(
            split("echo $(echo $(echo (x)) \")\")"),
            v(&[
                &["echo", "$(echo $(echo (x)) \")\")"],
                &["echo", "$(echo (x))", ")"],
                &["echo"],
                &["x"]
            ])
        );
    }

    #[test]
    fn redirections() {
        let parsed = parse("cat a >out 2>&1 >> log 2>err &>all <in <<< here", 0);
        let command = &parsed.commands[0];
        assert_eq!(command.words.len(), 2);
        let kinds: Vec<(RedirectKind, &str)> = command
            .redirects
            .iter()
            .map(|r| (r.kind, r.target.text.as_str()))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (RedirectKind::Write, "out"),
                (RedirectKind::Duplicate, "1"),
                (RedirectKind::Append, "log"),
                (RedirectKind::Write, "err"),
                (RedirectKind::Write, "all"),
                (RedirectKind::Read, "in"),
                (RedirectKind::HereString, "here"),
            ]
        );
    }

    #[test]
    fn heredoc_body_is_data() {
        let parsed = parse("cat <<EOF > f\nrm -rf /\nEOF\nls", 0);
        assert_eq!(words(&parsed), v(&[&["cat"], &["ls"]]));
        assert_eq!(parsed.commands[0].heredoc.as_deref(), Some("rm -rf /\n"));
        let stripped = parse("cat <<-'END'\n\tx\n\tEND\nls", 0);
        assert_eq!(words(&stripped), v(&[&["cat"], &["ls"]]));
    }

    #[test]
    fn pipelines_are_tracked() {
        let parsed = parse("a | b |& c; d | e", 0);
        let ids: Vec<usize> = parsed.commands.iter().map(|c| c.pipeline).collect();
        assert_eq!(ids[0], ids[1]);
        assert_eq!(ids[1], ids[2]);
        assert_ne!(ids[2], ids[3]);
        assert_eq!(ids[3], ids[4]);
    }

    #[test]
    fn comments_braces_and_arrays() {
        assert_eq!(split("ls # rm -rf /"), v(&[&["ls"]]));
        assert_eq!(
            split("echo a#b ${x:-a b;c}"),
            v(&[&["echo", "a#b", "${x:-a b;c}"]])
        );
        assert_eq!(split("arr=(rm -rf /) ls"), v(&[&["arr=(rm -rf /)", "ls"]]));
    }

    #[test]
    fn ansi_c_quotes_are_decoded() {
        assert_eq!(split(r"$'\x72\x6d' -rf /"), v(&[&["rm", "-rf", "/"]]));
        assert_eq!(split(r"$'\162m\u0020'"), v(&[&["rm "]]));
    }

    #[test]
    fn depth_is_capped() {
        let deep = "$(".repeat(MAX_DEPTH + 3);
        let parsed = parse(&deep, 0);
        assert!(parsed.too_deep);
        let shallow = parse("$($(ls))", 0);
        assert!(!shallow.too_deep);
    }
}

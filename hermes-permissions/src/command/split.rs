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

use unicode_normalization::UnicodeNormalization;

use super::engine::MAX_DEPTH;

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

fn parse_into(parsed: &mut Parsed, src: &[u8], base: usize, depth: usize) {
    let pipeline = parsed.new_pipeline();
    let mut scanner = Scanner {
        src,
        base,
        depth,
        pos: 0,
        current: None,
        word: None,
        redirect: None,
        heredocs: Vec::new(),
        pipeline,
        pipeline_used: false,
    };
    scanner.run(parsed);
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

/// A word being assembled.
#[derive(Default)]
struct WordBuf {
    bytes: Vec<u8>,
    quoted: bool,
    subst: Option<Range<usize>>,
    proc_subst: bool,
    /// Open `${` braces: inside them, blanks and operators are literal.
    braces: usize,
}

impl WordBuf {
    fn add_subst(&mut self, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        match &mut self.subst {
            Some(existing) => existing.end = range.end,
            None => self.subst = Some(range),
        }
    }

    /// A bare number right before `<` or `>` names a file descriptor.
    fn is_fd_number(&self) -> bool {
        !self.quoted
            && self.subst.is_none()
            && self.braces == 0
            && !self.bytes.is_empty()
            && self.bytes.iter().all(u8::is_ascii_digit)
    }
}

struct PendingRedirect {
    kind: RedirectKind,
    strip_tabs: bool,
}

struct PendingHeredoc {
    delimiter: Vec<u8>,
    strip_tabs: bool,
    command: usize,
}

/// What ended a simple command, for pipeline bookkeeping.
enum Sep {
    /// `|` or `|&`: the next command reads this one's output.
    Pipe,
    /// A parenthesis: the grouping does not break a pipeline.
    Group,
    /// Everything else starts a new pipeline.
    Other,
}

struct Scanner<'a> {
    src: &'a [u8],
    base: usize,
    depth: usize,
    pos: usize,
    current: Option<usize>,
    word: Option<WordBuf>,
    redirect: Option<PendingRedirect>,
    heredocs: Vec<PendingHeredoc>,
    pipeline: usize,
    pipeline_used: bool,
}

impl Scanner<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.src.get(self.pos + ahead).copied()
    }

    fn run(&mut self, parsed: &mut Parsed) {
        while let Some(c) = self.peek(0) {
            let in_braces = self.word.as_ref().is_some_and(|w| w.braces > 0);
            if in_braces && !matches!(c, b'\'' | b'"' | b'\\' | b'$' | b'`') {
                self.brace_char(c);
                continue;
            }
            match c {
                b' ' | b'\t' | b'\r' => {
                    self.finish_word(parsed);
                    self.pos += 1;
                }
                b'\n' => {
                    self.end_command(parsed, Sep::Other);
                    self.pos += 1;
                    self.read_heredocs(parsed);
                }
                b';' => {
                    self.end_command(parsed, Sep::Other);
                    self.pos += 1;
                    while matches!(self.peek(0), Some(b';' | b'&')) {
                        self.pos += 1;
                    }
                }
                b'&' => self.ampersand(parsed),
                b'|' => self.bar(parsed),
                b'<' | b'>' => self.angle(parsed, c),
                b'(' => self.open_paren(parsed),
                b')' => {
                    self.end_command(parsed, Sep::Group);
                    self.pos += 1;
                }
                b'#' if self.word.is_none() => self.pos = find_byte(self.src, self.pos, b'\n'),
                b'\'' => self.single_quoted(parsed),
                b'"' => self.double_quoted(parsed),
                b'\\' => self.backslash(parsed),
                b'$' => self.dollar(parsed, false),
                b'`' => self.backtick(parsed),
                _ => {
                    self.push(parsed, c);
                    self.pos += 1;
                }
            }
        }
        self.end_command(parsed, Sep::Other);
    }

    fn ensure_command(&mut self, parsed: &mut Parsed) {
        if self.current.is_none() {
            self.current = Some(parsed.commands.len());
            parsed.commands.push(SimpleCommand {
                pipeline: self.pipeline,
                start: self.base + self.pos,
                depth: self.depth,
                ..SimpleCommand::default()
            });
            self.pipeline_used = true;
        }
    }

    /// The word being built, starting one (and a command) if needed.
    fn word(&mut self, parsed: &mut Parsed) -> &mut WordBuf {
        if self.word.is_none() {
            self.ensure_command(parsed);
        }
        self.word.get_or_insert_with(WordBuf::default)
    }

    fn push(&mut self, parsed: &mut Parsed, byte: u8) {
        self.word(parsed).bytes.push(byte);
    }

    fn finish_word(&mut self, parsed: &mut Parsed) {
        let Some(buf) = self.word.take() else { return };
        let orig = match String::from_utf8(buf.bytes) {
            Ok(text) => text,
            Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
        };
        // `$'...'` decoding can produce characters normalisation never saw.
        let orig = if orig.is_ascii() {
            orig
        } else {
            orig.nfkc().collect()
        };
        let word = Word {
            text: orig.to_lowercase(),
            orig,
            subst: buf.subst,
            proc_subst: buf.proc_subst,
        };
        let Some(index) = self.current else { return };
        let Some(command) = parsed.commands.get_mut(index) else {
            return;
        };
        match self.redirect.take() {
            Some(pending) => {
                let kind = if pending.kind == RedirectKind::Duplicate && !is_descriptor(&word.text)
                {
                    // `>&file` writes to a file, like `&>file`.
                    RedirectKind::Write
                } else {
                    pending.kind
                };
                if kind == RedirectKind::HereDoc {
                    self.heredocs.push(PendingHeredoc {
                        delimiter: word.orig.as_bytes().to_vec(),
                        strip_tabs: pending.strip_tabs,
                        command: index,
                    });
                }
                command.redirects.push(Redirect { kind, target: word });
            }
            None => command.words.push(word),
        }
    }

    fn end_command(&mut self, parsed: &mut Parsed, sep: Sep) {
        self.finish_word(parsed);
        self.redirect = None;
        self.current = None;
        if matches!(sep, Sep::Other) && self.pipeline_used {
            self.pipeline = parsed.new_pipeline();
            self.pipeline_used = false;
        }
    }

    fn start_redirect(&mut self, parsed: &mut Parsed, kind: RedirectKind, strip_tabs: bool) {
        self.ensure_command(parsed);
        self.redirect = Some(PendingRedirect { kind, strip_tabs });
    }

    fn brace_char(&mut self, c: u8) {
        if let Some(word) = &mut self.word {
            match c {
                b'{' => word.braces += 1,
                b'}' => word.braces = word.braces.saturating_sub(1),
                _ => {}
            }
            word.bytes.push(c);
        }
        self.pos += 1;
    }

    fn ampersand(&mut self, parsed: &mut Parsed) {
        match self.peek(1) {
            Some(b'&') => {
                self.end_command(parsed, Sep::Other);
                self.pos += 2;
            }
            Some(b'>') => {
                self.finish_word(parsed);
                self.pos += 2;
                let kind = if self.peek(0) == Some(b'>') {
                    self.pos += 1;
                    RedirectKind::Append
                } else {
                    RedirectKind::Write
                };
                self.start_redirect(parsed, kind, false);
            }
            _ => {
                self.end_command(parsed, Sep::Other);
                self.pos += 1;
            }
        }
    }

    fn bar(&mut self, parsed: &mut Parsed) {
        match self.peek(1) {
            Some(b'|') => {
                self.end_command(parsed, Sep::Other);
                self.pos += 2;
            }
            Some(b'&') => {
                self.end_command(parsed, Sep::Pipe);
                self.pos += 2;
            }
            _ => {
                self.end_command(parsed, Sep::Pipe);
                self.pos += 1;
            }
        }
    }

    fn angle(&mut self, parsed: &mut Parsed, c: u8) {
        if self.peek(1) == Some(b'(') && self.word.is_none() {
            self.substitution(parsed, true);
            return;
        }
        if self.word.as_ref().is_some_and(WordBuf::is_fd_number) {
            self.word = None;
        }
        self.finish_word(parsed);
        let (kind, width, strip_tabs) = match (c, self.peek(1), self.peek(2)) {
            (b'>', Some(b'>'), _) => (RedirectKind::Append, 2, false),
            (b'>', Some(b'|'), _) => (RedirectKind::Write, 2, false),
            (b'>', Some(b'&'), _) => (RedirectKind::Duplicate, 2, false),
            (b'>', _, _) => (RedirectKind::Write, 1, false),
            (_, Some(b'<'), Some(b'<')) => (RedirectKind::HereString, 3, false),
            (_, Some(b'<'), Some(b'-')) => (RedirectKind::HereDoc, 3, true),
            (_, Some(b'<'), _) => (RedirectKind::HereDoc, 2, false),
            (_, Some(b'>'), _) => (RedirectKind::ReadWrite, 2, false),
            (_, Some(b'&'), _) => (RedirectKind::Duplicate, 2, false),
            _ => (RedirectKind::Read, 1, false),
        };
        self.pos += width;
        self.start_redirect(parsed, kind, strip_tabs);
    }

    fn open_paren(&mut self, parsed: &mut Parsed) {
        let src = self.src;
        // `name=(a b c)` is an array assignment, not a subshell.
        if let Some(word) = &mut self.word
            && word.braces == 0
            && word.bytes.last() == Some(&b'=')
        {
            let (_, after) = find_close_paren(src, self.pos + 1);
            word.bytes
                .extend_from_slice(src.get(self.pos..after).unwrap_or_default());
            self.pos = after;
            return;
        }
        self.end_command(parsed, Sep::Group);
        self.pos += 1;
    }

    fn single_quoted(&mut self, parsed: &mut Parsed) {
        let src = self.src;
        let start = self.pos + 1;
        let end = find_byte(src, start, b'\'');
        let word = self.word(parsed);
        word.quoted = true;
        word.bytes
            .extend_from_slice(src.get(start..end).unwrap_or_default());
        self.pos = end + 1;
    }

    fn double_quoted(&mut self, parsed: &mut Parsed) {
        self.word(parsed).quoted = true;
        self.pos += 1;
        while let Some(c) = self.peek(0) {
            match c {
                b'"' => {
                    self.pos += 1;
                    return;
                }
                b'\\' => match self.peek(1) {
                    Some(b'\n') => self.pos += 2,
                    Some(n @ (b'$' | b'`' | b'"' | b'\\')) => {
                        self.push(parsed, n);
                        self.pos += 2;
                    }
                    _ => {
                        self.push(parsed, b'\\');
                        self.pos += 1;
                    }
                },
                b'$' => self.dollar(parsed, true),
                b'`' => self.backtick(parsed),
                _ => {
                    self.push(parsed, c);
                    self.pos += 1;
                }
            }
        }
    }

    fn backslash(&mut self, parsed: &mut Parsed) {
        match self.peek(1) {
            Some(b'\n') => self.pos += 2,
            Some(n) => {
                let word = self.word(parsed);
                word.quoted = true;
                word.bytes.push(n);
                self.pos += 2;
            }
            None => {
                self.push(parsed, b'\\');
                self.pos += 1;
            }
        }
    }

    fn dollar(&mut self, parsed: &mut Parsed, in_quotes: bool) {
        match self.peek(1) {
            Some(b'(') => self.substitution(parsed, false),
            Some(b'{') => {
                let word = self.word(parsed);
                word.bytes.extend_from_slice(b"${");
                if !in_quotes {
                    word.braces += 1;
                }
                self.pos += 2;
            }
            Some(b'\'') if !in_quotes => self.ansi_c_quoted(parsed),
            // `$"..."` is a translatable string: read it like "...".
            Some(b'"') if !in_quotes => {
                self.word(parsed);
                self.pos += 1;
            }
            _ => {
                self.push(parsed, b'$');
                self.pos += 1;
            }
        }
    }

    /// `$(...)`, `<(...)` or `>(...)` at `self.pos`.
    fn substitution(&mut self, parsed: &mut Parsed, process: bool) {
        let src = self.src;
        let open = self.pos;
        let (inner_end, after) = find_close_paren(src, open + 2);
        // Make sure the enclosing command is registered before the inner ones.
        self.word(parsed);
        let inner = src.get(open + 2..inner_end).unwrap_or_default();
        let range = nested(parsed, inner, self.base + open + 2, self.depth);
        let word = self.word(parsed);
        word.bytes
            .extend_from_slice(src.get(open..after).unwrap_or_default());
        word.proc_subst |= process;
        word.add_subst(range);
        self.pos = after;
    }

    fn backtick(&mut self, parsed: &mut Parsed) {
        let src = self.src;
        let open = self.pos;
        let mut i = open + 1;
        let mut inner = Vec::new();
        while let Some(&c) = src.get(i) {
            match c {
                b'`' => break,
                b'\\' => match src.get(i + 1) {
                    Some(&n @ (b'`' | b'\\' | b'$')) => {
                        inner.push(n);
                        i += 2;
                    }
                    Some(&n) => {
                        inner.extend_from_slice(&[b'\\', n]);
                        i += 2;
                    }
                    None => {
                        inner.push(b'\\');
                        i += 1;
                    }
                },
                _ => {
                    inner.push(c);
                    i += 1;
                }
            }
        }
        let after = (i + 1).min(src.len());
        self.word(parsed);
        let range = nested(parsed, &inner, self.base + open + 1, self.depth);
        let word = self.word(parsed);
        word.bytes
            .extend_from_slice(src.get(open..after).unwrap_or_default());
        word.add_subst(range);
        self.pos = after;
    }

    /// `$'...'`: single quotes with C-style escapes.
    fn ansi_c_quoted(&mut self, parsed: &mut Parsed) {
        let src = self.src;
        let mut i = self.pos + 2;
        let mut decoded = Vec::new();
        while let Some(&c) = src.get(i) {
            match c {
                b'\'' => {
                    i += 1;
                    break;
                }
                b'\\' => i = decode_escape(src, i + 1, &mut decoded),
                _ => {
                    decoded.push(c);
                    i += 1;
                }
            }
        }
        let word = self.word(parsed);
        word.quoted = true;
        word.bytes.extend_from_slice(&decoded);
        self.pos = i;
    }

    /// Collect here-document bodies; `self.pos` is at the start of a line.
    fn read_heredocs(&mut self, parsed: &mut Parsed) {
        let src = self.src;
        for doc in std::mem::take(&mut self.heredocs) {
            let mut body = String::new();
            while self.pos < src.len() {
                let end = find_byte(src, self.pos, b'\n');
                let line = src.get(self.pos..end).unwrap_or_default();
                self.pos = (end + 1).min(src.len());
                let compared = if doc.strip_tabs {
                    let tabs = line.iter().take_while(|&&b| b == b'\t').count();
                    line.get(tabs..).unwrap_or_default()
                } else {
                    line
                };
                if compared == doc.delimiter.as_slice() {
                    break;
                }
                body.push_str(&String::from_utf8_lossy(line));
                body.push('\n');
            }
            if let Some(command) = parsed.commands.get_mut(doc.command) {
                command
                    .heredoc
                    .get_or_insert_with(String::new)
                    .push_str(&body);
            }
        }
    }
}

/// Target of `>&` / `<&` that names a descriptor rather than a file.
fn is_descriptor(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'-')
}

/// Decode one escape of `$'...'`; `i` is just after the backslash. Returns
/// the index after the escape.
fn decode_escape(src: &[u8], i: usize, out: &mut Vec<u8>) -> usize {
    let Some(&c) = src.get(i) else {
        out.push(b'\\');
        return i;
    };
    let simple = match c {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'a' => Some(0x07),
        b'b' => Some(0x08),
        b'e' | b'E' => Some(0x1b),
        b'f' => Some(0x0c),
        b'v' => Some(0x0b),
        b'\\' | b'\'' | b'"' | b'?' => Some(c),
        _ => None,
    };
    if let Some(byte) = simple {
        out.push(byte);
        return i + 1;
    }
    match c {
        b'x' => {
            let (value, used) = read_digits(src, i + 1, 16, 2);
            if used == 0 {
                out.extend_from_slice(b"\\x");
            } else {
                out.push(u8::try_from(value & 0xff).unwrap_or_default());
            }
            i + 1 + used
        }
        b'0'..=b'7' => {
            let (value, used) = read_digits(src, i, 8, 3);
            out.push(u8::try_from(value & 0xff).unwrap_or_default());
            i + used
        }
        b'u' | b'U' => {
            let max = if c == b'u' { 4 } else { 8 };
            let (value, used) = read_digits(src, i + 1, 16, max);
            match char::from_u32(value).filter(|_| used > 0) {
                Some(ch) => {
                    let mut buf = [0; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                None => out.extend_from_slice(&[b'\\', c]),
            }
            i + 1 + used
        }
        // `\cX` is a control character; it never spells anything useful.
        b'c' => (i + 2).min(src.len()),
        _ => {
            out.extend_from_slice(&[b'\\', c]);
            i + 1
        }
    }
}

fn read_digits(src: &[u8], start: usize, radix: u32, max: usize) -> (u32, usize) {
    let mut value: u32 = 0;
    let mut used = 0;
    while used < max {
        let Some(digit) = src
            .get(start + used)
            .and_then(|&b| char::from(b).to_digit(radix))
        else {
            break;
        };
        value = value.saturating_mul(radix).saturating_add(digit);
        used += 1;
    }
    (value, used)
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

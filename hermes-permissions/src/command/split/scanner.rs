//! The one-pass scanner behind [`super::parse`].

use std::ops::Range;

use unicode_normalization::UnicodeNormalization;

use super::escape::decode_escape;
use super::{
    Parsed, Redirect, RedirectKind, SimpleCommand, Word, find_byte, find_close_paren, nested,
};

/// Scan `src` (at byte `base` of the top-level text, `depth` levels deep) into `parsed`.
pub(super) fn parse_into(parsed: &mut Parsed, src: &[u8], base: usize, depth: usize) {
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

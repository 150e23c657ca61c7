//! Text normalisation applied before any rule looks at a command.
//!
//! Two flavours exist: [`normalize`] (the public form, lowercased) and
//! [`normalize_keep_case`], which does the same except lowercasing. The
//! splitter works on the case-preserving form so that the few rules where
//! option case matters (`sudo -S` vs `sudo -s`, `git branch -D` vs `-d`,
//! `chmod -R` vs the mode `-r`) can still tell them apart; every program name
//! and most comparisons use the lowercased text.

use unicode_normalization::UnicodeNormalization;

/// How far we look for the end of an escape sequence before deciding it is
/// not one. Keeps stripping linear and stops an unterminated sequence from
/// swallowing the rest of the command.
const MAX_ESCAPE_LEN: usize = 256;

/// Normalised text with letter case preserved.
pub(crate) fn normalize_keep_case(input: &str) -> String {
    let visible = strip_invisible(input);
    let folded = nfkc(&visible);
    let simplified = simplify_quoting(&folded);
    nfkc(&simplified)
}

/// The public normal form: [`normalize_keep_case`], then lowercased.
pub(crate) fn normalize(input: &str) -> String {
    nfkc(&normalize_keep_case(input).to_lowercase())
}

/// NFKC with a fast path for pure ASCII, which is already normalised.
fn nfkc(text: &str) -> String {
    if text.is_ascii() {
        text.to_owned()
    } else {
        text.nfkc().collect()
    }
}

/// Remove terminal escape sequences, control characters (other than tab and
/// newline) and invisible formatting characters.
fn strip_invisible(input: &str) -> String {
    let chars: Vec<char> = input.chars().collect();
    let mut out = String::with_capacity(input.len());
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        i = match c {
            '\u{1b}' => skip_escape(&chars, i + 1),
            // 8-bit CSI, and the 8-bit string introducers (DCS, SOS, OSC, PM, APC).
            '\u{9b}' => skip_csi(&chars, i + 1),
            '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}' => skip_string(&chars, i + 1),
            '\t' | '\n' => {
                out.push(c);
                i + 1
            }
            _ if c.is_control() || is_invisible(c) => i + 1,
            _ => {
                out.push(c);
                i + 1
            }
        };
    }
    out
}

/// Zero-width and bidi formatting characters that render as nothing.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}

/// Skip what follows an ESC; `i` is the index just after the ESC.
fn skip_escape(chars: &[char], i: usize) -> usize {
    match chars.get(i) {
        None => i,
        Some('[') => skip_csi(chars, i + 1),
        Some(']' | 'P' | 'X' | '^' | '_') => skip_string(chars, i + 1),
        // Intermediate bytes (e.g. `ESC ( B`), then one final byte.
        Some(' '..='/') => {
            let mut j = i;
            while j - i < MAX_ESCAPE_LEN && chars.get(j).is_some_and(|c| (' '..='/').contains(c)) {
                j += 1;
            }
            if chars.get(j).is_some_and(|c| ('0'..='~').contains(c)) {
                j + 1
            } else {
                j
            }
        }
        // A lowercase letter right after ESC is far more likely to be the
        // start of a word than a two-character sequence, so keep it: that
        // way `ESC rm` is still seen as `rm`.
        Some('a'..='z') => i,
        Some('0'..='~') => i + 1,
        Some(_) => i,
    }
}

/// Skip a control sequence: parameter and intermediate bytes, then a final
/// byte. `i` is the index just after the introducer.
fn skip_csi(chars: &[char], i: usize) -> usize {
    let mut j = i;
    while j - i < MAX_ESCAPE_LEN && chars.get(j).is_some_and(|c| (' '..='?').contains(c)) {
        j += 1;
    }
    if chars.get(j).is_some_and(|c| ('@'..='~').contains(c)) {
        j + 1
    } else {
        j
    }
}

/// Skip a string sequence (OSC, DCS, ...) ended by BEL or ST. When no
/// terminator shows up within a short window on the same line, only the
/// introducer is dropped and the text after it is kept.
fn skip_string(chars: &[char], i: usize) -> usize {
    let mut j = i;
    while j - i < MAX_ESCAPE_LEN {
        match chars.get(j) {
            None | Some('\n') => return i,
            Some('\u{7}' | '\u{9c}') => return j + 1,
            Some('\u{1b}') if chars.get(j + 1) == Some(&'\\') => return j + 2,
            Some(_) => j += 1,
        }
    }
    i
}

/// Characters whose backslash escape changes how a shell reads the line.
/// Escapes of anything else are pure obfuscation and are dropped.
fn backslash_matters(c: char) -> bool {
    matches!(
        c,
        '\\' | '\''
            | '"'
            | '$'
            | '`'
            | ';'
            | '&'
            | '|'
            | '<'
            | '>'
            | '('
            | ')'
            | '{'
            | '}'
            | '['
            | ']'
            | '*'
            | '?'
            | '#'
            | '~'
            | '!'
            | ' '
            | '\t'
    )
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
}

/// Undo escaping tricks outside quotes: drop meaningless backslashes and
/// line continuations, and drop empty `''` / `""` pairs.
fn simplify_quoting(input: &str) -> String {
    let mut out = String::with_capacity(input.len());
    let mut chars = input.chars().peekable();
    let mut quote = Quote::None;
    while let Some(c) = chars.next() {
        match quote {
            Quote::None => match c {
                '\\' => match chars.next() {
                    None => out.push('\\'),
                    Some('\n') => {}
                    Some(n) if backslash_matters(n) => {
                        out.push('\\');
                        out.push(n);
                    }
                    Some(n) => out.push(n),
                },
                '\'' | '"' if chars.peek() == Some(&c) => {
                    chars.next();
                }
                '\'' => {
                    out.push(c);
                    quote = Quote::Single;
                }
                '"' => {
                    out.push(c);
                    quote = Quote::Double;
                }
                _ => out.push(c),
            },
            Quote::Single => {
                out.push(c);
                if c == '\'' {
                    quote = Quote::None;
                }
            }
            Quote::Double => {
                out.push(c);
                if c == '\\' {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                } else if c == '"' {
                    quote = Quote::None;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_ansi_sequences() {
        assert_eq!(normalize("\u{1b}[31mrm\u{1b}[0m -rf /"), "rm -rf /");
        assert_eq!(normalize("\u{1b}]0;title\u{7}ls"), "ls");
        assert_eq!(normalize("\u{1b}(Bls"), "ls");
        assert_eq!(normalize("\u{9b}1mls"), "ls");
    }

    #[test]
    fn unterminated_osc_does_not_eat_the_command() {
        assert_eq!(normalize("\u{1b}]rm -rf /"), "rm -rf /");
    }

    #[test]
    fn esc_before_a_word_keeps_the_word() {
        assert_eq!(normalize("\u{1b}rm -rf /"), "rm -rf /");
    }

    #[test]
    fn removes_controls_and_invisible_characters() {
        assert_eq!(normalize("r\u{200b}m\u{0} -rf\r /"), "rm -rf /");
        assert_eq!(normalize("a\tb\nc"), "a\tb\nc");
    }

    #[test]
    fn folds_fullwidth_and_case() {
        assert_eq!(normalize("ｒｍ -RF /"), "rm -rf /");
        assert_eq!(normalize("Shutdown -h now"), "shutdown -h now");
    }

    #[test]
    fn undoes_escapes_and_empty_quotes() {
        assert_eq!(normalize(r"r\m -rf /"), "rm -rf /");
        assert_eq!(normalize("r''m -rf /"), "rm -rf /");
        assert_eq!(normalize(r#"r""m -rf /"#), "rm -rf /");
        assert_eq!(normalize("rm -rf \\\n/"), "rm -rf /");
    }

    #[test]
    fn keeps_escapes_that_matter() {
        assert_eq!(
            normalize(r"find . -exec rm {} \;"),
            r"find . -exec rm {} \;"
        );
        assert_eq!(normalize(r"echo \$HOME \\x"), r"echo \$home \\x");
    }

    #[test]
    fn leaves_quoted_text_alone() {
        assert_eq!(normalize(r"echo 'r\m' ''"), r"echo 'r\m' ");
        assert_eq!(normalize(r#"echo "a''b" "x\y""#), r#"echo "a''b" "x\y""#);
        assert_eq!(normalize(r#"echo "'"'"'"#), r#"echo "'"'"'"#);
    }

    #[test]
    fn keep_case_variant_only_skips_lowercasing() {
        assert_eq!(normalize_keep_case("SUDO -S r\\m"), "SUDO -S rm");
    }

    #[test]
    fn is_idempotent_on_tricky_input() {
        for input in [
            "r''m -rf /",
            "'''",
            "\"\"\"",
            "\\''x'",
            "a\\",
            "e\\\u{301}",
            "ＲＭ　－ｒｆ　／",
            "İstanbul",
        ] {
            let once = normalize(input);
            assert_eq!(normalize(&once), once, "input {input:?}");
        }
    }
}

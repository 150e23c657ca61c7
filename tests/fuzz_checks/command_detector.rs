//! The command normaliser and dangerous-command detector: any command line is assessed
//! without a panic, with a verdict, rule and class that agree; and a line flagged
//! dangerous stays at least as dangerous when `sudo ` or `env X=1 ` is put in front of
//! it (the detector peels those wrappers), and keeps its verdict and rule behind
//! leading blanks.
//!
//! Input: the command line (invalid UTF-8 replaced).

use hermes_permissions::command::{Assessment, Verdict, assess, normalize};

/// Longer lines are not parsed at all (`dangerous.too-long`); the wrapped forms of a
/// line must stay under that limit for the comparison to mean anything.
const MAX_LEN: usize = 60 * 1024;

/// Check one input.
pub(crate) fn check(data: &[u8]) {
    let line = String::from_utf8_lossy(data);
    let normalized = normalize(&line);
    let found = assess(&line);
    consistent(&line, &found);
    if found.verdict == Verdict::Safe || line.len() > MAX_LEN || !starts_with_a_word(&normalized) {
        return;
    }
    let blanks = assess(&format!("  \t {line}"));
    assert_eq!(
        (blanks.verdict, blanks.rule),
        (found.verdict, found.rule),
        "leading blanks changed the assessment of {line:?}"
    );
    for wrapper in ["sudo ", "env X=1 ", "sudo   env  X=1 "] {
        let wrapped = assess(&format!("{wrapper}{line}"));
        assert!(
            severity(wrapped.verdict) >= severity(found.verdict),
            "{wrapper:?} in front of {line:?} made it {} ({}), alone it is {} ({})",
            wrapped.verdict,
            wrapped.rule,
            found.verdict,
            found.rule
        );
    }
}

/// Whether the (normalised) line starts with a plain word (a program name or path), so that a
/// wrapper in front of it wraps a command: not with an option, an operator, a keyword
/// or a redirection, whose meaning a wrapper would change; nor with a SQL keyword, which
/// makes the detector read the whole line as SQL (`truncate x` alone is judged as the
/// statement, `env X=1 truncate x` as coreutils `truncate`).
fn starts_with_a_word(line: &str) -> bool {
    let first = line
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    first
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '/')
        && first
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c))
        && !SHELL_KEYWORDS.contains(&first.as_str())
        && !SQL_KEYWORDS.contains(&first.split(['.', '-', '/']).next().unwrap_or_default())
}

/// Words that start a compound command rather than name a program.
const SHELL_KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
    "function", "select", "time", "coproc",
];

/// First words that make the detector read a line as SQL (as its `rules/sql.rs` lists).
const SQL_KEYWORDS: &[&str] = &[
    "select", "insert", "update", "delete", "drop", "truncate", "alter", "create", "grant",
    "revoke", "with", "replace", "merge", "begin", "start", "use", "explain",
];

/// The verdict, rule and class say the same thing.
fn consistent(line: &str, found: &Assessment) {
    assert!(!found.reason.is_empty(), "no reason for {line:?}");
    match found.verdict {
        Verdict::Safe => assert!(
            found.rule == "safe" && found.class.starts_with("safe:"),
            "{line:?}: safe with rule {} and class {}",
            found.rule,
            found.class
        ),
        verdict => assert!(
            found.rule.starts_with(verdict.as_str()) && !found.class.starts_with("safe"),
            "{line:?}: {verdict} with rule {} and class {}",
            found.rule,
            found.class
        ),
    }
}

fn severity(verdict: Verdict) -> u8 {
    match verdict {
        Verdict::Safe => 0,
        Verdict::Dangerous => 1,
        Verdict::Hardline => 2,
    }
}

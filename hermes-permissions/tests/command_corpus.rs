#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! Runs `assess` over `tests/corpus/commands.tsv` and reports every
//! mismatch at once.
//!
//! Corpus format: `verdict<TAB>command` or `verdict<TAB>command<TAB>rule`;
//! empty lines and lines starting with `#` are skipped. The command field
//! supports `\xHH` escapes (exactly two hex digits), decoded to the character
//! U+00HH, so control characters such as ESC (`\x1b`), tab (`\x09`) and
//! newline (`\x0a`) can be written. Every other backslash is literal.

use std::fmt::Write as _;

use hermes_permissions::command::{Assessment, Verdict, assess, normalize};

struct Case {
    line: usize,
    verdict: Verdict,
    command: String,
    rule: Option<String>,
}

fn decode(field: &str) -> String {
    let chars: Vec<char> = field.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\\' && chars.get(i + 1) == Some(&'x') {
            let hex: String = chars.iter().skip(i + 2).take(2).collect();
            if hex.len() == 2
                && let Ok(value) = u8::from_str_radix(&hex, 16)
            {
                out.push(char::from(value));
                i += 4;
                continue;
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

fn load() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/commands.tsv");
    let text = std::fs::read_to_string(path).expect("corpus file is readable");
    let mut cases = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        if raw.trim().is_empty() || raw.starts_with('#') {
            continue;
        }
        let mut fields = raw.split('\t');
        let verdict = match fields.next() {
            Some("hardline") => Verdict::Hardline,
            Some("dangerous") => Verdict::Dangerous,
            Some("safe") => Verdict::Safe,
            other => panic!("line {line}: unknown verdict {other:?}"),
        };
        let command = decode(
            fields
                .next()
                .unwrap_or_else(|| panic!("line {line}: missing command")),
        );
        let rule = fields.next().map(str::to_owned);
        assert!(fields.next().is_none(), "line {line}: too many fields");
        cases.push(Case {
            line,
            verdict,
            command,
            rule,
        });
    }
    cases
}

/// Shape of every answer: a reason sentence and a class tied to the rule.
fn shape_problem(got: &Assessment) -> Option<String> {
    let first = got.reason.chars().next()?;
    if first.is_uppercase() {
        return Some("reason starts with an uppercase letter".to_owned());
    }
    if got.reason.ends_with('.') {
        return Some("reason ends with a period".to_owned());
    }
    if !got.class.starts_with(got.rule) {
        return Some(format!(
            "class {:?} does not start with the rule id",
            got.class
        ));
    }
    if got.verdict != Verdict::Safe && !got.rule.starts_with(got.verdict.as_str()) {
        return Some("rule id does not start with its verdict".to_owned());
    }
    None
}

#[test]
fn corpus_matches_expected_verdicts() {
    let cases = load();
    let count = |v: Verdict| cases.iter().filter(|c| c.verdict == v).count();
    assert!(cases.len() >= 110, "corpus has only {} cases", cases.len());
    for verdict in [Verdict::Hardline, Verdict::Dangerous, Verdict::Safe] {
        assert!(count(verdict) >= 20, "too few {verdict} cases");
    }

    let mut report = String::new();
    let mut failures = 0;
    for case in &cases {
        let got = assess(&case.command);
        let mut problems = Vec::new();
        if got.verdict != case.verdict {
            problems.push(format!("expected {}, got {}", case.verdict, got.verdict));
        }
        if let Some(rule) = &case.rule
            && got.rule != rule
        {
            problems.push(format!("expected rule {rule}, got {}", got.rule));
        }
        if got.reason.is_empty() {
            problems.push("empty reason".to_owned());
        }
        if let Some(problem) = shape_problem(&got) {
            problems.push(problem);
        }
        if !problems.is_empty() {
            failures += 1;
            let _ = writeln!(
                report,
                "line {}: {:?}\n    {}\n    got rule {} / class {:?}: {}",
                case.line,
                case.command,
                problems.join("; "),
                got.rule,
                got.class,
                got.reason
            );
        }
    }
    assert!(
        failures == 0,
        "{failures} of {} corpus cases failed:\n{report}",
        cases.len()
    );
}

#[test]
fn normalize_is_idempotent_on_the_corpus() {
    let mut report = String::new();
    for case in load() {
        let once = normalize(&case.command);
        let twice = normalize(&once);
        if once != twice {
            let _ = writeln!(
                report,
                "line {}: {:?} -> {:?} -> {:?}",
                case.line, case.command, once, twice
            );
        }
    }
    assert!(report.is_empty(), "normalize is not idempotent:\n{report}");
}

#[test]
fn reader_decodes_hex_escapes() {
    assert_eq!(decode(r"\x1b[0m"), "\u{1b}[0m");
    assert_eq!(decode(r"a\x09b\x0ac"), "a\tb\nc");
    assert_eq!(decode(r"r\m \xZZ \x4"), r"r\m \xZZ \x4");
}

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]
//! `assess` and `normalize` must cope with any input: no panics, no stack
//! overflows, bounded time.

use std::time::{Duration, Instant};

use hermes_permissions::command::{Verdict, assess, normalize};

/// Small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n as u64)).unwrap()
    }
}

fn check(input: &str) {
    let got = assess(input);
    assert!(!got.reason.is_empty(), "empty reason for {input:?}");
    let _ = normalize(input);
}

#[test]
fn junk_never_panics() {
    let cases = [
        "",
        "'",
        "\"",
        "`",
        "\\",
        "\\\\\\",
        "$(",
        "$((",
        "<(",
        ">(",
        "${",
        "$'",
        "$'\\",
        "$'\\x",
        "$'\\u",
        "echo 'unterminated; rm -rf /",
        "echo \"unterminated $(rm",
        "echo `unterminated",
        ")))",
        "((((",
        "}}}{{{",
        "<<",
        "<<EOF",
        "cat <<",
        "cat <<-",
        ">",
        "2>&",
        "&>",
        "|||&&&;;;",
        "\u{1b}",
        "\u{1b}[",
        "\u{1b}]",
        "\u{9b}",
        "\u{0}\u{0}\u{0}",
        "rm -rf \u{1b}[",
        ":(){",
        ":(){ :|:",
        "function",
        "sudo",
        "sudo -u",
        "env -S",
        "su -c",
        "timeout",
        "xargs -I",
        "find . -exec",
        "git",
        "kill -s",
        "bash -c",
        "eval",
        "watch -n",
        "dd of=",
        "chmod",
        "sed -i",
        "cp -t",
        "\u{fdfa}\u{fdfa}",
        "ﷺ -rf /",
    ];
    for case in cases {
        check(case);
    }
}

#[test]
fn pathological_sizes_are_handled() {
    // Over the size limit: refused without parsing.
    let parens = "(".repeat(100_000);
    let got = assess(&parens);
    assert_eq!(got.verdict, Verdict::Dangerous);
    assert_eq!(got.rule, "dangerous.too-long");

    // Just under the limit: parsed, and must stay fast and shallow.
    let started = Instant::now();
    for unit in [
        "(",
        "$(",
        "`",
        "<(",
        "\\",
        "'",
        "\"",
        "${",
        "a|",
        "sudo ",
        "eval ",
        "bash -c ",
        ":(){ ",
        "find -exec ",
    ] {
        let input = unit.repeat(60_000 / unit.len());
        check(&input);
    }
    let deep = "$(".repeat(30_000);
    let got = assess(&deep);
    assert_eq!(got.rule, "dangerous.too-deep");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "pathological inputs took {:?}",
        started.elapsed()
    );
}

#[test]
fn deep_inline_scripts_are_capped() {
    // `"$(...)"` opens a fresh quoting context, so this nests without the
    // exponential growth of re-quoting.
    let mut script = "ls".to_owned();
    for _ in 0..20 {
        script = format!("bash -c \"$({script})\"");
    }
    let got = assess(&script);
    assert_eq!(got.verdict, Verdict::Dangerous);
    assert_eq!(got.rule, "dangerous.too-deep");

    let mut evals = "rm -rf /".to_owned();
    for _ in 0..20 {
        evals = format!("eval {evals}");
    }
    assert_eq!(assess(&evals).rule, "dangerous.too-deep");

    let mut hidden = "rm -rf /".to_owned();
    for _ in 0..4 {
        hidden = format!("sh -c {}", shell_quote(&hidden));
    }
    assert_eq!(assess(&hidden).verdict, Verdict::Hardline);
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..2_000 {
        let len = rng.below(200);
        let bytes: Vec<u8> = (0..len).map(|_| (rng.next() & 0xff) as u8).collect();
        check(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn random_shell_soup_never_panics() {
    const PIECES: &[&str] = &[
        " ",
        "\t",
        "\n",
        ";",
        "&",
        "|",
        "&&",
        "||",
        "(",
        ")",
        "{",
        "}",
        "$(",
        "`",
        "'",
        "\"",
        "\\",
        "$",
        "${",
        "<",
        ">",
        ">>",
        "<<",
        "<<<",
        "2>&1",
        "<(",
        ">(",
        "#",
        "=",
        "rm",
        "-rf",
        "/",
        "~",
        "sudo",
        "bash",
        "-c",
        "eval",
        "find",
        "-exec",
        "\\;",
        "curl",
        "sh",
        "git",
        "push",
        "-f",
        "kill",
        "-9",
        "-1",
        ":",
        "EOF",
        "drop table",
        "\u{1b}[1m",
        "ｒｍ",
        "\u{0}",
    ];
    let mut rng = Rng(42);
    for _ in 0..5_000 {
        let pieces = rng.below(40);
        let input: String = (0..pieces)
            .map(|_| PIECES[rng.below(PIECES.len())])
            .collect();
        check(&input);
    }
}

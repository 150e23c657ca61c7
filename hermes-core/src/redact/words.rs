//! PII made of letters: email addresses, API keys with known prefixes, bearer tokens.

use super::{Finding, PiiKind};

/// Prefixes of keys and tokens, each with the shortest whole length that counts.
const KEY_PREFIXES: &[(&str, usize)] = &[
    ("sk-", 20),      // OpenAI, Anthropic (sk-ant-), DeepSeek...
    ("sk_live_", 24), // Stripe
    ("sk_test_", 24),
    ("rk_live_", 24),
    ("pk_live_", 24),
    ("ghp_", 36), // GitHub
    ("gho_", 36),
    ("ghu_", 36),
    ("ghs_", 36),
    ("ghr_", 36),
    ("github_pat_", 40),
    ("xoxb-", 20), // Slack
    ("xoxp-", 20),
    ("xoxa-", 20),
    ("xoxr-", 20),
    ("glpat-", 26), // GitLab
    ("hf_", 30),    // Hugging Face
    ("npm_", 36),
    ("AIza", 39), // Google
];

/// Characters of a key or token.
fn is_key_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

/// Characters of an email's local part.
fn is_local_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'%' | b'+' | b'-')
}

/// Characters of a domain.
fn is_domain_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-')
}

/// Characters of a bearer credential (RFC 6750's b64token).
fn is_token_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-')
}

pub(super) fn find(text: &str, out: &mut Vec<Finding>) {
    let bytes = text.as_bytes();
    emails(bytes, out);
    keys(bytes, out);
    bearer(bytes, out);
}

fn emails(bytes: &[u8], out: &mut Vec<Finding>) {
    for (at, _) in bytes.iter().enumerate().filter(|(_, c)| **c == b'@') {
        let mut start = at;
        while start > 0 && is_local_char(bytes[start - 1]) {
            start -= 1;
        }
        let mut end = at + 1;
        while end < bytes.len() && is_domain_char(bytes[end]) {
            end += 1;
        }
        while end > at + 1 && matches!(bytes[end - 1], b'.' | b'-') {
            end -= 1;
        }
        let domain = &bytes[at + 1..end];
        let tld = domain.rsplit(|c| *c == b'.').next().unwrap_or_default();
        let dotted = domain.contains(&b'.') && !domain.starts_with(b".");
        if start < at && dotted && tld.len() >= 2 && tld.iter().all(u8::is_ascii_alphabetic) {
            out.push(Finding {
                kind: PiiKind::Email,
                range: start..end,
            });
        }
    }
}

fn keys(bytes: &[u8], out: &mut Vec<Finding>) {
    let mut i = 0;
    while i < bytes.len() {
        if !is_key_char(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_key_char(bytes[i]) {
            i += 1;
        }
        let run = &bytes[start..i];
        let known = KEY_PREFIXES
            .iter()
            .any(|(prefix, min)| run.starts_with(prefix.as_bytes()) && run.len() >= *min);
        // AWS access key ids: AKIA/ASIA and 16 upper-case letters or digits.
        let aws = run.len() == 20
            && (run.starts_with(b"AKIA") || run.starts_with(b"ASIA"))
            && run
                .iter()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
        if known || aws {
            out.push(Finding {
                kind: PiiKind::ApiKey,
                range: start..i,
            });
        }
    }
}

fn bearer(bytes: &[u8], out: &mut Vec<Finding>) {
    const WORD: &[u8] = b"bearer";
    let mut i = 0;
    while i + WORD.len() < bytes.len() {
        let word = &bytes[i..i + WORD.len()];
        let bounded = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        if !(bounded && word.eq_ignore_ascii_case(WORD)) {
            i += 1;
            continue;
        }
        let mut start = i + WORD.len();
        let spaces = start;
        while start < bytes.len() && matches!(bytes[start], b' ' | b'\t') {
            start += 1;
        }
        let mut end = start;
        while end < bytes.len() && is_token_char(bytes[end]) {
            end += 1;
        }
        if start > spaces && end - start >= 8 {
            out.push(Finding {
                kind: PiiKind::BearerToken,
                range: start..end,
            });
        }
        i = end.max(i + 1);
    }
}

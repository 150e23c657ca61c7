//! PII and secret masking for what leaves a run: logs, events, audit records,
//! telemetry, stored memories.
//!
//! [`mask`] replaces, in any text:
//!
//! - email addresses: `[EMAIL]`;
//! - mainland-China mobile numbers (11 digits, `1[3-9]...`): `[PHONE]`;
//! - resident ID numbers (17 digits and a check digit or `X`, the check digit verified):
//!   `[ID_NUMBER]`;
//! - payment card numbers (13 to 19 digits, optionally in groups, a known issuer prefix
//!   and a valid Luhn checksum): `[CARD]`;
//! - API keys and tokens with well-known prefixes (`sk-`, `ghp_`, `xoxb-`, `AKIA`,
//!   `AIza`, `glpat-`, `hf_`...): `[API_KEY]`;
//! - the credential after `Bearer`: `Bearer [TOKEN]`.
//!
//! Each rule checks structure, not just length, so ordinary numbers stay: Unix times in
//! seconds (10 digits) or milliseconds (13 digits, no issuer prefix), order numbers that
//! fail the checksums, version strings, UUIDs. A number glued to letters or other digits
//! (`id12345678901`, a longer digit run) is left alone.
//!
//! ```
//! use hermes_core::redact::mask;
//!
//! let text = "call 13812345678 or mail li.lei@example.com; card 4111 1111 1111 1111";
//! assert_eq!(mask(text), "call [PHONE] or mail [EMAIL]; card [CARD]");
//! assert_eq!(mask("took 1700000000123 ms"), "took 1700000000123 ms");
//! ```

mod numbers;
mod words;

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

/// What a masked piece of text was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PiiKind {
    /// An email address.
    Email,
    /// A mobile phone number.
    Phone,
    /// A resident identity card number.
    IdNumber,
    /// A payment card number.
    CreditCard,
    /// An API key or access token with a known prefix.
    ApiKey,
    /// The credential of an `Authorization: Bearer` header.
    BearerToken,
}

impl PiiKind {
    /// Every kind.
    pub const ALL: [Self; 6] = [
        Self::Email,
        Self::Phone,
        Self::IdNumber,
        Self::CreditCard,
        Self::ApiKey,
        Self::BearerToken,
    ];

    /// What replaces it.
    pub const fn placeholder(self) -> &'static str {
        match self {
            Self::Email => "[EMAIL]",
            Self::Phone => "[PHONE]",
            Self::IdNumber => "[ID_NUMBER]",
            Self::CreditCard => "[CARD]",
            Self::ApiKey => "[API_KEY]",
            Self::BearerToken => "[TOKEN]",
        }
    }

    const fn bit(self) -> u8 {
        match self {
            Self::Email => 1,
            Self::Phone => 2,
            Self::IdNumber => 4,
            Self::CreditCard => 8,
            Self::ApiKey => 16,
            Self::BearerToken => 32,
        }
    }
}

/// One piece of PII found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What it is.
    pub kind: PiiKind,
    /// Where it is, in bytes.
    pub range: Range<usize>,
}

/// Finds and masks the kinds it is set to; [`Redactor::default`] masks them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Redactor {
    kinds: u8,
}

impl Default for Redactor {
    fn default() -> Self {
        Self { kinds: 0x3f }
    }
}

impl Redactor {
    /// Mask every kind.
    pub fn new() -> Self {
        Self::default()
    }

    /// Leave `kind` unmasked.
    #[must_use]
    pub const fn without(mut self, kind: PiiKind) -> Self {
        self.kinds &= !kind.bit();
        self
    }

    /// Whether `kind` is masked.
    pub const fn masks(&self, kind: PiiKind) -> bool {
        self.kinds & kind.bit() != 0
    }

    /// Every piece of PII in `text`, in order, none overlapping.
    pub fn find(&self, text: &str) -> Vec<Finding> {
        let mut found = Vec::new();
        words::find(text, &mut found);
        numbers::find(text, &mut found);
        found.retain(|finding| self.masks(finding.kind));
        // Earlier first, then longer first; drop what overlaps a kept one.
        found.sort_by_key(|finding| (finding.range.start, usize::MAX - finding.range.end));
        let mut kept: Vec<Finding> = Vec::with_capacity(found.len());
        for finding in found {
            if kept
                .last()
                .is_none_or(|last| finding.range.start >= last.range.end)
            {
                kept.push(finding);
            }
        }
        kept
    }

    /// `text` with every piece of PII replaced by its placeholder; borrowed when there
    /// is none.
    pub fn mask<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let found = self.find(text);
        if found.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for finding in found {
            out.push_str(&text[at..finding.range.start]);
            out.push_str(finding.kind.placeholder());
            at = finding.range.end;
        }
        out.push_str(&text[at..]);
        Cow::Owned(out)
    }

    /// Mask every string inside `value` (object keys are left as they are).
    pub fn mask_json(&self, value: &mut Value) {
        match value {
            Value::String(text) => {
                if let Cow::Owned(masked) = self.mask(text) {
                    *text = masked;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.mask_json(item)),
            Value::Object(members) => members.values_mut().for_each(|item| self.mask_json(item)),
            _ => {}
        }
    }
}

/// [`Redactor::mask`] with every kind on.
pub fn mask(text: &str) -> Cow<'_, str> {
    Redactor::default().mask(text)
}

#[cfg(test)]
mod tests;

//! Content audit: a pluggable check of what goes into a run (the user's input) and what
//! comes out of it (the model's text), which can block the run. A blocked run ends
//! with status `blocked` and says why; nothing more is sent or run.
//!
//! ```
//! use hermes_core::content_check::{ContentCheck, KeywordCheck, Stage, Verdict};
//!
//! let check = KeywordCheck::new(["rm -rf /", "credit card dump"]);
//! assert!(matches!(check.check(Stage::Input, "please rm -rf / now"), Verdict::Block { .. }));
//! assert_eq!(check.check(Stage::Output, "all fine"), Verdict::Allow);
//! ```

use std::fmt;

/// Where in a run the text was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Stage {
    /// The user's input, before the first round.
    Input,
    /// The model's text, as each round answers.
    Output,
}

impl Stage {
    /// `input` or `output`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Input => "input",
            Self::Output => "output",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A check's decision.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// The text may pass.
    Allow,
    /// The run stops here.
    Block {
        /// Why, for the caller (not sent to the model).
        reason: String,
    },
}

/// A content check. Implement it for a moderation service, a classifier, a list.
pub trait ContentCheck: Send + Sync + fmt::Debug + 'static {
    /// Judge `text` seen at `stage`.
    fn check(&self, stage: Stage, text: &str) -> Verdict;
}

/// Blocks text containing any of its keywords (case-insensitive): the simple default,
/// as in the seed's example.
#[derive(Debug, Clone)]
pub struct KeywordCheck {
    keywords: Vec<String>,
}

impl KeywordCheck {
    /// A check for `keywords` (empty ones are ignored).
    pub fn new<I, S>(keywords: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Self {
            keywords: keywords
                .into_iter()
                .map(|keyword| keyword.as_ref().trim().to_lowercase())
                .filter(|keyword| !keyword.is_empty())
                .collect(),
        }
    }
}

impl ContentCheck for KeywordCheck {
    fn check(&self, stage: Stage, text: &str) -> Verdict {
        let lowered = text.to_lowercase();
        match self
            .keywords
            .iter()
            .find(|keyword| lowered.contains(keyword.as_str()))
        {
            Some(keyword) => Verdict::Block {
                reason: format!("the {stage} contains the blocked keyword `{keyword}`"),
            },
            None => Verdict::Allow,
        }
    }
}

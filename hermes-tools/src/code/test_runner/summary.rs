//! What a test run's output says: counts and the failing tests, whatever the runner.

use serde::Serialize;

/// The longest failure message kept, in bytes.
const MAX_MESSAGE_BYTES: usize = 2000;
/// The most lines of a failure message kept.
const MAX_MESSAGE_LINES: usize = 25;

/// The counts and failures a runner reported.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Summary {
    /// Tests that passed.
    pub(super) passed: u64,
    /// Tests that failed (errors included).
    pub(super) failed: u64,
    /// Tests skipped, ignored or marked to-do.
    pub(super) ignored: u64,
    /// The failing tests found, in output order.
    pub(super) failures: Vec<Failure>,
}

/// One failing test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Failure {
    /// The test's name as the runner gives it (a path, a node id).
    pub(crate) name: String,
    /// Why it failed: the assertion, the panic, the error (bounded).
    pub(crate) message: String,
}

impl Failure {
    /// A failure of `name` with `message`, bounded and trimmed.
    pub(super) fn new(name: impl Into<String>, message: &str) -> Self {
        Self {
            name: name.into(),
            message: bound(message),
        }
    }
}

impl Summary {
    /// Record a failure of `name`, or add to the message of one already recorded.
    pub(super) fn fail(&mut self, name: &str, message: &str) {
        match self
            .failures
            .iter_mut()
            .find(|failure| failure.name == name)
        {
            Some(failure) if failure.message.is_empty() => failure.message = bound(message),
            Some(_) => {}
            None => self.failures.push(Failure::new(name, message)),
        }
    }
}

/// `message` trimmed, at most [`MAX_MESSAGE_LINES`] lines and [`MAX_MESSAGE_BYTES`].
fn bound(message: &str) -> String {
    let lines: Vec<&str> = message.trim().lines().collect();
    let mut kept = lines[..lines.len().min(MAX_MESSAGE_LINES)].join("\n");
    if lines.len() > MAX_MESSAGE_LINES {
        kept.push_str("\n[...]");
    }
    if kept.len() > MAX_MESSAGE_BYTES {
        let mut end = MAX_MESSAGE_BYTES;
        while !kept.is_char_boundary(end) {
            end -= 1;
        }
        kept.truncate(end);
        kept.push_str(" [...]");
    }
    kept
}

/// The number before `word` in `text` (`"3 passed"`, `"passed 3"` not).
pub(super) fn count_before(text: &str, word: &str) -> Option<u64> {
    let mut previous: Option<&str> = None;
    for token in text.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
        if token.is_empty() {
            continue;
        }
        if token.trim_end_matches(['.', ':']) == word {
            if let Some(number) = previous.and_then(|previous| previous.parse().ok()) {
                return Some(number);
            }
        }
        previous = Some(token);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_bounded() {
        let long: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let failure = Failure::new("t", &long);
        assert!(failure.message.ends_with("[...]"));
        assert_eq!(failure.message.lines().count(), MAX_MESSAGE_LINES + 1);
        let wide = Failure::new("t", &"é".repeat(5000));
        assert!(wide.message.len() <= MAX_MESSAGE_BYTES + 6);
    }

    #[test]
    fn counts_are_read_before_their_word() {
        let line = "test result: FAILED. 1 passed; 2 failed; 3 ignored; 0 measured";
        assert_eq!(count_before(line, "passed"), Some(1));
        assert_eq!(count_before(line, "failed"), Some(2));
        assert_eq!(count_before(line, "ignored"), Some(3));
        assert_eq!(
            count_before("2 failed, 1 passed in 0.1s", "passed"),
            Some(1)
        );
        assert_eq!(count_before("nothing here", "passed"), None);
    }

    #[test]
    fn failures_merge_by_name() {
        let mut summary = Summary::default();
        summary.fail("a", "");
        summary.fail("a", "boom");
        summary.fail("a", "later");
        assert_eq!(summary.failures, [Failure::new("a", "boom")]);
    }
}

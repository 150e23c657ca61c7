//! Line counts: total, blank, comment-only and code lines of a source file.

use serde::Serialize;

/// How a file's lines divide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct LineCounts {
    /// Every line.
    pub(crate) total: usize,
    /// Lines holding only whitespace.
    pub(crate) blank: usize,
    /// Lines holding only comments (docstrings count as code).
    pub(crate) comment: usize,
    /// The rest.
    pub(crate) code: usize,
}

/// Marks, per line, whether code or a comment touches it.
#[derive(Debug)]
pub(crate) struct LineTally {
    code: Vec<bool>,
    comment: Vec<bool>,
}

impl LineTally {
    /// A tally for a text of `lines` lines.
    pub(crate) fn new(lines: usize) -> Self {
        Self {
            code: vec![false; lines],
            comment: vec![false; lines],
        }
    }

    /// Code touches the 0-based lines `first..=last`.
    pub(crate) fn code(&mut self, first: usize, last: usize) {
        mark(&mut self.code, first, last);
    }

    /// A comment covers the 0-based lines `first..=last`.
    pub(crate) fn comment(&mut self, first: usize, last: usize) {
        mark(&mut self.comment, first, last);
    }

    /// The counts for `text`.
    pub(crate) fn finish(&self, text: &str) -> LineCounts {
        let mut counts = LineCounts {
            total: 0,
            blank: 0,
            comment: 0,
            code: 0,
        };
        for (row, line) in text.lines().enumerate() {
            counts.total += 1;
            if line.trim().is_empty() {
                counts.blank += 1;
            } else if self.comment.get(row) == Some(&true) && self.code.get(row) != Some(&true) {
                counts.comment += 1;
            } else {
                counts.code += 1;
            }
        }
        counts
    }
}

fn mark(rows: &mut [bool], first: usize, last: usize) {
    let end = last.saturating_add(1).min(rows.len());
    if let Some(rows) = rows.get_mut(first.min(end)..end) {
        rows.fill(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divides_lines() {
        let text = "// a comment\nlet x = 1; // trailing\n\n  \n/* block\n   more */\nx\n";
        let mut tally = LineTally::new(text.lines().count());
        tally.comment(0, 0);
        tally.code(1, 1);
        tally.comment(1, 1);
        tally.comment(4, 5);
        tally.code(6, 6);
        tally.code(100, 200);
        assert_eq!(
            tally.finish(text),
            LineCounts {
                total: 7,
                blank: 2,
                comment: 3,
                code: 2
            }
        );
    }
}

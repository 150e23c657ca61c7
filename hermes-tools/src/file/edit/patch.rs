//! Unified diffs of one file: read leniently (headers optional, line counts not trusted,
//! a blank line read as blank context), applied strictly (every context and removed line
//! must match the file, hunks in order, nothing written unless all apply).

use hermes_core::ToolError;

use super::{Change, Edited};

/// Lines of a failed hunk quoted in the error.
const MAX_QUOTED_HUNK_LINES: usize = 12;

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Op<'a> {
    /// In both files.
    Context(&'a str),
    /// Only in the old file.
    Remove(&'a str),
    /// Only in the new file.
    Add(&'a str),
}

/// One `@@` section of the patch.
#[derive(Debug)]
struct Hunk<'a> {
    /// 1-based, in patch order.
    number: usize,
    /// The `@@` line.
    header: &'a str,
    /// The old file's first line (1-based), when the header gives it.
    old_start: Option<usize>,
    /// The line counts the header declares (old, new), when it does.
    counts: Option<(usize, usize)>,
    /// Its lines.
    ops: Vec<Op<'a>>,
    /// `\ No newline at end of file` after an old-side line.
    old_no_eol: bool,
    /// `\ No newline at end of file` after a new-side line.
    new_no_eol: bool,
}

impl<'a> Hunk<'a> {
    /// The lines the file must hold where the hunk applies.
    fn old_lines(&self) -> Vec<&'a str> {
        self.ops
            .iter()
            .filter_map(|op| match op {
                Op::Context(line) | Op::Remove(line) => Some(*line),
                Op::Add(_) => None,
            })
            .collect()
    }

    /// Whether the lines read so far fill the counts the header declares.
    fn is_complete(&self) -> bool {
        let Some((old, new)) = self.counts else {
            return false;
        };
        let old_seen = self
            .ops
            .iter()
            .filter(|op| !matches!(op, Op::Add(_)))
            .count();
        let new_seen = self
            .ops
            .iter()
            .filter(|op| !matches!(op, Op::Remove(_)))
            .count();
        old_seen >= old && new_seen >= new
    }

    /// The hunk as the model wrote it, cut to a few lines, for an error message.
    fn quote(&self) -> String {
        let mut quoted = vec![self.header.to_owned()];
        quoted.extend(
            self.ops
                .iter()
                .take(MAX_QUOTED_HUNK_LINES)
                .map(|op| match op {
                    Op::Context(line) => format!(" {line}"),
                    Op::Remove(line) => format!("-{line}"),
                    Op::Add(line) => format!("+{line}"),
                }),
        );
        if self.ops.len() > MAX_QUOTED_HUNK_LINES {
            quoted.push("...".to_owned());
        }
        quoted.join("\n")
    }
}

/// Apply `patch` to `text` (the file shown as `shown`).
///
/// # Errors
///
/// When the patch is not a unified diff of one file, or a hunk does not match the file
/// (with the hunk and the first line that differs).
pub(super) fn apply(text: &str, patch: &str, shown: &str) -> Result<Edited, ToolError> {
    let hunks = parse(patch)?;
    let original: Vec<Line<'_>> = text.split_inclusive('\n').map(Line::of).collect();
    let default_eol = original.first().and_then(|line| line.eol).unwrap_or("\n");
    let mut out: Vec<Line<'_>> = Vec::with_capacity(original.len());
    let mut changes = Vec::new();
    let mut notes = Vec::new();
    let mut final_newline = text.ends_with('\n');
    let mut cursor = 0;
    for hunk in &hunks {
        let old = hunk.old_lines();
        let expected = match hunk.old_start {
            // `-5,0` inserts after line 5; otherwise the hunk starts at line 5.
            Some(start) if old.is_empty() => start,
            Some(start) => start.saturating_sub(1),
            None => cursor,
        };
        let Some((at, loose)) = locate(&original, &old, cursor, expected) else {
            return Err(mismatch(hunk, &original, &old, cursor, expected, shown));
        };
        if loose {
            notes.push(format!(
                "hunk {} matched only with trailing whitespace ignored; the file's own context lines were kept",
                hunk.number
            ));
        }
        if hunk.old_start.is_some() && at != expected {
            notes.push(format!(
                "hunk {} applied at line {}, not line {} as its header says",
                hunk.number,
                at + 1,
                expected + 1
            ));
        }
        out.extend_from_slice(&original[cursor..at]);
        let mut source = at;
        let mut run: Option<Change> = None;
        for op in &hunk.ops {
            match op {
                Op::Context(_) => {
                    changes.extend(run.take());
                    out.push(original[source]);
                    source += 1;
                }
                Op::Remove(_) => {
                    run.get_or_insert_with(|| open(out.len())).removed += 1;
                    source += 1;
                }
                Op::Add(line) => {
                    let change = run.get_or_insert_with(|| open(out.len()));
                    change.added += 1;
                    change.end = change.start + change.added - 1;
                    out.push(Line {
                        content: line,
                        eol: None,
                    });
                }
            }
        }
        changes.extend(run.take());
        cursor = at + old.len();
        if cursor == original.len() {
            if hunk.new_no_eol {
                final_newline = false;
            } else if hunk.old_no_eol || original.is_empty() {
                final_newline = true;
            }
        }
    }
    out.extend_from_slice(&original[cursor..]);
    Ok(Edited {
        text: join(&out, default_eol, final_newline),
        changes,
        notes,
    })
}

/// A change starting where the next line of the new file goes.
fn open(lines_so_far: usize) -> Change {
    let start = lines_so_far as u64 + 1;
    Change {
        start,
        end: start,
        added: 0,
        removed: 0,
    }
}

/// A line of the file: its text and its line end (`None` for a last line without one,
/// and for lines the patch adds).
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    /// The text without its line end.
    content: &'a str,
    /// `\n`, `\r\n`, or `None`.
    eol: Option<&'a str>,
}

impl<'a> Line<'a> {
    /// A line as `split_inclusive('\n')` gives it.
    fn of(raw: &'a str) -> Self {
        for eol in ["\r\n", "\n"] {
            if let Some(content) = raw.strip_suffix(eol) {
                return Self {
                    content,
                    eol: Some(eol),
                };
            }
        }
        Self {
            content: raw,
            eol: None,
        }
    }
}

/// The new file's text: each line with its own line end (or the file's usual one), the
/// last with one only if the file ends with a line break.
fn join(lines: &[Line<'_>], default_eol: &str, final_newline: bool) -> String {
    let mut text = String::new();
    for (index, line) in lines.iter().enumerate() {
        text.push_str(line.content);
        if index + 1 < lines.len() || final_newline {
            text.push_str(line.eol.unwrap_or(default_eol));
        }
    }
    text
}

/// Where `old` occurs in `lines` at or after `cursor`, nearest to `expected`: exactly,
/// or else with trailing whitespace ignored (then `true`).
fn locate(
    lines: &[Line<'_>],
    old: &[&str],
    cursor: usize,
    expected: usize,
) -> Option<(usize, bool)> {
    if old.is_empty() {
        return Some((expected.clamp(cursor, lines.len()), false));
    }
    let last_start = lines.len().checked_sub(old.len())?;
    let nearest = |same: &dyn Fn(&str, &str) -> bool| {
        (cursor..=last_start)
            .filter(|&at| {
                old.iter()
                    .zip(&lines[at..])
                    .all(|(want, have)| same(want, have.content))
            })
            .min_by_key(|&at| at.abs_diff(expected))
    };
    if let Some(at) = nearest(&|want, have| want == have) {
        return Some((at, false));
    }
    nearest(&|want, have| want.trim_end() == have.trim_end()).map(|at| (at, true))
}

/// The error for a hunk that matches nowhere: the first line that differs where it was
/// expected, and the hunk itself.
fn mismatch(
    hunk: &Hunk<'_>,
    lines: &[Line<'_>],
    old: &[&str],
    cursor: usize,
    expected: usize,
    shown: &str,
) -> ToolError {
    let at = expected.clamp(cursor, lines.len());
    let difference = old
        .iter()
        .enumerate()
        .find_map(|(offset, want)| match lines.get(at + offset) {
            Some(have) if have.content == *want => None,
            Some(have) => Some(format!(
                "line {} of the file is `{}` where the hunk expects `{want}`",
                at + offset + 1,
                have.content
            )),
            None => Some(format!(
                "the file ends after line {} where the hunk expects `{want}`",
                lines.len()
            )),
        })
        .unwrap_or_else(|| "its lines occur only before an earlier hunk's".to_owned());
    let order = if hunk.number > 1 {
        " (hunks must come in file order and not overlap)"
    } else {
        ""
    };
    ToolError::failed(format!(
        "hunk {} of the patch does not match `{shown}`{order}: {difference}. Nothing was changed; read the file again with file_read and send a patch made from its current text, or use old_text/new_text.\nThe hunk:\n{}",
        hunk.number,
        hunk.quote()
    ))
}

/// The hunks of a unified diff of one file.
fn parse(patch: &str) -> Result<Vec<Hunk<'_>>, ToolError> {
    let lines: Vec<&str> = patch.lines().collect();
    let mut hunks: Vec<Hunk<'_>> = Vec::new();
    for (index, &line) in lines.iter().enumerate() {
        if line.starts_with("@@") {
            hunks.push(header(line, hunks.len() + 1));
            continue;
        }
        let Some(hunk) = hunks.last_mut() else {
            // Before the first hunk: `diff`, `---`, `+++`, `index` lines or prose.
            if line.starts_with("Binary files") || line.starts_with("GIT binary patch") {
                return Err(refuse(
                    "the patch is binary; file_edit applies text patches only",
                ));
            }
            continue;
        };
        let file_header = (line.starts_with("--- ")
            && lines
                .get(index + 1)
                .is_some_and(|next| next.starts_with("+++ ")))
            || line.starts_with("diff ");
        if file_header && hunk.is_complete() {
            return Err(refuse(
                "the patch changes more than one file; send one file_edit call per file",
            ));
        }
        match line.as_bytes().first() {
            Some(b' ') => hunk.ops.push(Op::Context(&line[1..])),
            Some(b'-') => hunk.ops.push(Op::Remove(&line[1..])),
            Some(b'+') => hunk.ops.push(Op::Add(&line[1..])),
            Some(b'\\') => match hunk.ops.last() {
                Some(Op::Remove(_)) => hunk.old_no_eol = true,
                Some(Op::Add(_)) => hunk.new_no_eol = true,
                Some(Op::Context(_)) => {
                    hunk.old_no_eol = true;
                    hunk.new_no_eol = true;
                }
                None => {}
            },
            // A blank line: blank context whose space was lost, unless the hunk is
            // complete and no more hunk lines follow (trailing blank lines).
            None if !hunk.is_complete() || more_body_follows(&lines[index + 1..]) => {
                hunk.ops.push(Op::Context(""));
            }
            None => {}
            Some(_) if hunk.is_complete() => {}
            Some(_) => {
                return Err(refuse(&format!(
                    "line {} of the patch (`{line}`) is not a hunk line: start context lines with a space, removed lines with `-`, added lines with `+`",
                    index + 1
                )));
            }
        }
    }
    if hunks.is_empty() {
        return Err(refuse(
            "the patch has no hunks; write a unified diff with `@@ -start,count +start,count @@` lines",
        ));
    }
    if let Some(empty) = hunks.iter().find(|hunk| hunk.ops.is_empty()) {
        return Err(refuse(&format!(
            "hunk {} of the patch has no lines",
            empty.number
        )));
    }
    Ok(hunks)
}

/// Whether hunk lines follow before the next hunk or file header.
fn more_body_follows(rest: &[&str]) -> bool {
    rest.iter()
        .find(|line| !line.is_empty())
        .is_some_and(|line| line.starts_with([' ', '-', '+']) && !line.starts_with("--- "))
}

/// A hunk from its `@@ -a,b +c,d @@` line; a header without numbers gives a hunk placed
/// by its content alone.
fn header(line: &str, number: usize) -> Hunk<'_> {
    let inner = line.trim_start_matches('@');
    let inner = inner.split("@@").next().unwrap_or_default();
    let mut words = inner.split_whitespace();
    let old = words
        .next()
        .and_then(|word| word.strip_prefix('-'))
        .and_then(range);
    let new = words
        .next()
        .and_then(|word| word.strip_prefix('+'))
        .and_then(range);
    Hunk {
        number,
        header: line,
        old_start: old.map(|(start, _)| start),
        counts: old.zip(new).map(|((_, old), (_, new))| (old, new)),
        ops: Vec::new(),
        old_no_eol: false,
        new_no_eol: false,
    }
}

/// `start[,count]` (the count defaults to 1).
fn range(text: &str) -> Option<(usize, usize)> {
    match text.split_once(',') {
        Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
        None => Some((text.parse().ok()?, 1)),
    }
}

/// A patch that cannot be read.
fn refuse(message: &str) -> ToolError {
    ToolError::failed(format!("{message}. Nothing was changed"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "one\ntwo\nthree\nfour\nfive\n";

    #[test]
    fn applies_a_hunk_and_reports_its_lines() {
        let patch = "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n two\n-three\n+THREE\n+3\n four\n";
        let edited = apply(FILE, patch, "f").unwrap();
        assert_eq!(edited.text, "one\ntwo\nTHREE\n3\nfour\nfive\n");
        assert_eq!(
            edited.changes,
            [Change {
                start: 3,
                end: 4,
                added: 2,
                removed: 1
            }]
        );
    }

    #[test]
    fn wrong_line_numbers_are_forgiven_wrong_context_is_not() {
        let moved = "@@ -40,2 +40,2 @@\n four\n-five\n+5\n";
        let edited = apply(FILE, moved, "f").unwrap();
        assert_eq!(edited.text, "one\ntwo\nthree\nfour\n5\n");
        assert!(
            edited.notes[0].contains("applied at line 4"),
            "{:?}",
            edited.notes
        );
        let wrong = "@@ -2,2 +2,2 @@\n two\n-tree\n+3\n";
        let error = apply(FILE, wrong, "f").map(|_| ()).unwrap_err().to_string();
        assert!(error.contains("hunk 1"), "{error}");
        assert!(
            error.contains("line 3 of the file is `three` where the hunk expects `tree`"),
            "{error}"
        );
    }

    #[test]
    fn blank_context_without_its_space_and_trailing_blank_lines() {
        let file = "a\n\nb\n";
        let patch = "@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n\n\n";
        assert_eq!(apply(file, patch, "f").unwrap().text, "a\n\nB\n");
    }

    #[test]
    fn missing_final_newline_is_kept_or_added_as_marked() {
        let patch = "@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n";
        assert_eq!(apply("a", patch, "f").unwrap().text, "b\n");
        let patch = "@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n";
        assert_eq!(apply("a\n", patch, "f").unwrap().text, "b");
    }

    #[test]
    fn crlf_lines_keep_their_ends() {
        let patch = "@@ -1,2 +1,3 @@\n a\n+x\n b\n";
        assert_eq!(
            apply("a\r\nb\r\n", patch, "f").unwrap().text,
            "a\r\nx\r\nb\r\n"
        );
    }

    #[test]
    fn insertion_into_an_empty_file() {
        let patch = "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+hello\n+world\n";
        assert_eq!(apply("", patch, "f").unwrap().text, "hello\nworld\n");
    }

    #[test]
    fn two_files_are_refused() {
        let patch =
            "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-one\n+1\n--- a/g\n+++ b/g\n@@ -1 +1 @@\n-x\n+y\n";
        let error = apply(FILE, patch, "f").map(|_| ()).unwrap_err().to_string();
        assert!(error.contains("more than one file"), "{error}");
    }

    #[test]
    fn hunks_apply_in_order() {
        let patch = "@@ -1,2 +1,2 @@\n-one\n+1\n two\n@@ -4,2 +4,2 @@\n four\n-five\n+5\n";
        let edited = apply(FILE, patch, "f").unwrap();
        assert_eq!(edited.text, "1\ntwo\nthree\nfour\n5\n");
        assert_eq!(edited.changes.len(), 2);
    }
}

//! Exact search and replace, and, when it does not match once, a message that helps the
//! model fix its `old_text`.

use hermes_core::ToolError;

use super::{Change, Edited};

/// Line numbers listed in a "several matches" message.
const MAX_LISTED: usize = 10;
/// Lines compared when looking for the closest one.
const MAX_COMPARED_LINES: usize = 50_000;
/// A line this similar (Dice coefficient on character pairs) is worth showing.
const MIN_SIMILARITY: f64 = 0.5;
/// Characters of a quoted line.
const MAX_QUOTED_CHARS: usize = 200;

/// Replace `old` with `new` in `text`: once, or everywhere with `all`.
///
/// # Errors
///
/// When `old` occurs zero times (with the closest line of the file, or where it matches
/// if whitespace is ignored) or, without `all`, more than once (with where).
pub(super) fn apply(
    text: &str,
    old: &str,
    new: &str,
    all: bool,
    shown: &str,
) -> Result<Edited, ToolError> {
    let mut notes = Vec::new();
    let mut starts = occurrences(text, old);
    let (old, new) = if starts.is_empty() && text.contains("\r\n") && !old.contains("\r\n") {
        // The model wrote `\n` for a file with CRLF line ends.
        let (crlf_old, crlf_new) = (old.replace('\n', "\r\n"), new.replace('\n', "\r\n"));
        starts = occurrences(text, &crlf_old);
        if !starts.is_empty() {
            notes.push("the file uses CRLF line ends: old_text and new_text were matched and written with CRLF".to_owned());
        }
        (crlf_old, crlf_new)
    } else {
        (old.to_owned(), new.to_owned())
    };
    match starts.len() {
        0 => return Err(no_match(text, &old, shown)),
        1 => {}
        n if !all => {
            let lines: Vec<String> = starts
                .iter()
                .take(MAX_LISTED)
                .map(|&at| line_of(text, at).to_string())
                .collect();
            let more = if n > MAX_LISTED { ", ..." } else { "" };
            return Err(ToolError::failed(format!(
                "old_text occurs {n} times in `{shown}` (starting on lines {}{more}); include more surrounding lines so it matches exactly once, or pass replace_all: true to replace every occurrence. Nothing was changed",
                lines.join(", ")
            )));
        }
        _ => {}
    }
    let mut result = String::with_capacity(text.len() + starts.len() * new.len());
    let mut changes = Vec::with_capacity(starts.len());
    let mut copied = 0;
    let mut line = 1;
    for &at in &starts {
        let before = &text[copied..at];
        line += count_lines(before);
        result.push_str(before);
        let added = span(&new);
        // The new text's last line: the start line plus its line breaks (not counting one
        // at its very end, which closes the last line).
        let end = line + count_lines(new.strip_suffix('\n').unwrap_or(&new));
        changes.push(Change {
            start: line,
            end: if added == 0 { line } else { end },
            added,
            removed: span(&old),
        });
        result.push_str(&new);
        line += count_lines(&new);
        copied = at + old.len();
    }
    result.push_str(&text[copied..]);
    Ok(Edited {
        text: result,
        changes,
        notes,
    })
}

/// Where `needle` starts in `text`, without overlaps.
fn occurrences(text: &str, needle: &str) -> Vec<usize> {
    text.match_indices(needle).map(|(at, _)| at).collect()
}

/// Line breaks in `text`.
fn count_lines(text: &str) -> u64 {
    text.bytes().filter(|&byte| byte == b'\n').count() as u64
}

/// The 1-based line of byte `at`.
fn line_of(text: &str, at: usize) -> u64 {
    count_lines(&text[..at]) + 1
}

/// How many lines `text` covers: 0 if empty, else its line breaks plus one unless it ends
/// with one.
fn span(text: &str) -> u64 {
    if text.is_empty() {
        return 0;
    }
    count_lines(text) + u64::from(!text.ends_with('\n'))
}

/// The error for an `old_text` that does not occur, with the best hint available.
fn no_match(text: &str, old: &str, shown: &str) -> ToolError {
    let hint = match ignoring_whitespace(text, old) {
        Some((first, last)) => format!(
            "it matches lines {first}-{last} if whitespace is ignored, so the indentation or spacing differs: read those lines with file_read and copy them exactly"
        ),
        None => match closest_line(text, old) {
            Some((number, line)) => format!(
                "the closest line is {number}: `{}`; read the file with file_read and copy the text exactly",
                quote(line)
            ),
            None => "no line resembles its first line; read the file with file_read to see what it holds".to_owned(),
        },
    };
    ToolError::failed(format!(
        "old_text was not found in `{shown}`; {hint}. Nothing was changed"
    ))
}

/// The lines (first, last; 1-based) where `old` matches `text` line for line, each line
/// compared without surrounding whitespace.
fn ignoring_whitespace(text: &str, old: &str) -> Option<(usize, usize)> {
    let wanted: Vec<&str> = old.trim_matches('\n').lines().map(str::trim).collect();
    if wanted.is_empty() || wanted.iter().all(|line| line.is_empty()) {
        return None;
    }
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let found = lines
        .windows(wanted.len())
        .position(|window| window == wanted.as_slice())?;
    Some((found + 1, found + wanted.len()))
}

/// The line of `text` most like the first non-blank line of `old`, if any is alike enough.
fn closest_line<'a>(text: &'a str, old: &str) -> Option<(usize, &'a str)> {
    let target = old.lines().map(str::trim).find(|line| !line.is_empty())?;
    let target_pairs = pairs(target);
    text.lines()
        .take(MAX_COMPARED_LINES)
        .enumerate()
        .map(|(index, line)| (index + 1, line, dice(&target_pairs, &pairs(line.trim()))))
        .filter(|(_, _, score)| *score >= MIN_SIMILARITY)
        .max_by(|a, b| a.2.total_cmp(&b.2))
        .map(|(number, line, _)| (number, line))
}

/// The sorted pairs of adjacent characters of `text`.
fn pairs(text: &str) -> Vec<(char, char)> {
    let chars: Vec<char> = text.chars().collect();
    let mut pairs: Vec<(char, char)> = chars.windows(2).map(|pair| (pair[0], pair[1])).collect();
    pairs.sort_unstable();
    pairs
}

/// The Dice coefficient of two sorted pair lists: 1 for equal texts, 0 for nothing shared.
fn dice(a: &[(char, char)], b: &[(char, char)]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * shared as f64 / (a.len() + b.len()) as f64
}

/// `line` cut to [`MAX_QUOTED_CHARS`] characters.
fn quote(line: &str) -> String {
    let mut quoted: String = line.chars().take(MAX_QUOTED_CHARS).collect();
    if quoted.len() < line.len() {
        quoted.push_str("...");
    }
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_match_is_replaced_and_located() {
        let edited = apply("a\nb\nc\n", "b\n", "x\ny\n", false, "f").unwrap();
        assert_eq!(edited.text, "a\nx\ny\nc\n");
        assert_eq!(
            edited.changes,
            [Change {
                start: 2,
                end: 3,
                added: 2,
                removed: 1
            }]
        );
    }

    #[test]
    fn a_removal_points_at_where_it_was() {
        let edited = apply("a\nb\nc\n", "b\n", "", false, "f").unwrap();
        assert_eq!(edited.text, "a\nc\n");
        assert_eq!((edited.changes[0].start, edited.changes[0].end), (2, 2));
    }

    #[test]
    fn replace_all_locates_each_match_in_the_new_file() {
        let edited = apply("x\nx\n", "x", "y\nz", true, "f").unwrap();
        assert_eq!(edited.text, "y\nz\ny\nz\n");
        let starts: Vec<u64> = edited.changes.iter().map(|change| change.start).collect();
        assert_eq!(starts, [1, 3]);
    }

    #[test]
    fn indentation_mismatch_is_named() {
        let error = apply(
            "fn a() {\n    let x = 1;\n}\n",
            "fn a() {\nlet x = 1;",
            "",
            false,
            "f",
        )
        .map(|_| ())
        .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("lines 1-2 if whitespace is ignored"),
            "{error}"
        );
    }

    #[test]
    fn crlf_files_match_lf_text() {
        let edited = apply("a\r\nb\r\n", "a\nb", "c\nd", false, "f").unwrap();
        assert_eq!(edited.text, "c\r\nd\r\n");
    }
}

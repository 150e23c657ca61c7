//! Step 7: keep results within the tool's size cap, head and tail kept.

use crate::text::{ceil_boundary, floor_boundary};

/// Cut `content` to at most `max` bytes (plus a one-line marker), keeping the first
/// two thirds and the last third of the budget, on char boundaries.
pub(crate) fn cap(content: String, max: usize) -> String {
    if content.len() <= max {
        return content;
    }
    let head_end = floor_boundary(&content, max * 2 / 3);
    let tail_start = ceil_boundary(&content, content.len() - (max - max * 2 / 3));
    let cut = tail_start - head_end;
    format!(
        "{}\n[... {cut} of {} bytes cut by hermes: the result was too long ...]\n{}",
        &content[..head_end],
        content.len(),
        &content[tail_start..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_content_is_untouched() {
        assert_eq!(cap("hello".to_owned(), 5), "hello");
    }

    #[test]
    fn keeps_head_and_tail_and_says_how_much_was_cut() {
        let content = format!("{}{}{}", "a".repeat(600), "b".repeat(9000), "c".repeat(400));
        let capped = cap(content, 900);
        assert!(capped.starts_with(&"a".repeat(600)));
        assert!(capped.ends_with(&"c".repeat(300)));
        assert!(capped.contains("[... 9100 of 10000 bytes cut"), "{capped}");
    }

    #[test]
    fn never_splits_a_char() {
        let content = "é".repeat(1000);
        let capped = cap(content, 101);
        assert!(capped.starts_with('é') && capped.ends_with('é'));
    }
}

//! A search text as words, safe for the full-text query languages (FTS5's and
//! PostgreSQL's tsquery), which give operators to `"`, `*`, `:`, `&`, `|`, `!`...

/// The words of `text` (letters and digits of any script), at most 32, lower-cased.
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .take(32)
        .map(str::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_are_not_words() {
        assert_eq!(
            words("nuts\" OR * :x & !y | (z)"),
            ["nuts", "or", "x", "y", "z"]
        );
        assert!(words("\"*&|!").is_empty());
        assert_eq!(words("Café 咖啡"), ["café", "咖啡"]);
    }
}

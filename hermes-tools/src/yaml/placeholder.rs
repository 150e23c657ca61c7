//! `{{name}}` placeholders in a piece of text: split into literal text and parameter
//! names, checked once at load time.

/// A piece of templated text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    /// Literal text.
    Text(String),
    /// The value of a parameter.
    Param(String),
}

/// Split `text` into literal text and `{{param}}` placeholders.
///
/// # Errors
///
/// An unclosed `{{`, or a placeholder that is not a parameter name
/// (`[A-Za-z_][A-Za-z0-9_]*`, spaces around it allowed).
pub(crate) fn split(text: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        if open > 0 {
            pieces.push(Piece::Text(rest[..open].to_owned()));
        }
        let after = &rest[open + 2..];
        let close = after
            .find("}}")
            .ok_or_else(|| format!("`{{{{` without a closing `}}}}` in `{}`", excerpt(text)))?;
        let name = after[..close].trim();
        if !is_name(name) {
            return Err(format!(
                "`{{{{{}}}}}` is not a placeholder: write `{{{{parameter_name}}}}`",
                &after[..close]
            ));
        }
        pieces.push(Piece::Param(name.to_owned()));
        rest = &after[close + 2..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest.to_owned()));
    }
    Ok(pieces)
}

/// The parameters `pieces` use.
pub(crate) fn params(pieces: &[Piece]) -> impl Iterator<Item = &str> {
    pieces.iter().filter_map(|piece| match piece {
        Piece::Param(name) => Some(name.as_str()),
        Piece::Text(_) => None,
    })
}

/// Whether `name` can be a parameter name.
pub(crate) fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The start of `text`, for messages.
fn excerpt(text: &str) -> String {
    let mut end = text.len().min(60);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if end < text.len() {
        format!("{}...", &text[..end])
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_text_and_placeholders() {
        assert_eq!(
            split("a {{ b }}c{{d_1}}").unwrap(),
            [
                Piece::Text("a ".into()),
                Piece::Param("b".into()),
                Piece::Text("c".into()),
                Piece::Param("d_1".into())
            ]
        );
        assert_eq!(split("plain").unwrap(), [Piece::Text("plain".into())]);
        assert!(split("{{open").unwrap_err().contains("without a closing"));
        assert!(split("{{a-b}}").unwrap_err().contains("not a placeholder"));
        assert!(split("{{}}").is_err());
    }
}

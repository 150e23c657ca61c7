//! Fork bomb detection.
//!
//! A fork bomb is a function whose body pipes the function into itself,
//! usually in the background: `:(){ :|:& };:`. The splitter does not model
//! function definitions, so this check works on the text directly, with the
//! contents of quotes blanked out first: `echo ':(){ :|:& };:'` only prints.
//! Scanning is linear: every `{` is examined within fixed-size windows.

use super::split::find_byte;

/// Longest function name considered.
const MAX_NAME: usize = 64;
/// How much of a function body is examined.
const MAX_BODY: usize = 256;

/// A fork bomb definition found in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ForkBomb {
    /// Byte offset of the function name.
    pub(crate) position: usize,
    /// The function's name.
    pub(crate) name: String,
}

/// Find the first fork bomb in `source`.
pub(crate) fn find(source: &str) -> Option<ForkBomb> {
    let masked = mask_quotes(source.as_bytes());
    masked
        .iter()
        .enumerate()
        .filter(|(_, byte)| **byte == b'{')
        .find_map(|(open, _)| {
            let (start, name) = function_name(&masked, open)?;
            recurses(&masked, open + 1, name).then(|| ForkBomb {
                position: start,
                name: String::from_utf8_lossy(name).into_owned(),
            })
        })
}

/// Replace every byte inside quotes with `_`, keeping offsets unchanged.
fn mask_quotes(src: &[u8]) -> Vec<u8> {
    let mut out = src.to_vec();
    let mut i = 0;
    while let Some(&c) = src.get(i) {
        match c {
            b'\\' => i += 2,
            b'\'' => {
                let end = find_byte(src, i + 1, b'\'');
                blank(&mut out, i + 1, end);
                i = end + 1;
            }
            b'"' => {
                let mut end = i + 1;
                while let Some(&b) = src.get(end) {
                    match b {
                        b'\\' => end += 2,
                        b'"' => break,
                        _ => end += 1,
                    }
                }
                let end = end.min(src.len());
                blank(&mut out, i + 1, end);
                i = end + 1;
            }
            _ => i += 1,
        }
    }
    out
}

fn blank(bytes: &mut [u8], from: usize, to: usize) {
    if let Some(range) = bytes.get_mut(from..to) {
        range.fill(b'_');
    }
}

fn is_name_byte(byte: u8) -> bool {
    !byte.is_ascii_whitespace() && !b"(){};|&<>'\"`$".contains(&byte)
}

/// Index just past the last non-blank byte before `end`.
fn skip_blanks_back(bytes: &[u8], mut end: usize) -> usize {
    while end > 0 && bytes.get(end - 1).is_some_and(u8::is_ascii_whitespace) {
        end -= 1;
    }
    end
}

/// If the `{` at `open` starts a function body, the function's name.
fn function_name(bytes: &[u8], open: usize) -> Option<(usize, &[u8])> {
    let mut end = skip_blanks_back(bytes, open);
    let has_parens = end > 0 && bytes.get(end - 1) == Some(&b')');
    if has_parens {
        let inner = skip_blanks_back(bytes, end - 1);
        if inner == 0 || bytes.get(inner - 1) != Some(&b'(') {
            return None;
        }
        end = skip_blanks_back(bytes, inner - 1);
    }
    let mut start = end;
    while start > 0
        && end - start < MAX_NAME
        && bytes.get(start - 1).copied().is_some_and(is_name_byte)
    {
        start -= 1;
    }
    let name = bytes.get(start..end).filter(|name| !name.is_empty())?;
    if !has_parens {
        // Without parentheses only `function name { ... }` defines a function.
        let keyword_end = skip_blanks_back(bytes, start);
        let keyword = bytes.get(keyword_end.checked_sub(8)?..keyword_end)?;
        if keyword != b"function" {
            return None;
        }
    }
    Some((start, name))
}

/// Whether the body starting at `from` pipes `name` into itself.
fn recurses(bytes: &[u8], from: usize, name: &[u8]) -> bool {
    let window = bytes
        .get(from..(from + MAX_BODY).min(bytes.len()))
        .unwrap_or_default();
    let body = window.split(|&b| b == b'}').next().unwrap_or_default();
    let compact: Vec<u8> = body
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let mut needle = name.to_vec();
    needle.push(b'|');
    needle.extend_from_slice(name);
    compact
        .windows(needle.len())
        .enumerate()
        .any(|(at, candidate)| {
            let before_ok = at == 0
                || compact
                    .get(at - 1)
                    .copied()
                    .is_some_and(|b| !is_name_byte(b));
            let after_ok = compact
                .get(at + needle.len())
                .copied()
                .is_none_or(|b| !is_name_byte(b));
            candidate == needle.as_slice() && before_ok && after_ok
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(source: &str) -> Option<String> {
        find(source).map(|bomb| bomb.name)
    }

    #[test]
    fn finds_classic_and_named_bombs() {
        assert_eq!(name(":(){ :|:& };:").as_deref(), Some(":"));
        assert_eq!(name(":() { : | : & } ; :").as_deref(), Some(":"));
        assert_eq!(name("bomb(){ bomb|bomb& };bomb").as_deref(), Some("bomb"));
        assert_eq!(name("function f { f | f & }; f").as_deref(), Some("f"));
        assert_eq!(find("x; :(){ :|:& };:").map(|b| b.position), Some(3));
    }

    #[test]
    fn ignores_lookalikes() {
        assert_eq!(name("echo ':(){ :|:& };:'"), None);
        assert_eq!(name("f(){ ff|fa; }"), None);
        assert_eq!(name("f(){ ls | grep x; }"), None);
        assert_eq!(name("echo ${x} {a,b}"), None);
        assert_eq!(name("f { f|f; }"), None);
    }
}

//! ToUnicode CMaps: the `bfchar` and `bfrange` sections that map a font's codes to
//! text, read from the CMap program without running it.

use std::collections::HashMap;

/// The code-to-text pairs of a ToUnicode CMap (`bfchar` and `bfrange` sections).
pub(super) fn parse(cmap: &[u8]) -> HashMap<u32, String> {
    let tokens = tokenize(cmap);
    let mut map = HashMap::new();
    let mut index = 0;
    let mut section = None;
    while index < tokens.len() {
        match &tokens[index] {
            Token::Word(word) if word == "beginbfchar" || word == "beginbfrange" => {
                section = Some(word.clone());
            }
            Token::Word(word) if word == "endbfchar" || word == "endbfrange" => section = None,
            Token::Hex(source) if section.as_deref() == Some("beginbfchar") => {
                if let Some(Token::Hex(target)) = tokens.get(index + 1) {
                    map.insert(code(source), utf16(target));
                    index += 1;
                }
            }
            Token::Hex(low) if section.as_deref() == Some("beginbfrange") => {
                let (Some(Token::Hex(high)), Some(target)) =
                    (tokens.get(index + 1), tokens.get(index + 2))
                else {
                    index += 1;
                    continue;
                };
                let (low, high) = (code(low), code(high));
                // A malformed range must not make the map enormous.
                let high = high.min(low.saturating_add(0xFFFF));
                match target {
                    Token::Hex(start) => {
                        let start = utf16(start);
                        let mut chars: Vec<char> = start.chars().collect();
                        for source in low..=high {
                            map.insert(source, chars.iter().collect());
                            if let Some(last) = chars.last_mut() {
                                *last = char::from_u32(u32::from(*last) + 1).unwrap_or(*last);
                            }
                        }
                        index += 2;
                    }
                    Token::Open => {
                        let mut source = low;
                        index += 3;
                        while let Some(Token::Hex(target)) = tokens.get(index) {
                            if source <= high {
                                map.insert(source, utf16(target));
                            }
                            source = source.saturating_add(1);
                            index += 1;
                        }
                    }
                    _ => index += 2,
                }
            }
            _ => {}
        }
        index += 1;
    }
    map
}

/// A token of a CMap.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// `<...>`, as bytes.
    Hex(Vec<u8>),
    /// `[`.
    Open,
    /// `]`.
    Close,
    /// An operator or name.
    Word(String),
}

/// The tokens of a CMap program that matter for mappings.
fn tokenize(text: &[u8]) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut index = 0;
    while index < text.len() {
        match text[index] {
            b'<' if text.get(index + 1) != Some(&b'<') => {
                let end = text[index..]
                    .iter()
                    .position(|byte| *byte == b'>')
                    .map_or(text.len(), |at| index + at);
                let digits: Vec<u8> = text[index + 1..end]
                    .iter()
                    .filter(|byte| byte.is_ascii_hexdigit())
                    .copied()
                    .collect();
                let bytes = digits
                    .chunks(2)
                    .filter_map(|pair| {
                        let pair = std::str::from_utf8(pair).ok()?;
                        let value = u8::from_str_radix(pair, 16).ok()?;
                        Some(if pair.len() == 1 { value << 4 } else { value })
                    })
                    .collect();
                tokens.push(Token::Hex(bytes));
                index = end + 1;
            }
            b'[' => {
                tokens.push(Token::Open);
                index += 1;
            }
            b']' => {
                tokens.push(Token::Close);
                index += 1;
            }
            byte if byte.is_ascii_alphabetic() => {
                let end = text[index..]
                    .iter()
                    .position(|byte| !byte.is_ascii_alphanumeric())
                    .map_or(text.len(), |at| index + at);
                tokens.push(Token::Word(
                    String::from_utf8_lossy(&text[index..end]).into_owned(),
                ));
                index = end;
            }
            _ => index += 1,
        }
    }
    tokens
}

/// A code from its bytes, big-endian.
fn code(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .take(4)
        .fold(0u32, |code, byte| code << 8 | u32::from(*byte))
}

/// Text from UTF-16BE bytes.
fn utf16(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks(2)
        .map(|pair| u16::from_be_bytes([pair[0], pair.get(1).copied().unwrap_or(0)]))
        .collect();
    String::from_utf16_lossy(&units)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmaps_map_chars_and_ranges() {
        let cmap = b"2 beginbfchar\n<01> <0048>\n<02> <00660069>\nendbfchar\n\
            2 beginbfrange\n<0003> <0005> <0061>\n<0010> <0011> [<0058> <0059>]\nendbfrange";
        let map = parse(cmap);
        assert_eq!(map[&1], "H");
        assert_eq!(map[&2], "fi");
        assert_eq!((map[&3].as_str(), map[&5].as_str()), ("a", "c"));
        assert_eq!((map[&0x10].as_str(), map[&0x11].as_str()), ("X", "Y"));
    }
}

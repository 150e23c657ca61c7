//! How a PDF font maps the bytes of its strings to text: its ToUnicode CMap where it
//! has one (codes it leaves out fall back), else its simple encoding (a base encoding
//! with `Differences` named by glyph). Real PDFs (groff, TeX, office suites) rely on
//! both, so text extraction needs both.

use std::collections::HashMap;

use lopdf::{Dictionary, Document, Object};

use super::{pdf_cmap, pdf_glyphs};

/// The text of one font's strings.
#[derive(Debug)]
pub(super) struct FontText {
    /// Whether codes are two bytes (composite, Type0 fonts).
    wide: bool,
    /// Code to text, from the ToUnicode CMap.
    to_unicode: HashMap<u32, String>,
    /// One-byte code to text, from the encoding.
    simple: Vec<Option<String>>,
}

impl FontText {
    /// The decoding of `font`, as far as it can be read.
    pub(super) fn of(document: &Document, font: &Dictionary) -> Self {
        let wide = font
            .get(b"Subtype")
            .and_then(Object::as_name)
            .is_ok_and(|subtype| subtype == b"Type0");
        let to_unicode = font
            .get_deref(b"ToUnicode", document)
            .and_then(Object::as_stream)
            .and_then(|stream| stream.get_plain_content())
            .map(|cmap| pdf_cmap::parse(&cmap))
            .unwrap_or_default();
        Self {
            wide,
            to_unicode,
            simple: simple_encoding(document, font),
        }
    }

    /// A font nothing is known about: one-byte codes, Windows-1252.
    pub(super) fn fallback() -> Self {
        Self {
            wide: false,
            to_unicode: HashMap::new(),
            simple: (0..=255u8).map(cp1252).collect(),
        }
    }

    /// The text of the string `bytes`.
    pub(super) fn decode(&self, bytes: &[u8]) -> String {
        let mut text = String::new();
        if self.wide {
            for pair in bytes.chunks(2) {
                let code = pair
                    .iter()
                    .fold(0u32, |code, byte| code << 8 | u32::from(*byte));
                if let Some(mapped) = self.to_unicode.get(&code) {
                    text.push_str(mapped);
                }
            }
            return text;
        }
        for &byte in bytes {
            let mapped = self
                .to_unicode
                .get(&u32::from(byte))
                .or_else(|| self.simple.get(usize::from(byte)).and_then(Option::as_ref));
            if let Some(mapped) = mapped {
                text.push_str(mapped);
            }
        }
        text
    }
}

/// The one-byte encoding of `font`: its base encoding (Windows-1252 stands in for the
/// standard ones, which agree on the letters), then its `Differences`.
fn simple_encoding(document: &Document, font: &Dictionary) -> Vec<Option<String>> {
    let mut table: Vec<Option<String>> = (0..=255u8).map(cp1252).collect();
    let encoding = font.get_deref(b"Encoding", document).ok();
    let (base, differences) = match encoding {
        Some(Object::Name(name)) => (Some(name.as_slice()), None),
        Some(Object::Dictionary(dictionary)) => (
            dictionary
                .get(b"BaseEncoding")
                .and_then(Object::as_name)
                .ok(),
            dictionary
                .get_deref(b"Differences", document)
                .and_then(Object::as_array)
                .ok(),
        ),
        _ => (None, None),
    };
    if base.is_none_or(|base| base == b"StandardEncoding") {
        // Where StandardEncoding differs from Windows-1252 in the printable ASCII range.
        table[0x27] = Some("\u{2019}".to_owned());
        table[0x60] = Some("\u{2018}".to_owned());
    }
    let mut code = 0usize;
    for item in differences.into_iter().flatten() {
        match item {
            Object::Integer(start) => code = usize::try_from(*start).unwrap_or(usize::MAX),
            Object::Name(name) => {
                if let Some(slot) = table.get_mut(code) {
                    *slot = pdf_glyphs::text(&String::from_utf8_lossy(name));
                }
                code = code.saturating_add(1);
            }
            _ => {}
        }
    }
    table
}

/// The character Windows-1252 gives `byte`, for printable bytes.
fn cp1252(byte: u8) -> Option<String> {
    const HIGH: [u16; 32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
        0x0152, 0, 0x017D, 0, 0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC,
        0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ];
    let code = match byte {
        0x20..=0x7E | 0xA0..=0xFF => u32::from(byte),
        0x80..=0x9F => u32::from(HIGH[usize::from(byte - 0x80)]),
        b'\t' | b'\n' | b'\r' => u32::from(byte),
        _ => 0,
    };
    char::from_u32(code)
        .filter(|c| *c != '\0')
        .map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_cmap_falls_back_to_the_encoding() {
        let font = FontText {
            wide: false,
            to_unicode: HashMap::from([(0x8C, "fi".to_owned())]),
            simple: (0..=255u8).map(cp1252).collect(),
        };
        assert_eq!(font.decode(b"\x8Cne day"), "fine day");
        assert_eq!(FontText::fallback().decode(b"caf\xe9 \x80"), "café €");
    }
}

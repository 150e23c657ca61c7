//! Telling text from binary, and turning a file's bytes into text: UTF-8 (with or
//! without a byte-order mark), UTF-16 with a byte-order mark, and anything else decoded
//! lossily with the loss reported.

use std::borrow::Cow;

/// How much of a file's start decides whether it is text.
pub(crate) const SNIFF_BYTES: usize = 8 * 1024;

/// Past this share of bytes that cannot be text, a file without NUL bytes is binary.
const MAX_NON_TEXT_SHARE: f64 = 0.3;

/// What a file's first bytes say it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Text in this encoding.
    Text(Encoding),
    /// Not text: NUL bytes, or mostly bytes no text file holds.
    Binary,
}

/// A text encoding this module decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// UTF-8 without a byte-order mark (invalid sequences are replaced, and reported).
    Utf8,
    /// UTF-8 after a byte-order mark, which is dropped.
    Utf8Bom,
    /// UTF-16, little-endian, after its byte-order mark.
    Utf16Le,
    /// UTF-16, big-endian, after its byte-order mark.
    Utf16Be,
}

impl Encoding {
    /// The name shown to the model.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Utf8 => "utf-8",
            Self::Utf8Bom => "utf-8 (with byte-order mark)",
            Self::Utf16Le => "utf-16le",
            Self::Utf16Be => "utf-16be",
        }
    }

    /// How many leading bytes are the byte-order mark.
    pub(crate) fn bom_len(self) -> usize {
        match self {
            Self::Utf8 => 0,
            Self::Utf8Bom => 3,
            Self::Utf16Le | Self::Utf16Be => 2,
        }
    }

    /// Whether the text is UTF-16 (which must be decoded whole, not line by line).
    pub(crate) fn is_utf16(self) -> bool {
        matches!(self, Self::Utf16Le | Self::Utf16Be)
    }
}

/// Decide from the first bytes of a file (up to [`SNIFF_BYTES`]) what it holds.
pub(crate) fn classify(head: &[u8]) -> Kind {
    if head.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Kind::Text(Encoding::Utf8Bom);
    }
    if head.starts_with(&[0xFF, 0xFE]) {
        return Kind::Text(Encoding::Utf16Le);
    }
    if head.starts_with(&[0xFE, 0xFF]) {
        return Kind::Text(Encoding::Utf16Be);
    }
    if head.contains(&0) {
        return Kind::Binary;
    }
    let non_text = non_text_bytes(head);
    if !head.is_empty() && non_text as f64 / head.len() as f64 > MAX_NON_TEXT_SHARE {
        return Kind::Binary;
    }
    Kind::Text(Encoding::Utf8)
}

/// Control bytes no text holds, plus bytes of invalid UTF-8 (a sequence cut at the end
/// of `head` is not counted: the sniffed window may end inside a character).
fn non_text_bytes(head: &[u8]) -> usize {
    let controls = head
        .iter()
        .filter(|&&byte| byte < 0x20 && !matches!(byte, b'\t' | b'\n' | b'\r' | 0x0C | 0x1B))
        .count();
    let mut invalid = 0;
    let mut rest = head;
    while let Err(error) = std::str::from_utf8(rest) {
        let Some(bad) = error.error_len() else {
            break;
        };
        invalid += bad;
        rest = &rest[error.valid_up_to() + bad..];
    }
    controls + invalid
}

/// Text decoded from bytes, and whether anything had to be replaced.
#[derive(Debug)]
pub(crate) struct Decoded<'a> {
    /// The text; invalid sequences are U+FFFD.
    pub(crate) text: Cow<'a, str>,
    /// Some bytes were not valid in the encoding.
    pub(crate) lossy: bool,
}

/// Decode a whole file (or one line of a UTF-8 file) in `encoding`, byte-order mark
/// included or not.
pub(crate) fn decode(bytes: &[u8], encoding: Encoding) -> Decoded<'_> {
    let body = match encoding {
        Encoding::Utf8 => bytes,
        _ => bytes
            .get(..encoding.bom_len())
            .filter(|head| classify(head) == Kind::Text(encoding))
            .map_or(bytes, |_| &bytes[encoding.bom_len()..]),
    };
    match encoding {
        Encoding::Utf8 | Encoding::Utf8Bom => match std::str::from_utf8(body) {
            Ok(text) => Decoded {
                text: Cow::Borrowed(text),
                lossy: false,
            },
            Err(_) => Decoded {
                text: String::from_utf8_lossy(body),
                lossy: true,
            },
        },
        Encoding::Utf16Le | Encoding::Utf16Be => {
            let units = body.chunks(2).map(|pair| match (encoding, pair) {
                (Encoding::Utf16Le, [low, high]) => u16::from_le_bytes([*low, *high]),
                (_, [high, low]) => u16::from_be_bytes([*high, *low]),
                // An odd last byte: not a code unit.
                _ => 0xFFFD,
            });
            let mut lossy = body.len() % 2 == 1;
            let text: String = char::decode_utf16(units)
                .map(|unit| {
                    unit.unwrap_or_else(|_| {
                        lossy = true;
                        char::REPLACEMENT_CHARACTER
                    })
                })
                .collect();
            Decoded {
                text: Cow::Owned(text),
                lossy,
            }
        }
    }
}

/// What a binary file probably is, from its magic bytes.
pub(crate) fn mime_hint(head: &[u8]) -> Option<&'static str> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "image/png"),
        (b"\xFF\xD8\xFF", "image/jpeg"),
        (b"GIF87a", "image/gif"),
        (b"GIF89a", "image/gif"),
        (b"%PDF-", "application/pdf"),
        (b"PK\x03\x04", "application/zip"),
        (b"PK\x05\x06", "application/zip"),
        (b"\x1F\x8B", "application/gzip"),
        (b"BZh", "application/x-bzip2"),
        (b"\xFD7zXZ\x00", "application/x-xz"),
        (b"7z\xBC\xAF\x27\x1C", "application/x-7z-compressed"),
        (b"\x28\xB5\x2F\xFD", "application/zstd"),
        (b"\x7FELF", "application/x-executable (ELF)"),
        (b"MZ", "application/x-msdownload (PE)"),
        (b"\xCF\xFA\xED\xFE", "application/x-mach-binary"),
        (b"\xCA\xFE\xBA\xBE", "application/java-vm"),
        (b"\x00asm", "application/wasm"),
        (b"SQLite format 3\x00", "application/vnd.sqlite3"),
        (b"ID3", "audio/mpeg"),
        (b"OggS", "audio/ogg"),
        (b"fLaC", "audio/flac"),
        (b"\x1A\x45\xDF\xA3", "video/webm"),
        (b"wOFF", "font/woff"),
        (b"wOF2", "font/woff2"),
    ];
    if let Some((_, mime)) = MAGIC.iter().find(|(magic, _)| head.starts_with(magic)) {
        return Some(mime);
    }
    if head.len() >= 12 && head.starts_with(b"RIFF") {
        return match &head[8..12] {
            b"WEBP" => Some("image/webp"),
            b"WAVE" => Some("audio/wav"),
            b"AVI " => Some("video/x-msvideo"),
            _ => None,
        };
    }
    if head.get(4..8) == Some(b"ftyp") {
        return Some("video/mp4");
    }
    if head.get(257..262) == Some(b"ustar") {
        return Some("application/x-tar");
    }
    None
}

/// The first `max` bytes as lowercase hex pairs separated by spaces.
pub(crate) fn hex_preview(head: &[u8], max: usize) -> String {
    let shown = &head[..head.len().min(max)];
    let pairs: Vec<String> = shown.iter().map(|byte| format!("{byte:02x}")).collect();
    pairs.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_binary_are_told_apart() {
        assert_eq!(classify(b"fn main() {}\n"), Kind::Text(Encoding::Utf8));
        assert_eq!(
            classify("héllo wörld".as_bytes()),
            Kind::Text(Encoding::Utf8)
        );
        assert_eq!(classify(b""), Kind::Text(Encoding::Utf8));
        assert_eq!(classify(b"abc\0def"), Kind::Binary);
        assert_eq!(classify(&[0x80, 0x81, 0x82, 0x83, b'a']), Kind::Binary);
        assert_eq!(classify(b"\xEF\xBB\xBFhi"), Kind::Text(Encoding::Utf8Bom));
        assert_eq!(classify(b"\xFF\xFEh\0i\0"), Kind::Text(Encoding::Utf16Le));
    }

    #[test]
    fn a_character_cut_by_the_window_is_still_text() {
        let text = "é".repeat(10);
        let cut = &text.as_bytes()[..text.len() - 1];
        assert_eq!(classify(cut), Kind::Text(Encoding::Utf8));
    }

    #[test]
    fn latin1_text_decodes_lossily() {
        let decoded = decode(b"caf\xE9 au lait", Encoding::Utf8);
        assert!(decoded.lossy);
        assert_eq!(decoded.text, "caf\u{FFFD} au lait");
    }

    #[test]
    fn utf16_with_bom_decodes() {
        let decoded = decode(b"\xFF\xFEh\0i\0", Encoding::Utf16Le);
        assert!(!decoded.lossy);
        assert_eq!(decoded.text, "hi");
        let decoded = decode(b"\xFE\xFF\0h\0i", Encoding::Utf16Be);
        assert_eq!(decoded.text, "hi");
        let decoded = decode(b"\xEF\xBB\xBFhi", Encoding::Utf8Bom);
        assert_eq!(decoded.text, "hi");
    }

    #[test]
    fn magic_bytes_name_the_format() {
        assert_eq!(mime_hint(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
        assert_eq!(
            mime_hint(b"\x7FELF\x02"),
            Some("application/x-executable (ELF)")
        );
        assert_eq!(mime_hint(b"nothing known"), None);
        assert_eq!(hex_preview(&[0, 1, 255], 2), "00 01");
    }
}

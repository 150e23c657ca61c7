//! Glyph names, as PDF encodings' `Differences` use them, to text: the names of the
//! Latin-1 and Windows-1252 characters and ligatures, and the `uniXXXX` / `uXXXX`
//! conventions of the Adobe Glyph List.

/// The names of the printable ASCII characters, from 0x20.
#[rustfmt::skip]
const ASCII_NAMES: [&str; 95] = [
    "space", "exclam", "quotedbl", "numbersign", "dollar", "percent", "ampersand",
    "quotesingle", "parenleft", "parenright", "asterisk", "plus", "comma", "hyphen",
    "period", "slash", "zero", "one", "two", "three", "four", "five", "six", "seven",
    "eight", "nine", "colon", "semicolon", "less", "equal", "greater", "question", "at",
    "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "Q",
    "R", "S", "T", "U", "V", "W", "X", "Y", "Z", "bracketleft", "backslash", "bracketright",
    "asciicircum", "underscore", "grave", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j",
    "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z",
    "braceleft", "bar", "braceright", "asciitilde",
];

/// The names of the Latin-1 characters, from 0xA1.
#[rustfmt::skip]
const LATIN1_NAMES: [&str; 95] = [
    "exclamdown", "cent", "sterling", "currency", "yen", "brokenbar", "section", "dieresis",
    "copyright", "ordfeminine", "guillemotleft", "logicalnot", "softhyphen", "registered",
    "macron", "degree", "plusminus", "twosuperior", "threesuperior", "acute", "mu",
    "paragraph", "periodcentered", "cedilla", "onesuperior", "ordmasculine",
    "guillemotright", "onequarter", "onehalf", "threequarters", "questiondown", "Agrave",
    "Aacute", "Acircumflex", "Atilde", "Adieresis", "Aring", "AE", "Ccedilla", "Egrave",
    "Eacute", "Ecircumflex", "Edieresis", "Igrave", "Iacute", "Icircumflex", "Idieresis",
    "Eth", "Ntilde", "Ograve", "Oacute", "Ocircumflex", "Otilde", "Odieresis", "multiply",
    "Oslash", "Ugrave", "Uacute", "Ucircumflex", "Udieresis", "Yacute", "Thorn",
    "germandbls", "agrave", "aacute", "acircumflex", "atilde", "adieresis", "aring", "ae",
    "ccedilla", "egrave", "eacute", "ecircumflex", "edieresis", "igrave", "iacute",
    "icircumflex", "idieresis", "eth", "ntilde", "ograve", "oacute", "ocircumflex",
    "otilde", "odieresis", "divide", "oslash", "ugrave", "uacute", "ucircumflex",
    "udieresis", "yacute", "thorn", "ydieresis",
];

/// Other common glyph names and their text.
#[rustfmt::skip]
const OTHER_NAMES: &[(&str, &str)] = &[
    ("quoteright", "\u{2019}"), ("quoteleft", "\u{2018}"), ("quotedblleft", "\u{201C}"),
    ("quotedblright", "\u{201D}"), ("quotesinglbase", "\u{201A}"),
    ("quotedblbase", "\u{201E}"), ("guilsinglleft", "\u{2039}"),
    ("guilsinglright", "\u{203A}"), ("endash", "\u{2013}"), ("emdash", "\u{2014}"),
    ("bullet", "\u{2022}"), ("ellipsis", "\u{2026}"), ("dagger", "\u{2020}"),
    ("daggerdbl", "\u{2021}"), ("perthousand", "\u{2030}"), ("trademark", "\u{2122}"),
    ("Euro", "\u{20AC}"), ("florin", "\u{0192}"), ("fraction", "\u{2044}"),
    ("minus", "\u{2212}"), ("circumflex", "\u{02C6}"), ("tilde", "\u{02DC}"),
    ("caron", "\u{02C7}"), ("breve", "\u{02D8}"), ("dotaccent", "\u{02D9}"),
    ("ring", "\u{02DA}"), ("ogonek", "\u{02DB}"), ("hungarumlaut", "\u{02DD}"),
    ("dotlessi", "\u{0131}"), ("Lslash", "\u{0141}"), ("lslash", "\u{0142}"),
    ("OE", "\u{0152}"), ("oe", "\u{0153}"), ("Scaron", "\u{0160}"), ("scaron", "\u{0161}"),
    ("Zcaron", "\u{017D}"), ("zcaron", "\u{017E}"), ("Ydieresis", "\u{0178}"), ("fi", "fi"),
    ("fl", "fl"), ("ff", "ff"), ("ffi", "ffi"), ("ffl", "ffl"), ("nbspace", " "),
    ("sfthyphen", "\u{00AD}"), ("hyphenminus", "-"),
];

/// The text the glyph `name` stands for, by the conventions of the Adobe Glyph List:
/// known names, `uniXXXX`, `uXXXX[XX]`, ligatures `a_b`, suffixes `.sc` ignored.
pub(super) fn text(name: &str) -> Option<String> {
    let name = name.split('.').next().unwrap_or(name);
    if name.is_empty() {
        return None;
    }
    if name.contains('_') {
        let parts: Option<String> = name.split('_').map(text).collect();
        return parts;
    }
    if let Some(index) = ASCII_NAMES.iter().position(|known| *known == name) {
        return char::from_u32(0x20 + u32::try_from(index).ok()?).map(String::from);
    }
    if let Some(index) = LATIN1_NAMES.iter().position(|known| *known == name) {
        return char::from_u32(0xA1 + u32::try_from(index).ok()?).map(String::from);
    }
    if let Some((_, text)) = OTHER_NAMES.iter().find(|(known, _)| *known == name) {
        return Some((*text).to_owned());
    }
    let hex = name
        .strip_prefix("uni")
        .filter(|hex| hex.len() == 4)
        .or_else(|| {
            name.strip_prefix('u')
                .filter(|hex| (4..=6).contains(&hex.len()))
        })?;
    u32::from_str_radix(hex, 16)
        .ok()
        .and_then(char::from_u32)
        .map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyph_names_become_text() {
        assert_eq!(text("a").as_deref(), Some("a"));
        assert_eq!(text("zero").as_deref(), Some("0"));
        assert_eq!(text("eacute").as_deref(), Some("é"));
        assert_eq!(text("ydieresis").as_deref(), Some("ÿ"));
        assert_eq!(text("quoteright").as_deref(), Some("\u{2019}"));
        assert_eq!(text("uni20AC").as_deref(), Some("€"));
        assert_eq!(text("f_f_i").as_deref(), Some("ffi"));
        assert_eq!(text("A.sc").as_deref(), Some("A"));
        assert_eq!(text("g123"), None);
    }
}

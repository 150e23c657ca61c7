//! Reading a PDF with `lopdf`: the document (refused when encrypted), its metadata, and
//! the text of one page, from its text operators decoded through each font
//! ([`pdf_font`](super::pdf_font)), lines broken where the baseline moves.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use hermes_core::ToolError;
use lopdf::content::Content;
use lopdf::{Document, Object, decode_text_string};

use super::pdf_font::FontText;

/// The document-information entries returned, in this order.
const INFO_KEYS: &[&str] = &[
    "Title",
    "Author",
    "Subject",
    "Keywords",
    "Creator",
    "Producer",
    "CreationDate",
    "ModDate",
    "Trapped",
];
/// The longest metadata value returned, in chars.
const MAX_INFO_CHARS: usize = 500;

/// The PDF at `path` (shown as `shown`), loaded. Blocking.
///
/// # Errors
///
/// A message for the model when the file is not a PDF, is damaged beyond reading, or
/// is encrypted with a password.
pub(super) fn load(path: &Path, shown: &str) -> Result<Document, ToolError> {
    let document = Document::load(path).map_err(|error| match error {
        lopdf::Error::IO(io) => super::source::unreadable(shown, &io),
        other => ToolError::failed(format!(
            "`{shown}` cannot be read as a PDF ({other}); the file is not a PDF, or is \
             damaged or truncated"
        )),
    })?;
    if document.is_encrypted() {
        return Err(ToolError::failed(format!(
            "`{shown}` is encrypted with a password; its text cannot be read without it. Ask \
             the user for an unprotected copy"
        )));
    }
    Ok(document)
}

/// The document-information entries of `document` (Title, Author, Producer,
/// CreationDate...) that it has, as text; dates as ISO 8601 where they parse.
pub(super) fn metadata(document: &Document) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let info = match document.trailer.get(b"Info") {
        Ok(Object::Reference(id)) => document.get_dictionary(*id).ok(),
        Ok(Object::Dictionary(dictionary)) => Some(dictionary),
        _ => None,
    };
    let Some(info) = info else {
        return found;
    };
    for key in INFO_KEYS {
        let value = match info.get(key.as_bytes()) {
            Ok(Object::Reference(id)) => document.get_object(*id).ok(),
            Ok(value) => Some(value),
            Err(_) => None,
        };
        let text = match value {
            Some(Object::Name(name)) => Some(String::from_utf8_lossy(name).into_owned()),
            Some(value) => decode_text_string(value).ok(),
            None => None,
        };
        if let Some(text) = text
            .map(|text| text.trim().to_owned())
            .filter(|text| !text.is_empty())
        {
            let text = if key.ends_with("Date") {
                iso_date(&text).unwrap_or(text)
            } else {
                text
            };
            found.insert((*key).to_owned(), bound(&text, MAX_INFO_CHARS));
        }
    }
    found
}

/// A PDF date (`D:YYYYMMDDHHmmSSOHH'mm'`, every part after the year optional) as ISO
/// 8601; `None` when it does not look like one.
fn iso_date(text: &str) -> Option<String> {
    let digits = text.strip_prefix("D:").unwrap_or(text);
    let numeric: String = digits.chars().take_while(char::is_ascii_digit).collect();
    if numeric.len() < 4 {
        return None;
    }
    let part = |from: usize, default: &'static str| numeric.get(from..from + 2).unwrap_or(default);
    let mut iso = format!(
        "{}-{}-{}T{}:{}:{}",
        &numeric[..4],
        part(4, "01"),
        part(6, "01"),
        part(8, "00"),
        part(10, "00"),
        part(12, "00")
    );
    let zone = &digits[numeric.len()..];
    match zone.chars().next() {
        Some('Z') => iso.push('Z'),
        Some(sign @ ('+' | '-')) => {
            let numbers: String = zone[1..].chars().filter(char::is_ascii_digit).collect();
            let hours = numbers.get(..2).unwrap_or("00");
            let minutes = numbers.get(2..4).unwrap_or("00");
            iso.push_str(&format!("{sign}{hours}:{minutes}"));
        }
        _ => {}
    }
    Some(iso)
}

/// The text of page `number` (1-based) of `document`, in content order, lines
/// trimmed; `Err` with the reason when the page's content cannot be read.
pub(super) fn page_text(document: &Document, number: u32) -> Result<String, String> {
    let pages = document.get_pages();
    let Some(&page) = pages.get(&number) else {
        return Err(format!("there is no page {number}"));
    };
    let fonts: HashMap<Vec<u8>, FontText> = document
        .get_page_fonts(page)
        .map(|fonts| {
            fonts
                .into_iter()
                .map(|(name, font)| (name, FontText::of(document, font)))
                .collect()
        })
        .unwrap_or_default();
    let content = document
        .get_page_content(page)
        .map_err(|error| format!("its content cannot be read: {error}"))?;
    let content = Content::decode(&content)
        .map_err(|error| format!("its content cannot be parsed: {error}"))?;
    let fallback = FontText::fallback();
    let mut writer = Writer::default();
    let mut font = &fallback;
    for operation in &content.operations {
        let operands = &operation.operands;
        match operation.operator.as_str() {
            "Tf" => {
                font = operands
                    .first()
                    .and_then(|name| name.as_name().ok())
                    .and_then(|name| fonts.get(name))
                    .unwrap_or(&fallback);
            }
            "Tj" => writer.strings(font, operands),
            "'" | "\"" => {
                writer.line();
                writer.strings(font, operands.last());
            }
            "TJ" => {
                for item in operands
                    .iter()
                    .filter_map(|operand| operand.as_array().ok())
                    .flatten()
                {
                    match item {
                        Object::String(bytes, _) => writer.push(&font.decode(bytes)),
                        // A gap wider than a fifth of an em separates words.
                        other if other.as_float().is_ok_and(|gap| gap < -200.0) => writer.space(),
                        _ => {}
                    }
                }
            }
            "Td" | "TD" => {
                let dy = operands
                    .get(1)
                    .and_then(|dy| dy.as_float().ok())
                    .unwrap_or(0.0);
                writer.move_to(writer.y + dy);
            }
            "Tm" => {
                let y = operands
                    .get(5)
                    .and_then(|y| y.as_float().ok())
                    .unwrap_or(writer.y);
                writer.move_to(y);
            }
            "T*" | "ET" => writer.line(),
            _ => {}
        }
    }
    Ok(tidy(&writer.text))
}

/// Text as a page's operators lay it out.
#[derive(Debug, Default)]
struct Writer {
    /// What was written.
    text: String,
    /// The baseline of the current line.
    y: f32,
}

impl Writer {
    /// Append `text`.
    fn push(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// Append the string operands among `operands`.
    fn strings<'a>(&mut self, font: &FontText, operands: impl IntoIterator<Item = &'a Object>) {
        for operand in operands {
            if let Object::String(bytes, _) = operand {
                let text = font.decode(bytes);
                self.push(&text);
            }
        }
    }

    /// End the line, unless it is empty.
    fn line(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
    }

    /// A space between words, unless there is one.
    fn space(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with([' ', '\n']) {
            self.text.push(' ');
        }
    }

    /// The text position moved to the baseline `y`: a new line if it changed.
    fn move_to(&mut self, y: f32) {
        if (y - self.y).abs() > 0.5 {
            self.line();
        }
        self.y = y;
    }
}

/// `text` with trailing spaces gone and runs of blank lines collapsed to one.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines().map(str::trim_end) {
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_matches('\n').to_owned()
}

/// `text` cut to `max` chars, with `...` when cut.
fn bound(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdf_dates_become_iso_8601() {
        assert_eq!(
            iso_date("D:20240131235959+02'00'").as_deref(),
            Some("2024-01-31T23:59:59+02:00")
        );
        assert_eq!(iso_date("D:2024").as_deref(), Some("2024-01-01T00:00:00"));
        assert_eq!(
            iso_date("D:20240131120000Z").as_deref(),
            Some("2024-01-31T12:00:00Z")
        );
        assert_eq!(iso_date("yesterday"), None);
    }

    #[test]
    fn text_is_tidied() {
        assert_eq!(tidy("a  \n\n\n\nb\n\n"), "a\n\nb");
    }
}

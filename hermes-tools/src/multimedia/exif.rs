//! EXIF metadata, read with `kamadak-exif` from the raw block an image decoder found:
//! each field of the main image as a tag name and a readable value (units included),
//! bounded in count and length.

use std::collections::BTreeMap;

use exif::{In, Reader, Tag, Value};

/// The most fields returned.
const MAX_FIELDS: usize = 64;
/// The longest value returned, in chars; longer ones are cut with `...`.
const MAX_VALUE_CHARS: usize = 200;

/// The EXIF fields in `raw` (a TIFF-structured block, with or without the `Exif\0\0`
/// header of a JPEG segment): tag name to value, the main image's only (a thumbnail's
/// fields are left out), maker notes skipped as opaque.
///
/// # Errors
///
/// Why the block cannot be parsed, for a note beside the image's other details.
pub(super) fn fields(raw: Vec<u8>) -> Result<BTreeMap<String, String>, String> {
    let raw = match raw.strip_prefix(b"Exif\0\0") {
        Some(rest) => rest.to_vec(),
        None => raw,
    };
    let exif = Reader::new()
        .read_raw(raw)
        .map_err(|error| format!("the EXIF block cannot be read: {error}"))?;
    let mut fields = BTreeMap::new();
    for field in exif.fields() {
        if field.ifd_num != In::PRIMARY || field.tag == Tag::MakerNote {
            continue;
        }
        if fields.len() == MAX_FIELDS {
            break;
        }
        let value = match &field.value {
            // Text without the quotes the generic display adds.
            Value::Ascii(parts) => parts
                .iter()
                .map(|part| String::from_utf8_lossy(part).trim().to_owned())
                .collect::<Vec<_>>()
                .join(", "),
            _ => field.display_value().with_unit(&exif).to_string(),
        };
        fields.insert(field.tag.to_string(), bound(value));
    }
    Ok(fields)
}

/// `value` cut to [`MAX_VALUE_CHARS`].
fn bound(value: String) -> String {
    match value.char_indices().nth(MAX_VALUE_CHARS) {
        Some((end, _)) => format!("{}...", &value[..end]),
        None => value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A big-endian TIFF block with one ASCII field (Make).
    fn block(make: &str) -> Vec<u8> {
        let mut value = make.as_bytes().to_vec();
        value.push(0);
        let count = u32::try_from(value.len()).unwrap();
        let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
        tiff.extend_from_slice(&1u16.to_be_bytes());
        tiff.extend_from_slice(&0x010Fu16.to_be_bytes());
        tiff.extend_from_slice(&2u16.to_be_bytes());
        tiff.extend_from_slice(&count.to_be_bytes());
        tiff.extend_from_slice(&26u32.to_be_bytes());
        tiff.extend_from_slice(&0u32.to_be_bytes());
        tiff.extend_from_slice(&value);
        tiff
    }

    #[test]
    fn reads_fields_with_or_without_the_jpeg_header() {
        let fields = fields(block("Hermes Camera")).unwrap();
        assert_eq!(fields["Make"], "Hermes Camera");
        let mut prefixed = b"Exif\0\0".to_vec();
        prefixed.extend(block("Xylophone"));
        assert_eq!(super::fields(prefixed).unwrap()["Make"], "Xylophone");
    }

    #[test]
    fn garbage_and_long_values_are_handled() {
        assert!(fields(b"not exif at all".to_vec()).is_err());
        let long = bound("x".repeat(500));
        assert_eq!(long.chars().count(), MAX_VALUE_CHARS + 3);
    }
}

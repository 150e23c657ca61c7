//! Images as `image_info` and `image_transform` read them: the format told from the
//! content (never from the name), and decoding under limits, so a small file whose
//! header claims enormous dimensions (a decompression bomb) is refused before any
//! pixel buffer is allocated.

use std::fs::File;
use std::io::{self, BufReader};
use std::path::Path;

use hermes_core::ToolError;
use image::{DynamicImage, ImageDecoder, ImageError, ImageFormat, ImageReader, Limits};

/// The most pixels an image may have on a side.
pub(super) const MAX_SIDE: u32 = 32_768;
/// The most pixels an image may have in all, decoded or produced.
pub(super) const MAX_PIXELS: u64 = 100_000_000;
/// The most memory a decoder may allocate.
const MAX_DECODER_BYTES: u64 = 512 * 1024 * 1024;
/// The largest image file read.
pub(super) const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;

/// The formats read and written, by their usual names.
pub(super) const FORMATS: &str = "png, jpeg, gif, webp, bmp, tiff";

/// The limits every image is decoded under.
fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_DECODER_BYTES);
    limits
}

/// The usual name of `format` (`png`, `jpeg`, ...).
pub(super) fn format_name(format: ImageFormat) -> String {
    format!("{format:?}").to_lowercase()
}

/// A decoder for the image at `path` (shown to the model as `shown`), its format told
/// from its first bytes, under [`limits`]. Blocking.
///
/// # Errors
///
/// A message for the model when the file cannot be read, is not an image in a
/// supported format, is malformed, or declares dimensions beyond the limits.
pub(super) fn open(
    path: &Path,
    shown: &str,
) -> Result<(ImageFormat, impl ImageDecoder + use<>), ToolError> {
    let file = File::open(path).map_err(|error| super::source::unreadable(shown, &error))?;
    let mut reader = ImageReader::new(BufReader::new(file))
        .with_guessed_format()
        .map_err(|error| super::source::unreadable(shown, &error))?;
    let Some(format) = reader.format() else {
        return Err(ToolError::failed(format!(
            "`{shown}` is not an image in a format this tool reads ({FORMATS}); check the file \
             (for a PDF use pdf_read, for audio audio_info, for video video_info)"
        )));
    };
    reader.limits(limits());
    let decoder = reader
        .into_decoder()
        .map_err(|error| refusal(shown, format, error))?;
    Ok((format, decoder))
}

/// Decode the image at `path` whole, within [`MAX_PIXELS`]. Blocking.
///
/// # Errors
///
/// As [`open`], and when the pixels cannot be decoded (a truncated file, say).
pub(super) fn decode(path: &Path, shown: &str) -> Result<(ImageFormat, DynamicImage), ToolError> {
    let (format, decoder) = open(path, shown)?;
    let (width, height) = decoder.dimensions();
    check_size(width, height).map_err(|limit| {
        ToolError::failed(format!(
            "`{shown}` is {width}x{height} pixels, {limit}; refused (a decompression bomb looks \
             like this): use a smaller image"
        ))
    })?;
    let image =
        DynamicImage::from_decoder(decoder).map_err(|error| refusal(shown, format, error))?;
    Ok((format, image))
}

/// `Err` with the limit broken when an image of `width`x`height` is too large to
/// decode or produce.
pub(super) fn check_size(width: u32, height: u32) -> Result<(), String> {
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(format!("more than the {MAX_SIDE} pixels a side allowed"));
    }
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(format!(
            "more than the {} megapixels allowed",
            MAX_PIXELS / 1_000_000
        ));
    }
    Ok(())
}

/// Why the image `shown`, of `format`, cannot be read, in words the model can act on.
pub(super) fn refusal(shown: &str, format: ImageFormat, error: ImageError) -> ToolError {
    let name = format_name(format);
    let message = match &error {
        ImageError::Limits(_) => format!(
            "`{shown}` declares dimensions beyond the limits (at most {MAX_SIDE} pixels a side \
             and {} megapixels): refused as a possible decompression bomb; use a smaller image",
            MAX_PIXELS / 1_000_000
        ),
        ImageError::IoError(io) if io.kind() == io::ErrorKind::UnexpectedEof => format!(
            "`{shown}` looks like {name} but ends early: the file is truncated; get a complete copy"
        ),
        ImageError::Decoding(_) | ImageError::IoError(_) => format!(
            "`{shown}` looks like {name} but cannot be decoded ({error}); the file is corrupt or \
             truncated"
        ),
        ImageError::Unsupported(_) => {
            format!("`{shown}` is {name} in a variant this tool does not support ({error})")
        }
        _ => format!("cannot read `{shown}` as {name}: {error}"),
    };
    ToolError::failed(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_beyond_the_limits_are_named() {
        assert!(check_size(MAX_SIDE, 100).is_ok());
        assert!(check_size(MAX_SIDE + 1, 1).unwrap_err().contains("a side"));
        assert!(
            check_size(20_000, 20_000)
                .unwrap_err()
                .contains("megapixels")
        );
    }

    #[test]
    fn formats_have_their_usual_names() {
        assert_eq!(format_name(ImageFormat::Jpeg), "jpeg");
        assert_eq!(format_name(ImageFormat::WebP), "webp");
    }
}

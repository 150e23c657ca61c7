//! The `multimedia` family: `image_info`, `image_transform`, `pdf_read`, `audio_info`,
//! `video_info` and `video_frame`.
//!
//! One module per tool; what several tools share lives once: [`source`] (the input file:
//! resolved, a regular file, within a size limit), [`destination`] (the output file:
//! never overwritten unless asked, written atomically through its checked directory),
//! [`scratch`] (a private file outside the workspace for ffmpeg's output), [`blocking`]
//! (CPU-heavy work off the runtime's threads, stoppable; shared with the other
//! families), [`raster`] (image decoding under dimension limits, against decompression
//! bombs), [`exif`] (EXIF fields), [`pdf_text`], [`pdf_font`], [`pdf_cmap`] and
//! [`pdf_glyphs`] (a PDF's metadata and page text, decoded through each font's encoding
//! and ToUnicode map) and [`ffprobe`] (finding and running FFmpeg's programs, reading
//! ffprobe's report). Images are read with `image` and `kamadak-exif`, PDFs with
//! `lopdf`, audio with `symphonia`; video goes to ffprobe and ffmpeg, run through
//! [`process`](crate::common::process). Every path goes through
//! [`resolve`](crate::common::paths::resolve), every output is bounded.

mod audio_info;
mod destination;
mod exif;
mod ffprobe;
mod image_info;
mod image_transform;
mod pdf_cmap;
mod pdf_font;
mod pdf_glyphs;
mod pdf_read;
mod pdf_text;
mod raster;
mod scratch;
mod source;
mod video_frame;
mod video_info;

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Error, Tool};

use crate::common::{Shared, blocking};

/// The tag every tool of the family carries (the README's table reads it).
const FAMILY_TAG: &str = "family:multimedia";

/// The most a multimedia tool's result may be, whatever the configured output cap.
const MAX_RESULT_BYTES: usize = 256 * 1024;

/// Every tool of the family.
///
/// # Errors
///
/// An invalid spec: the specs are constants of this crate, so a bug the tests catch.
pub(crate) fn tools(shared: &Arc<Shared>) -> Result<Vec<Arc<dyn Tool>>, Error> {
    Ok(vec![
        Arc::new(image_info::ImageInfo::new(shared)?),
        Arc::new(image_transform::ImageTransform::new(shared)?),
        Arc::new(pdf_read::PdfRead::new(shared)?),
        Arc::new(audio_info::AudioInfo::new(shared)?),
        Arc::new(video_info::VideoInfo::new(shared)?),
        Arc::new(video_frame::VideoFrame::new(shared)?),
    ])
}

/// The cap on a tool's whole result: room for the configured text cap escaped as JSON,
/// plus the result's other fields, within [`MAX_RESULT_BYTES`].
fn result_cap(shared: &Shared) -> usize {
    shared
        .config
        .max_output_bytes()
        .saturating_mul(2)
        .saturating_add(8192)
        .min(MAX_RESULT_BYTES)
}

/// How long one ffprobe or ffmpeg run may take: the configured command timeout.
fn command_timeout(shared: &Shared) -> Duration {
    shared.config.command_timeout()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolsConfig;

    #[test]
    fn every_tool_builds_with_its_family_tag_and_a_bounded_result() {
        let shared = Arc::new(Shared::new(ToolsConfig::default()));
        let tools = tools(&shared).unwrap();
        let names: Vec<&str> = tools.iter().map(|tool| tool.spec().name()).collect();
        assert_eq!(
            names,
            [
                "image_info",
                "image_transform",
                "pdf_read",
                "audio_info",
                "video_info",
                "video_frame"
            ]
        );
        for tool in &tools {
            let spec = tool.spec();
            assert!(
                spec.tags().iter().any(|tag| tag == FAMILY_TAG),
                "{}",
                spec.name()
            );
            assert!(
                spec.max_result_bytes() <= MAX_RESULT_BYTES,
                "{}",
                spec.name()
            );
            assert!(!spec.arg_kinds().is_empty(), "{}", spec.name());
        }
    }
}

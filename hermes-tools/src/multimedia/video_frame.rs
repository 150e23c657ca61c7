//! `video_frame`: one frame of a video, at a timestamp, saved as a PNG or JPEG image
//! with ffmpeg (an existing file is replaced only with `overwrite: true`).

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{
    Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool, Violation,
};
use image::ImageDecoder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::blocking::blocking;
use super::destination::{self, Destination, Overwrite};
use super::ffprobe::{self, FFMPEG};
use super::scratch::ScratchFile;
use super::source::{self, Source};
use super::{FAMILY_TAG, raster, result_cap};
use crate::common::Shared;

/// How much longer than two command timeouts (ffprobe, then ffmpeg) the gateway waits,
/// so the programs' own timeouts fire first with a clear message.
const TIMEOUT_MARGIN: Duration = Duration::from_secs(10);
/// The most bytes of ffmpeg's output kept (its errors only: `-v error`).
const MAX_LOG_BYTES: usize = 64 * 1024;

/// Arguments of `video_frame`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Args {
    /// The video: relative to the workspace root, or absolute inside it.
    #[schemars(length(min = 1, max = 4096))]
    path: String,
    /// Where in the video: seconds (12.5) or a clock time ("00:01:02.500", "1:02.5").
    /// Default: the first frame.
    timestamp: Option<Timestamp>,
    /// The image to write, ending in .png, .jpg or .jpeg.
    #[schemars(length(min = 1, max = 4096))]
    output: String,
    /// Replace the output file if it exists (default false: an existing file is left
    /// alone and the call fails).
    #[serde(default)]
    overwrite: bool,
}

/// A point in a video, as the model may write it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum Timestamp {
    /// Seconds from the start.
    Seconds(f64),
    /// `HH:MM:SS.mmm`, `MM:SS.mmm` or seconds, as text.
    Clock(String),
}

impl Timestamp {
    /// Seconds from the start, when the text is a valid non-negative time.
    fn seconds(&self) -> Option<f64> {
        let seconds = match self {
            Self::Seconds(seconds) => *seconds,
            Self::Clock(text) => parse_clock(text)?,
        };
        (seconds.is_finite() && seconds >= 0.0).then_some(seconds)
    }
}

impl std::fmt::Display for Timestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Seconds(seconds) => write!(f, "{seconds}"),
            Self::Clock(text) => write!(f, "`{text}`"),
        }
    }
}

/// `[[HH:]MM:]SS[.fff]` as seconds.
fn parse_clock(text: &str) -> Option<f64> {
    let parts: Vec<&str> = text.trim().split(':').collect();
    if parts.len() > 3 || parts.iter().any(|part| part.is_empty()) {
        return None;
    }
    let (last, whole) = parts.split_last()?;
    let seconds: f64 = last.parse().ok()?;
    if !whole.is_empty() && seconds >= 60.0 {
        return None;
    }
    let mut total = 0.0;
    for part in whole {
        if !part.bytes().all(|byte| byte.is_ascii_digit()) {
            return None;
        }
        let value: f64 = part.parse().ok()?;
        total = total * 60.0 + value;
    }
    Some(total * 60.0 + seconds)
}

/// What `video_frame` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The image written, relative to the workspace.
    path: String,
    /// Its format (`png` or `jpeg`).
    format: String,
    /// Its width in pixels.
    width: u32,
    /// Its height in pixels.
    height: u32,
    /// Its size in bytes.
    size_bytes: u64,
    /// Where in the video the frame is, in seconds.
    timestamp_seconds: f64,
    /// The video's duration in seconds, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    video_duration_seconds: Option<f64>,
}

/// The `video_frame` tool.
#[derive(Debug)]
pub(crate) struct VideoFrame {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl VideoFrame {
    /// The tool, its spec built from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let description = "Save one frame of a video in the workspace as an image, with \
             ffmpeg: the frame at `timestamp` (seconds, or HH:MM:SS.mmm; default the first \
             frame) written to `output` (.png or .jpg). An existing output is not replaced \
             unless `overwrite` is true; a timestamp past the video's end is refused. Returns \
             the image's path, format, width, height and size_bytes, the timestamp and the \
             video's duration. Needs FFmpeg installed.";
        let spec = ToolSpec::builder("video_frame", description)
            .parameters_for::<Args>()
            .tag(FAMILY_TAG)
            .scope(Scope::Write)
            .permission("file:read")
            .permission("file:write")
            .arg_kind("path", ArgKind::Path(Access::Read))
            .arg_kind("output", ArgKind::Path(Access::Write))
            .timeout(super::command_timeout(shared) * 2 + TIMEOUT_MARGIN)
            .max_result_bytes(result_cap(shared))
            .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl TypedTool for VideoFrame {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let at = match &args.timestamp {
            None => 0.0,
            Some(timestamp) => timestamp
                .seconds()
                .ok_or_else(|| ToolError::InvalidArguments {
                    violations: vec![Violation::new(
                        "/timestamp",
                        "format",
                        format!(
                            "{timestamp} is not a time in the video; give seconds (12.5) or \
                             HH:MM:SS.mmm (00:00:12.500), not negative"
                        ),
                    )],
                })?,
        };
        let source = source::open(&self.shared, ctx, &args.path, u64::MAX).await?;
        let destination = destination::prepare(
            &self.shared,
            ctx,
            &args.output,
            Overwrite::from_flag(args.overwrite),
        )
        .await?;
        let format = match destination.extension().as_deref() {
            Some("png") => "png",
            Some("jpg" | "jpeg") => "jpeg",
            _ => {
                return Err(ToolError::failed(format!(
                    "`{}` must end in .png, .jpg or .jpeg: the extension chooses the image format",
                    destination.shown
                )));
            }
        };
        let ffmpeg = ffprobe::locate(FFMPEG, "video_frame")?;
        let report = ffprobe::probe(&self.shared, ctx, &source, "video_frame").await?;
        if !report
            .streams
            .iter()
            .any(|stream| stream.codec_type == "video")
        {
            return Err(ToolError::failed(format!(
                "`{}` has no video stream; for audio use audio_info",
                source.shown
            )));
        }
        let duration = report.format.seconds();
        if let Some(duration) = duration.filter(|&duration| at >= duration) {
            return Err(ToolError::failed(format!(
                "timestamp {at} s is beyond the end of `{}`, which lasts {duration:.3} s; choose \
                 a timestamp from 0 to below {duration:.3}",
                source.shown
            )));
        }
        let frame = self
            .extract(ctx, &ffmpeg, &source, &destination, at, duration)
            .await?;
        Ok(Output {
            format: format.to_owned(),
            timestamp_seconds: at,
            video_duration_seconds: duration,
            ..frame
        })
    }
}

impl VideoFrame {
    /// Run ffmpeg to write the frame at `at` into a temporary file, check it decodes,
    /// and put it in place.
    async fn extract(
        &self,
        ctx: &ToolContext,
        ffmpeg: &std::path::Path,
        source: &Source,
        destination: &Destination,
        at: f64,
        duration: Option<f64>,
    ) -> Result<Output, ToolError> {
        // ffmpeg writes by name: outside the workspace, copied in through the checked
        // directory afterwards.
        let scratch = ScratchFile::create(&destination.extension().unwrap_or_default()).await?;
        let args = vec![
            "-nostdin".to_owned(),
            "-v".to_owned(),
            "error".to_owned(),
            "-protocol_whitelist".to_owned(),
            "file".to_owned(),
            "-ss".to_owned(),
            format!("{at:.3}"),
            "-i".to_owned(),
            ffprobe::input(&source.path),
            "-frames:v".to_owned(),
            "1".to_owned(),
            "-an".to_owned(),
            "-y".to_owned(),
            ffprobe::input(scratch.path()),
        ];
        let finished = ffprobe::run(&self.shared, ctx, ffmpeg, args, MAX_LOG_BYTES).await?;
        if !finished.succeeded() {
            return Err(ToolError::failed(format!(
                "ffmpeg could not extract a frame from `{}`: {}",
                source.shown,
                ffprobe::complaint(&finished, source)
            )));
        }
        let empty = std::fs::metadata(scratch.path()).map_or(true, |metadata| metadata.len() == 0);
        if empty {
            let length = duration.map_or_else(String::new, |duration| {
                format!(" (it lasts {duration:.3} s)")
            });
            return Err(ToolError::failed(format!(
                "ffmpeg found no frame at {at} s in `{}`{length}; try an earlier timestamp",
                source.shown
            )));
        }
        let destination = destination.clone();
        blocking("video_frame", move || {
            let (_, decoder) = raster::open(scratch.path(), &destination.shown)?;
            let (width, height) = decoder.dimensions();
            let temp = destination.temp()?;
            std::fs::File::open(scratch.path())
                .and_then(|mut frame| std::io::copy(&mut frame, &mut temp.file()))
                .map_err(|error| {
                    ToolError::failed(format!("cannot write `{}`: {error}", destination.shown))
                })?;
            let size_bytes = destination.commit(temp)?;
            Ok(Output {
                path: destination.shown.clone(),
                format: String::new(),
                width,
                height,
                size_bytes,
                timestamp_seconds: at,
                video_duration_seconds: duration,
            })
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_times_are_read() {
        assert_eq!(parse_clock("12.5"), Some(12.5));
        assert_eq!(parse_clock("1:02.5"), Some(62.5));
        assert_eq!(parse_clock("01:00:01.250"), Some(3601.25));
        assert_eq!(parse_clock("1:75"), None);
        assert_eq!(parse_clock("a:10"), None);
        assert_eq!(parse_clock("1:2:3:4"), None);
        assert_eq!(parse_clock(""), None);
        assert_eq!(Timestamp::Seconds(-1.0).seconds(), None);
        assert_eq!(Timestamp::Clock("-3".into()).seconds(), None);
    }
}

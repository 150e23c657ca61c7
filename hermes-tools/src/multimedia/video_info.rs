//! `video_info`: a media file's container, duration and streams (codec, type,
//! resolution, frame rate, audio layout), as ffprobe reports them.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ffprobe::{self, number};
use super::{FAMILY_TAG, result_cap, source};
use crate::common::Shared;

/// The largest media file described (ffprobe reads only its headers).
const MAX_FILE_BYTES: u64 = u64::MAX;
/// The most streams listed.
const MAX_STREAMS: usize = 32;
/// The most container tags returned.
const MAX_TAGS: usize = 16;
/// The longest tag value returned, in chars.
const MAX_TAG_CHARS: usize = 200;

/// How much longer than the command timeout the gateway waits, so ffprobe's own timeout
/// fires first with a clear message.
const TIMEOUT_MARGIN: Duration = Duration::from_secs(10);

/// Arguments of `video_info`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Args {
    /// The video (or any media) file: relative to the workspace root, or absolute inside
    /// it.
    #[schemars(length(min = 1, max = 4096))]
    path: String,
}

/// What `video_info` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The file, relative to the workspace.
    path: String,
    /// The container's short names (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`...).
    container: String,
    /// The container's full name.
    container_name: String,
    /// Seconds, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_seconds: Option<f64>,
    /// The overall bit rate, bits per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    bit_rate: Option<u64>,
    /// The file's size in bytes.
    size_bytes: u64,
    /// The first video stream's width, for convenience.
    #[serde(skip_serializing_if = "Option::is_none")]
    width: Option<u32>,
    /// The first video stream's height.
    #[serde(skip_serializing_if = "Option::is_none")]
    height: Option<u32>,
    /// The first video stream's frames per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    fps: Option<f64>,
    /// Every stream, in file order (at most 32).
    streams: Vec<StreamOutput>,
    /// Streams left out past the first 32.
    #[serde(skip_serializing_if = "is_zero")]
    streams_omitted: usize,
    /// The container's tags (title, encoder...).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    tags: BTreeMap<String, String>,
}

/// One stream of the file.
#[derive(Debug, Serialize)]
pub(crate) struct StreamOutput {
    /// Its index in the file.
    index: u32,
    /// `video`, `audio`, `subtitle`, `data` or `attachment`.
    #[serde(rename = "type")]
    kind: String,
    /// The codec's short name (`h264`, `aac`...).
    #[serde(skip_serializing_if = "Option::is_none")]
    codec: Option<String>,
    /// The codec's full name.
    #[serde(skip_serializing_if = "Option::is_none")]
    codec_name: Option<String>,
    /// Width in pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    width: Option<u32>,
    /// Height in pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    height: Option<u32>,
    /// Frames per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    fps: Option<f64>,
    /// Pictures in a video stream, when the container says.
    #[serde(skip_serializing_if = "Option::is_none")]
    frames: Option<u64>,
    /// The pixel format.
    #[serde(skip_serializing_if = "Option::is_none")]
    pixel_format: Option<String>,
    /// Samples per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    sample_rate: Option<u32>,
    /// Audio channels.
    #[serde(skip_serializing_if = "Option::is_none")]
    channels: Option<u32>,
    /// The channel layout (`mono`, `stereo`, `5.1`...).
    #[serde(skip_serializing_if = "Option::is_none")]
    channel_layout: Option<String>,
    /// Seconds, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_seconds: Option<f64>,
    /// Bits per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    bit_rate: Option<u64>,
    /// Its language tag, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    language: Option<String>,
}

/// Whether `count` is zero (for `skip_serializing_if`).
fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// The `video_info` tool.
#[derive(Debug)]
pub(crate) struct VideoInfo {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl VideoInfo {
    /// The tool, its spec built from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let description = "Describe a video (or any media) file in the workspace with \
             ffprobe. Returns the container, duration_seconds, overall bit_rate, size_bytes, the \
             first video stream's width, height and fps, and every stream: index, type (video, \
             audio, subtitle...), codec, resolution, fps, frames, pixel_format, sample_rate, \
             channels, channel_layout, duration, language. Needs FFmpeg installed.";
        let spec = ToolSpec::builder("video_info", description)
            .parameters_for::<Args>()
            .tag(FAMILY_TAG)
            .scope(Scope::Read)
            .permission("file:read")
            .arg_kind("path", ArgKind::Path(Access::Read))
            .timeout(super::command_timeout(shared) + TIMEOUT_MARGIN)
            .max_result_bytes(result_cap(shared))
            .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl TypedTool for VideoInfo {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let source = source::open(&self.shared, ctx, &args.path, MAX_FILE_BYTES).await?;
        let report = ffprobe::probe(&self.shared, ctx, &source, "video_info").await?;
        let streams_omitted = report.streams.len().saturating_sub(MAX_STREAMS);
        let streams: Vec<StreamOutput> = report
            .streams
            .into_iter()
            .take(MAX_STREAMS)
            .map(stream_output)
            .collect();
        let video = streams.iter().find(|stream| stream.kind == "video");
        let container = report.format;
        Ok(Output {
            path: source.shown,
            duration_seconds: container.seconds().map(round_ms),
            bit_rate: whole(container.bit_rate.as_deref()),
            container: container.format_name,
            container_name: container.format_long_name,
            size_bytes: source.size,
            width: video.and_then(|stream| stream.width),
            height: video.and_then(|stream| stream.height),
            fps: video.and_then(|stream| stream.fps),
            tags: bounded_tags(&container.tags),
            streams,
            streams_omitted,
        })
    }
}

/// One stream of ffprobe's report, as returned.
fn stream_output(stream: ffprobe::Stream) -> StreamOutput {
    // Frame rates and counts mean pictures only (an audio stream's "frames" are packets).
    let (fps, frames) = match stream.codec_type.as_str() {
        "video" => (stream.fps(), whole(stream.nb_frames.as_deref())),
        _ => (None, None),
    };
    let language = stream
        .tags
        .get("language")
        .and_then(|value| value.as_str())
        .filter(|language| *language != "und")
        .map(str::to_owned);
    StreamOutput {
        index: stream.index,
        fps,
        language,
        codec: stream.codec_name,
        codec_name: stream.codec_long_name,
        width: stream.width,
        height: stream.height,
        frames,
        pixel_format: stream.pix_fmt,
        sample_rate: whole(stream.sample_rate.as_deref()).and_then(|rate| u32::try_from(rate).ok()),
        channels: stream.channels,
        channel_layout: stream.channel_layout,
        duration_seconds: number(stream.duration.as_deref()).map(round_ms),
        bit_rate: whole(stream.bit_rate.as_deref()),
        kind: stream.codec_type,
    }
}

/// A whole number from ffprobe's text, when it is one.
fn whole(text: Option<&str>) -> Option<u64> {
    text?.trim().parse().ok()
}

/// `seconds` to the millisecond.
fn round_ms(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}

/// The container's tags with text values, bounded in count and length.
fn bounded_tags(tags: &serde_json::Map<String, serde_json::Value>) -> BTreeMap<String, String> {
    tags.iter()
        .filter_map(|(key, value)| Some((key.to_lowercase(), value.as_str()?.to_owned())))
        .take(MAX_TAGS)
        .map(
            |(key, value)| match value.char_indices().nth(MAX_TAG_CHARS) {
                Some((end, _)) => (key, format!("{}...", &value[..end])),
                None => (key, value),
            },
        )
        .collect()
}

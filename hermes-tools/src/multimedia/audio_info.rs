//! `audio_info`: an audio file's container, codec, duration, sample rate, channels, bit
//! depth and tags, read with `symphonia` (headers and packet boundaries only; nothing is
//! decoded).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use symphonia::core::codecs::{CODEC_TYPE_NULL, CodecParameters};
use symphonia::core::errors::Error as AudioError;
use symphonia::core::formats::{FormatOptions, FormatReader, Track};
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::{MetadataOptions, MetadataRevision};
use symphonia::core::probe::Hint;

use super::blocking::{Stop, blocking};
use super::source::{self, Source};
use super::{FAMILY_TAG, result_cap};
use crate::common::Shared;

/// The largest audio file read.
const MAX_FILE_BYTES: u64 = 1024 * 1024 * 1024;
/// The most tags returned.
const MAX_TAGS: usize = 32;
/// The longest tag value returned, in chars.
const MAX_TAG_CHARS: usize = 200;
/// The containers read, by their usual names.
const CONTAINERS: &str = "wav, flac, ogg (vorbis), mp3, aiff, mp4/m4a (aac, alac), mkv/webm";

/// Arguments of `audio_info`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Args {
    /// The audio file: relative to the workspace root, or absolute inside it.
    #[schemars(length(min = 1, max = 4096))]
    path: String,
}

/// What `audio_info` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The file, relative to the workspace.
    path: String,
    /// The container, told from the content (`wav`, `flac`, `ogg`, `mp3`...).
    format: String,
    /// The codec's short name (`pcm_s16le`, `flac`, `vorbis`, `mp3`...).
    codec: String,
    /// The codec's full name.
    codec_name: String,
    /// Seconds of audio, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_seconds: Option<f64>,
    /// Samples per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    sample_rate: Option<u32>,
    /// Channels (1 mono, 2 stereo...).
    #[serde(skip_serializing_if = "Option::is_none")]
    channels: Option<u32>,
    /// Bits per sample, for codecs that have a fixed depth (PCM, FLAC...).
    #[serde(skip_serializing_if = "Option::is_none")]
    bits_per_sample: Option<u32>,
    /// Frames (samples per channel), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    frames: Option<u64>,
    /// The average bit rate over the file, in bits per second.
    #[serde(skip_serializing_if = "Option::is_none")]
    bit_rate: Option<u64>,
    /// Audio tracks in the file.
    tracks: usize,
    /// Tags (title, artist, album...), when the file has any.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    tags: BTreeMap<String, String>,
    /// The file's size in bytes.
    size_bytes: u64,
}

/// The `audio_info` tool.
#[derive(Debug)]
pub(crate) struct AudioInfo {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl AudioInfo {
    /// The tool, its spec built from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let description = format!(
            "Describe an audio file in the workspace. Returns its container format, codec, \
             duration_seconds, sample_rate, channels, bits_per_sample (for PCM and FLAC), \
             frames, average bit_rate, the number of audio tracks and tags (title, artist...) \
             when present. Reads {CONTAINERS}; for video files use video_info."
        );
        let spec = ToolSpec::builder("audio_info", description)
            .parameters_for::<Args>()
            .tag(FAMILY_TAG)
            .scope(Scope::Read)
            .permission("file:read")
            .arg_kind("path", ArgKind::Path(Access::Read))
            .timeout(Duration::from_secs(60))
            .max_result_bytes(result_cap(shared))
            .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl TypedTool for AudioInfo {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let source = source::open(&self.shared, ctx, &args.path, MAX_FILE_BYTES).await?;
        let stop = Stop::of("audio_info", ctx);
        blocking("audio_info", move || describe(source, &stop)).await
    }
}

/// Probe `source` and read its first audio track's parameters. Blocking.
fn describe(source: Source, stop: &Stop) -> Result<Output, ToolError> {
    let shown = &source.shown;
    let format = container(&source.path).map_err(|error| source::unreadable(shown, &error))?;
    let file = File::open(&source.path).map_err(|error| source::unreadable(shown, &error))?;
    let stream = MediaSourceStream::new(Box::new(file), Default::default());
    let mut probed = symphonia::default::get_probe()
        .format(
            &Hint::new(),
            stream,
            &FormatOptions::default(),
            &MetadataOptions::default(),
        )
        .map_err(|error| refusal(shown, &error))?;
    let mut tags = BTreeMap::new();
    if let Some(revision) = probed.metadata.get().as_ref().and_then(|log| log.current()) {
        collect_tags(revision, &mut tags);
    }
    let mut reader = probed.format;
    if let Some(revision) = reader.metadata().current() {
        collect_tags(revision, &mut tags);
    }
    let audio: Vec<&Track> = reader
        .tracks()
        .iter()
        .filter(|track| track.codec_params.codec != CODEC_TYPE_NULL)
        .collect();
    let tracks = audio.len();
    let Some(track) = audio.first() else {
        return Err(ToolError::failed(format!(
            "`{shown}` holds no audio track this tool can read; for video use video_info"
        )));
    };
    let (id, params) = (track.id, track.codec_params.clone());
    let (codec, codec_name) = symphonia::default::get_codecs()
        .get_codec(params.codec)
        .map_or_else(
            || (params.codec.to_string(), "unknown codec".to_owned()),
            |codec| (codec.short_name.to_owned(), codec.long_name.to_owned()),
        );
    let frames = match params.n_frames {
        Some(frames) => Some(frames),
        None => count_frames(reader.as_mut(), id, stop)?,
    };
    let duration_seconds = duration(&params, frames);
    let bit_rate = duration_seconds
        .filter(|&seconds| seconds > 0.0)
        .map(|seconds| (source.size as f64 * 8.0 / seconds).round() as u64);
    Ok(Output {
        path: source.shown,
        format: format.to_owned(),
        codec,
        codec_name,
        duration_seconds,
        sample_rate: params.sample_rate,
        channels: params.channels.map(|channels| channels.count() as u32),
        bits_per_sample: params.bits_per_sample,
        frames,
        bit_rate,
        tracks,
        tags,
        size_bytes: source.size,
    })
}

/// The length of a stream of `frames` with `params`, in seconds (to the millisecond).
fn duration(params: &CodecParameters, frames: Option<u64>) -> Option<f64> {
    let frames = frames?;
    let seconds = match (params.time_base, params.sample_rate) {
        (Some(base), _) => {
            let time = base.calc_time(frames);
            time.seconds as f64 + time.frac
        }
        (None, Some(rate)) if rate > 0 => frames as f64 / f64::from(rate),
        _ => return None,
    };
    Some((seconds * 1000.0).round() / 1000.0)
}

/// The frames of track `id`, summed over its packets, when the header does not say
/// (MP3 without a Xing header, say). `None` when no packet says its length.
fn count_frames(
    reader: &mut dyn FormatReader,
    id: u32,
    stop: &Stop,
) -> Result<Option<u64>, ToolError> {
    let mut frames = 0u64;
    let mut packets = 0u64;
    // Ends at the end of the stream, or at damage past which nothing can be counted.
    while let Ok(packet) = reader.next_packet() {
        if packet.track_id() == id {
            frames = frames.saturating_add(packet.dur());
        }
        packets += 1;
        if packets % 1024 == 0 {
            stop.check()?;
        }
    }
    Ok((frames > 0).then_some(frames))
}

/// Add the tags of `revision` to `tags`, within the bounds.
fn collect_tags(revision: &MetadataRevision, tags: &mut BTreeMap<String, String>) {
    for tag in revision.tags() {
        if tags.len() == MAX_TAGS {
            return;
        }
        let key = match tag.std_key {
            Some(key) => format!("{key:?}").to_lowercase(),
            None => tag.key.to_lowercase(),
        };
        let value = tag.value.to_string();
        let value = match value.char_indices().nth(MAX_TAG_CHARS) {
            Some((end, _)) => format!("{}...", &value[..end]),
            None => value,
        };
        tags.entry(key).or_insert(value);
    }
}

/// The container of the file at `path`, told from its first bytes.
fn container(path: &Path) -> io::Result<&'static str> {
    let mut head = [0u8; 12];
    let mut file = File::open(path)?;
    let mut read = 0;
    while read < head.len() {
        match file.read(&mut head[read..])? {
            0 => break,
            n => read += n,
        }
    }
    Ok(sniff(&head[..read]))
}

/// The container whose signature starts `head`.
fn sniff(head: &[u8]) -> &'static str {
    match head {
        [
            b'R',
            b'I',
            b'F',
            b'F',
            _,
            _,
            _,
            _,
            b'W',
            b'A',
            b'V',
            b'E',
            ..,
        ] => "wav",
        [b'f', b'L', b'a', b'C', ..] => "flac",
        [b'O', b'g', b'g', b'S', ..] => "ogg",
        [b'F', b'O', b'R', b'M', _, _, _, _, b'A', b'I', b'F', ..] => "aiff",
        [_, _, _, _, b'f', b't', b'y', b'p', ..] => "mp4",
        [0x1A, 0x45, 0xDF, 0xA3, ..] => "matroska",
        [b'I', b'D', b'3', ..] => "mp3",
        [0xFF, second, ..] if second & 0xE0 == 0xE0 => "mp3",
        [b'c', b'a', b'f', b'f', ..] => "caf",
        _ => "unknown",
    }
}

/// Why symphonia cannot read `shown`, in words the model can act on.
fn refusal(shown: &str, error: &AudioError) -> ToolError {
    let message = match error {
        AudioError::Unsupported(_) => format!(
            "`{shown}` is not audio in a format this tool reads ({CONTAINERS}); check the file, \
             or use video_info for video"
        ),
        AudioError::IoError(io) if io.kind() == io::ErrorKind::UnexpectedEof => format!(
            "`{shown}` ends before its audio headers do: the file is truncated or not audio"
        ),
        _ => {
            format!("`{shown}` cannot be read as audio ({error}); the file is corrupt or not audio")
        }
    };
    ToolError::failed(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_are_told_from_their_signatures() {
        assert_eq!(sniff(b"RIFF\0\0\0\0WAVEfmt "), "wav");
        assert_eq!(sniff(b"fLaC\0\0\0\x22"), "flac");
        assert_eq!(sniff(b"ID3\x04"), "mp3");
        assert_eq!(sniff(&[0xFF, 0xFB, 0x90]), "mp3");
        assert_eq!(sniff(b"\0\0\0\x20ftypM4A "), "mp4");
        assert_eq!(sniff(b"hello"), "unknown");
    }
}

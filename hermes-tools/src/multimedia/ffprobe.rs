//! FFmpeg's programs, as the video tools run them: found on `PATH` first (a clear
//! refusal when FFmpeg is not installed), run through [`process`] (timeout,
//! cancellation, capped output), reading local files only (`-protocol_whitelist file`,
//! so a playlist cannot make them fetch URLs). [`probe`] runs ffprobe and reads its
//! JSON report.

use std::path::{Path, PathBuf};

use hermes_core::{ToolContext, ToolError};
use serde::Deserialize;

use super::source::Source;
use crate::common::Shared;
use crate::common::process::{self, Finished, Program};

/// The program that describes media files.
pub(super) const FFPROBE: &str = "ffprobe";
/// The program that converts them.
pub(super) const FFMPEG: &str = "ffmpeg";
/// The most bytes of ffprobe's report read (a file with thousands of streams is cut).
const MAX_REPORT_BYTES: usize = 1024 * 1024;
/// The most bytes of a program's error output kept for a message.
const MAX_ERROR_CHARS: usize = 600;

/// `program` (a bare name), as found on `PATH`.
///
/// # Errors
///
/// A message for the model, naming `tool`, when FFmpeg is not installed.
pub(super) fn locate(program: &str, tool: &str) -> Result<PathBuf, ToolError> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .filter(|dir| dir.is_absolute())
            .map(|dir| dir.join(program))
            .find(|candidate| is_executable(candidate))
    });
    found.ok_or_else(|| {
        ToolError::failed(format!(
            "{tool} needs `{program}` from FFmpeg, which is not installed or not on PATH; ask \
             the user to install FFmpeg (e.g. `apt-get install ffmpeg`)"
        ))
    })
}

/// Whether `path` is a file this process may execute.
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|metadata| metadata.is_file() && metadata.permissions().mode() & 0o111 != 0)
}

/// The argument naming a local `path` for FFmpeg's programs: `file:` keeps a name
/// with a colon from being read as a protocol.
pub(super) fn input(path: &Path) -> String {
    format!("file:{}", path.display())
}

/// Run `program` with `args` in the workspace root, under the configured timeout.
///
/// # Errors
///
/// When it cannot be started, is cancelled or times out.
pub(super) async fn run(
    shared: &Shared,
    ctx: &ToolContext,
    program: &Path,
    args: Vec<String>,
    max_output: usize,
) -> Result<Finished, ToolError> {
    let cwd = crate::common::paths::workspace_root(shared, ctx);
    let timeout = super::command_timeout(shared);
    let finished = process::run(
        &Program::new(
            program.display().to_string(),
            args,
            cwd,
            timeout,
            max_output,
        ),
        ctx,
    )
    .await?;
    if finished.timed_out {
        let name = program.file_name().map_or_else(
            || program.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
        return Err(ToolError::failed(format!(
            "{name} ran past {} s and was stopped; the file may be very long or damaged",
            timeout.as_secs()
        )));
    }
    Ok(finished)
}

/// The error output of a failed run, with the file's absolute path shown as the model
/// knows it, bounded.
pub(super) fn complaint(finished: &Finished, source: &Source) -> String {
    let text = finished
        .stderr
        .replace(&input(&source.path), &source.shown)
        .replace(&source.path.display().to_string(), &source.shown);
    let text = without_addresses(text.trim());
    let text = match text.char_indices().nth(MAX_ERROR_CHARS) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_owned(),
    };
    if text.is_empty() {
        format!("exit code {:?}", finished.exit_code)
    } else {
        text
    }
}

/// `text` without the ` @ 0x55d...` object addresses FFmpeg puts in its messages
/// (`[mov,mp4 @ 0x55d...] moov atom not found`), which mean nothing to the model.
fn without_addresses(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" @ 0x") {
        out.push_str(&rest[..at]);
        let after = &rest[at + " @ 0x".len()..];
        let digits = after
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(after.len());
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// What ffprobe reports about a file (the parts the tools use).
#[derive(Debug, Deserialize)]
pub(super) struct Report {
    /// The container.
    #[serde(default)]
    pub(super) format: Container,
    /// Its streams.
    #[serde(default)]
    pub(super) streams: Vec<Stream>,
}

/// The container part of ffprobe's report.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Container {
    /// Short names, comma-separated (`mov,mp4,m4a,3gp,3g2,mj2`).
    #[serde(default)]
    pub(super) format_name: String,
    /// The full name.
    #[serde(default)]
    pub(super) format_long_name: String,
    /// Seconds, as text.
    pub(super) duration: Option<String>,
    /// Bits per second, as text.
    pub(super) bit_rate: Option<String>,
    /// Tags (title, encoder...).
    #[serde(default)]
    pub(super) tags: serde_json::Map<String, serde_json::Value>,
}

impl Container {
    /// The duration in seconds, when known.
    pub(super) fn seconds(&self) -> Option<f64> {
        number(self.duration.as_deref())
    }
}

/// One stream in ffprobe's report.
#[derive(Debug, Deserialize)]
pub(super) struct Stream {
    /// Its index in the file.
    #[serde(default)]
    pub(super) index: u32,
    /// `video`, `audio`, `subtitle`, `data`, `attachment`.
    #[serde(default)]
    pub(super) codec_type: String,
    /// The codec's short name.
    pub(super) codec_name: Option<String>,
    /// The codec's full name.
    pub(super) codec_long_name: Option<String>,
    /// Width in pixels (video).
    pub(super) width: Option<u32>,
    /// Height in pixels (video).
    pub(super) height: Option<u32>,
    /// The pixel format (video).
    pub(super) pix_fmt: Option<String>,
    /// The average frame rate, as a fraction (`25/1`).
    pub(super) avg_frame_rate: Option<String>,
    /// The base frame rate, as a fraction.
    pub(super) r_frame_rate: Option<String>,
    /// Frames, as text.
    pub(super) nb_frames: Option<String>,
    /// Samples per second, as text (audio).
    pub(super) sample_rate: Option<String>,
    /// Channels (audio).
    pub(super) channels: Option<u32>,
    /// The channel layout (audio).
    pub(super) channel_layout: Option<String>,
    /// Seconds, as text.
    pub(super) duration: Option<String>,
    /// Bits per second, as text.
    pub(super) bit_rate: Option<String>,
    /// Tags (language, title...).
    #[serde(default)]
    pub(super) tags: serde_json::Map<String, serde_json::Value>,
}

impl Stream {
    /// Frames per second, when the stream has a rate.
    pub(super) fn fps(&self) -> Option<f64> {
        [&self.avg_frame_rate, &self.r_frame_rate]
            .into_iter()
            .find_map(|rate| fraction(rate.as_deref()?))
    }
}

/// A decimal from ffprobe's text, when it is one.
pub(super) fn number(text: Option<&str>) -> Option<f64> {
    text?
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|value| value.is_finite())
}

/// A positive rate from a fraction such as `30000/1001`, to three decimals.
fn fraction(text: &str) -> Option<f64> {
    let (numerator, denominator) = text.split_once('/')?;
    let numerator: f64 = numerator.parse().ok()?;
    let denominator: f64 = denominator.parse().ok()?;
    if numerator <= 0.0 || denominator <= 0.0 {
        return None;
    }
    Some((numerator / denominator * 1000.0).round() / 1000.0)
}

/// Run ffprobe on `source` for `tool` and read its report.
///
/// # Errors
///
/// A message for the model when ffprobe is missing, fails on the file (not media,
/// corrupt), times out, or reports something unreadable.
pub(super) async fn probe(
    shared: &Shared,
    ctx: &ToolContext,
    source: &Source,
    tool: &str,
) -> Result<Report, ToolError> {
    let program = locate(FFPROBE, tool)?;
    let args = vec![
        "-v".to_owned(),
        "error".to_owned(),
        "-protocol_whitelist".to_owned(),
        "file".to_owned(),
        "-print_format".to_owned(),
        "json".to_owned(),
        "-show_format".to_owned(),
        "-show_streams".to_owned(),
        input(&source.path),
    ];
    let finished = run(shared, ctx, &program, args, MAX_REPORT_BYTES).await?;
    if !finished.succeeded() {
        return Err(ToolError::failed(format!(
            "ffprobe cannot read `{}` as media: {}; the file is not audio or video, or is \
             corrupt",
            source.shown,
            complaint(&finished, source)
        )));
    }
    if finished.truncated {
        return Err(ToolError::failed(format!(
            "ffprobe's report on `{}` is larger than {} KiB; the file has too many streams to \
             describe",
            source.shown,
            MAX_REPORT_BYTES / 1024
        )));
    }
    serde_json::from_str(&finished.stdout).map_err(|error| {
        ToolError::failed_with(
            format!("ffprobe's report on `{}` cannot be read", source.shown),
            error,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_numbers_are_read() {
        assert_eq!(fraction("25/1"), Some(25.0));
        assert_eq!(fraction("30000/1001"), Some(29.97));
        assert_eq!(fraction("0/0"), None);
        assert_eq!(number(Some("2.040000")), Some(2.04));
        assert_eq!(number(Some("N/A")), None);
    }

    #[test]
    fn addresses_are_dropped_from_messages() {
        assert_eq!(
            without_addresses("[mov,mp4 @ 0x55df750fb1c0] moov atom not found"),
            "[mov,mp4] moov atom not found"
        );
        assert_eq!(without_addresses("plain"), "plain");
    }

    #[test]
    fn a_missing_program_is_named() {
        let error = locate("no-such-ffmpeg-program-hermes", "video_info").unwrap_err();
        assert!(error.to_string().contains("not installed"), "{error}");
        assert!(locate("sh", "video_info").is_ok());
    }
}

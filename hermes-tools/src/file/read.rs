//! `file_read`: a text file, whole or a range of lines, within the output cap; binary
//! files described, not dumped.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{
    Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool, Violation,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fs::{Stop, blocking, failure, regular_file};
use super::text::{self, Encoding, Kind, SNIFF_BYTES};
use crate::common::Shared;
use crate::common::output::truncate_middle;
use crate::common::paths::{display, resolve};

/// The largest UTF-16 file read (it is decoded whole, not line by line).
const MAX_UTF16_BYTES: u64 = 64 * 1024 * 1024;
/// How many bytes of a binary file are shown in hex.
const HEX_PREVIEW_BYTES: usize = 32;

/// Arguments of `file_read`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The file to read: relative to the workspace root, or absolute inside it.
    path: String,
    /// The first line to return, 1-based (default 1).
    #[schemars(range(min = 1))]
    start_line: Option<u64>,
    /// The last line to return, inclusive (default: the last line, or as far as the size
    /// cap allows).
    #[schemars(range(min = 1))]
    end_line: Option<u64>,
}

/// What `file_read` returns.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Output {
    /// A text file.
    Text(TextFile),
    /// A binary file, described.
    Binary(BinaryFile),
}

/// The lines of a text file.
#[derive(Debug, Serialize)]
pub(crate) struct TextFile {
    /// The file, relative to the workspace.
    path: String,
    /// How the bytes were decoded.
    encoding: &'static str,
    /// Invalid bytes were replaced with U+FFFD.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    lossy: bool,
    /// Lines in the whole file.
    total_lines: u64,
    /// The first line returned (0 for an empty file).
    start_line: u64,
    /// The last line returned, inclusive (0 when none).
    end_line: u64,
    /// The lines returned, line ends included.
    content: String,
    /// The range was cut at the size cap.
    truncated: bool,
    /// Where to continue after a cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_start_line: Option<u64>,
    /// What to know about the result: a cut, replaced bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// A file that is not text.
#[derive(Debug, Serialize)]
pub(crate) struct BinaryFile {
    /// The file, relative to the workspace.
    path: String,
    /// Its size in bytes.
    size: u64,
    /// What its magic bytes say it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    mime: Option<&'static str>,
    /// Its first bytes, in hex.
    hex_preview: String,
    /// Why no text is shown.
    note: &'static str,
}

/// The `file_read` tool.
#[derive(Debug)]
pub(crate) struct FileRead {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl FileRead {
    /// The tool, its spec built from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let cap = shared.config.max_output_bytes();
        let description = format!(
            "Read a text file in the workspace. Returns its content (or only lines \
             start_line..end_line, 1-based and inclusive), total_lines, the range returned, and \
             `truncated` when the text was cut at the cap of {} KiB (continue from \
             next_start_line). Decodes UTF-8 (invalid bytes are replaced and `lossy` is set) and \
             UTF-16 with a byte-order mark. Binary files are not dumped: you get their size, a \
             likely MIME type and their first bytes in hex.",
            cap / 1024
        );
        let spec = ToolSpec::builder("file_read", description)
            .parameters_for::<Args>()
            .tag(super::FAMILY_TAG)
            .scope(Scope::Read)
            .permission("file:read")
            .arg_kind("path", ArgKind::Path(Access::Read))
            .timeout(Duration::from_secs(30))
            .max_result_bytes(super::result_cap(shared))
            .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl TypedTool for FileRead {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let start = args.start_line.unwrap_or(1);
        if let Some(end) = args.end_line.filter(|&end| end < start) {
            return Err(ToolError::InvalidArguments {
                violations: vec![Violation::new(
                    "/end_line",
                    "minimum",
                    format!(
                        "end_line ({end}) is before start_line ({start}); ask for end_line >= start_line"
                    ),
                )],
            });
        }
        let path = resolve(&self.shared, ctx, &args.path)?;
        let shown = display(&self.shared, ctx, &path);
        let window = Window::new(start, args.end_line, self.shared.config.max_output_bytes());
        let stop = Stop::of("file_read", ctx);
        blocking("file_read", move || read(&path, shown, window, &stop)).await
    }
}

/// Read `path` (shown as `shown`) into `window`, or describe it if it is binary.
fn read(path: &Path, shown: String, mut window: Window, stop: &Stop) -> Result<Output, ToolError> {
    let metadata = regular_file(path, &shown, "read")?;
    let mut file = File::open(path).map_err(|error| failure("read", &shown, error))?;
    let head = read_head(&mut file).map_err(|error| failure("read", &shown, error))?;
    let encoding = match text::classify(&head) {
        Kind::Binary => {
            return Ok(Output::Binary(BinaryFile {
                path: shown,
                size: metadata.len(),
                mime: text::mime_hint(&head),
                hex_preview: text::hex_preview(&head, HEX_PREVIEW_BYTES),
                note: "binary file: not shown as text",
            }));
        }
        Kind::Text(encoding) => encoding,
    };
    let lossy = if encoding.is_utf16() {
        read_utf16(head, file, metadata.len(), encoding, &mut window, stop)
    } else {
        read_utf8(head, file, encoding, &mut window, stop)
    }
    .map_err(|error| match error {
        Failure::Io(error) => failure("read", &shown, error),
        Failure::Stopped(error) => error,
    })?;
    window.finish(shown, encoding, lossy)
}

/// Why reading stopped early.
enum Failure {
    /// Reading the file failed.
    Io(io::Error),
    /// The call was stopped, or the file cannot be read as text.
    Stopped(ToolError),
}

impl From<io::Error> for Failure {
    fn from(error: io::Error) -> Self {
        Self::Io(error)
    }
}

/// The first [`SNIFF_BYTES`] of `file` (fewer if it is shorter).
fn read_head(file: &mut File) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    file.by_ref()
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)?;
    Ok(head)
}

/// Feed a UTF-8 file to `window` line by line; whether any line was decoded lossily.
fn read_utf8(
    head: Vec<u8>,
    file: File,
    encoding: Encoding,
    window: &mut Window,
    stop: &Stop,
) -> Result<bool, Failure> {
    let mut reader = BufReader::new(Cursor::new(head).chain(file));
    let mut bom = vec![0; encoding.bom_len()];
    reader.read_exact(&mut bom)?;
    let mut line = Vec::new();
    let mut lossy = false;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(lossy);
        }
        if window.wants_next() {
            let decoded = text::decode(&line, encoding);
            lossy |= decoded.lossy;
            window.push(&decoded.text);
        } else {
            window.skip();
        }
        if window.total % 4096 == 0 {
            stop.check().map_err(Failure::Stopped)?;
        }
    }
}

/// Feed a UTF-16 file to `window`, decoded whole; whether decoding was lossy.
fn read_utf16(
    mut bytes: Vec<u8>,
    mut file: File,
    size: u64,
    encoding: Encoding,
    window: &mut Window,
    stop: &Stop,
) -> Result<bool, Failure> {
    if size > MAX_UTF16_BYTES {
        return Err(Failure::Stopped(ToolError::failed(format!(
            "the file is UTF-16 and larger than {} MiB, too large to decode; convert it to UTF-8 first",
            MAX_UTF16_BYTES / (1024 * 1024)
        ))));
    }
    file.read_to_end(&mut bytes)?;
    let decoded = text::decode(&bytes, encoding);
    for line in decoded.text.split_inclusive('\n') {
        if window.wants_next() {
            window.push(line);
        } else {
            window.skip();
        }
        if window.total % 4096 == 0 {
            stop.check().map_err(Failure::Stopped)?;
        }
    }
    Ok(decoded.lossy)
}

/// The lines asked for, collected up to the byte cap while every line is counted.
#[derive(Debug)]
struct Window {
    /// The first line wanted.
    start: u64,
    /// The last line wanted, if not the last of the file.
    end: Option<u64>,
    /// The most bytes of content.
    cap: usize,
    /// Lines seen so far.
    total: u64,
    /// The lines taken so far.
    content: String,
    /// The last line put in `content`.
    last: u64,
    /// A line in the range did not fit.
    truncated: bool,
}

impl Window {
    /// Lines `start..=end` (to the end without `end`), within `cap` bytes.
    fn new(start: u64, end: Option<u64>, cap: usize) -> Self {
        Self {
            start,
            end,
            cap,
            total: 0,
            content: String::new(),
            last: 0,
            truncated: false,
        }
    }

    /// Whether the next line falls in the range and there is still room for it.
    fn wants_next(&self) -> bool {
        let next = self.total + 1;
        !self.truncated && next >= self.start && self.end.is_none_or(|end| next <= end)
    }

    /// Count a line outside the window.
    fn skip(&mut self) {
        self.total += 1;
    }

    /// Take the next line (which [`wants_next`](Self::wants_next)).
    fn push(&mut self, line: &str) {
        self.total += 1;
        if self.content.len() + line.len() <= self.cap {
            self.content.push_str(line);
            self.last = self.total;
            return;
        }
        self.truncated = true;
        if self.content.is_empty() {
            // One line longer than the cap: its head and tail.
            self.content = truncate_middle(line.to_owned(), self.cap);
            self.last = self.total;
        }
    }

    /// The result for the file at `path`, or an error for a start past its end.
    fn finish(self, path: String, encoding: Encoding, lossy: bool) -> Result<Output, ToolError> {
        if self.start > self.total.max(1) {
            return Err(ToolError::failed(format!(
                "`{path}` has {} lines; ask for a start_line from 1 to {}",
                self.total,
                self.total.max(1)
            )));
        }
        let next_start_line = (self.truncated && self.last < self.total).then_some(self.last + 1);
        let mut notes = Vec::new();
        if let Some(next) = next_start_line {
            notes.push(format!(
                "the text was cut at {} bytes; call again with start_line: {next} for more",
                self.cap
            ));
        } else if self.truncated {
            notes.push(format!(
                "line {} is longer than the cap of {} bytes: only its start and end are shown",
                self.last, self.cap
            ));
        }
        if lossy {
            notes.push(format!(
                "the file is not valid {}: invalid bytes were replaced with U+FFFD, so do not write this text back as is",
                encoding.name()
            ));
        }
        Ok(Output::Text(TextFile {
            path,
            encoding: encoding.name(),
            lossy,
            total_lines: self.total,
            start_line: if self.last == 0 { 0 } else { self.start },
            end_line: self.last,
            content: self.content,
            truncated: self.truncated,
            next_start_line,
            note: (!notes.is_empty()).then(|| notes.join("; ")),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(window: &mut Window, text: &str) {
        for line in text.split_inclusive('\n') {
            if window.wants_next() {
                window.push(line);
            } else {
                window.skip();
            }
        }
    }

    #[test]
    fn a_range_counts_every_line() {
        let mut window = Window::new(2, Some(3), 1000);
        lines(&mut window, "a\nb\nc\nd\n");
        assert_eq!(
            (window.content.as_str(), window.last, window.total),
            ("b\nc\n", 3, 4)
        );
    }

    #[test]
    fn the_cap_cuts_between_lines() {
        let mut window = Window::new(1, None, 5);
        lines(&mut window, "ab\ncd\nef\n");
        assert_eq!(window.content, "ab\n");
        assert!(window.truncated);
        assert_eq!(window.total, 3);
    }
}

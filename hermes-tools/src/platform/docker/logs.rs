//! A container's output, collected with bounds: each stream capped while reading, then
//! cut in the middle to the configured size.

use bollard::Docker;
use bollard::container::LogOutput;
use bollard::query_parameters::LogsOptions;
use futures_util::StreamExt as _;
use serde::Serialize;

use crate::common::output::truncate_middle;

/// The most bytes of one stream kept while reading, before the final cut.
const READ_CAP: usize = 1024 * 1024;

/// What a container wrote.
#[derive(Debug, Default, Serialize)]
pub(crate) struct Output {
    /// Its standard output (a TTY's output too).
    pub(crate) stdout: String,
    /// Its standard error.
    pub(crate) stderr: String,
    /// Whether either stream was cut.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) truncated: bool,
}

/// The last `tail` lines (all when `None`) of container `id`'s output, each stream cut
/// to `max_bytes`.
///
/// # Errors
///
/// The engine's error.
pub(crate) async fn read(
    docker: &Docker,
    id: &str,
    tail: Option<u32>,
    max_bytes: usize,
) -> Result<Output, bollard::errors::Error> {
    let options = LogsOptions {
        stdout: true,
        stderr: true,
        tail: tail.map_or_else(|| "all".to_owned(), |lines| lines.to_string()),
        ..LogsOptions::default()
    };
    let mut stream = docker.logs(id, Some(options));
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let mut truncated = false;
    while let Some(chunk) = stream.next().await {
        let (sink, message) = match chunk? {
            LogOutput::StdErr { message } => (&mut stderr, message),
            LogOutput::StdOut { message } | LogOutput::Console { message } => {
                (&mut stdout, message)
            }
            LogOutput::StdIn { .. } => continue,
        };
        let room = READ_CAP.saturating_sub(sink.len());
        if message.len() > room {
            truncated = true;
        }
        sink.extend_from_slice(&message[..message.len().min(room)]);
    }
    let cut = |bytes: Vec<u8>, truncated: &mut bool| {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        if text.len() > max_bytes {
            *truncated = true;
        }
        truncate_middle(text, max_bytes)
    };
    let stdout = cut(stdout, &mut truncated);
    let stderr = cut(stderr, &mut truncated);
    Ok(Output {
        stdout,
        stderr,
        truncated,
    })
}

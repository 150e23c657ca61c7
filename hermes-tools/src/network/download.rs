//! `download_file`: a URL saved to a file in the workspace, streamed to a temporary file
//! beside it and renamed into place, within a size limit, with its SHA-256.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hermes_core::{Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use super::web::{Web, status_advice};
use crate::common::http;
use crate::common::paths::{display, resolve};

/// How long the whole download may take.
const TIMEOUT: Duration = Duration::from_secs(600);
/// Bytes between two progress reports.
const PROGRESS_STEP: u64 = 256 * 1024;

/// Arguments of `download_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The absolute http:// or https:// URL to download.
    #[schemars(url)]
    url: String,
    /// Where to save it: relative to the workspace root, or absolute inside it. Missing
    /// parent directories are created.
    path: String,
    /// Refuse (and delete) the download past this many bytes; the operator's ceiling
    /// applies anyway.
    #[schemars(range(min = 1))]
    max_bytes: Option<u64>,
    /// Replace an existing file.
    #[serde(default)]
    overwrite: bool,
}

/// What `download_file` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The file written, relative to the workspace.
    path: String,
    /// The URL downloaded, after redirects.
    url: String,
    /// Bytes written.
    bytes: u64,
    /// The SHA-256 of the content, in hex.
    sha256: String,
    /// The `Content-Type` it was served with.
    #[serde(skip_serializing_if = "Option::is_none")]
    content_type: Option<String>,
    /// An existing file was replaced.
    replaced: bool,
}

/// The `download_file` tool.
#[derive(Debug)]
pub(crate) struct DownloadFile {
    /// The family's shared state.
    web: Arc<Web>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl DownloadFile {
    /// The tool, its spec built from the settings.
    pub(crate) fn new(web: &Arc<Web>) -> Result<Self, Error> {
        let description = format!(
            "Download a URL to a file in the workspace, streamed, with progress reported. Returns \
             the path, bytes written and the SHA-256 of the content. Refuses an existing file \
             unless overwrite is true, and stops (keeping nothing) past max_bytes or the \
             ceiling of {} MiB.",
            web.config().max_download_bytes / (1024 * 1024)
        );
        let spec = ToolSpec::builder("download_file", description)
            .parameters_for::<Args>()
            .tag(super::FAMILY_TAG)
            .scope(Scope::Write)
            .permissions(["network:fetch", "file:write"])
            .arg_kind("url", ArgKind::Url)
            .arg_kind("path", ArgKind::Path(Access::Write))
            .timeout(TIMEOUT + Duration::from_secs(10))
            .max_result_bytes(4096)
            .build()?;
        Ok(Self {
            web: Arc::clone(web),
            spec,
        })
    }
}

impl TypedTool for DownloadFile {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let path = resolve(&self.web.shared, ctx, &args.path)?;
        let shown = display(&self.web.shared, ctx, &path);
        let replaced = check_destination(&path, &shown, args.overwrite).await?;
        let limit = args
            .max_bytes
            .unwrap_or(u64::MAX)
            .min(self.web.config().max_download_bytes);
        let url = self.web.http_url(&args.url)?;
        let response = self
            .web
            .client(true)?
            .get(url)
            .timeout(TIMEOUT)
            .send()
            .await
            .map_err(|error| http::request_failed(error, &args.url, TIMEOUT))?;
        let status = response.status();
        if !status.is_success() {
            return Err(ToolError::failed(format!(
                "`{}` answered HTTP {status}; nothing was saved; {}",
                args.url,
                status_advice(status.as_u16())
            )));
        }
        let total = response.content_length();
        if let Some(length) = total.filter(|&length| length > limit) {
            return Err(too_large(&args.url, limit, Some(length)));
        }
        let final_url = response.url().to_string();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        if let Some(parent) = path.parent() {
            tokio::fs::create_dir_all(parent)
                .await
                .map_err(|error| io_failed("create the directory for", &shown, error))?;
        }
        let mut part = PartFile::create(&path)
            .await
            .map_err(|error| io_failed("write", &shown, error))?;
        let (bytes, sha256) = stream(response, &mut part, limit, ctx, total, &args.url).await?;
        if !args.overwrite && tokio::fs::try_exists(&path).await.unwrap_or(false) {
            return Err(exists(&shown));
        }
        part.persist(&path)
            .await
            .map_err(|error| io_failed("write", &shown, error))?;
        Ok(Output {
            path: shown,
            url: final_url,
            bytes,
            sha256,
            content_type,
            replaced,
        })
    }
}

/// Whether `path` already exists (and may be replaced); an error if it may not.
async fn check_destination(path: &Path, shown: &str, overwrite: bool) -> Result<bool, ToolError> {
    match tokio::fs::metadata(path).await {
        Ok(metadata) if metadata.is_dir() => Err(ToolError::failed(format!(
            "`{shown}` is a directory; give a file path"
        ))),
        Ok(_) if !overwrite => Err(exists(shown)),
        Ok(_) => Ok(true),
        Err(_) => Ok(false),
    }
}

/// Write `response`'s body to `part` within `limit`: its size and SHA-256.
async fn stream(
    mut response: reqwest::Response,
    part: &mut PartFile,
    limit: u64,
    ctx: &ToolContext,
    total: Option<u64>,
    url: &str,
) -> Result<(u64, String), ToolError> {
    let mut hasher = Sha256::new();
    let mut done: u64 = 0;
    let mut reported: u64 = 0;
    ctx.progress(format!("downloading {url}"), Some(0), total);
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| http::request_failed(error, url, TIMEOUT))?
    {
        done = done.saturating_add(chunk.len() as u64);
        if done > limit {
            return Err(too_large(url, limit, None));
        }
        hasher.update(&chunk);
        part.file
            .write_all(&chunk)
            .await
            .map_err(|error| io_failed("write", &part.path.display().to_string(), error))?;
        if done - reported >= PROGRESS_STEP {
            ctx.progress(format!("downloading {url}"), Some(done), total);
            reported = done;
        }
    }
    if reported != done {
        ctx.progress(format!("downloading {url}"), Some(done), total);
    }
    let digest = hasher.finalize();
    let hex = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    Ok((done, hex))
}

/// The error for a download past its limit.
fn too_large(url: &str, limit: u64, announced: Option<u64>) -> ToolError {
    let size = announced.map_or_else(String::new, |size| format!(" ({size} bytes)"));
    ToolError::failed(format!(
        "`{url}` is larger than the limit of {limit} bytes{size}; nothing was saved. Raise \
         max_bytes if the operator's ceiling allows it"
    ))
}

/// The error for an existing destination.
fn exists(shown: &str) -> ToolError {
    ToolError::failed(format!(
        "`{shown}` already exists; pass overwrite: true to replace it, or choose another path"
    ))
}

/// The error for a failed file operation.
fn io_failed(action: &str, shown: &str, error: std::io::Error) -> ToolError {
    ToolError::failed_with(format!("could not {action} `{shown}`"), error)
}

/// A temporary file beside the destination, removed unless persisted (also when the
/// call is cancelled mid-download).
#[derive(Debug)]
struct PartFile {
    /// The open file.
    file: tokio::fs::File,
    /// Its path.
    path: PathBuf,
    /// Renamed into place: nothing to remove.
    persisted: bool,
}

impl PartFile {
    /// A new, empty temporary file for `destination`.
    async fn create(destination: &Path) -> std::io::Result<Self> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let name = destination
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let path = destination.with_file_name(format!(
            ".{name}.{}-{}.part",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let file = tokio::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .await?;
        Ok(Self {
            file,
            path,
            persisted: false,
        })
    }

    /// Flush and move into place at `destination`.
    async fn persist(&mut self, destination: &Path) -> std::io::Result<()> {
        self.file.flush().await?;
        self.file.sync_all().await?;
        tokio::fs::rename(&self.path, destination).await?;
        self.persisted = true;
        Ok(())
    }
}

impl Drop for PartFile {
    fn drop(&mut self) {
        if !self.persisted {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

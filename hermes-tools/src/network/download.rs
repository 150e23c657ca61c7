//! `download_file`: a URL saved to a file in the workspace, streamed to a temporary file
//! beside it and renamed into place, within a size limit, with its SHA-256.
//!
//! The file's directory is opened once as a [`Directory`], and the temporary file, the
//! rename and the clean-up all name entries relative to it: a directory swapped for a
//! symbolic link after the path was checked cannot redirect the download (see
//! [`crate::common::directory`]). Without `overwrite`, the rename itself refuses a file
//! that appeared during the download.

use std::ffi::{OsStr, OsString};
use std::io;
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
use crate::common::directory::{Directory, Existing, Parents, is_link_found, link_race};
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
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(ToolError::failed(format!(
                "`{shown}` is the filesystem root, not a file; give a file path"
            )));
        };
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
        let directory = open_directory(parent.to_path_buf())
            .await
            .map_err(|error| directory_failed(&error, &shown))?;
        let mut part = PartFile::create(directory, name)
            .await
            .map_err(|error| io_failed("write", &shown, error))?;
        let (bytes, sha256) =
            stream(response, &mut part, limit, ctx, total, &args.url, &shown).await?;
        let existing = if args.overwrite {
            Existing::Replace
        } else {
            Existing::Keep
        };
        part.persist(name, existing)
            .await
            .map_err(|error| match error.kind() {
                io::ErrorKind::AlreadyExists => exists(&shown),
                _ => io_failed("write", &shown, error),
            })?;
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

/// Write `response`'s body to `part` (for the file shown as `shown`) within `limit`: its
/// size and SHA-256.
async fn stream(
    mut response: reqwest::Response,
    part: &mut PartFile,
    limit: u64,
    ctx: &ToolContext,
    total: Option<u64>,
    url: &str,
    shown: &str,
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
            .map_err(|error| io_failed("write", shown, error))?;
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
fn io_failed(action: &str, shown: &str, error: io::Error) -> ToolError {
    ToolError::failed_with(format!("could not {action} `{shown}`"), error)
}

/// The error for a directory that could not be opened (or made) for `shown`.
fn directory_failed(error: &io::Error, shown: &str) -> ToolError {
    if is_link_found(error) {
        return link_race(shown);
    }
    if error.kind() == io::ErrorKind::NotADirectory {
        return ToolError::failed(format!(
            "a part of the path `{shown}` is a file, not a directory; choose another path"
        ));
    }
    ToolError::failed(format!(
        "could not create the directory for `{shown}`: {error}"
    ))
}

/// Open (creating it and its parents if need be) the checked directory `path`.
async fn open_directory(path: PathBuf) -> io::Result<Arc<Directory>> {
    tokio::task::spawn_blocking(move || Directory::open(&path, Parents::Create).map(Arc::new))
        .await
        .map_err(io::Error::other)?
}

/// A temporary file beside the destination, in its checked directory; removed unless
/// persisted (also when the call is cancelled mid-download).
#[derive(Debug)]
struct PartFile {
    /// The open file.
    file: tokio::fs::File,
    /// The directory it is in.
    directory: Arc<Directory>,
    /// Its name there.
    name: OsString,
    /// Renamed into place: nothing to remove.
    persisted: bool,
}

impl PartFile {
    /// A new, empty temporary file in `directory` for the file `destination`.
    async fn create(directory: Arc<Directory>, destination: &OsStr) -> io::Result<Self> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let mut name = OsString::from(".");
        name.push(destination);
        name.push(format!(
            ".{}-{}.part",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let (directory, name, file) = tokio::task::spawn_blocking(move || {
            let file = directory.create_new(&name)?;
            Ok::<_, io::Error>((directory, name, file))
        })
        .await
        .map_err(io::Error::other)??;
        Ok(Self {
            file: tokio::fs::File::from_std(file),
            directory,
            name,
            persisted: false,
        })
    }

    /// Flush and move into place as `destination`, beside it; `existing` says whether a
    /// file there is replaced.
    async fn persist(&mut self, destination: &OsStr, existing: Existing) -> io::Result<()> {
        self.file.flush().await?;
        self.file.sync_all().await?;
        let directory = Arc::clone(&self.directory);
        let (from, to) = (self.name.clone(), destination.to_os_string());
        tokio::task::spawn_blocking(move || {
            directory.move_to(&from, &directory, &to, existing)?;
            // Makes the new name durable; a failure here loses nothing written.
            let _ = directory.sync();
            Ok::<_, io::Error>(())
        })
        .await
        .map_err(io::Error::other)??;
        self.persisted = true;
        Ok(())
    }
}

impl Drop for PartFile {
    fn drop(&mut self) {
        if !self.persisted {
            let _ = self.directory.remove_entry(&self.name);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    /// Open `ws/sub`, then swap it for a link to `outside`.
    #[cfg(target_os = "linux")]
    async fn swap_for_link(ws: &Path, outside: &Path) -> Arc<Directory> {
        let directory = open_directory(ws.join("sub")).await.unwrap();
        fs::rename(ws.join("sub"), ws.join("moved")).unwrap();
        std::os::unix::fs::symlink(outside, ws.join("sub")).unwrap();
        directory
    }

    /// Linux: the part file and the rename go to the directory that was opened (now
    /// `moved`); nothing reaches `outside`. By path, both would go through the link.
    #[tokio::test]
    #[cfg(target_os = "linux")]
    async fn a_directory_swapped_for_a_link_after_the_check_gets_no_write_outside() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir(ws.path().join("sub")).unwrap();
        let directory = swap_for_link(ws.path(), outside.path()).await;
        let mut part = PartFile::create(directory, OsStr::new("a.bin"))
            .await
            .unwrap();
        part.file.write_all(b"payload").await.unwrap();
        part.persist(OsStr::new("a.bin"), Existing::Keep)
            .await
            .unwrap();
        drop(part);
        let written: Vec<_> = fs::read_dir(outside.path()).unwrap().collect();
        assert!(written.is_empty(), "written outside: {written:?}");
        assert_eq!(fs::read(ws.path().join("moved/a.bin")).unwrap(), b"payload");
        assert_eq!(fs::read_dir(ws.path().join("moved")).unwrap().count(), 1);
    }

    /// Without overwrite, a file that appeared during the download is kept, and the part
    /// file goes; with it, the file is replaced.
    #[tokio::test]
    async fn a_file_that_appeared_is_kept_unless_overwrite() {
        let ws = tempfile::tempdir().unwrap();
        let directory = open_directory(ws.path().to_path_buf()).await.unwrap();
        let mut part = PartFile::create(Arc::clone(&directory), OsStr::new("a.bin"))
            .await
            .unwrap();
        part.file.write_all(b"new").await.unwrap();
        fs::write(ws.path().join("a.bin"), "theirs").unwrap();
        let error = part
            .persist(OsStr::new("a.bin"), Existing::Keep)
            .await
            .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists, "{error}");
        drop(part);
        assert_eq!(
            fs::read_to_string(ws.path().join("a.bin")).unwrap(),
            "theirs"
        );
        assert_eq!(fs::read_dir(ws.path()).unwrap().count(), 1);

        let mut part = PartFile::create(directory, OsStr::new("a.bin"))
            .await
            .unwrap();
        part.file.write_all(b"new").await.unwrap();
        part.persist(OsStr::new("a.bin"), Existing::Replace)
            .await
            .unwrap();
        drop(part);
        assert_eq!(fs::read_to_string(ws.path().join("a.bin")).unwrap(), "new");
        assert_eq!(fs::read_dir(ws.path()).unwrap().count(), 1);
    }
}

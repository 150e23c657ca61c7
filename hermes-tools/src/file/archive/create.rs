//! Making an archive: walk the sources (links not followed, not archived), then write
//! zip or tar.gz through the atomic writer.

use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::write::GzEncoder;
use hermes_core::ToolError;
use serde::Serialize;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use super::Format;
use super::limits::Budget;
use crate::common::directory::Parents;
use crate::common::time::Civil;
use crate::file::atomic;
use crate::file::fs::{Stop, failure};
use crate::file::walk::{Gitignore, Hidden, walk};

/// Entries listed as skipped, at most.
const MAX_LISTED_SKIPS: usize = 50;

/// A path to archive, and the name its entries start with.
#[derive(Debug)]
pub(super) struct Source {
    /// Resolved.
    pub(super) path: PathBuf,
    /// Relative to the workspace root (`.` for the root itself).
    pub(super) name: String,
}

/// What to create.
#[derive(Debug)]
pub(super) struct Request {
    /// The archive to write, resolved.
    pub(super) archive: PathBuf,
    /// The archive as the model sees it.
    pub(super) shown: String,
    /// Its format.
    pub(super) format: Format,
    /// Replace an existing archive.
    pub(super) overwrite: bool,
    /// The workspace root entries are named from.
    pub(super) root: PathBuf,
}

/// A path left out of the archive, and why.
#[derive(Debug, Serialize)]
pub(crate) struct Skipped {
    /// The entry name it would have had.
    entry: String,
    /// Why it was left out.
    reason: &'static str,
}

/// What creating an archive did.
#[derive(Debug, Serialize)]
pub(crate) struct Created {
    /// The archive, relative to the workspace.
    archive: String,
    /// `zip` or `tar.gz`.
    format: &'static str,
    /// Files archived.
    files: u64,
    /// Directories archived.
    directories: u64,
    /// The files' bytes, uncompressed.
    bytes: u64,
    /// The archive's own size.
    archive_bytes: u64,
    /// What was left out (at most 50 listed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<Skipped>,
}

/// One entry to write.
#[derive(Debug)]
struct Item {
    /// Where it is on disk.
    path: PathBuf,
    /// `/`-separated, relative.
    name: String,
    /// What it is.
    kind: ItemKind,
}

/// What an entry to write is.
#[derive(Debug, Clone, Copy)]
enum ItemKind {
    /// A directory.
    Directory,
    /// A regular file, with its permission bits.
    File {
        /// The Unix permission bits.
        mode: u32,
    },
}

/// Create the archive `request` names from `sources`.
///
/// # Errors
///
/// When the archive exists (without `overwrite`), a source is missing, the sources are
/// over the limits, or writing fails (the old archive, if any, is then untouched).
pub(super) fn create(
    request: &Request,
    sources: &[Source],
    stop: &Stop,
) -> Result<Created, ToolError> {
    if !request.overwrite && request.archive.symlink_metadata().is_ok() {
        return Err(ToolError::failed(format!(
            "`{}` already exists; pass overwrite: true to replace it, or choose another name",
            request.shown
        )));
    }
    let mut budget = Budget::creation();
    let mut skipped = Vec::new();
    let items = collect(request, sources, &mut budget, &mut skipped, stop)?;
    atomic::replace(
        &request.archive,
        &request.shown,
        Parents::Create,
        |file| match request.format {
            Format::Zip => write_zip(file, &items, stop),
            Format::TarGz => write_tar_gz(file, &items, stop),
        },
    )?;
    let archive_bytes = std::fs::metadata(&request.archive).map_or(0, |metadata| metadata.len());
    let files = items
        .iter()
        .filter(|item| matches!(item.kind, ItemKind::File { .. }))
        .count() as u64;
    Ok(Created {
        archive: request.shown.clone(),
        format: request.format.name(),
        files,
        directories: items.len() as u64 - files,
        bytes: budget.total(),
        archive_bytes,
        skipped,
    })
}

/// Every entry under the sources, named relative to the workspace root, counted against
/// the limits.
fn collect(
    request: &Request,
    sources: &[Source],
    budget: &mut Budget,
    skipped: &mut Vec<Skipped>,
    stop: &Stop,
) -> Result<Vec<Item>, ToolError> {
    let mut items = Vec::new();
    let mut seen = HashSet::new();
    for source in sources {
        source
            .path
            .symlink_metadata()
            .map_err(|error| failure("archive", &source.name, error))?;
        if request.root.starts_with(&source.path) && source.path != request.root {
            return Err(ToolError::failed(format!(
                "`{}` contains the workspace; archive paths inside the workspace",
                source.name
            )));
        }
        for entry in walk(&source.path, Hidden::Include, Gitignore::Disregard, None) {
            stop.check()?;
            let entry = entry.map_err(|error| {
                ToolError::failed(format!(
                    "cannot read `{}` to archive it: {error}",
                    source.name
                ))
            })?;
            let path = entry.path();
            if path == request.archive {
                continue;
            }
            let name = entry_name(&request.root, &source.path, &source.name, path);
            if name.is_empty() || !seen.insert(name.clone()) {
                continue;
            }
            let metadata = path
                .symlink_metadata()
                .map_err(|error| failure("archive", &name, error))?;
            let kind = if metadata.is_dir() {
                ItemKind::Directory
            } else if metadata.is_file() {
                ItemKind::File {
                    mode: mode_of(&metadata),
                }
            } else {
                let reason = if metadata.file_type().is_symlink() {
                    "symbolic links are not archived"
                } else {
                    "not a regular file or directory"
                };
                if skipped.len() < MAX_LISTED_SKIPS {
                    skipped.push(Skipped {
                        entry: name,
                        reason,
                    });
                }
                continue;
            };
            budget.entry()?;
            if let ItemKind::File { .. } = kind {
                budget.grow(&name, metadata.len(), metadata.len(), None)?;
            }
            items.push(Item {
                path: path.to_path_buf(),
                name,
                kind,
            });
        }
    }
    Ok(items)
}

/// The entry name of `path`: its path relative to the workspace root, or, for a source
/// outside the workspace, relative to the source's parent.
fn entry_name(root: &Path, source: &Path, source_name: &str, path: &Path) -> String {
    let relative = match path.strip_prefix(root) {
        Ok(relative) => relative.to_path_buf(),
        Err(_) => {
            let base = Path::new(source_name)
                .file_name()
                .map_or_else(PathBuf::new, PathBuf::from);
            base.join(path.strip_prefix(source).unwrap_or(Path::new("")))
        }
    };
    let parts: Vec<String> = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// A file's permission bits.
#[cfg(unix)]
fn mode_of(metadata: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o777
}

/// A file's permission bits, as near as the platform says.
#[cfg(not(unix))]
fn mode_of(metadata: &std::fs::Metadata) -> u32 {
    if metadata.permissions().readonly() {
        0o444
    } else {
        0o644
    }
}

/// Write `items` as a zip archive into `file`.
fn write_zip(file: &mut File, items: &[Item], stop: &Stop) -> io::Result<()> {
    let mut zip = ZipWriter::new(file);
    for item in items {
        stop.check().map_err(io::Error::other)?;
        let modified = item
            .path
            .symlink_metadata()
            .and_then(|metadata| metadata.modified())
            .ok()
            .and_then(|time| zip_time(Civil::of(time)));
        let mut options =
            SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
        if let Some(modified) = modified {
            options = options.last_modified_time(modified);
        }
        match item.kind {
            ItemKind::Directory => {
                zip.add_directory(format!("{}/", item.name), options.unix_permissions(0o755))?
            }
            ItemKind::File { mode } => {
                zip.start_file(item.name.as_str(), options.unix_permissions(mode))?;
                io::copy(&mut File::open(&item.path)?, &mut zip)?;
            }
        }
    }
    zip.finish()?;
    Ok(())
}

/// Write `items` as a gzip-compressed tar archive into `file`.
fn write_tar_gz(file: &mut File, items: &[Item], stop: &Stop) -> io::Result<()> {
    let mut tar = tar::Builder::new(GzEncoder::new(file, Compression::default()));
    tar.follow_symlinks(false);
    for item in items {
        stop.check().map_err(io::Error::other)?;
        match item.kind {
            ItemKind::Directory => tar.append_dir(&item.name, &item.path)?,
            ItemKind::File { .. } => tar.append_path_with_name(&item.path, &item.name)?,
        }
    }
    tar.into_inner()?.finish()?;
    Ok(())
}

/// A zip timestamp (1980 to 2107, even seconds).
fn zip_time(civil: Civil) -> Option<DateTime> {
    let year = u16::try_from(civil.year).ok()?;
    DateTime::from_date_and_time(
        year,
        civil.month,
        civil.day,
        civil.hour,
        civil.minute,
        civil.second & !1,
    )
    .ok()
}

//! Extracting an archive: every entry goes through a [`Stage`] (names, links and limits
//! checked) into a staging directory inside the destination; only when the whole
//! archive passed are the entries moved into place ([`merge`]). Anything refused leaves
//! the destination as it was.

mod merge;
mod stage;
mod untar;
mod unzip;

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use hermes_core::ToolError;
use serde::Serialize;

use super::{Format, invalid};
use crate::file::fs::{Stop, failure, regular_file};
use stage::Stage;

pub(crate) use stage::Skipped;

/// What to extract, and where.
#[derive(Debug)]
pub(super) struct Request {
    /// The archive, resolved.
    pub(super) archive: PathBuf,
    /// The archive as the model sees it.
    pub(super) shown: String,
    /// As given; `None`: from the name, else the content.
    pub(super) format: Option<Format>,
    /// The directory to extract into, resolved.
    pub(super) destination: PathBuf,
    /// The destination as the model sees it.
    pub(super) shown_destination: String,
    /// Replace existing files.
    pub(super) overwrite: bool,
}

/// What extracting an archive did.
#[derive(Debug, Serialize)]
pub(crate) struct Extracted {
    /// The archive, relative to the workspace.
    archive: String,
    /// Where it was extracted, relative to the workspace.
    destination: String,
    /// `zip` or `tar.gz`.
    format: &'static str,
    /// Files extracted.
    files: u64,
    /// Directory entries extracted.
    directories: u64,
    /// The files' bytes.
    bytes: u64,
    /// Files that replaced existing ones (with overwrite).
    #[serde(skip_serializing_if = "is_zero")]
    replaced: u64,
    /// Entries not extracted (symbolic links, devices), at most 50 listed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<Skipped>,
}

/// Leave zero counts out of the output.
fn is_zero(count: &u64) -> bool {
    *count == 0
}

/// Extract the archive `request` names.
///
/// # Errors
///
/// When the archive is missing, damaged, hostile or over the limits, or an entry would
/// replace an existing file without `overwrite`; nothing is left behind then.
pub(super) fn extract(request: &Request, stop: &Stop) -> Result<Extracted, ToolError> {
    let archive_bytes = regular_file(&request.archive, &request.shown, "open")?.len();
    let file =
        File::open(&request.archive).map_err(|error| failure("open", &request.shown, error))?;
    let format = match request.format {
        Some(format) => format,
        None => Format::from_extension(&request.archive)
            .or_else(|| Format::from_magic(&request.archive))
            .ok_or_else(|| {
                invalid(
                    "/format",
                    format!(
                        "cannot tell the format of `{}` from its name or content; pass format",
                        request.shown
                    ),
                )
            })?,
    };
    let made = prepare_destination(&request.destination, &request.shown_destination)?;
    let extracted = stage_and_merge(request, file, format, archive_bytes, stop);
    if extracted.is_err() {
        undo(made.as_deref(), &request.destination);
    }
    extracted
}

/// Stage every entry of `file`, then move them into the destination. The staging
/// directory is gone when this returns, whatever happened.
fn stage_and_merge(
    request: &Request,
    file: File,
    format: Format,
    archive_bytes: u64,
    stop: &Stop,
) -> Result<Extracted, ToolError> {
    let mut stage = Stage::new(
        &request.destination,
        &request.shown_destination,
        &request.shown,
        archive_bytes,
        stop,
    )?;
    match format {
        Format::Zip => unzip::read(file, &mut stage)?,
        Format::TarGz => untar::read(file, &mut stage)?,
    }
    let replaced = merge::merge(
        stage.dir(),
        &request.destination,
        &request.shown_destination,
        request.overwrite,
    )?;
    let report = stage.finish();
    Ok(Extracted {
        archive: request.shown.clone(),
        destination: request.shown_destination.clone(),
        format: format.name(),
        files: report.files,
        directories: report.directories,
        bytes: report.bytes,
        replaced,
        skipped: report.skipped,
    })
}

/// Make sure `destination` is a directory, creating it (and missing parents) if need
/// be; the topmost directory created, for [`undo`].
fn prepare_destination(destination: &Path, shown: &str) -> Result<Option<PathBuf>, ToolError> {
    match fs::symlink_metadata(destination) {
        Ok(metadata) if metadata.is_dir() => return Ok(None),
        Ok(_) => {
            return Err(ToolError::failed(format!(
                "the destination `{shown}` exists and is not a directory; choose a directory"
            )));
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(failure("open", shown, error)),
    }
    let mut topmost = destination.to_path_buf();
    while let Some(parent) = topmost.parent() {
        if parent.exists() {
            break;
        }
        topmost = parent.to_path_buf();
    }
    fs::create_dir_all(destination).map_err(|error| failure("create", shown, error))?;
    Ok(Some(topmost))
}

/// Remove the directories [`prepare_destination`] made (they hold nothing else: the
/// staging directory is gone by then), innermost first.
fn undo(topmost: Option<&Path>, destination: &Path) {
    let Some(topmost) = topmost else {
        return;
    };
    let mut current = Some(destination);
    while let Some(dir) = current {
        if fs::remove_dir(dir).is_err() || dir == topmost {
            break;
        }
        current = dir.parent();
    }
}

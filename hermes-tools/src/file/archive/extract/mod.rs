//! Extracting an archive: every entry goes through a [`Stage`] (names, links and limits
//! checked) into a staging directory inside the destination; only when the whole
//! archive passed are the entries moved into place ([`merge`]). Anything refused leaves
//! the destination as it was.
//!
//! The destination is opened once as a [`Directory`] and everything after, staging
//! included, names entries relative to it: a directory swapped for a symbolic link
//! after the check cannot redirect the extraction (see [`crate::common::directory`]).

mod merge;
mod stage;
mod untar;
mod unzip;

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use hermes_core::ToolError;
use serde::Serialize;

use super::{Format, invalid};
use crate::common::directory::{Directory, Parents, is_link_found, link_race};
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
    let (destination, made) =
        prepare_destination(&request.destination, &request.shown_destination)?;
    let extracted = stage_and_merge(request, &destination, file, format, archive_bytes, stop);
    if extracted.is_err() {
        undo(made.as_deref(), &request.destination);
    }
    extracted
}

/// Stage every entry of `file`, then move them into the destination. The staging
/// directory is gone when this returns, whatever happened.
fn stage_and_merge(
    request: &Request,
    destination: &Directory,
    file: File,
    format: Format,
    archive_bytes: u64,
    stop: &Stop,
) -> Result<Extracted, ToolError> {
    let mut stage = Stage::new(
        destination,
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
        destination,
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

/// Open `destination` as a checked directory, creating it (and missing parents) if need
/// be; also the topmost directory created, for [`undo`].
fn prepare_destination(
    destination: &Path,
    shown: &str,
) -> Result<(Directory, Option<PathBuf>), ToolError> {
    let topmost = match fs::symlink_metadata(destination) {
        Ok(metadata) if metadata.is_dir() => None,
        Ok(_) => {
            return Err(ToolError::failed(format!(
                "the destination `{shown}` exists and is not a directory; choose a directory"
            )));
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            let mut topmost = destination.to_path_buf();
            while let Some(parent) = topmost.parent() {
                if parent.exists() {
                    break;
                }
                topmost = parent.to_path_buf();
            }
            Some(topmost)
        }
        Err(error) => return Err(failure("open", shown, error)),
    };
    let directory = Directory::open(destination, Parents::Create).map_err(|error| {
        if is_link_found(&error) {
            link_race(shown)
        } else {
            failure("create", shown, error)
        }
    })?;
    Ok((directory, topmost))
}

/// Remove the directories [`prepare_destination`] made (they hold nothing else: the
/// staging directory is gone by then), innermost first, each only while empty and
/// relative to its parent opened refusing links.
fn undo(topmost: Option<&Path>, destination: &Path) {
    let Some(topmost) = topmost else {
        return;
    };
    let mut current = Some(destination);
    while let Some(dir) = current {
        let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
            break;
        };
        let removed = Directory::open(parent, Parents::MustExist)
            .and_then(|parent| parent.remove_empty(name));
        if removed.is_err() || dir == topmost {
            break;
        }
        current = Some(parent);
    }
}

/// The directory part and the last name of an entry's relative path.
///
/// # Errors
///
/// For an empty path (no entry names one: see
/// [`entry_path`](super::names::entry_path)).
fn split(relative: &Path) -> io::Result<(&Path, &OsStr)> {
    let name = relative
        .file_name()
        .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
    Ok((relative.parent().unwrap_or(Path::new("")), name))
}

#[cfg(test)]
mod tests {
    use hermes_core::ToolContext;

    use super::*;

    /// Linux: the destination is opened once, so when it is swapped for a link to
    /// `outside` after that, staging and moving into place still happen in the directory
    /// that was opened (now `moved`). Were entries named by path, the staging directory
    /// would be made under `outside` and the files moved there.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_destination_swapped_for_a_link_after_the_check_gets_no_write_outside() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir_all(ws.path().join("dest/sub")).unwrap();
        let (destination, made) = prepare_destination(&ws.path().join("dest"), "dest").unwrap();
        assert_eq!(made, None);
        let stop = Stop::of("archive", &ToolContext::new("call"));
        let mut stage = Stage::new(&destination, "dest", "a.zip", 1 << 20, &stop).unwrap();
        fs::rename(ws.path().join("dest"), ws.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join("dest")).unwrap();

        stage
            .file("sub/a.txt", &mut &b"one"[..], None, None)
            .unwrap();
        stage
            .file("new/b.txt", &mut &b"two"[..], None, None)
            .unwrap();
        stage.hardlink("c.txt", "sub/a.txt").unwrap();
        let replaced = merge::merge(stage.dir(), &destination, "dest", false).unwrap();
        assert_eq!(replaced, 0);
        drop(stage);

        let written: Vec<_> = fs::read_dir(outside.path()).unwrap().collect();
        assert!(written.is_empty(), "written outside: {written:?}");
        let moved = ws.path().join("moved");
        assert_eq!(fs::read_to_string(moved.join("sub/a.txt")).unwrap(), "one");
        assert_eq!(fs::read_to_string(moved.join("new/b.txt")).unwrap(), "two");
        assert_eq!(fs::read_to_string(moved.join("c.txt")).unwrap(), "one");
        assert_eq!(fs::read_dir(&moved).unwrap().count(), 3, "no staging left");
    }

    /// A destination created for the call is removed again, innermost first, when the
    /// extraction fails; directories that held something before stay.
    #[test]
    fn undo_removes_only_the_directories_made() {
        let ws = tempfile::tempdir().unwrap();
        let target = ws.path().join("a/b/c");
        let (_, made) = prepare_destination(&target, "a/b/c").unwrap();
        assert_eq!(made.as_deref(), Some(ws.path().join("a").as_path()));
        assert!(target.is_dir());
        undo(made.as_deref(), &target);
        assert!(!ws.path().join("a").exists());
        assert!(ws.path().is_dir());
    }
}

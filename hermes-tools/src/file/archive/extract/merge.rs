//! Moving a fully staged archive into its destination: first every entry is checked
//! against what the destination already holds (nothing moves if one conflicts), then
//! directories new to the destination move whole and files one by one.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use hermes_core::ToolError;

use crate::file::fs::failure;

/// Conflicting entries named in the error, at most.
const MAX_LISTED_CONFLICTS: usize = 10;

/// A staged entry: its path relative to the staging directory, and whether it is a
/// directory.
type Entry = (PathBuf, bool);

/// Move what `staging` holds into `destination` (shown as `shown`); existing files are
/// replaced only with `overwrite`. Returns how many files were replaced.
///
/// # Errors
///
/// When an entry conflicts with what is there (a file without `overwrite`, a file
/// where a directory is or the reverse, a symbolic link), before anything moved; or
/// when a move fails.
pub(super) fn merge(
    staging: &Path,
    destination: &Path,
    shown: &str,
    overwrite: bool,
) -> Result<u64, ToolError> {
    let mut entries = Vec::new();
    list(staging, Path::new(""), &mut entries)
        .map_err(|error| failure("extract into", shown, error))?;
    let replaced = check(&entries, destination, shown, overwrite)?;
    let mut moved: Option<&Path> = None;
    for (relative, is_dir) in &entries {
        if moved.is_some_and(|dir| relative.starts_with(dir)) {
            continue;
        }
        let from = staging.join(relative);
        let to = destination.join(relative);
        if *is_dir {
            if to.symlink_metadata().is_ok() {
                continue;
            }
            moved = Some(relative);
        }
        fs::rename(&from, &to)
            .map_err(|error| failure("move into place", &shown_entry(shown, relative), error))?;
    }
    Ok(replaced)
}

/// Every entry under `dir` (relative to the staging root, parents before children,
/// sorted by name).
fn list(dir: &Path, relative: &Path, entries: &mut Vec<Entry>) -> io::Result<()> {
    let mut children: Vec<_> = fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    children.sort_by_key(fs::DirEntry::file_name);
    for child in children {
        let path = relative.join(child.file_name());
        let is_dir = child.file_type()?.is_dir();
        entries.push((path.clone(), is_dir));
        if is_dir {
            list(&child.path(), &path, entries)?;
        }
    }
    Ok(())
}

/// Check every entry against the destination; how many files will be replaced.
fn check(
    entries: &[Entry],
    destination: &Path,
    shown: &str,
    overwrite: bool,
) -> Result<u64, ToolError> {
    let mut conflicts = Vec::new();
    let mut replaced = 0;
    for (relative, is_dir) in entries {
        let metadata = match destination.join(relative).symlink_metadata() {
            Ok(metadata) => metadata,
            Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
            Err(error) => return Err(failure("inspect", &shown_entry(shown, relative), error)),
        };
        if metadata.file_type().is_symlink() {
            return Err(ToolError::failed(format!(
                "`{}` is a symbolic link in the destination; extracting through it could write elsewhere. Remove it or extract into a new directory; nothing was extracted",
                shown_entry(shown, relative)
            )));
        }
        match (metadata.is_dir(), is_dir) {
            (true, true) => {}
            (false, false) if overwrite => replaced += 1,
            _ => conflicts.push(shown_entry(shown, relative)),
        }
    }
    if conflicts.is_empty() {
        return Ok(replaced);
    }
    let count = conflicts.len();
    conflicts.truncate(MAX_LISTED_CONFLICTS);
    let advice = if overwrite {
        "a file stands where the archive has a directory, or the reverse: extract into a new directory"
    } else {
        "pass overwrite: true to replace existing files, or extract into a new directory"
    };
    Err(ToolError::failed(format!(
        "{count} entries of the archive already exist in the destination ({}); {advice}. Nothing was extracted",
        conflicts.join(", ")
    )))
}

/// An entry as the model sees it: the destination's shown path joined with it.
fn shown_entry(shown: &str, relative: &Path) -> String {
    if shown == "." {
        relative.display().to_string()
    } else {
        format!("{shown}/{}", relative.display())
    }
}

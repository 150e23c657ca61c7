//! Moving a fully staged archive into its destination: first every entry is checked
//! against what the destination already holds (nothing moves if one conflicts), then
//! directories new to the destination move whole and files one by one.
//!
//! Both sides are [`Directory`] handles and every entry is named relative to them, so
//! a directory swapped for a symbolic link once the destination was opened cannot
//! redirect a move (see [`crate::common::directory`]); a file that appeared since the
//! check is not replaced without `overwrite`.

use std::io;
use std::path::{Path, PathBuf};

use hermes_core::ToolError;

use super::split;
use crate::common::directory::{Directory, Existing, Kind, Parents};
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
    staging: &Directory,
    destination: &Directory,
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
        let existing = if overwrite && !is_dir {
            Existing::Replace
        } else {
            Existing::Keep
        };
        let placed = place(staging, destination, relative, *is_dir, existing)
            .map_err(|error| failure("move into place", &shown_entry(shown, relative), error))?;
        if placed == Placed::Whole {
            moved = Some(relative);
        }
    }
    Ok(replaced)
}

/// What [`place`] did with an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placed {
    /// Moved it (a directory with everything in it).
    Whole,
    /// Kept the directory already there; its entries move one by one.
    Into,
}

/// Move the staged entry `relative` to the same place in `destination`; a directory
/// already there is kept.
fn place(
    staging: &Directory,
    destination: &Directory,
    relative: &Path,
    is_dir: bool,
    existing: Existing,
) -> io::Result<Placed> {
    let (parent, name) = split(relative)?;
    let to = destination.subdirectory(parent, Parents::MustExist)?;
    if is_dir && to.entry(name)?.is_some() {
        return Ok(Placed::Into);
    }
    let from = staging.subdirectory(parent, Parents::MustExist)?;
    from.move_to(name, &to, name, existing)?;
    Ok(Placed::Whole)
}

/// Every entry under `dir` (relative to the staging root, parents before children,
/// sorted by name). Links are never staged: one found means something else wrote there.
fn list(dir: &Directory, relative: &Path, entries: &mut Vec<Entry>) -> io::Result<()> {
    let mut children = dir.list()?;
    children.sort_by(|(a, _), (b, _)| a.cmp(b));
    for (name, kind) in children {
        let path = relative.join(&name);
        if kind == Kind::Symlink {
            return Err(io::Error::other(format!(
                "a symbolic link `{}` appeared in the staging directory",
                path.display()
            )));
        }
        let is_dir = kind == Kind::Directory;
        entries.push((path.clone(), is_dir));
        if is_dir {
            let child = dir.subdirectory(Path::new(&name), Parents::MustExist)?;
            list(&child, &path, entries)?;
        }
    }
    Ok(())
}

/// What the destination holds at `relative`, if anything (not following a link).
fn existing(destination: &Directory, relative: &Path) -> io::Result<Option<Kind>> {
    let (parent, name) = split(relative)?;
    match destination.subdirectory(parent, Parents::MustExist) {
        Ok(dir) => Ok(dir.entry(name)?.map(|entry| entry.kind)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Check every entry against the destination; how many files will be replaced.
fn check(
    entries: &[Entry],
    destination: &Directory,
    shown: &str,
    overwrite: bool,
) -> Result<u64, ToolError> {
    let mut conflicts = Vec::new();
    let mut replaced = 0;
    for (relative, is_dir) in entries {
        let kind = match existing(destination, relative) {
            Ok(Some(kind)) => kind,
            Ok(None) => continue,
            Err(error) => return Err(failure("inspect", &shown_entry(shown, relative), error)),
        };
        if kind == Kind::Symlink {
            return Err(ToolError::failed(format!(
                "`{}` is a symbolic link in the destination; extracting through it could write elsewhere. Remove it or extract into a new directory; nothing was extracted",
                shown_entry(shown, relative)
            )));
        }
        match (kind == Kind::Directory, is_dir) {
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

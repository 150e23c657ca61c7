//! A directory opened once and checked, that the writing tools name entries against:
//! `file_write`, `file_edit`, `file_delete` and `archive` (creating and extracting),
//! `download_file`, and the multimedia tools' outputs.
//!
//! # Symbolic-link races
//!
//! A tool gets a path from [`resolve`](crate::common::paths::resolve) with every link
//! already resolved, and the permission engine judged that path. If the tool then
//! opened the path by name, a directory on the way could be swapped for a link (by a
//! parallel `terminal` call, say) between the check and the write, and the write would
//! land wherever the link points.
//!
//! On Linux, [`Directory::open`] therefore opens the file's directory with `openat2`
//! and `RESOLVE_NO_SYMLINKS`: the resolved path holds no link, so one found now means
//! the path changed since it was checked, and the call is refused. Every later step
//! (creating the temporary file, inspecting, renaming, unlinking, removing a tree) names
//! a single entry relative to that handle, with `O_NOFOLLOW`/`AT_SYMLINK_NOFOLLOW`, so a
//! swap after the open changes nothing: the work happens in the directory that was
//! checked, which is no longer reachable through the swapped name. Missing directories
//! are created one at a time the same way (`mkdirat`, then an open that refuses links),
//! and so are directories below a handle ([`Directory::subdirectory`]), which is how an
//! archive's tree is staged and moved into place. Moves between two handles are
//! `renameat`, with `RENAME_NOREPLACE` when a file that appeared meanwhile must be
//! kept. Kernels before 5.6 have no `openat2`; there the path is walked one component at a
//! time with `O_NOFOLLOW`, to the same effect.
//!
//! The last component gets the same care: a file found to be a link when it is about
//! to be replaced is refused, the temporary file is created with `O_EXCL|O_NOFOLLOW`,
//! and a link swapped in just before the rename is replaced itself, not written
//! through. `file_delete` counts a directory's entries by path, for its approval prompt
//! only; a directory it removes without approval (counted empty) goes with `rmdir`
//! semantics, so one filled since the count is kept.
//!
//! Elsewhere the handle is the path itself and every step opens it by name again, as
//! the tools did before: the check and the use are separate, so a swap in between is
//! not caught. Trees are removed with [`std::fs::remove_dir_all`], which does not follow
//! links inside the tree on the platforms std supports.

use std::ffi::{OsStr, OsString};
use std::fs::{File, Permissions};
use std::io;
use std::path::Path;

use hermes_core::ToolError;

/// What to do when a directory to open does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Parents {
    /// Create it and its missing parents.
    Create,
    /// Refuse, saying how to ask for them.
    MustExist,
}

/// What a move does when its target name is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Existing {
    /// Replace what is there (a link is replaced itself, never followed).
    Replace,
    /// Fail with [`io::ErrorKind::AlreadyExists`], leaving both in place.
    Keep,
}

/// What an entry is, seen without following a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A regular file.
    File,
    /// A symbolic link (itself, not its target).
    Symlink,
    /// A directory.
    Directory,
    /// A FIFO, socket or device.
    Other,
}

/// An entry of a [`Directory`]: its kind and permissions (those of a link itself).
#[derive(Debug, Clone)]
pub(crate) struct Entry {
    /// What it is.
    pub(crate) kind: Kind,
    /// Its permission bits.
    pub(crate) permissions: Permissions,
}

/// A checked directory: see the [module docs](self).
#[derive(Debug)]
pub(crate) struct Directory {
    /// The descriptor on Linux, the path elsewhere.
    handle: platform::Handle,
}

impl Directory {
    /// Open the directory at `path` (link-free, as [`resolve`] returns it), creating it
    /// and its missing parents when `parents` says so.
    ///
    /// [`resolve`]: crate::common::paths::resolve
    ///
    /// # Errors
    ///
    /// When the directory is missing (and not to be created), a part of the path is a
    /// file, or a part became a symbolic link since the path was checked (see
    /// [`is_link_found`]).
    pub(crate) fn open(path: &Path, parents: Parents) -> io::Result<Self> {
        let handle = match parents {
            Parents::Create => platform::open_creating(path)?,
            Parents::MustExist => platform::open(path)?,
        };
        Ok(Self { handle })
    }

    /// The entry `name`, or `None` when there is none.
    ///
    /// # Errors
    ///
    /// When it cannot be inspected.
    pub(crate) fn entry(&self, name: &OsStr) -> io::Result<Option<Entry>> {
        match platform::entry(&self.handle, name) {
            Ok(entry) => Ok(Some(entry)),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// The directory `relative` below this one (a path of plain names), each part opened
    /// relative to the one above and refusing links as [`open`](Self::open) does; missing
    /// parts are created when `parents` says so.
    ///
    /// # Errors
    ///
    /// When a part is missing (and not to be created), a file, or a symbolic link.
    pub(crate) fn subdirectory(&self, relative: &Path, parents: Parents) -> io::Result<Self> {
        let handle = platform::subdirectory(&self.handle, relative, parents)?;
        Ok(Self { handle })
    }

    /// The names and kinds of the entries (`.` and `..` left out), in no set order.
    ///
    /// # Errors
    ///
    /// When the directory cannot be read.
    pub(crate) fn list(&self) -> io::Result<Vec<(OsString, Kind)>> {
        platform::list(&self.handle)
    }

    /// Open the file `name` for reading; a link there is refused, not followed.
    ///
    /// # Errors
    ///
    /// When it is missing, a link, or cannot be opened.
    pub(crate) fn open_file(&self, name: &OsStr) -> io::Result<File> {
        platform::open_file(&self.handle, name)
    }

    /// Create the file `name`, which must not exist, for writing.
    ///
    /// # Errors
    ///
    /// When it exists (a link included) or cannot be created.
    pub(crate) fn create_new(&self, name: &OsStr) -> io::Result<File> {
        platform::create_new(&self.handle, name)
    }

    /// Rename the entry `from` to `to`, replacing what `to` named.
    ///
    /// # Errors
    ///
    /// When the rename fails.
    pub(crate) fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        self.move_to(from, self, to, Existing::Replace)
    }

    /// Move the entry `from` of this directory to the entry `to` of `target` (on the same
    /// filesystem); `existing` says whether a taken name is replaced.
    ///
    /// # Errors
    ///
    /// When `to` is taken and `existing` is [`Existing::Keep`], or the move fails.
    pub(crate) fn move_to(
        &self,
        from: &OsStr,
        target: &Self,
        to: &OsStr,
        existing: Existing,
    ) -> io::Result<()> {
        platform::move_to(&self.handle, from, &target.handle, to, existing)
    }

    /// Remove the entry `name`, which is not a directory (a link is removed itself).
    ///
    /// # Errors
    ///
    /// When it is a directory or cannot be removed.
    pub(crate) fn remove_entry(&self, name: &OsStr) -> io::Result<()> {
        platform::remove_entry(&self.handle, name)
    }

    /// Remove the directory `name` if it is empty.
    ///
    /// # Errors
    ///
    /// When it holds entries, is not a directory, or cannot be removed.
    pub(crate) fn remove_empty(&self, name: &OsStr) -> io::Result<()> {
        platform::remove_empty(&self.handle, name)
    }

    /// Remove the directory `name` and everything in it; links inside are removed, never
    /// followed.
    ///
    /// # Errors
    ///
    /// When a part of the tree cannot be removed (what was removed before stays removed).
    pub(crate) fn remove_tree(&self, name: &OsStr) -> io::Result<()> {
        platform::remove_tree(&self.handle, name)
    }

    /// Flush the directory's entries (a rename, say) to disk.
    ///
    /// # Errors
    ///
    /// When the directory cannot be opened for reading or flushed.
    pub(crate) fn sync(&self) -> io::Result<()> {
        platform::sync(&self.handle)
    }
}

/// Whether `error` (from [`Directory::open`]) says a symbolic link was found on the way,
/// where the checked path had none: the path changed since the check.
pub(crate) fn is_link_found(error: &io::Error) -> bool {
    platform::is_link_found(error)
}

/// The error a race is refused with: a link where the checked path had none.
pub(crate) fn link_race(shown: &str) -> ToolError {
    ToolError::failed(format!(
        "`{shown}`, or a directory on the way to it, was replaced by a symbolic link after the path was checked (something else is changing the workspace); nothing was changed. Check the path and call again"
    ))
}

#[cfg(target_os = "linux")]
#[path = "directory/linux.rs"]
mod platform;

#[cfg(not(target_os = "linux"))]
#[path = "directory/portable.rs"]
mod platform;

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn subdirectories_are_made_and_opened_below_the_handle_only() {
        let ws = tempfile::tempdir().unwrap();
        let root = Directory::open(ws.path(), Parents::MustExist).unwrap();
        let error = root
            .subdirectory(Path::new("a/b"), Parents::MustExist)
            .unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound, "{error}");
        let made = root
            .subdirectory(Path::new("a/b"), Parents::Create)
            .unwrap();
        drop(made.create_new(OsStr::new("f")).unwrap());
        assert!(ws.path().join("a/b/f").is_file());
        for escape in ["..", "a/../..", "/tmp"] {
            let error = root
                .subdirectory(Path::new(escape), Parents::Create)
                .unwrap_err();
            assert_eq!(
                error.kind(),
                io::ErrorKind::InvalidInput,
                "{escape}: {error}"
            );
        }
        let mut listed = root.list().unwrap();
        listed.sort_by(|(a, _), (b, _)| a.cmp(b));
        assert_eq!(listed, [(OsString::from("a"), Kind::Directory)]);
    }

    /// A link below the handle is refused, not followed.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_link_below_the_handle_is_refused() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join("link")).unwrap();
        fs::write(outside.path().join("f"), "theirs").unwrap();
        std::os::unix::fs::symlink(outside.path().join("f"), ws.path().join("f")).unwrap();
        let root = Directory::open(ws.path(), Parents::MustExist).unwrap();
        for parents in [Parents::MustExist, Parents::Create] {
            let error = root
                .subdirectory(Path::new("link/sub"), parents)
                .unwrap_err();
            assert!(is_link_found(&error), "{error}");
        }
        assert!(root.open_file(OsStr::new("f")).is_err());
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_move_keeps_a_taken_name_unless_told_to_replace() {
        let ws = tempfile::tempdir().unwrap();
        fs::create_dir(ws.path().join("to")).unwrap();
        fs::write(ws.path().join("a"), "new").unwrap();
        fs::write(ws.path().join("to/a"), "old").unwrap();
        let from = Directory::open(ws.path(), Parents::MustExist).unwrap();
        let to = from
            .subdirectory(Path::new("to"), Parents::MustExist)
            .unwrap();
        let (a, b) = (OsStr::new("a"), OsStr::new("b"));
        let error = from.move_to(a, &to, a, Existing::Keep).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::AlreadyExists, "{error}");
        assert_eq!(fs::read_to_string(ws.path().join("to/a")).unwrap(), "old");
        assert_eq!(fs::read_to_string(ws.path().join("a")).unwrap(), "new");
        from.move_to(a, &to, a, Existing::Replace).unwrap();
        assert_eq!(fs::read_to_string(ws.path().join("to/a")).unwrap(), "new");
        to.move_to(a, &from, b, Existing::Keep).unwrap();
        assert_eq!(fs::read_to_string(ws.path().join("b")).unwrap(), "new");
        assert!(!ws.path().join("to/a").exists());
    }
}

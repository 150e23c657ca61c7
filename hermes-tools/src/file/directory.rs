//! A directory opened once and checked, that the writing tools name entries against.
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
//! are created one at a time the same way (`mkdirat`, then an open that refuses links).
//! Kernels before 5.6 have no `openat2`; there the path is walked one component at a
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

use std::ffi::OsStr;
use std::fs::{File, Permissions};
use std::io;
use std::path::Path;

use hermes_core::ToolError;

use super::atomic::Parents;

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
        platform::rename(&self.handle, from, to)
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

//! [`Directory`](super::Directory) elsewhere: the path, opened by name at every step (no
//! protection against a swap between steps; see the module docs).

use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use super::{Entry, Kind};

/// The directory's path.
pub(super) type Handle = PathBuf;

/// The directory `path`, which must be one.
pub(super) fn open(path: &Path) -> io::Result<Handle> {
    if fs::metadata(path)?.is_dir() {
        Ok(path.to_path_buf())
    } else {
        Err(io::ErrorKind::NotADirectory.into())
    }
}

/// The directory `path`, created with its missing parents.
pub(super) fn open_creating(path: &Path) -> io::Result<Handle> {
    match open(path) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(path)?;
            open(path)
        }
        opened => opened,
    }
}

/// Never: links are not checked here.
pub(super) fn is_link_found(_error: &io::Error) -> bool {
    false
}

/// The entry `name` of `dir`, not following a link.
pub(super) fn entry(dir: &Handle, name: &OsStr) -> io::Result<Entry> {
    let metadata = fs::symlink_metadata(dir.join(name))?;
    let file_type = metadata.file_type();
    let kind = if file_type.is_symlink() {
        Kind::Symlink
    } else if file_type.is_dir() {
        Kind::Directory
    } else if file_type.is_file() {
        Kind::File
    } else {
        Kind::Other
    };
    Ok(Entry {
        kind,
        permissions: metadata.permissions(),
    })
}

/// Create `name` in `dir` for writing; it must not exist.
pub(super) fn create_new(dir: &Handle, name: &OsStr) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dir.join(name))
}

/// Rename `from` to `to`, both in `dir`.
pub(super) fn rename(dir: &Handle, from: &OsStr, to: &OsStr) -> io::Result<()> {
    fs::rename(dir.join(from), dir.join(to))
}

/// Remove `name` (not a directory) from `dir`.
pub(super) fn remove_entry(dir: &Handle, name: &OsStr) -> io::Result<()> {
    fs::remove_file(dir.join(name))
}

/// Remove the empty directory `name` from `dir`.
pub(super) fn remove_empty(dir: &Handle, name: &OsStr) -> io::Result<()> {
    fs::remove_dir(dir.join(name))
}

/// Remove the tree `name` of `dir`.
pub(super) fn remove_tree(dir: &Handle, name: &OsStr) -> io::Result<()> {
    fs::remove_dir_all(dir.join(name))
}

/// Flush `dir`'s entries to disk.
pub(super) fn sync(dir: &Handle) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

//! [`Directory`](super::Directory) elsewhere: the path, opened by name at every step (no
//! protection against a swap between steps; see the module docs).

use std::ffi::{OsStr, OsString};
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Component, Path, PathBuf};

use super::{Entry, Existing, Kind, Parents};

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

/// The directory `relative` below `dir`, which must hold plain names only.
pub(super) fn subdirectory(dir: &Handle, relative: &Path, parents: Parents) -> io::Result<Handle> {
    if !relative
        .components()
        .all(|component| matches!(component, Component::Normal(_)))
    {
        return Err(io::ErrorKind::InvalidInput.into());
    }
    let path = dir.join(relative);
    match parents {
        Parents::Create => open_creating(&path),
        Parents::MustExist => open(&path),
    }
}

/// The entry `name` of `dir`, not following a link.
pub(super) fn entry(dir: &Handle, name: &OsStr) -> io::Result<Entry> {
    let metadata = fs::symlink_metadata(dir.join(name))?;
    Ok(Entry {
        kind: kind_of(metadata.file_type()),
        permissions: metadata.permissions(),
    })
}

/// What a file type (not followed) says.
fn kind_of(file_type: fs::FileType) -> Kind {
    if file_type.is_symlink() {
        Kind::Symlink
    } else if file_type.is_dir() {
        Kind::Directory
    } else if file_type.is_file() {
        Kind::File
    } else {
        Kind::Other
    }
}

/// The entries of `dir`.
pub(super) fn list(dir: &Handle) -> io::Result<Vec<(OsString, Kind)>> {
    fs::read_dir(dir)?
        .map(|child| {
            let child = child?;
            Ok((child.file_name(), kind_of(child.file_type()?)))
        })
        .collect()
}

/// Open `name` in `dir` for reading, refusing a link.
pub(super) fn open_file(dir: &Handle, name: &OsStr) -> io::Result<File> {
    if entry(dir, name)?.kind == Kind::Symlink {
        return Err(io::Error::other("a symbolic link"));
    }
    File::open(dir.join(name))
}

/// Create `name` in `dir` for writing; it must not exist.
pub(super) fn create_new(dir: &Handle, name: &OsStr) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dir.join(name))
}

/// Move `from` in `dir` to `to` in `target`. Keeping what is there: a hard link (which
/// fails on a taken name) and a removal, else a look and a rename.
pub(super) fn move_to(
    dir: &Handle,
    from: &OsStr,
    target: &Handle,
    to: &OsStr,
    existing: Existing,
) -> io::Result<()> {
    let (from, to) = (dir.join(from), target.join(to));
    if existing == Existing::Replace {
        return fs::rename(from, to);
    }
    match fs::hard_link(&from, &to) {
        Ok(()) => fs::remove_file(from),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Err(error),
        Err(_) if fs::symlink_metadata(&to).is_ok() => Err(io::ErrorKind::AlreadyExists.into()),
        Err(_) => fs::rename(from, to),
    }
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

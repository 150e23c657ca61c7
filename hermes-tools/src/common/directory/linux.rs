//! [`Directory`](super::Directory) on Linux: a descriptor, and `*at` calls relative to it
//! that never follow a link.

use std::ffi::{CStr, CString, OsStr, OsString};
use std::fs::{File, Permissions};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path};

use rustix::fs::{
    AtFlags, CWD, Dir, FileType, Mode, OFlags, RenameFlags, ResolveFlags, fstat, fsync, linkat,
    mkdirat, openat, openat2, renameat, renameat_with, statat, unlinkat,
};
use rustix::io::Errno;

use super::{Entry, Existing, Kind, Parents};

/// An open directory (an `O_PATH` descriptor: enough to name entries against).
pub(super) type Handle = OwnedFd;

/// How a directory on the way is opened: no reading or writing through it, no link.
const PATH_FLAGS: OFlags = OFlags::PATH.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);
/// How a directory is opened to read its entries or flush it.
const READ_DIRECTORY: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC);

/// The mode of created directories and files before the umask, as `std::fs` uses.
const DIRECTORY_MODE: u32 = 0o777;
const FILE_MODE: u32 = 0o666;

/// Open the directory `path`, refusing any symbolic link on the way (`ELOOP`).
pub(super) fn open(path: &Path) -> io::Result<Handle> {
    match openat2(
        CWD,
        path,
        PATH_FLAGS,
        Mode::empty(),
        ResolveFlags::NO_SYMLINKS,
    ) {
        Ok(fd) => Ok(fd),
        // No `openat2` (a kernel before 5.6, or a sandbox that filters it).
        Err(Errno::NOSYS | Errno::PERM) => walk(path),
        Err(errno) => Err(errno.into()),
    }
}

/// Open the directory `path`, creating it and its missing parents one at a time, each
/// relative to the one above and refusing links as [`open`] does.
pub(super) fn open_creating(path: &Path) -> io::Result<Handle> {
    match open(path) {
        Err(error) if error.raw_os_error() == Some(Errno::NOENT.raw_os_error()) => {
            let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
                return Err(error);
            };
            let above = open_creating(parent)?;
            make_and_step(above.as_fd(), name)
        }
        opened => opened,
    }
}

/// Create the directory `name` in `dir` unless it exists, then open it as [`step`] does.
fn make_and_step(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<Handle> {
    match mkdirat(dir, name, Mode::from_raw_mode(DIRECTORY_MODE)) {
        Ok(()) | Err(Errno::EXIST) => {}
        Err(errno) => return Err(errno.into()),
    }
    step(dir, name)
}

/// The directory `relative` below `dir`, one plain name at a time (`.` and `..` and
/// absolute paths are refused: they could leave `dir`).
pub(super) fn subdirectory(dir: &Handle, relative: &Path, parents: Parents) -> io::Result<Handle> {
    let mut current = openat(dir, ".", PATH_FLAGS, Mode::empty())?;
    for component in relative.components() {
        let Component::Normal(name) = component else {
            return Err(io::ErrorKind::InvalidInput.into());
        };
        current = match parents {
            Parents::Create => make_and_step(current.as_fd(), name)?,
            Parents::MustExist => step(current.as_fd(), name)?,
        };
    }
    Ok(current)
}

/// The walk for kernels without `openat2`: from the root (or the working directory),
/// one component at a time.
fn walk(path: &Path) -> io::Result<Handle> {
    let start = if path.is_absolute() { "/" } else { "." };
    let mut current = openat(CWD, start, PATH_FLAGS, Mode::empty())?;
    for component in path.components() {
        let name = match component {
            Component::Normal(name) => name,
            Component::ParentDir => OsStr::new(".."),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => continue,
        };
        current = step(current.as_fd(), name)?;
    }
    Ok(current)
}

/// Open the directory `name` in `dir`: `ELOOP` if it is a link, `ENOTDIR` if it is
/// something else. `O_PATH` with `O_NOFOLLOW` opens a link itself, so it is looked at.
fn step(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<Handle> {
    let fd = openat(
        dir,
        name,
        OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    match FileType::from_raw_mode(fstat(&fd)?.st_mode) {
        FileType::Directory => Ok(fd),
        FileType::Symlink => Err(Errno::LOOP.into()),
        _ => Err(Errno::NOTDIR.into()),
    }
}

/// Whether `error` says a link was found where none may be.
pub(super) fn is_link_found(error: &io::Error) -> bool {
    error.raw_os_error() == Some(Errno::LOOP.raw_os_error())
}

/// The entry `name` of `dir`, not following a link.
pub(super) fn entry(dir: &Handle, name: &OsStr) -> io::Result<Entry> {
    let stat = statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
    let kind = match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => Kind::File,
        FileType::Directory => Kind::Directory,
        FileType::Symlink => Kind::Symlink,
        _ => Kind::Other,
    };
    Ok(Entry {
        kind,
        permissions: Permissions::from_mode(stat.st_mode & 0o7777),
    })
}

/// Create `name` in `dir` for writing; a link there (or anything else) makes it fail.
pub(super) fn create_new(dir: &Handle, name: &OsStr) -> io::Result<File> {
    let flags = OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = openat(dir, name, flags, Mode::from_raw_mode(FILE_MODE))?;
    Ok(File::from(fd))
}

/// The entries of `dir`, read through a descriptor that may be read (`O_PATH` ones
/// cannot be).
pub(super) fn list(dir: &Handle) -> io::Result<Vec<(OsString, Kind)>> {
    let readable = openat(dir, ".", READ_DIRECTORY, Mode::empty())?;
    let mut entries = Vec::new();
    for child in Dir::read_from(&readable)? {
        let child = child?;
        let name = child.file_name();
        if name == c"." || name == c".." {
            continue;
        }
        let name = OsString::from_vec(name.to_bytes().to_vec());
        let kind = match child.file_type() {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Directory,
            FileType::Symlink => Kind::Symlink,
            // `getdents` may not say: ask the entry itself.
            FileType::Unknown => entry(dir, &name)?.kind,
            _ => Kind::Other,
        };
        entries.push((name, kind));
    }
    Ok(entries)
}

/// Open `name` in `dir` for reading; a link there fails with `ELOOP`.
pub(super) fn open_file(dir: &Handle, name: &OsStr) -> io::Result<File> {
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    Ok(File::from(openat(dir, name, flags, Mode::empty())?))
}

/// Move `from` in `dir` to `to` in `target`. Keeping what is there uses
/// `RENAME_NOREPLACE`; a filesystem without it gets a hard link and an unlink (files),
/// else a look and a rename.
pub(super) fn move_to(
    dir: &Handle,
    from: &OsStr,
    target: &Handle,
    to: &OsStr,
    existing: Existing,
) -> io::Result<()> {
    if existing == Existing::Replace {
        return Ok(renameat(dir, from, target, to)?);
    }
    match renameat_with(dir, from, target, to, RenameFlags::NOREPLACE) {
        Err(Errno::INVAL | Errno::NOSYS) => {}
        moved => return Ok(moved?),
    }
    match linkat(dir, from, target, to, AtFlags::empty()) {
        Ok(()) => return Ok(unlinkat(dir, from, AtFlags::empty())?),
        Err(Errno::EXIST) => return Err(Errno::EXIST.into()),
        Err(_) => {}
    }
    match statat(target, to, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(_) => Err(Errno::EXIST.into()),
        Err(Errno::NOENT) => Ok(renameat(dir, from, target, to)?),
        Err(errno) => Err(errno.into()),
    }
}

/// Unlink `name` (not a directory) from `dir`.
pub(super) fn remove_entry(dir: &Handle, name: &OsStr) -> io::Result<()> {
    Ok(unlinkat(dir, name, AtFlags::empty())?)
}

/// Remove the empty directory `name` from `dir`.
pub(super) fn remove_empty(dir: &Handle, name: &OsStr) -> io::Result<()> {
    Ok(unlinkat(dir, name, AtFlags::REMOVEDIR)?)
}

/// Remove the tree `name` of `dir`: each directory is opened with `O_NOFOLLOW` relative
/// to its parent's descriptor, so a link met anywhere (even one swapped in during the
/// removal) is unlinked, never entered.
pub(super) fn remove_tree(dir: &Handle, name: &OsStr) -> io::Result<()> {
    let name = CString::new(name.as_encoded_bytes()).map_err(io::Error::other)?;
    remove_tree_at(dir.as_fd(), &name)
}

fn remove_tree_at(parent: BorrowedFd<'_>, name: &CStr) -> io::Result<()> {
    let fd = match openat(
        parent,
        name,
        READ_DIRECTORY | OFlags::NOFOLLOW,
        Mode::empty(),
    ) {
        Ok(fd) => fd,
        // A link (`ELOOP`) or a file (`ENOTDIR`) now: it goes as an entry.
        Err(Errno::LOOP | Errno::NOTDIR) => return Ok(unlinkat(parent, name, AtFlags::empty())?),
        Err(errno) => return Err(errno.into()),
    };
    // Names first, then removals: a directory is not changed while it is being read.
    let mut children = Vec::new();
    for child in Dir::read_from(&fd)? {
        let child = child?;
        let child_name = child.file_name();
        if child_name != c"." && child_name != c".." {
            children.push((child_name.to_owned(), child.file_type()));
        }
    }
    for (child, file_type) in children {
        let removed = match file_type {
            FileType::Directory => remove_tree_at(fd.as_fd(), &child),
            _ => match unlinkat(&fd, child.as_c_str(), AtFlags::empty()) {
                // Unknown to `getdents`, or a directory by now.
                Err(Errno::ISDIR | Errno::PERM) => remove_tree_at(fd.as_fd(), &child),
                other => other.map_err(io::Error::from),
            },
        };
        removed?;
    }
    Ok(unlinkat(parent, name, AtFlags::REMOVEDIR)?)
}

/// Flush `dir`'s entries to disk (through a descriptor that may be read: `O_PATH` ones
/// cannot be flushed).
pub(super) fn sync(dir: &Handle) -> io::Result<()> {
    let readable = openat(dir, ".", READ_DIRECTORY, Mode::empty())?;
    Ok(fsync(readable)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk for kernels without `openat2` refuses what `openat2` refuses.
    #[test]
    fn the_walk_refuses_links_and_files_on_the_way() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(ws.path().join("a/b")).unwrap();
        std::fs::write(ws.path().join("a/file"), "").unwrap();
        std::os::unix::fs::symlink(ws.path().join("a"), ws.path().join("link")).unwrap();
        assert!(walk(&ws.path().join("a/b")).is_ok());
        let error = walk(&ws.path().join("link/b")).unwrap_err();
        assert!(is_link_found(&error), "{error}");
        let error = walk(&ws.path().join("a/file/b")).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotADirectory, "{error}");
        let error = open(&ws.path().join("link/b")).unwrap_err();
        assert!(is_link_found(&error), "{error}");
    }
}

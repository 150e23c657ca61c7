//! Replacing a file atomically: the new content goes to a temporary file in the same
//! directory, is flushed to disk, takes the old file's permissions, and is renamed over
//! the old file. Readers see the old file or the new one, never half of either.
//!
//! Every step names the file relative to its directory, opened once and checked (a
//! [`Directory`]), so a directory swapped for a symbolic link mid-way cannot redirect
//! the write: see [`crate::common::directory`].

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use hermes_core::ToolError;

use super::fs::failure;
use crate::common::directory::{Directory, Entry, Kind, Parents, is_link_found, link_race};

/// What a replacement did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Replaced {
    /// No file was there.
    Created,
    /// A file was there; its permissions were kept.
    Overwrote,
}

/// Write the file at `path` (shown to the model as `shown`) with what `fill` writes,
/// atomically. `path` must be link-free, as [`resolve`](crate::common::paths::resolve)
/// returns it: its directory is opened once as a [`Directory`] and the file is named
/// relative to that (see [`crate::common::directory`] on symbolic-link races).
///
/// # Errors
///
/// A message for the model when the directory is missing (and `parents` says not to
/// create it), a directory on the way became a symbolic link since the path was
/// checked, the path is a directory or a read-only file, or the write fails; the
/// temporary file is removed then.
pub(crate) fn replace(
    path: &Path,
    shown: &str,
    parents: Parents,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<Replaced, ToolError> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(ToolError::failed(format!(
            "`{shown}` is the filesystem root, not a file; name a file"
        )));
    };
    let directory =
        Directory::open(parent, parents).map_err(|error| open_failure(error, shown, parents))?;
    replace_in(&directory, name, shown, fill)
}

/// Why the directory of `shown` could not be opened, as advice for the model.
fn open_failure(error: io::Error, shown: &str, parents: Parents) -> ToolError {
    match error.kind() {
        io::ErrorKind::NotFound if parents == Parents::MustExist => ToolError::failed(format!(
            "the directory of `{shown}` does not exist; pass `create_dirs: true` to create it, or choose an existing directory"
        )),
        io::ErrorKind::NotADirectory => ToolError::failed(format!(
            "a part of the path `{shown}` is a file, not a directory; choose another path"
        )),
        _ if is_link_found(&error) => link_race(shown),
        _ => failure("open the directory of", shown, error),
    }
}

/// [`replace`] once the directory is open: the entry `name` of `directory`.
fn replace_in(
    directory: &Directory,
    name: &OsStr,
    shown: &str,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<Replaced, ToolError> {
    let existing = match directory.entry(name) {
        Ok(None) => None,
        Ok(Some(entry)) => match entry.kind {
            Kind::Directory => {
                return Err(ToolError::failed(format!(
                    "`{shown}` is a directory; name a file inside it"
                )));
            }
            // The resolved path ends in no link: one here appeared after the check.
            Kind::Symlink => return Err(link_race(shown)),
            Kind::File | Kind::Other if entry.permissions.readonly() => {
                return Err(ToolError::failed(format!(
                    "`{shown}` is read-only; it was left unchanged (change its permissions first if it really must be replaced)"
                )));
            }
            Kind::File | Kind::Other => Some(entry),
        },
        Err(error) => return Err(failure("inspect", shown, error)),
    };
    let temp = temp_name(name);
    let written = write_temp(directory, &temp, existing.as_ref(), fill)
        .and_then(|()| directory.rename(&temp, name));
    if let Err(error) = written {
        let _ = directory.remove_entry(&temp);
        return Err(failure("write", shown, error));
    }
    // Make the rename itself durable; a failure here loses nothing already written.
    let _ = directory.sync();
    Ok(match existing {
        Some(_) => Replaced::Overwrote,
        None => Replaced::Created,
    })
}

/// Fill the temporary file `temp` of `directory`, flush it to disk and give it the old
/// file's permissions.
fn write_temp(
    directory: &Directory,
    temp: &OsStr,
    existing: Option<&Entry>,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let mut file = directory.create_new(temp)?;
    fill(&mut file)?;
    if let Some(existing) = existing {
        file.set_permissions(existing.permissions.clone())?;
    }
    file.sync_all()
}

/// A name next to `name` that no other writer uses: hidden, with the process id and a
/// counter.
fn temp_name(name: &OsStr) -> OsString {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut temp = OsString::from(".");
    temp.push(name);
    temp.push(format!(".{}.{n}.hermes-tmp", std::process::id()));
    temp
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::io::Write;

    use super::*;

    #[test]
    fn creates_then_overwrites_leaving_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        let made = replace(&path, "a.txt", Parents::MustExist, |file| {
            file.write_all(b"one")
        })
        .unwrap();
        assert_eq!(made, Replaced::Created);
        let made = replace(&path, "a.txt", Parents::MustExist, |file| {
            file.write_all(b"two")
        })
        .unwrap();
        assert_eq!(made, Replaced::Overwrote);
        assert_eq!(fs::read_to_string(&path).unwrap(), "two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_fill_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        fs::write(&path, "old").unwrap();
        let error = replace(&path, "a.txt", Parents::MustExist, |_| {
            Err(io::Error::other("boom"))
        })
        .unwrap_err();
        assert!(error.to_string().contains("boom"), "{error}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// Open `ws/sub`, then swap `ws/sub` for a link to `outside`, like a parallel
    /// process could between the check and the write.
    #[cfg(target_os = "linux")]
    fn swap_for_link(ws: &Path, outside: &Path) -> Directory {
        let directory = Directory::open(&ws.join("sub"), Parents::MustExist).unwrap();
        fs::rename(ws.join("sub"), ws.join("moved")).unwrap();
        std::os::unix::fs::symlink(outside, ws.join("sub")).unwrap();
        directory
    }

    /// Linux: the handle pins the directory that was checked, so the write lands there
    /// (now `moved`) and nothing reaches `outside`. Were the file opened by path after the
    /// check, it would be written through the link into `outside`.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_directory_swapped_for_a_link_after_the_check_gets_no_write_outside() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir(ws.path().join("sub")).unwrap();
        fs::write(ws.path().join("sub/a.txt"), "old").unwrap();
        fs::write(outside.path().join("a.txt"), "theirs").unwrap();
        let directory = swap_for_link(ws.path(), outside.path());
        let made = replace_in(&directory, OsStr::new("a.txt"), "sub/a.txt", |file| {
            file.write_all(b"new")
        })
        .unwrap();
        assert_eq!(made, Replaced::Overwrote);
        assert_eq!(
            fs::read_to_string(ws.path().join("moved/a.txt")).unwrap(),
            "new"
        );
        assert_eq!(
            fs::read_to_string(outside.path().join("a.txt")).unwrap(),
            "theirs"
        );
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1);
    }

    /// A link already in place when the directory is opened (the path was resolved
    /// before it appeared) is refused, for an existing directory and for one to create.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_link_on_the_way_when_opening_is_refused() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join("sub")).unwrap();
        for (path, parents) in [
            ("sub/a.txt", Parents::MustExist),
            ("sub/new/a.txt", Parents::Create),
        ] {
            let error = replace(&ws.path().join(path), path, parents, |file| {
                file.write_all(b"new")
            })
            .unwrap_err();
            assert!(error.to_string().contains("symbolic link"), "{error}");
        }
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    /// The file itself swapped for a link: refused, the link's target untouched.
    #[test]
    #[cfg(unix)]
    fn a_file_swapped_for_a_link_is_refused() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("theirs.txt"), "theirs").unwrap();
        let directory = Directory::open(ws.path(), Parents::MustExist).unwrap();
        std::os::unix::fs::symlink(outside.path().join("theirs.txt"), ws.path().join("a.txt"))
            .unwrap();
        let error = replace_in(&directory, OsStr::new("a.txt"), "a.txt", |file| {
            file.write_all(b"new")
        })
        .unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert_eq!(
            fs::read_to_string(outside.path().join("theirs.txt")).unwrap(),
            "theirs"
        );
        assert!(ws.path().join("a.txt").is_symlink());
    }

    #[test]
    fn missing_directories_are_created_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x/y/a.txt");
        let error = replace(&path, "x/y/a.txt", Parents::MustExist, |file| {
            file.write_all(b"one")
        })
        .unwrap_err();
        assert!(error.to_string().contains("create_dirs: true"), "{error}");
        replace(&path, "x/y/a.txt", Parents::Create, |file| {
            file.write_all(b"one")
        })
        .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "one");
    }
}

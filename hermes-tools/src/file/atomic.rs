//! Replacing a file atomically: the new content goes to a temporary file in the same
//! directory, is flushed to disk, takes the old file's permissions, and is renamed over
//! the old file. Readers see the old file or the new one, never half of either.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use hermes_core::ToolError;

use super::fs::failure;

/// What to do when the file's directory does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Parents {
    /// Create it and its missing parents.
    Create,
    /// Refuse, saying how to ask for them.
    MustExist,
}

/// What a replacement did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Replaced {
    /// No file was there.
    Created,
    /// A file was there; its permissions were kept.
    Overwrote,
}

/// Write the file at `path` (shown to the model as `shown`) with what `fill` writes,
/// atomically.
///
/// # Errors
///
/// A message for the model when the directory is missing (and `parents` says not to
/// create it), the path is a directory or a read-only file, or the write fails; the
/// temporary file is removed then.
pub(crate) fn replace(
    path: &Path,
    shown: &str,
    parents: Parents,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<Replaced, ToolError> {
    let Some(parent) = path.parent() else {
        return Err(ToolError::failed(format!(
            "`{shown}` is the filesystem root, not a file; name a file"
        )));
    };
    ensure_directory(parent, shown, parents)?;
    let existing = match fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => {
            return Err(ToolError::failed(format!(
                "`{shown}` is a directory; name a file inside it"
            )));
        }
        Ok(metadata) if metadata.permissions().readonly() => {
            return Err(ToolError::failed(format!(
                "`{shown}` is read-only; it was left unchanged (change its permissions first if it really must be replaced)"
            )));
        }
        Ok(metadata) => Some(metadata),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => return Err(failure("inspect", shown, error)),
    };
    let temp = temp_path(parent, path);
    let written = write_temp(&temp, existing.as_ref(), fill).and_then(|()| fs::rename(&temp, path));
    if let Err(error) = written {
        let _ = fs::remove_file(&temp);
        return Err(failure("write", shown, error));
    }
    // Make the rename itself durable; a failure here loses nothing already written.
    if let Ok(directory) = File::open(parent) {
        let _ = directory.sync_all();
    }
    Ok(match existing {
        Some(_) => Replaced::Overwrote,
        None => Replaced::Created,
    })
}

/// Check (or create) the directory a file is about to be written in.
fn ensure_directory(parent: &Path, shown: &str, parents: Parents) -> Result<(), ToolError> {
    match fs::metadata(parent) {
        Ok(metadata) if metadata.is_dir() => Ok(()),
        Ok(_) => Err(ToolError::failed(format!(
            "a part of the path `{shown}` is a file, not a directory; choose another path"
        ))),
        Err(error) if error.kind() == io::ErrorKind::NotFound => match parents {
            Parents::Create => fs::create_dir_all(parent)
                .map_err(|error| failure("create the directories of", shown, error)),
            Parents::MustExist => Err(ToolError::failed(format!(
                "the directory of `{shown}` does not exist; pass `create_dirs: true` to create it, or choose an existing directory"
            ))),
        },
        Err(error) => Err(failure("inspect the directory of", shown, error)),
    }
}

/// Fill the temporary file, flush it to disk and give it the old file's permissions.
fn write_temp(
    temp: &Path,
    existing: Option<&fs::Metadata>,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(temp)?;
    fill(&mut file)?;
    if let Some(existing) = existing {
        file.set_permissions(existing.permissions())?;
    }
    file.sync_all()
}

/// A name next to `path` that no other writer uses: hidden, with the process id and a
/// counter.
fn temp_path(parent: &Path, path: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |name| name.to_string_lossy());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    parent.join(format!(".{name}.{}.{n}.hermes-tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
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
}

//! The file a multimedia tool writes: resolved like every path, never an existing file
//! unless the call said `overwrite: true`, and written atomically: the content goes to a
//! hidden temporary file beside it, which is flushed and then moved into place (without
//! replacing a file that appeared meanwhile, unless asked). Readers see no file or the
//! whole file, never half of one, and a failed or cancelled call leaves nothing behind.
//!
//! The file's directory is opened once, when the path is checked, as a [`Directory`];
//! the temporary file, the move and the clean-up name entries relative to it, so a
//! directory swapped for a symbolic link after the check cannot redirect the output
//! (see [`crate::common::directory`]).

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use hermes_core::{ToolContext, ToolError};

use crate::common::directory::{Directory, Existing, Kind, Parents, is_link_found, link_race};
use crate::common::{Shared, paths};

/// What to do when the output file exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Overwrite {
    /// Refuse, saying how to ask for a replacement.
    Refuse,
    /// Replace it.
    Replace,
}

impl Overwrite {
    /// From the call's `overwrite` flag.
    pub(super) fn from_flag(overwrite: bool) -> Self {
        if overwrite {
            Self::Replace
        } else {
            Self::Refuse
        }
    }
}

/// An output file, checked but not written yet.
#[derive(Debug, Clone)]
pub(super) struct Destination {
    /// Where it goes.
    pub(super) path: PathBuf,
    /// The path as the model should see it.
    pub(super) shown: String,
    /// Whether an existing file may be replaced.
    overwrite: Overwrite,
    /// Its directory, opened when the path was checked.
    directory: Arc<Directory>,
    /// Its name in that directory.
    name: OsString,
}

/// The output file the model named `raw`.
///
/// # Errors
///
/// A message for the model when the path cannot be used or leads outside the
/// workspace, names a directory, lies in a directory that does not exist, or names an
/// existing file and `overwrite` is [`Overwrite::Refuse`].
pub(super) async fn prepare(
    shared: &Shared,
    ctx: &ToolContext,
    raw: &str,
    overwrite: Overwrite,
) -> Result<Destination, ToolError> {
    let path = paths::resolve(shared, ctx, raw)?;
    let shown = paths::display(shared, ctx, &path);
    let failed = format!("cannot check `{shown}`");
    tokio::task::spawn_blocking(move || check(path, shown, overwrite))
        .await
        .map_err(|error| ToolError::failed_with(failed, error))?
}

/// [`prepare`] once the path is resolved (link-free): open its directory and look at
/// what is there. Blocking.
fn check(path: PathBuf, shown: String, overwrite: Overwrite) -> Result<Destination, ToolError> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(ToolError::failed(format!(
            "`{shown}` is the filesystem root, not a file; name an output file"
        )));
    };
    let directory = Directory::open(parent, Parents::MustExist)
        .map_err(|error| open_failure(&error, &shown))?;
    let existing = directory
        .entry(name)
        .map_err(|error| ToolError::failed(format!("cannot check `{shown}`: {error}")))?;
    match existing.map(|entry| entry.kind) {
        Some(Kind::Directory) => Err(ToolError::failed(format!(
            "`{shown}` is a directory; name an output file inside it"
        ))),
        // The resolved path ends in no link: one here appeared after the check.
        Some(Kind::Symlink) => Err(link_race(&shown)),
        Some(_) if overwrite == Overwrite::Refuse => Err(exists(&shown)),
        _ => Ok(Destination {
            name: name.to_os_string(),
            directory: Arc::new(directory),
            path,
            shown,
            overwrite,
        }),
    }
}

/// Why the directory of `shown` could not be opened, as advice for the model.
fn open_failure(error: &io::Error, shown: &str) -> ToolError {
    if is_link_found(error) {
        return link_race(shown);
    }
    match error.kind() {
        io::ErrorKind::NotFound => ToolError::failed(format!(
            "the directory of `{shown}` does not exist; create it first or choose an existing directory"
        )),
        io::ErrorKind::NotADirectory => ToolError::failed(format!(
            "a part of the path `{shown}` is a file, not a directory; choose another output path"
        )),
        _ => ToolError::failed(format!("cannot open the directory of `{shown}`: {error}")),
    }
}

/// The refusal to replace `shown`.
fn exists(shown: &str) -> ToolError {
    ToolError::failed(format!(
        "`{shown}` already exists and was left unchanged; pass `overwrite: true` to replace it, or choose another output path"
    ))
}

impl Destination {
    /// The output's extension, lower-cased (`png`, `jpg`), if it has one.
    pub(super) fn extension(&self) -> Option<String> {
        self.path
            .extension()
            .map(|extension| extension.to_string_lossy().to_lowercase())
    }

    /// A new temporary file beside the output, hidden. Removed when dropped, unless
    /// committed. Blocking.
    ///
    /// # Errors
    ///
    /// A message for the model when it cannot be created.
    pub(super) fn temp(&self) -> Result<TempFile, ToolError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let stem = Path::new(&self.name)
            .file_stem()
            .map_or_else(|| "output".into(), |stem| stem.to_string_lossy());
        let extension = self.extension().unwrap_or_else(|| "tmp".to_owned());
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = OsString::from(format!(
            ".{stem}.{}.{n}.hermes-tmp.{extension}",
            std::process::id()
        ));
        let file = self
            .directory
            .create_new(&name)
            .map_err(|error| self.write_failed(&error))?;
        Ok(TempFile {
            directory: Arc::clone(&self.directory),
            name,
            file,
            committed: false,
        })
    }

    /// Put the finished `temp` in place; the output's size in bytes. Blocking.
    ///
    /// # Errors
    ///
    /// A message for the model when the file appeared meanwhile (and may not be
    /// replaced) or cannot be written; the temporary file is removed then.
    pub(super) fn commit(&self, mut temp: TempFile) -> Result<u64, ToolError> {
        temp.file
            .sync_all()
            .map_err(|error| self.write_failed(&error))?;
        let size = temp
            .file
            .metadata()
            .map_err(|error| self.write_failed(&error))?
            .len();
        let existing = match self.overwrite {
            Overwrite::Replace => Existing::Replace,
            Overwrite::Refuse => Existing::Keep,
        };
        match self
            .directory
            .move_to(&temp.name, &self.directory, &self.name, existing)
        {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                return Err(exists(&self.shown));
            }
            Err(error) => return Err(self.write_failed(&error)),
        }
        temp.committed = true;
        // Makes the new name durable; a failure here loses nothing written.
        let _ = self.directory.sync();
        Ok(size)
    }

    /// The error for an output that could not be written.
    fn write_failed(&self, error: &io::Error) -> ToolError {
        ToolError::failed(format!("cannot write `{}`: {error}", self.shown))
    }
}

/// A temporary output file, open for writing, removed when dropped unless committed.
#[derive(Debug)]
pub(super) struct TempFile {
    /// The directory it is in.
    directory: Arc<Directory>,
    /// Its name there.
    name: OsString,
    /// The open file.
    file: File,
    /// Whether it was put in place (and so must stay).
    committed: bool,
}

impl TempFile {
    /// The file to write the output to.
    pub(super) fn file(&self) -> &File {
        &self.file
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = self.directory.remove_entry(&self.name);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::io::Write;

    use super::*;

    fn destination(path: &Path, overwrite: Overwrite) -> Destination {
        check(path.to_path_buf(), path.display().to_string(), overwrite).unwrap()
    }

    #[test]
    fn a_commit_refuses_a_file_that_appeared_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.png");
        let refuse = destination(&target, Overwrite::Refuse);
        let temp = refuse.temp().unwrap();
        temp.file().write_all(b"new").unwrap();
        fs::write(&target, b"old").unwrap();
        let error = refuse.commit(temp).unwrap_err();
        assert!(error.to_string().contains("already exists"), "{error}");
        assert_eq!(fs::read(&target).unwrap(), b"old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);

        let error = check(target.clone(), "out.png".to_owned(), Overwrite::Refuse).unwrap_err();
        assert!(error.to_string().contains("already exists"), "{error}");
        let replace = destination(&target, Overwrite::Replace);
        let temp = replace.temp().unwrap();
        assert!(temp.name.to_string_lossy().ends_with(".png"));
        temp.file().write_all(b"new").unwrap();
        assert_eq!(replace.commit(temp).unwrap(), 3);
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// Linux: the output's directory is opened when the path is checked; swapped for a
    /// link to `outside` after that, the temporary file and the move still go to the
    /// directory that was checked (now `moved`). By path, both would land in `outside`.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_directory_swapped_for_a_link_after_the_check_gets_no_write_outside() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir(ws.path().join("sub")).unwrap();
        let destination = destination(&ws.path().join("sub/out.png"), Overwrite::Refuse);
        fs::rename(ws.path().join("sub"), ws.path().join("moved")).unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join("sub")).unwrap();

        let temp = destination.temp().unwrap();
        temp.file().write_all(b"image").unwrap();
        assert_eq!(destination.commit(temp).unwrap(), 5);
        let written: Vec<_> = fs::read_dir(outside.path()).unwrap().collect();
        assert!(written.is_empty(), "written outside: {written:?}");
        assert_eq!(fs::read(ws.path().join("moved/out.png")).unwrap(), b"image");
        assert_eq!(fs::read_dir(ws.path().join("moved")).unwrap().count(), 1);
    }

    /// A link already in place of the directory when the path is checked is refused.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_link_on_the_way_when_checking_is_refused() {
        let ws = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), ws.path().join("sub")).unwrap();
        let error = check(
            ws.path().join("sub/out.png"),
            "sub/out.png".to_owned(),
            Overwrite::Replace,
        )
        .unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
    }
}

//! The file a multimedia tool writes: resolved like every path, never an existing file
//! unless the call said `overwrite: true`, and written atomically: the content goes to a
//! hidden temporary file beside it, which is flushed and then linked (or, to replace,
//! renamed) into place. Readers see no file or the whole file, never half of one, and a
//! failed or cancelled call leaves nothing behind.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use hermes_core::{ToolContext, ToolError};

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
    let Some(parent) = path.parent() else {
        return Err(ToolError::failed(format!(
            "`{shown}` is the filesystem root, not a file; name an output file"
        )));
    };
    match tokio::fs::metadata(parent).await {
        Ok(metadata) if metadata.is_dir() => {}
        Ok(_) => {
            return Err(ToolError::failed(format!(
                "a part of the path `{shown}` is a file, not a directory; choose another output path"
            )));
        }
        Err(_) => {
            return Err(ToolError::failed(format!(
                "the directory of `{shown}` does not exist; create it first or choose an existing directory"
            )));
        }
    }
    match tokio::fs::metadata(&path).await {
        Ok(metadata) if metadata.is_dir() => Err(ToolError::failed(format!(
            "`{shown}` is a directory; name an output file inside it"
        ))),
        Ok(_) if overwrite == Overwrite::Refuse => Err(exists(&shown)),
        _ => Ok(Destination {
            path,
            shown,
            overwrite,
        }),
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

    /// A temporary file beside the output, with the same extension (programs such as
    /// ffmpeg choose the format from it). Removed when dropped, unless committed.
    pub(super) fn temp(&self) -> TempFile {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let parent = self.path.parent().unwrap_or_else(|| Path::new("."));
        let name = self
            .path
            .file_stem()
            .map_or_else(|| "output".into(), |name| name.to_string_lossy());
        let extension = self.extension().unwrap_or_else(|| "tmp".to_owned());
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        TempFile {
            path: parent.join(format!(
                ".{name}.{}.{n}.hermes-tmp.{extension}",
                std::process::id()
            )),
            committed: false,
        }
    }

    /// Put the finished `temp` in place; the output's size in bytes. Blocking.
    ///
    /// # Errors
    ///
    /// A message for the model when the file appeared meanwhile (and may not be
    /// replaced) or cannot be written; the temporary file is removed then.
    pub(super) fn commit(&self, mut temp: TempFile) -> Result<u64, ToolError> {
        let failed =
            |error: io::Error| ToolError::failed(format!("cannot write `{}`: {error}", self.shown));
        let size = File::open(&temp.path)
            .and_then(|file| {
                file.sync_all()?;
                file.metadata()
            })
            .map_err(failed)?
            .len();
        match self.overwrite {
            Overwrite::Replace => fs::rename(&temp.path, &self.path).map_err(failed)?,
            // A link fails if the name is taken, so a file that appeared since
            // `prepare` is never replaced.
            Overwrite::Refuse => match fs::hard_link(&temp.path, &self.path) {
                Ok(()) => {
                    let _ = fs::remove_file(&temp.path);
                }
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(exists(&self.shown));
                }
                // A filesystem without links: check, then rename.
                Err(_) if self.path.exists() => return Err(exists(&self.shown)),
                Err(_) => fs::rename(&temp.path, &self.path).map_err(failed)?,
            },
        }
        temp.committed = true;
        if let Some(parent) = self.path.parent()
            && let Ok(directory) = File::open(parent)
        {
            // Makes the new name durable; a failure here loses nothing written.
            let _ = directory.sync_all();
        }
        Ok(size)
    }
}

/// A temporary output file, removed when dropped unless committed.
#[derive(Debug)]
pub(super) struct TempFile {
    /// Where it is.
    path: PathBuf,
    /// Whether it was put in place (and so must stay).
    committed: bool,
}

impl TempFile {
    /// Where to write.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.committed {
            // It may never have been created: nothing to do then.
            let _ = fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn destination(path: PathBuf, overwrite: Overwrite) -> Destination {
        Destination {
            shown: path.display().to_string(),
            path,
            overwrite,
        }
    }

    #[test]
    fn a_commit_refuses_a_file_that_appeared_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.png");
        let refuse = destination(target.clone(), Overwrite::Refuse);
        let temp = refuse.temp();
        fs::write(temp.path(), b"new").unwrap();
        fs::write(&target, b"old").unwrap();
        let error = refuse.commit(temp).unwrap_err();
        assert!(error.to_string().contains("already exists"), "{error}");
        assert_eq!(fs::read(&target).unwrap(), b"old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);

        let replace = destination(target.clone(), Overwrite::Replace);
        let temp = replace.temp();
        assert!(temp.path().to_string_lossy().ends_with(".png"));
        fs::write(temp.path(), b"new").unwrap();
        assert_eq!(replace.commit(temp).unwrap(), 3);
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}

//! A private file outside the workspace for a program that can only write its output by
//! name (ffmpeg). The output reaches the workspace afterwards, copied through a
//! [`Destination`](super::destination::Destination)'s checked directory, so a directory
//! in the workspace swapped for a symbolic link cannot redirect what the program writes.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use hermes_core::ToolError;

/// A file in the system's temporary directory, made empty and readable by its owner
/// only, removed when dropped.
#[derive(Debug)]
pub(super) struct ScratchFile {
    /// Where it is.
    path: PathBuf,
}

impl ScratchFile {
    /// A new, empty file ending in `.{extension}` (programs such as ffmpeg choose the
    /// format from it).
    ///
    /// # Errors
    ///
    /// A message for the model when the temporary directory is not writable.
    pub(super) async fn create(extension: &str) -> Result<Self, ToolError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.subsec_nanos());
        let name = format!(
            "hermes-output-{}-{}-{nanos:x}.{extension}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(name);
        let mut options = tokio::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        options.mode(0o600);
        options.open(&path).await.map_err(|error| {
            ToolError::failed_with(
                format!(
                    "cannot make a scratch file in {}",
                    std::env::temp_dir().display()
                ),
                error,
            )
        })?;
        Ok(Self { path })
    }

    /// Where it is.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

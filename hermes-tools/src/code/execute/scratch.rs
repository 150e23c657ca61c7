//! The fresh directory each snippet runs in: private to its owner, removed afterwards
//! (also when the call is cancelled or its future dropped).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use hermes_core::ToolError;

/// Distinguishes the directories of one process.
static NEXT: AtomicU64 = AtomicU64::new(0);

/// A scratch directory under the system's temporary directory.
#[derive(Debug)]
pub(super) struct Scratch {
    path: PathBuf,
    removed: bool,
}

impl Scratch {
    /// Make a new, empty directory (mode 0700).
    ///
    /// # Errors
    ///
    /// When the temporary directory is not writable.
    pub(super) async fn create() -> Result<Self, ToolError> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.subsec_nanos());
        let name = format!(
            "hermes-code-{}-{}-{nanos:x}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(name);
        let mut builder = tokio::fs::DirBuilder::new();
        builder.mode(0o700);
        builder.create(&path).await.map_err(|error| {
            ToolError::failed_with(
                format!(
                    "cannot make a scratch directory in {}: {error}",
                    std::env::temp_dir().display()
                ),
                error,
            )
        })?;
        Ok(Self {
            path,
            removed: false,
        })
    }

    /// Where it is.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Remove it and everything in it.
    pub(super) async fn remove(mut self) {
        self.removed = true;
        // Nothing the model can act on if this fails; the system cleans its temp dir.
        let _ = tokio::fs::remove_dir_all(&self.path).await;
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if self.removed {
            return;
        }
        let path = std::mem::take(&mut self.path);
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn_blocking(move || std::fs::remove_dir_all(path));
            }
            Err(_) => {
                let _ = std::fs::remove_dir_all(path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn is_made_fresh_and_removed() {
        let first = Scratch::create().await.unwrap();
        let second = Scratch::create().await.unwrap();
        assert_ne!(first.path(), second.path());
        let path = first.path().to_owned();
        tokio::fs::write(path.join("f"), "x").await.unwrap();
        first.remove().await;
        assert!(!path.exists());
        second.remove().await;
    }
}

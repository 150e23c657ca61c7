//! [`JsonlAudit`]: the audit trail as a JSON Lines file.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use super::{AuditEntry, AuditSink};
use crate::TelemetryError;

/// An [`AuditSink`] appending one JSON line per entry to a file.
///
/// Each entry is written with one `write` on a file opened for appending, so entries
/// from several processes do not interleave, and nothing waits in a buffer: once the
/// call's result is handed on, its entry is in the kernel's hands and survives the
/// process dying. [`durable`](Self::durable) also syncs it to disk.
#[derive(Debug)]
pub struct JsonlAudit {
    file: File,
    path: PathBuf,
    durable: bool,
}

impl JsonlAudit {
    /// Append to `path`, creating it (and its directory) if needed.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Io`] when the file cannot be opened for appending.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TelemetryError> {
        let path = path.as_ref().to_owned();
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| TelemetryError::Io { path, source }
        };
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io(&path))?;
        Ok(Self {
            file,
            path,
            durable: false,
        })
    }

    /// Sync each entry to disk before the call's result is handed on (an `fsync` per
    /// call: safe against power loss, slower).
    #[must_use]
    pub fn durable(mut self) -> Self {
        self.durable = true;
        self
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every entry of the file at `path`, in order.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Io`] when the file cannot be read, or a line is not an entry
    /// (its number is in the message).
    pub fn read(path: impl AsRef<Path>) -> Result<Vec<AuditEntry>, TelemetryError> {
        let path = path.as_ref();
        let io = |source| TelemetryError::Io {
            path: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let mut entries = Vec::new();
        for (number, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(io)?;
            if line.trim().is_empty() {
                continue;
            }
            let entry = serde_json::from_str(&line).map_err(|error| {
                io(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("line {} is not an audit entry: {error}", number + 1),
                ))
            })?;
            entries.push(entry);
        }
        Ok(entries)
    }
}

impl AuditSink for JsonlAudit {
    fn append(&self, entry: &AuditEntry) -> Result<(), TelemetryError> {
        let mut line = serde_json::to_vec(entry).unwrap_or_default();
        line.push(b'\n');
        let io = |source| TelemetryError::Io {
            path: self.path.clone(),
            source,
        };
        (&self.file).write_all(&line).map_err(io)?;
        if self.durable {
            self.file.sync_data().map_err(io)?;
        }
        Ok(())
    }
}

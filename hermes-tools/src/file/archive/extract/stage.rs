//! The staging directory an archive is extracted into first, and the checks every entry
//! passes on its way in: its name, its link target, the limits.
//!
//! The staging directory is a [`Directory`] opened in the destination's handle, and
//! every entry is created relative to it (each directory on the way opened refusing
//! links), so swapping the destination or a directory in it for a symbolic link cannot
//! send a staged file elsewhere.

use std::cell::Cell;
use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

use hermes_core::ToolError;
use serde::Serialize;

use super::split;
use crate::common::directory::{Directory, Kind, Parents};
use crate::file::archive::limits::Budget;
use crate::file::archive::names::{entry_path, hostile, link_stays_inside};
use crate::file::fs::{Stop, failure};

/// Skipped entries listed, at most.
const MAX_LISTED_SKIPS: usize = 50;
/// Bytes copied at a time.
const CHUNK: usize = 64 * 1024;

/// An entry not extracted, and why.
#[derive(Debug, Serialize)]
pub(crate) struct Skipped {
    /// The entry's name in the archive.
    entry: String,
    /// Why it was not extracted.
    reason: String,
}

/// What the staging took in.
#[derive(Debug, Default)]
pub(super) struct Report {
    /// Files staged.
    pub(super) files: u64,
    /// Directory entries staged.
    pub(super) directories: u64,
    /// The files' bytes.
    pub(super) bytes: u64,
    /// Entries not extracted (at most 50 listed).
    pub(super) skipped: Vec<Skipped>,
}

/// A staging directory inside the destination, removed when dropped. Holds no link:
/// links are never created, so nothing written here can land elsewhere.
#[derive(Debug)]
pub(super) struct Stage<'a> {
    /// The destination, which holds the staging directory.
    destination: &'a Directory,
    /// The staging directory's name in the destination.
    name: OsString,
    /// The staging directory.
    dir: Directory,
    /// The archive as the model sees it, for errors.
    shown_archive: String,
    /// The limits, and what counts against them so far.
    budget: Budget,
    /// The call's cancellation.
    stop: &'a Stop,
    /// What was staged.
    report: Report,
    /// Set when the decompressed stream went over its cap.
    stream_tripped: Option<Rc<Cell<bool>>>,
    /// Reused for every copy.
    buffer: Vec<u8>,
}

impl<'a> Stage<'a> {
    /// A fresh staging directory in `destination` for an archive of `archive_bytes`.
    ///
    /// # Errors
    ///
    /// When the directory cannot be made.
    pub(super) fn new(
        destination: &'a Directory,
        shown_destination: &str,
        shown_archive: &str,
        archive_bytes: u64,
        stop: &'a Stop,
    ) -> Result<Self, ToolError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = OsString::from(format!(".hermes-extract-{}-{n}", std::process::id()));
        let dir = destination
            .subdirectory(Path::new(&name), Parents::Create)
            .map_err(|error| failure("extract into", shown_destination, error))?;
        Ok(Self {
            destination,
            name,
            dir,
            shown_archive: shown_archive.to_owned(),
            budget: Budget::extraction(archive_bytes),
            stop,
            report: Report::default(),
            stream_tripped: None,
            buffer: vec![0; CHUNK],
        })
    }

    /// The staging directory.
    pub(super) fn dir(&self) -> &Directory {
        &self.dir
    }

    /// The most bytes the decompressed stream may hold.
    pub(super) fn stream_cap(&self) -> u64 {
        self.budget.stream_cap()
    }

    /// Report read errors as a limit refusal once `tripped` is set.
    pub(super) fn watch_stream(&mut self, tripped: Rc<Cell<bool>>) {
        self.stream_tripped = Some(tripped);
    }

    /// Refuse at once an archive that declares too many entries.
    ///
    /// # Errors
    ///
    /// Past the entry limit.
    pub(super) fn declared_entries(&self, declared: u64) -> Result<(), ToolError> {
        self.budget.declared_entries(declared)
    }

    /// The error for a read of the archive that failed (at entry `name` if known).
    pub(super) fn read_error(&self, name: Option<&str>, error: impl fmt::Display) -> ToolError {
        if self
            .stream_tripped
            .as_ref()
            .is_some_and(|tripped| tripped.get())
        {
            return self.budget.refuse(format!(
                "it decompresses to more than {} bytes",
                self.budget.stream_cap()
            ));
        }
        let at = name.map_or_else(String::new, |name| {
            format!(" at entry `{}`", name.escape_debug())
        });
        ToolError::failed(format!(
            "the archive `{}` is damaged or unsupported{at}: {error}; nothing was extracted",
            self.shown_archive
        ))
    }

    /// A directory entry.
    ///
    /// # Errors
    ///
    /// When its name is hostile, the limits are reached, or it cannot be made.
    pub(super) fn directory(&mut self, name: &str) -> Result<(), ToolError> {
        self.admit()?;
        let Some(relative) = entry_path(name)? else {
            return Ok(());
        };
        self.dir
            .subdirectory(&relative, Parents::Create)
            .map_err(|error| failure("extract", name, error))?;
        self.report.directories += 1;
        Ok(())
    }

    /// A file entry, its content read from `content`; `mode` its Unix permissions and
    /// `compressed` its compressed size, when the format says.
    ///
    /// # Errors
    ///
    /// When its name is hostile, the limits are reached, or the archive or the disk
    /// fails.
    pub(super) fn file(
        &mut self,
        name: &str,
        content: &mut dyn Read,
        mode: Option<u32>,
        compressed: Option<u64>,
    ) -> Result<(), ToolError> {
        self.admit()?;
        let Some(relative) = entry_path(name)? else {
            return Err(self.read_error(Some(name), "a file entry without a name"));
        };
        let mut out = self.create(&relative, name)?;
        self.copy(name, content, &mut out, compressed)?;
        set_mode(&out, mode);
        self.report.files += 1;
        Ok(())
    }

    /// A symbolic link entry: never created; refused when it points outside.
    ///
    /// # Errors
    ///
    /// When the link (or its name) leads outside the destination, or the limits are
    /// reached.
    pub(super) fn symlink(&mut self, name: &str, target: &str) -> Result<(), ToolError> {
        self.admit()?;
        let Some(relative) = entry_path(name)? else {
            return Err(hostile(
                name,
                "is a link in place of the destination itself",
            ));
        };
        if !link_stays_inside(&relative, target) {
            return Err(hostile(
                name,
                &format!(
                    "is a symbolic link to `{}`, outside the destination",
                    target.escape_debug()
                ),
            ));
        }
        self.skip(
            name,
            format!("symbolic link to `{target}`: links are never extracted"),
        );
        Ok(())
    }

    /// A hard link entry: a copy of the entry it names, if that was extracted as a file.
    ///
    /// # Errors
    ///
    /// When the link (or its name) leads outside the destination, or the limits are
    /// reached.
    pub(super) fn hardlink(&mut self, name: &str, target: &str) -> Result<(), ToolError> {
        self.admit()?;
        let Some(relative) = entry_path(name)? else {
            return Err(hostile(
                name,
                "is a link in place of the destination itself",
            ));
        };
        let outside = || {
            hostile(
                name,
                &format!(
                    "is a hard link to `{}`, outside the destination",
                    target.escape_debug()
                ),
            )
        };
        let Some(source) = entry_path(target).map_err(|_| outside())? else {
            return Err(outside());
        };
        let Some(mut content) = self
            .staged_file(&source)
            .map_err(|error| failure("extract", name, error))?
        else {
            self.skip(
                name,
                format!("hard link to `{target}`, which is not a file extracted before it"),
            );
            return Ok(());
        };
        let mode = content
            .metadata()
            .ok()
            .map(|metadata| permissions_of(&metadata));
        let mut out = self.create(&relative, name)?;
        self.copy(name, &mut content, &mut out, None)?;
        set_mode(&out, mode);
        self.report.files += 1;
        Ok(())
    }

    /// An entry of a kind never extracted (a device, a FIFO), named for the report.
    ///
    /// # Errors
    ///
    /// When its name is hostile or the limits are reached.
    pub(super) fn other(&mut self, name: &str, what: &str) -> Result<(), ToolError> {
        self.admit()?;
        entry_path(name)?;
        self.skip(name, format!("{what}: not extracted"));
        Ok(())
    }

    /// What was taken in; the staging directory goes when the stage is dropped.
    pub(super) fn finish(mut self) -> Report {
        std::mem::take(&mut self.report)
    }

    /// Count one more entry, unless the call was stopped.
    fn admit(&mut self) -> Result<(), ToolError> {
        self.stop.check()?;
        self.budget.entry()
    }

    /// Note an entry that was not extracted.
    fn skip(&mut self, name: &str, reason: String) {
        if self.report.skipped.len() < MAX_LISTED_SKIPS {
            self.report.skipped.push(Skipped {
                entry: name.to_owned(),
                reason,
            });
        }
    }

    /// Create the staged file at `relative` (the entry `name`), replacing the one an
    /// earlier entry of the same name staged.
    fn create(&self, relative: &Path, name: &str) -> Result<File, ToolError> {
        let create = || -> io::Result<File> {
            let (parent, file_name) = split(relative)?;
            let parent = self.dir.subdirectory(parent, Parents::Create)?;
            match parent.create_new(file_name) {
                Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
                    parent.remove_entry(file_name)?;
                    parent.create_new(file_name)
                }
                created => created,
            }
        };
        create().map_err(|error| failure("extract", name, error))
    }

    /// The file staged at `relative`, open for reading; `None` when nothing or something
    /// else than a file is staged there.
    fn staged_file(&self, relative: &Path) -> io::Result<Option<File>> {
        let (parent, file_name) = split(relative)?;
        let parent = match self.dir.subdirectory(parent, Parents::MustExist) {
            Ok(parent) => parent,
            Err(_) => return Ok(None),
        };
        match parent.entry(file_name)? {
            Some(entry) if entry.kind == Kind::File => parent.open_file(file_name).map(Some),
            _ => Ok(None),
        }
    }

    /// Copy `content` into `out`, counting every chunk against the limits.
    fn copy(
        &mut self,
        name: &str,
        content: &mut dyn Read,
        out: &mut File,
        compressed: Option<u64>,
    ) -> Result<(), ToolError> {
        let mut written = 0u64;
        loop {
            self.stop.check()?;
            let n = match content.read(&mut self.buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(self.read_error(Some(name), error)),
            };
            written += n as u64;
            self.budget.grow(name, written, n as u64, compressed)?;
            out.write_all(&self.buffer[..n])
                .map_err(|error| failure("extract", name, error))?;
        }
        self.report.bytes += written;
        Ok(())
    }
}

impl Drop for Stage<'_> {
    fn drop(&mut self) {
        let _ = self.destination.remove_tree(&self.name);
    }
}

/// Give an extracted file the entry's permission bits (never set-id or sticky bits).
#[cfg(unix)]
fn set_mode(file: &File, mode: Option<u32>) {
    use std::os::unix::fs::PermissionsExt;
    if let Some(mode) = mode {
        let _ = file.set_permissions(fs::Permissions::from_mode(mode & 0o777));
    }
}

/// Permissions are left as created off Unix.
#[cfg(not(unix))]
fn set_mode(_file: &File, _mode: Option<u32>) {}

/// A file's permission bits.
#[cfg(unix)]
fn permissions_of(metadata: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode()
}

/// A file's permission bits, as near as the platform says.
#[cfg(not(unix))]
fn permissions_of(_metadata: &fs::Metadata) -> u32 {
    0o644
}

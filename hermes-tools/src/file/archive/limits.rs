//! Limits against archive bombs, and the running count an extraction (or a creation)
//! keeps against them.

use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

use hermes_core::ToolError;

/// The most entries (files, directories, links) an archive may hold.
pub(crate) const MAX_ENTRIES: u64 = 10_000;
/// The most bytes all entries may hold together, uncompressed.
pub(crate) const MAX_TOTAL_BYTES: u64 = 1024 * 1024 * 1024;
/// The most bytes one entry may hold, uncompressed.
pub(crate) const MAX_ENTRY_BYTES: u64 = 512 * 1024 * 1024;
/// The highest compression ratio allowed, for one zip entry and for the whole archive.
pub(crate) const MAX_RATIO: u64 = 200;
/// Ratios are judged only past this many bytes: a small file of zeros compresses far
/// better than 200:1 and is no bomb.
const RATIO_FLOOR: u64 = 1024 * 1024;
/// Bytes a tar stream may hold beyond its entries' content: headers, long names,
/// padding.
const STREAM_HEADROOM: u64 = 32 * 1024 * 1024;

/// Which way the archive is going, for the wording of refusals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Purpose {
    /// Reading an archive someone else made: a refusal means it may be hostile.
    Extract,
    /// Making one from workspace files: a refusal means the sources are too big.
    Create,
}

/// The entries and bytes seen so far.
#[derive(Debug)]
pub(super) struct Budget {
    /// Extraction or creation.
    purpose: Purpose,
    /// The archive's own size, when extracting (for the overall ratio).
    archive_bytes: u64,
    /// Entries so far.
    entries: u64,
    /// Bytes so far.
    total: u64,
}

impl Budget {
    /// A count for extracting an archive of `archive_bytes` bytes.
    pub(super) fn extraction(archive_bytes: u64) -> Self {
        Self {
            purpose: Purpose::Extract,
            archive_bytes,
            entries: 0,
            total: 0,
        }
    }

    /// A count for creating an archive.
    pub(super) fn creation() -> Self {
        Self {
            purpose: Purpose::Create,
            archive_bytes: 0,
            entries: 0,
            total: 0,
        }
    }

    /// Bytes counted so far.
    pub(super) fn total(&self) -> u64 {
        self.total
    }

    /// Count one more entry.
    ///
    /// # Errors
    ///
    /// Past [`MAX_ENTRIES`].
    pub(super) fn entry(&mut self) -> Result<(), ToolError> {
        self.entries += 1;
        if self.entries > MAX_ENTRIES {
            return Err(self.refuse(format!("it has more than {MAX_ENTRIES} entries")));
        }
        Ok(())
    }

    /// Refuse at once an archive that says it holds more than [`MAX_ENTRIES`].
    ///
    /// # Errors
    ///
    /// When `declared` is over the limit.
    pub(super) fn declared_entries(&self, declared: u64) -> Result<(), ToolError> {
        if declared > MAX_ENTRIES {
            return Err(self.refuse(format!(
                "it has {declared} entries, more than the limit of {MAX_ENTRIES}"
            )));
        }
        Ok(())
    }

    /// Count `chunk` more bytes of entry `name`, which then holds `entry_bytes`; its
    /// compressed size is `compressed` when the format says.
    ///
    /// # Errors
    ///
    /// Past [`MAX_ENTRY_BYTES`], [`MAX_TOTAL_BYTES`] or [`MAX_RATIO`].
    pub(super) fn grow(
        &mut self,
        name: &str,
        entry_bytes: u64,
        chunk: u64,
        compressed: Option<u64>,
    ) -> Result<(), ToolError> {
        self.total += chunk;
        if entry_bytes > MAX_ENTRY_BYTES {
            return Err(self.refuse(format!(
                "entry `{name}` holds more than {} MiB",
                MAX_ENTRY_BYTES / (1024 * 1024)
            )));
        }
        if self.total > MAX_TOTAL_BYTES {
            return Err(self.refuse(format!(
                "its entries hold more than {} MiB in all",
                MAX_TOTAL_BYTES / (1024 * 1024)
            )));
        }
        if self.purpose == Purpose::Create {
            return Ok(());
        }
        if let Some(compressed) = compressed {
            if entry_bytes > RATIO_FLOOR
                && entry_bytes > MAX_RATIO.saturating_mul(compressed.max(1))
            {
                return Err(self.refuse(format!(
                    "entry `{name}` expands more than {MAX_RATIO} times ({compressed} bytes compressed, over {entry_bytes} uncompressed)"
                )));
            }
        }
        if self.total > RATIO_FLOOR
            && self.total > MAX_RATIO.saturating_mul(self.archive_bytes.max(1))
        {
            return Err(self.refuse(format!(
                "it expands more than {MAX_RATIO} times ({} bytes compressed, over {} uncompressed)",
                self.archive_bytes, self.total
            )));
        }
        Ok(())
    }

    /// The most bytes the decompressed stream of a tar.gz archive may hold.
    pub(super) fn stream_cap(&self) -> u64 {
        MAX_TOTAL_BYTES
            .min(RATIO_FLOOR.max(MAX_RATIO.saturating_mul(self.archive_bytes)))
            .saturating_add(STREAM_HEADROOM)
    }

    /// The refusal for an archive over a limit, in the words of its purpose.
    pub(super) fn refuse(&self, why: String) -> ToolError {
        match self.purpose {
            Purpose::Extract => ToolError::failed(format!(
                "the archive was refused because {why} (limits against archive bombs); nothing was extracted"
            )),
            Purpose::Create => ToolError::failed(format!(
                "the archive was not created because {why}; archive fewer or smaller paths"
            )),
        }
    }
}

/// A reader that fails once more than `cap` bytes came through, and says so in
/// `tripped` (the error itself may reach the caller wrapped by a parser).
#[derive(Debug)]
pub(super) struct Bounded<R> {
    /// The stream bounded.
    inner: R,
    /// Bytes read so far.
    read: u64,
    /// The most bytes allowed.
    cap: u64,
    /// Set when the cap was hit.
    tripped: Rc<Cell<bool>>,
}

impl<R> Bounded<R> {
    /// Bound `inner` to `cap` bytes; `tripped` becomes true when the bound is hit.
    pub(super) fn new(inner: R, cap: u64, tripped: Rc<Cell<bool>>) -> Self {
        Self {
            inner,
            read: 0,
            cap,
            tripped,
        }
    }
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.cap {
            self.tripped.set(true);
            return Err(io::Error::other(
                "the decompressed archive is over its size limit",
            ));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_files_of_zeros_pass_big_ones_do_not() {
        let mut budget = Budget::extraction(1000);
        budget.entry().unwrap();
        budget.grow("a", 100_000, 100_000, Some(100)).unwrap();
        let error = budget.grow("b", 2 << 20, 2 << 20, Some(100)).unwrap_err();
        assert!(
            error.to_string().contains("expands more than 200 times"),
            "{error}"
        );
    }

    #[test]
    fn creation_ignores_ratios() {
        let mut budget = Budget::creation();
        budget.grow("a", 2 << 20, 2 << 20, Some(1)).unwrap();
    }
}

//! Reading a tar.gz archive into a [`Stage`].

use std::cell::Cell;
use std::fs::File;
use std::io::BufReader;
use std::rc::Rc;

use flate2::read::GzDecoder;
use hermes_core::ToolError;
use tar::EntryType;

use super::Stage;
use crate::file::archive::limits::Bounded;

/// Stage every entry of the tar.gz archive `file`.
///
/// # Errors
///
/// When the archive is damaged, hostile or over the limits (the decompressed stream
/// included, so a huge header cannot fill memory past the cap).
pub(super) fn read(file: File, stage: &mut Stage<'_>) -> Result<(), ToolError> {
    let tripped = Rc::new(Cell::new(false));
    let stream = Bounded::new(
        GzDecoder::new(BufReader::new(file)),
        stage.stream_cap(),
        Rc::clone(&tripped),
    );
    stage.watch_stream(tripped);
    let mut archive = tar::Archive::new(stream);
    let entries = archive
        .entries()
        .map_err(|error| stage.read_error(None, error))?;
    for entry in entries {
        let mut entry = entry.map_err(|error| stage.read_error(None, error))?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let link = entry
            .link_name_bytes()
            .map(|target| String::from_utf8_lossy(&target).into_owned())
            .unwrap_or_default();
        match entry.header().entry_type() {
            EntryType::Regular | EntryType::Continuous | EntryType::GNUSparse => {
                let mode = entry.header().mode().ok();
                stage.file(&name, &mut entry, mode, None)?;
            }
            EntryType::Directory => stage.directory(&name)?,
            EntryType::Symlink => stage.symlink(&name, &link)?,
            EntryType::Link => stage.hardlink(&name, &link)?,
            // Metadata for the entries that follow, not an entry.
            EntryType::XGlobalHeader => {}
            EntryType::Char | EntryType::Block => stage.other(&name, "a device")?,
            EntryType::Fifo => stage.other(&name, "a FIFO")?,
            _ => stage.other(&name, "an entry of an unknown type")?,
        }
    }
    Ok(())
}

//! Reading a zip archive into a [`Stage`].

use std::fs::File;
use std::io::{BufReader, Read};

use hermes_core::ToolError;
use zip::ZipArchive;

use super::Stage;

/// The longest symbolic link target read.
const MAX_LINK_TARGET: u64 = 4096;

/// Stage every entry of the zip archive `file`.
///
/// # Errors
///
/// When the archive is damaged, encrypted, hostile or over the limits.
pub(super) fn read(file: File, stage: &mut Stage<'_>) -> Result<(), ToolError> {
    let mut archive =
        ZipArchive::new(BufReader::new(file)).map_err(|error| stage.read_error(None, error))?;
    stage.declared_entries(archive.len() as u64)?;
    for index in 0..archive.len() {
        let mut entry = archive
            .by_index(index)
            .map_err(|error| stage.read_error(None, error))?;
        let name = entry.name().to_owned();
        if entry.is_dir() {
            stage.directory(&name)?;
        } else if entry.is_symlink() {
            let mut target = Vec::new();
            (&mut entry)
                .take(MAX_LINK_TARGET)
                .read_to_end(&mut target)
                .map_err(|error| stage.read_error(Some(&name), error))?;
            stage.symlink(&name, &String::from_utf8_lossy(&target))?;
        } else {
            let compressed = entry.compressed_size();
            let mode = entry.unix_mode();
            stage.file(&name, &mut entry, mode, Some(compressed))?;
        }
    }
    Ok(())
}

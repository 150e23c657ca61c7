//! The `file` family: `file_read`, `file_write`, `file_edit`, `list_directory`,
//! `file_search`, `file_delete` and `archive`.
//!
//! One module per tool; what several tools share lives once: [`fs`] (blocking work,
//! cancellation, error messages), [`text`] (binary detection and decoding), [`atomic`]
//! (atomic replacement), [`walk`] (directory walks honouring hidden files and
//! `.gitignore`), [`crate::common::directory`] (a checked directory handle, against
//! symbolic-link races) and [`crate::common::time`]. Every path goes through
//! [`resolve`](crate::common::paths::resolve), every output is bounded.

mod archive;
mod atomic;
mod delete;
mod edit;
mod fs;
mod list;
mod read;
mod search;
mod text;
mod walk;
mod write;

use std::path::Path;
use std::sync::Arc;

use hermes_core::{Error, Tool};

use crate::common::Shared;

/// The tag every tool of the family carries (the README's table reads it).
const FAMILY_TAG: &str = "family:file";

/// The most a file tool's result may be, whatever the configured output cap.
const MAX_RESULT_BYTES: usize = 256 * 1024;

/// Every tool of the family.
///
/// # Errors
///
/// An invalid spec: the specs are constants of this crate, so a bug the tests catch.
pub(crate) fn tools(shared: &Arc<Shared>) -> Result<Vec<Arc<dyn Tool>>, Error> {
    Ok(vec![
        Arc::new(read::FileRead::new(shared)?),
        Arc::new(write::FileWrite::new(shared)?),
        Arc::new(edit::FileEdit::new(shared)?),
        Arc::new(list::ListDirectory::new(shared)?),
        Arc::new(search::FileSearch::new(shared)?),
        Arc::new(delete::FileDelete::new(shared)?),
        Arc::new(archive::Archive::new(shared)?),
    ])
}

/// The cap on a tool's whole result: room for the configured text cap escaped as JSON,
/// plus the result's other fields, within [`MAX_RESULT_BYTES`].
fn result_cap(shared: &Shared) -> usize {
    shared
        .config
        .max_output_bytes()
        .saturating_mul(2)
        .saturating_add(4096)
        .min(MAX_RESULT_BYTES)
}

/// `path` as [`display`](crate::common::paths::display) shows it, for walks that name many
/// paths under one workspace `root` (resolved once).
fn shown_under(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolsConfig;

    #[test]
    fn every_spec_builds() {
        let shared = Arc::new(Shared::new(ToolsConfig::default()));
        let names: Vec<String> = tools(&shared)
            .unwrap()
            .iter()
            .map(|tool| tool.spec().name().to_owned())
            .collect();
        assert_eq!(
            names,
            [
                "file_read",
                "file_write",
                "file_edit",
                "list_directory",
                "file_search",
                "file_delete",
                "archive"
            ]
        );
    }
}

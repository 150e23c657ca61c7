//! The git tools of the `platform` family: `git_status`, `git_log`, `git_diff` and
//! `git_commit`, on libgit2 (the `git2` crate, vendored: no system library needed).
//!
//! One module per tool; what they share lives once: [`crate::common::blocking`] (libgit2
//! work on tokio's blocking pool, able to notice cancellation), [`repository`] (finding the repository a
//! call names, inside the workspace, and turning path arguments into pathspecs),
//! [`revision`] (revisions, HEAD and short ids), [`change`] (the kinds of change a file
//! can have), [`diffstat`] (a diff as per-file statistics and patch text) and [`time`]
//! (commit times as RFC 3339). `git_commit` alone uses [`stage`] (staging paths) and
//! [`author`] (who signs a commit).

mod author;
mod change;
mod commit;
mod diff;
mod diffstat;
mod log;
mod repository;
mod revision;
mod stage;
mod status;
mod time;

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Error, Tool};

use crate::common::Shared;

/// The most a git tool's result may be, whatever the configured output cap.
const MAX_RESULT_BYTES: usize = 256 * 1024;

/// How long one git call may take: libgit2 works on local files only.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The most files a result lists (status entries, files of a diff or a commit).
const MAX_FILES: usize = 500;

/// Every git tool.
///
/// # Errors
///
/// An invalid spec: the specs are constants of this crate, so a bug the tests catch.
pub(crate) fn tools(shared: &Arc<Shared>) -> Result<Vec<Arc<dyn Tool>>, Error> {
    Ok(vec![
        Arc::new(status::GitStatus::new(shared)?),
        Arc::new(log::GitLog::new(shared)?),
        Arc::new(diff::GitDiff::new(shared)?),
        Arc::new(commit::GitCommit::new(shared)?),
    ])
}

/// The cap on a git tool's whole result: room for the configured text cap escaped as
/// JSON, plus the result's other fields, within [`MAX_RESULT_BYTES`].
fn result_cap(shared: &Shared) -> usize {
    shared
        .config
        .max_output_bytes()
        .saturating_mul(2)
        .saturating_add(16 * 1024)
        .min(MAX_RESULT_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolsConfig;

    #[test]
    fn every_spec_builds_with_the_family_tag() {
        let shared = Arc::new(Shared::new(ToolsConfig::default()));
        let tools = tools(&shared).unwrap_or_default();
        let names: Vec<&str> = tools.iter().map(|tool| tool.spec().name()).collect();
        assert_eq!(names, ["git_status", "git_log", "git_diff", "git_commit"]);
        for tool in &tools {
            assert!(
                tool.spec()
                    .tags()
                    .iter()
                    .any(|tag| tag == super::super::FAMILY_TAG)
            );
            assert!(tool.spec().description().len() >= 40);
        }
    }
}

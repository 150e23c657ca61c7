//! Replays every input saved under `fuzz/regressions/<target>/` (crashes the fuzzers
//! found, once minimised, and a few seeds) through the same checks the fuzz targets run,
//! so stable CI keeps them fixed without cargo-fuzz or nightly. See `fuzz/README.md`.
//!
//! A file whose name starts with `open-` reproduces a bug reported but not fixed yet:
//! those run only in the ignored `open_bugs` test. Once the bug is fixed, drop the
//! prefix so the input guards the fix.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod fuzz_checks;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// Whether a saved input reproduces an open bug.
fn is_open(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with("open-"))
}

/// The saved inputs of `target`, sorted by name.
fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/regressions")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Run the saved inputs of `target` (those of open bugs, or the others); report all
/// that fail, not just the first.
fn replay(target: &str, open: bool) {
    let (_, check) = fuzz_checks::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .unwrap();
    let files: Vec<PathBuf> = inputs(target)
        .into_iter()
        .filter(|file| is_open(file) == open)
        .collect();
    let failed: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let data = std::fs::read(file).unwrap();
            catch_unwind(AssertUnwindSafe(|| check(&data)))
                .err()
                .map(|_| file.display().to_string())
        })
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} inputs fail (messages above):\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
    );
}

#[test]
fn every_target_has_a_regression_folder() {
    for (target, _) in fuzz_checks::TARGETS {
        assert!(
            inputs(target).iter().any(|file| !is_open(file)),
            "{target} has no saved input"
        );
    }
}

#[test]
#[ignore = "replays the inputs of bugs reported but not fixed yet (`open-*` files), which fail \
            until they are fixed"]
fn open_bugs() {
    for (target, _) in fuzz_checks::TARGETS {
        replay(target, true);
    }
}

#[test]
fn hermes_parser() {
    replay("hermes_parser", false);
}

#[test]
fn dispatch_args() {
    replay("dispatch_args", false);
}

#[test]
fn yaml_loaders() {
    replay("yaml_loaders", false);
}

#[test]
fn path_normaliser() {
    replay("path_normaliser", false);
}

#[test]
fn command_detector() {
    replay("command_detector", false);
}

#[test]
fn sse_decoder() {
    replay("sse_decoder", false);
}

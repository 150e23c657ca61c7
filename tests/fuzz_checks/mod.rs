//! The checks behind the fuzz targets in `fuzz/`, shared with `tests/fuzz_regressions.rs`,
//! which replays the saved inputs through them on stable. Each `check` takes the raw
//! fuzzer input and panics (an assertion) when the property it states does not hold.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub(crate) mod command_detector;
pub(crate) mod dispatch_args;
pub(crate) mod hermes_parser;
pub(crate) mod input;
pub(crate) mod path_normaliser;
pub(crate) mod sse_decoder;
pub(crate) mod yaml_loaders;

/// A target's name (its folder under `fuzz/regressions/`) and its check.
pub(crate) type Target = (&'static str, fn(&[u8]));

/// Every target.
pub(crate) const TARGETS: &[Target] = &[
    ("hermes_parser", hermes_parser::check),
    ("dispatch_args", dispatch_args::check),
    ("yaml_loaders", yaml_loaders::check),
    ("path_normaliser", path_normaliser::check),
    ("command_detector", command_detector::check),
    ("sse_decoder", sse_decoder::check),
];

/// One current-thread runtime with its timer, for the async checks (built once: the
/// fuzzer calls a check many thousand times a second).
pub(crate) fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: std::sync::LazyLock<tokio::runtime::Runtime> = std::sync::LazyLock::new(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
    });
    &RUNTIME
}

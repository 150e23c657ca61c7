//! The fuzz targets' shared code: the checks in `../tests/fuzz_checks/`, which
//! `tests/fuzz_regressions.rs` replays on stable, compiled here once for every target.

#[allow(
    dead_code,
    reason = "the target table and helpers serve tests/fuzz_regressions.rs"
)]
#[path = "../../tests/fuzz_checks/mod.rs"]
mod checks;

macro_rules! targets {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("The `", stringify!($name), "` check on one fuzzer input.")]
        pub fn $name(data: &[u8]) {
            checks::$name::check(data);
        }
    )*};
}

targets!(
    hermes_parser,
    dispatch_args,
    yaml_loaders,
    path_normaliser,
    command_detector,
    sse_decoder,
);

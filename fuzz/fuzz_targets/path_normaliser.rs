//! Fuzz target `path_normaliser`: the property is in `tests/fuzz_checks/path_normaliser.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hermes_fuzz::path_normaliser(data));

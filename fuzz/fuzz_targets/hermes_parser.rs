//! Fuzz target `hermes_parser`: the property is in `tests/fuzz_checks/hermes_parser.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hermes_fuzz::hermes_parser(data));

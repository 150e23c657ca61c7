//! Fuzz target `sse_decoder`: the property is in `tests/fuzz_checks/sse_decoder.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hermes_fuzz::sse_decoder(data));

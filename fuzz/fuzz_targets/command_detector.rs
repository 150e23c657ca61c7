//! Fuzz target `command_detector`: the property is in `tests/fuzz_checks/command_detector.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hermes_fuzz::command_detector(data));

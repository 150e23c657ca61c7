//! Fuzz target `dispatch_args`: the property is in `tests/fuzz_checks/dispatch_args.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hermes_fuzz::dispatch_args(data));

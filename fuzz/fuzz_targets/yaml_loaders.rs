//! Fuzz target `yaml_loaders`: the property is in `tests/fuzz_checks/yaml_loaders.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hermes_fuzz::yaml_loaders(data));

//! One module per noun.

pub(crate) mod mcp;
pub(crate) mod parse;
pub(crate) mod permissions;
pub(crate) mod register;
pub(crate) mod run;
pub(crate) mod telemetry;
pub(crate) mod tool;

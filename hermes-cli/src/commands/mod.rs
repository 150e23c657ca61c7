//! One module per noun.

pub(crate) mod permissions;
pub(crate) mod tool;

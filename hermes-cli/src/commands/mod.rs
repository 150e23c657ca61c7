//! One module per noun.

pub(crate) mod tool;

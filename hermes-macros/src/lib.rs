//! The `#[tool]` attribute of [hermes](https://github.com/hermes-rs/hermes): put it on a
//! function and the function becomes a tool. Its doc comment is the description, its
//! parameters the JSON Schema, and it registers itself so `Registry::from_linked()`
//! finds it. Use it through `hermes` or `hermes-core` (`use hermes::tool;`), which
//! re-export it; the documentation with examples is on that re-export.

mod resolve;
mod tool;

use proc_macro::TokenStream;

/// Turn a function into a hermes tool. See `hermes_core::tool` for the full reference.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}

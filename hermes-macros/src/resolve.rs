//! The one place that decides how generated code names hermes-core.

use proc_macro_crate::{FoundCrate, crate_name};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;

/// The path of hermes-core's `__private` module, as the user's crate can reach it:
/// through the `hermes` facade if it depends on that, else through `hermes-core`.
pub(crate) fn private_path() -> TokenStream {
    let root = ["hermes", "hermes-core"]
        .into_iter()
        .find_map(|package| crate_name(package).ok().map(|found| (package, found)))
        .map_or_else(
            || quote!(::hermes_core),
            |(package, found)| {
                let name = match found {
                    // The package's own tests, examples and benches see it by its name.
                    FoundCrate::Itself => package.replace('-', "_"),
                    FoundCrate::Name(name) => name,
                };
                let ident = Ident::new(&name, Span::call_site());
                quote!(::#ident)
            },
        );
    quote!(#root::__private)
}

/// A path as the string `#[serde(crate = "...")]` wants.
pub(crate) fn path_string(path: &TokenStream) -> String {
    path.to_string().replace(' ', "")
}

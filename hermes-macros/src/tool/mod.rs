//! `#[tool]`: parse the attribute and the function, check them, generate the tool.
//!
//! Every problem found is reported, each at the tokens it is about, in one go.

mod docs;
mod expand;
mod json;
mod options;
mod param;
mod signature;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ItemFn;

/// Parse, check, expand. On errors, they are all reported and the function is kept
/// as written (without its `#[arg]`s), so the rest of the crate still compiles.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut function: ItemFn = match syn::parse2(item.clone()) {
        Ok(function) => function,
        Err(error) => {
            let mut tokens = error.into_compile_error();
            tokens.extend(item);
            return tokens;
        }
    };
    match check(attr, &mut function) {
        Ok(tokens) => tokens,
        Err(error) => {
            let mut tokens = error.into_compile_error();
            function.to_tokens(&mut tokens);
            tokens
        }
    }
}

fn check(attr: TokenStream, function: &mut ItemFn) -> syn::Result<TokenStream> {
    let mut errors = Errors::default();
    let options = errors.keep(options::Options::parse(attr, function));
    let signature = errors.keep(signature::Signature::parse(function));
    let docs = errors.keep(docs::Docs::parse(&function.attrs));
    if let (Some(signature), Some(docs)) = (&signature, &docs) {
        errors.keep(docs.check_against(signature));
    }
    if let (Some(options), Some(docs)) = (&options, &docs) {
        if options.description.is_none() && docs.summary.is_empty() {
            errors.push(syn::Error::new(
                function.sig.ident.span(),
                "document this function: the first paragraph of its doc comment is the description the model reads (or set `#[tool(description = \"...\")]`)",
            ));
        }
    }
    errors.finish()?;
    let (Some(options), Some(signature), Some(docs)) = (options, signature, docs) else {
        // finish() returned an error whenever one of them is missing.
        return Ok(TokenStream::new());
    };
    Ok(expand::expand(function, &options, &signature, &docs))
}

/// Collects errors so all of them are reported at once.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn keep<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.push(error);
                None
            }
        }
    }

    fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

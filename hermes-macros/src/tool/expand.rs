//! Code generation: the function as written, a handle type, a hidden argument struct,
//! the `Tool` impl, and the link-time registration.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use serde_json::Value;
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, LitStr};

use super::docs::Docs;
use super::options::Options;
use super::signature::{Output, Param, Signature};
use crate::resolve;

pub(crate) fn expand(
    function: &ItemFn,
    options: &Options,
    signature: &Signature,
    docs: &Docs,
) -> TokenStream {
    let private = resolve::private_path();
    let path = resolve::path_string(&private);
    let serde_path = LitStr::new(&format!("{path}::serde"), Span::call_site());
    let schemars_path = LitStr::new(&format!("{path}::schemars"), Span::call_site());
    let vis = &function.vis;
    let fn_ident = &function.sig.ident;
    let handle = &options.handle;
    let name = &options.name;
    let description = options
        .description
        .clone()
        .unwrap_or_else(|| docs.summary.clone());
    let handle_doc = format!(
        "The `{name}` tool: [`{fn_ident}`] as a hermes `Tool` (register it, or find it with `Registry::from_linked`)."
    );

    let field_idents: Vec<&Ident> = signature.values().map(|(ident, _, _)| ident).collect();
    let fields = signature.values().map(|(ident, ty, _)| quote!(#ident: #ty));
    let param_docs = signature.values().map(|(ident, _, arg)| {
        let param = ident.to_string();
        let mut keywords = arg.keywords.clone();
        if let Some(text) = arg
            .description
            .as_ref()
            .or_else(|| docs.arguments.get(&param))
        {
            keywords.insert("description".to_owned(), Value::String(text.clone()));
        }
        let keywords = Value::Object(keywords).to_string();
        let has_default = arg.has_default();
        let kind = arg.kind.clone().unwrap_or_default();
        quote!(#private::ParamDoc { name: #param, keywords: #keywords, has_default: #has_default, kind: #kind })
    });
    let scope = options.scope.variant();
    let timeout_ms = options.timeout_ms;
    let tags = &options.tags;
    let permissions = &options.permissions;
    let max_result_bytes = options.max_result_bytes;

    let body = run_body(function, options, signature, &private);

    quote! {
        #function

        #[doc = #handle_doc]
        #[derive(Debug, Clone, Copy, Default)]
        #vis struct #handle;

        const _: () = {
            #[derive(#private::serde::Deserialize, #private::schemars::JsonSchema)]
            #[serde(crate = #serde_path, deny_unknown_fields)]
            #[schemars(crate = #schemars_path)]
            struct __HermesArgs {
                #(#fields,)*
            }

            impl #private::Tool for #handle {
                fn spec(&self) -> &#private::ToolSpec {
                    static SPEC: #private::LazyLock<#private::ToolSpec> =
                        #private::LazyLock::new(|| {
                            #private::spec(
                                #name,
                                #description,
                                #private::schema_for::<__HermesArgs>(),
                                &[#(#param_docs),*],
                                #private::Scope::#scope,
                                #timeout_ms,
                                &[#(#tags),*],
                                &[#(#permissions),*],
                                #max_result_bytes,
                            )
                        });
                    &SPEC
                }

                fn run<'__hermes>(
                    &'__hermes self,
                    __hermes_args: #private::serde_json::Value,
                    __hermes_ctx: &'__hermes #private::ToolContext,
                ) -> #private::ToolFuture<'__hermes> {
                    let __HermesArgs { #(#field_idents,)* } =
                        match #private::parse_args::<__HermesArgs>(__hermes_args) {
                            ::core::result::Result::Ok(args) => args,
                            ::core::result::Result::Err(error) => {
                                return #private::ToolFuture::ready(::core::result::Result::Err(error));
                            }
                        };
                    #body
                }
            }

            #private::inventory::submit! {
                #private::LinkedTool::new(
                    || -> #private::Arc<dyn #private::Tool> { #private::Arc::new(#handle) },
                    ::core::concat!(::core::file!(), ":", ::core::line!()),
                )
            }
        };
    }
}

/// The end of `run`: call the function (inline, awaited, or on the blocking pool) and
/// turn what it returns into the call's result.
fn run_body(
    function: &ItemFn,
    options: &Options,
    signature: &Signature,
    private: &TokenStream,
) -> TokenStream {
    let fn_ident = &function.sig.ident;
    let name = &options.name;
    if options.blocking {
        let args = call_args(signature, quote!(&__hermes_ctx), quote!(__hermes_ctx));
        let result = convert(signature, quote!(#fn_ident(#(#args),*)), private);
        return quote! {
            let __hermes_ctx = ::core::clone::Clone::clone(__hermes_ctx);
            #private::ToolFuture::new(#private::run_blocking(#name, move || #result))
        };
    }
    let args = call_args(
        signature,
        quote!(__hermes_ctx),
        quote!(::core::clone::Clone::clone(__hermes_ctx)),
    );
    if signature.is_async {
        let result = convert(signature, quote!(#fn_ident(#(#args),*).await), private);
        quote!(#private::ToolFuture::new(async move { #result }))
    } else {
        let result = convert(signature, quote!(#fn_ident(#(#args),*)), private);
        quote!(#private::ToolFuture::ready(#result))
    }
}

fn call_args(
    signature: &Signature,
    by_ref: TokenStream,
    by_value: TokenStream,
) -> Vec<TokenStream> {
    signature
        .params
        .iter()
        .map(|param| match param {
            Param::Value { ident, .. } => quote!(#ident),
            Param::Context { by_ref: true } => by_ref.clone(),
            Param::Context { by_ref: false } => by_value.clone(),
        })
        .collect()
}

/// `value` (the call) as a `Result<ToolOutput, ToolError>`.
fn convert(signature: &Signature, value: TokenStream, private: &TokenStream) -> TokenStream {
    match &signature.output {
        Output::Unit => quote!({ #value; #private::unit_output() }),
        Output::Value(ty) => quote_spanned! {ty.span()=>
            #private::IntoToolOutput::into_tool_output(#value)
        },
        Output::Result { ok, tool_error } => {
            let ok_value = if is_unit(ok) {
                quote!(#private::unit_output())
            } else {
                quote_spanned!(ok.span()=> #private::IntoToolOutput::into_tool_output(value))
            };
            let err_value = if *tool_error {
                quote!(::core::result::Result::Err(error))
            } else {
                quote!(::core::result::Result::Err(#private::display_error(error)))
            };
            quote! {
                match #value {
                    ::core::result::Result::Ok(value) => { let _ = &value; #ok_value }
                    ::core::result::Result::Err(error) => #err_value,
                }
            }
        }
    }
}

fn is_unit(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Tuple(tuple) if tuple.elems.is_empty())
}

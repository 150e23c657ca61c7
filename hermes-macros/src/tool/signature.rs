//! What the function's signature means for the tool: its parameters, the injected
//! context, how to turn its return value into a result.

use syn::{FnArg, ItemFn, Pat, ReturnType, Type};

use super::Errors;
use super::param::ArgOptions;

/// A checked `#[tool]` signature.
#[derive(Debug)]
pub(crate) struct Signature {
    pub(crate) params: Vec<Param>,
    pub(crate) is_async: bool,
    pub(crate) output: Output,
}

/// One parameter, in order.
#[derive(Debug)]
pub(crate) enum Param {
    /// Part of the arguments (and of the schema).
    Value {
        ident: syn::Ident,
        ty: Box<Type>,
        options: Box<ArgOptions>,
    },
    /// The `ToolContext`, injected: by reference or by value (a clone).
    Context { by_ref: bool },
}

/// How the return value becomes a tool result.
#[derive(Debug)]
pub(crate) enum Output {
    /// `T`: serialized (or a `ToolOutput` as is).
    Value(Box<Type>),
    /// `()`.
    Unit,
    /// `Result<T, E>`: `Ok` as above; `Err` by `Display`, or as is when `E` is `ToolError`.
    Result { ok: Box<Type>, tool_error: bool },
}

impl Signature {
    /// Check the signature and strip the `#[arg]` attributes from it.
    pub(crate) fn parse(function: &mut ItemFn) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let sig = &mut function.sig;
        if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
            errors.push(syn::Error::new_spanned(
                &sig.generics,
                "#[tool] functions cannot be generic: the schema is built from concrete types",
            ));
        }
        if let Some(unsafety) = &sig.unsafety {
            errors.push(syn::Error::new_spanned(
                unsafety,
                "#[tool] functions cannot be `unsafe`",
            ));
        }
        if let Some(abi) = &sig.abi {
            errors.push(syn::Error::new_spanned(
                abi,
                "#[tool] functions cannot have an `extern` ABI",
            ));
        }
        if let Some(variadic) = &sig.variadic {
            errors.push(syn::Error::new_spanned(
                variadic,
                "#[tool] functions cannot be variadic",
            ));
        }
        let mut params = Vec::new();
        let mut context_seen = false;
        for input in &mut sig.inputs {
            match input {
                FnArg::Receiver(receiver) => errors.push(syn::Error::new_spanned(&receiver,
                    "#[tool] functions cannot take `self`: write a free function (state can live in a static or be reached through the ToolContext)",
                )),
                FnArg::Typed(typed) => {
                    let options = errors.keep(ArgOptions::take(&mut typed.attrs));
                    match classify(&typed.pat, &typed.ty) {
                        Ok(Kind::Context { by_ref }) => {
                            if context_seen {
                                errors.push(syn::Error::new_spanned(&typed.ty, "the ToolContext is already a parameter"));
                            }
                            if options.as_ref().is_some_and(|o| o.description.is_some() || !o.keywords.is_empty()) {
                                errors.push(syn::Error::new_spanned(&typed, "`#[arg]` does not apply to the ToolContext"));
                            }
                            context_seen = true;
                            params.push(Param::Context { by_ref });
                        }
                        Ok(Kind::Value(ident)) => {
                            if let Some(options) = options {
                                params.push(Param::Value {
                                    ident,
                                    ty: typed.ty.clone(),
                                    options: Box::new(options),
                                });
                            }
                        }
                        Err(error) => errors.push(error),
                    }
                }
            }
        }
        let output = errors.keep(output(&sig.output));
        errors.finish()?;
        Ok(Self {
            params,
            is_async: sig.asyncness.is_some(),
            output: output.unwrap_or(Output::Unit),
        })
    }

    /// The value parameters (the schema's properties), in order.
    pub(crate) fn values(&self) -> impl Iterator<Item = (&syn::Ident, &Type, &ArgOptions)> {
        self.params.iter().filter_map(|param| match param {
            Param::Value { ident, ty, options } => Some((ident, ty.as_ref(), options.as_ref())),
            Param::Context { .. } => None,
        })
    }
}

enum Kind {
    Value(syn::Ident),
    Context { by_ref: bool },
}

fn classify(pat: &Pat, ty: &Type) -> syn::Result<Kind> {
    if let Some(by_ref) = context_kind(ty)? {
        return Ok(Kind::Context { by_ref });
    }
    match ty {
        Type::Reference(reference) => {
            let hint = match reference.elem.as_ref() {
                Type::Path(path) if path.path.is_ident("str") => " (take `String`)",
                Type::Slice(_) => " (take a `Vec`)",
                _ => "",
            };
            return Err(syn::Error::new_spanned(
                ty,
                format!(
                    "#[tool] parameters are deserialized into owned values: take this by value{hint}; only `&ToolContext` may be a reference"
                ),
            ));
        }
        Type::ImplTrait(_) => {
            return Err(syn::Error::new_spanned(
                ty,
                "#[tool] parameters cannot be `impl Trait`: the schema is built from a concrete type",
            ));
        }
        Type::Infer(_) => return Err(syn::Error::new_spanned(ty, "write the parameter's type")),
        _ => {}
    }
    match pat {
        Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
            Ok(Kind::Value(ident.ident.clone()))
        }
        other => Err(syn::Error::new_spanned(
            other,
            "#[tool] parameters must be plain names: they become the argument names the model sends",
        )),
    }
}

/// `Some(true)` for `&ToolContext`, `Some(false)` for `ToolContext`, `None` otherwise.
fn context_kind(ty: &Type) -> syn::Result<Option<bool>> {
    let is_context = |ty: &Type| matches!(ty, Type::Path(path) if path.qself.is_none() && path.path.segments.last().is_some_and(|seg| seg.ident == "ToolContext" && seg.arguments.is_none()));
    match ty {
        Type::Reference(reference) if is_context(&reference.elem) => {
            if let Some(mutability) = reference.mutability {
                return Err(syn::Error::new_spanned(
                    mutability,
                    "take `&ToolContext`, not `&mut ToolContext`",
                ));
            }
            Ok(Some(true))
        }
        other if is_context(other) => Ok(Some(false)),
        _ => Ok(None),
    }
}

fn output(ret: &ReturnType) -> syn::Result<Output> {
    let ty = match ret {
        ReturnType::Default => return Ok(Output::Unit),
        ReturnType::Type(_, ty) => ty,
    };
    if let Type::Tuple(tuple) = ty.as_ref() {
        if tuple.elems.is_empty() {
            return Ok(Output::Unit);
        }
    }
    let Type::Path(path) = ty.as_ref() else {
        return Ok(Output::Value(ty.clone()));
    };
    let Some(last) = path.path.segments.last() else {
        return Ok(Output::Value(ty.clone()));
    };
    if last.ident != "Result" {
        return Ok(Output::Value(ty.clone()));
    }
    let syn::PathArguments::AngleBracketed(generics) = &last.arguments else {
        return Err(syn::Error::new_spanned(
            last,
            "write the `Result`'s types, as `Result<T, E>`",
        ));
    };
    let mut types = generics.args.iter().filter_map(|arg| match arg {
        syn::GenericArgument::Type(ty) => Some(ty),
        _ => None,
    });
    let Some(ok) = types.next() else {
        return Err(syn::Error::new_spanned(
            generics,
            "write the `Result`'s types, as `Result<T, E>`",
        ));
    };
    // A one-argument alias (`anyhow::Result<T>`) has an error type that is `Display`.
    let tool_error = types.next().is_some_and(|err| {
        matches!(err, Type::Path(p) if p.path.segments.last().is_some_and(|seg| seg.ident == "ToolError"))
    });
    Ok(Output::Result {
        ok: Box::new(ok.clone()),
        tool_error,
    })
}

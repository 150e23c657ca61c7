//! The grammar of `#[arg(...)]` on a parameter.

use proc_macro2::Span;
use serde_json::{Map, Value};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream, Parser};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, Ident, Lit, Meta, Token};

use super::Errors;
use super::json::to_json;

const KEYS: &str = "desc, default, minimum, maximum, pattern, enum, format, min_length, max_length, path, command, url, host, resource";

/// What `#[arg(...)]` said about one parameter.
#[derive(Debug, Default)]
pub(crate) struct ArgOptions {
    /// `desc = "..."`, which wins over the rustdoc `# Arguments` entry.
    pub(crate) description: Option<String>,
    /// JSON Schema keywords to set on the property (`default`, `minimum`, ...).
    pub(crate) keywords: Map<String, Value>,
    /// What the value is for the permission engine: `path:read`, `command`, `url`...
    pub(crate) kind: Option<String>,
    /// The `#[arg]` attribute, for errors about several keys at once.
    attr: Option<Attribute>,
}

impl ArgOptions {
    /// Read and remove the `#[arg(...)]` attributes (they are not real attributes).
    pub(crate) fn take(attrs: &mut Vec<Attribute>) -> syn::Result<Self> {
        let mut options = Self::default();
        let mut errors = Errors::default();
        let mut kept = Vec::with_capacity(attrs.len());
        for attr in attrs.drain(..) {
            if attr.path().is_ident("arg") {
                errors.keep(options.read(&attr));
                options.attr = Some(attr);
            } else {
                kept.push(attr);
            }
        }
        *attrs = kept;
        errors.finish()?;
        options.check()?;
        Ok(options)
    }

    pub(crate) fn has_default(&self) -> bool {
        self.keywords.contains_key("default")
    }

    fn read(&mut self, attr: &Attribute) -> syn::Result<()> {
        let Meta::List(list) = &attr.meta else {
            return Err(syn::Error::new_spanned(
                attr,
                "write `#[arg(key = value, ...)]`",
            ));
        };
        let pairs = Punctuated::<Pair, Token![,]>::parse_terminated.parse2(list.tokens.clone())?;
        let mut errors = Errors::default();
        for pair in &pairs {
            let key = pair.key.to_string();
            let outcome = match &pair.value {
                Some(value) => self.set(&key, pair.key.span(), value),
                None => self.flag(&key, &pair.key),
            };
            errors.keep(outcome);
        }
        errors.finish()
    }

    /// A key without a value: `command`, `url`, `host`, `resource`.
    fn flag(&mut self, key: &str, ident: &Ident) -> syn::Result<()> {
        match key {
            "command" | "url" | "host" | "resource" => self.set_kind(key.to_owned(), ident),
            "path" => Err(syn::Error::new_spanned(
                ident,
                "say how the path is used: `path = \"read\"`, `\"write\"` or `\"delete\"`",
            )),
            _ => Err(syn::Error::new_spanned(
                ident,
                format!("write `{key} = value`; keys: {KEYS}"),
            )),
        }
    }

    fn set_kind(&mut self, kind: String, at: &Ident) -> syn::Result<()> {
        if self.kind.is_some() {
            return Err(syn::Error::new_spanned(
                at,
                "a parameter is one of: a path, a command, a URL, a host, a resource",
            ));
        }
        self.kind = Some(kind);
        Ok(())
    }

    fn set(&mut self, key: &str, key_span: Span, value: &Expr) -> syn::Result<()> {
        let keyword = match key {
            "path" => {
                let access = string(value)?;
                if !matches!(access.as_str(), "read" | "write" | "delete") {
                    return Err(syn::Error::new_spanned(
                        value,
                        "a path is used to \"read\", \"write\" or \"delete\"",
                    ));
                }
                let ident = Ident::new("path", key_span);
                return self.set_kind(format!("path:{access}"), &ident);
            }
            "command" | "url" | "host" | "resource" => {
                return Err(syn::Error::new_spanned(
                    value,
                    format!("`{key}` takes no value: write `#[arg({key})]`"),
                ));
            }
            "desc" | "description" => {
                if self.description.is_some() {
                    return Err(syn::Error::new(key_span, "the description is given twice"));
                }
                self.description = Some(string(value)?);
                return Ok(());
            }
            "default" => "default",
            "minimum" | "maximum" => {
                let json = to_json(value)?;
                if !json.is_number() {
                    return Err(syn::Error::new_spanned(
                        value,
                        format!("`{key}` takes a number"),
                    ));
                }
                return self.insert(key, key_span, json);
            }
            "pattern" | "format" => {
                let text = string(value)?;
                return self.insert(key, key_span, Value::String(text));
            }
            "enum" => {
                let json = to_json(value)?;
                match &json {
                    Value::Array(items) if !items.is_empty() => {}
                    _ => {
                        return Err(syn::Error::new_spanned(
                            value,
                            "`enum` takes a non-empty list, as `[\"a\", \"b\"]`",
                        ));
                    }
                }
                return self.insert("enum", key_span, json);
            }
            "min_length" | "max_length" => {
                let Expr::Lit(ExprLit {
                    lit: Lit::Int(int), ..
                }) = value
                else {
                    return Err(syn::Error::new_spanned(
                        value,
                        format!("`{key}` takes a whole number"),
                    ));
                };
                let keyword = if key == "min_length" {
                    "minLength"
                } else {
                    "maxLength"
                };
                return self.insert(keyword, key_span, Value::from(int.base10_parse::<u64>()?));
            }
            _ => {
                return Err(syn::Error::new(
                    key_span,
                    format!("unknown key `{key}`; `#[arg(...)]` takes: {KEYS}"),
                ));
            }
        };
        let json = to_json(value)?;
        self.insert(keyword, key_span, json)
    }

    fn insert(&mut self, keyword: &str, span: Span, value: Value) -> syn::Result<()> {
        if self.keywords.insert(keyword.to_owned(), value).is_some() {
            return Err(syn::Error::new(span, format!("`{keyword}` is given twice")));
        }
        Ok(())
    }

    /// Checks across keys: a range that is not empty, a default inside the enum.
    fn check(&self) -> syn::Result<()> {
        let error = |message: String| match &self.attr {
            Some(attr) => syn::Error::new_spanned(attr, message),
            None => syn::Error::new(Span::call_site(), message),
        };
        let number = |key: &str| self.keywords.get(key).and_then(Value::as_f64);
        if let (Some(min), Some(max)) = (number("minimum"), number("maximum")) {
            if min > max {
                return Err(error(format!(
                    "`minimum` ({min}) is greater than `maximum` ({max})"
                )));
            }
        }
        if let (Some(default), Some(Value::Array(allowed))) =
            (self.keywords.get("default"), self.keywords.get("enum"))
        {
            if !allowed.contains(default) {
                return Err(error(format!(
                    "the default {default} is not one of the `enum` values"
                )));
            }
        }
        Ok(())
    }
}

/// `key = value` or a bare `key`, where the key may be a keyword (`enum`).
struct Pair {
    key: Ident,
    value: Option<Expr>,
}

impl Parse for Pair {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let key = Ident::parse_any(input)?;
        let value = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(Self { key, value })
    }
}

fn string(value: &Expr) -> syn::Result<String> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Ok(text.value()),
        other => Err(syn::Error::new_spanned(other, "expected a string literal")),
    }
}

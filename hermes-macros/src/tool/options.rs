//! The grammar of `#[tool(...)]`.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprArray, ExprLit, Ident, ItemFn, Lit, LitStr, Meta, Token};

use super::Errors;

/// The keys `#[tool(...)]` accepts.
const KEYS: &str =
    "name, description, scope, timeout, tags, permissions, max_result_bytes, handle, blocking";
const KEY_LIST: [&str; 9] = [
    "name",
    "description",
    "scope",
    "timeout",
    "tags",
    "permissions",
    "max_result_bytes",
    "handle",
    "blocking",
];

/// What `#[tool(...)]` said, checked.
#[derive(Debug)]
pub(crate) struct Options {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) scope: Scope,
    pub(crate) timeout_ms: u64,
    pub(crate) tags: Vec<String>,
    pub(crate) permissions: Vec<String>,
    pub(crate) max_result_bytes: usize,
    pub(crate) handle: Ident,
    pub(crate) blocking: bool,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Scope {
    Read,
    Write,
    Dangerous,
}

impl Scope {
    pub(crate) fn variant(self) -> Ident {
        let name = match self {
            Self::Read => "Read",
            Self::Write => "Write",
            Self::Dangerous => "Dangerous",
        };
        Ident::new(name, Span::call_site())
    }
}

impl Options {
    pub(crate) fn parse(attr: TokenStream, function: &ItemFn) -> syn::Result<Self> {
        let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(attr)?;
        let fn_name = &function.sig.ident;
        let mut options = Self {
            name: fn_name.to_string(),
            description: None,
            scope: Scope::Read,
            timeout_ms: 10_000,
            tags: Vec::new(),
            permissions: Vec::new(),
            max_result_bytes: 64 * 1024,
            handle: Ident::new(&handle_name(&fn_name.to_string()), fn_name.span()),
            blocking: false,
        };
        let mut errors = Errors::default();
        let mut seen: Vec<String> = Vec::new();
        let mut name_span = fn_name.span();
        for meta in &metas {
            let key = meta
                .path()
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            if !KEY_LIST.contains(&key.as_str()) {
                errors.push(syn::Error::new(
                    meta.path().span(),
                    format!("unknown key `{key}`; `#[tool(...)]` takes: {KEYS}"),
                ));
                continue;
            }
            if seen.contains(&key) {
                errors.push(syn::Error::new_spanned(
                    meta,
                    format!("`{key}` is given twice"),
                ));
                continue;
            }
            seen.push(key.clone());
            let outcome = match (key.as_str(), meta) {
                ("blocking", Meta::Path(_)) => {
                    options.blocking = true;
                    Ok(())
                }
                (_, Meta::NameValue(pair)) => options.set(&key, &pair.value, &mut name_span),
                _ => Err(syn::Error::new_spanned(
                    meta,
                    format!("write `{key} = ...`; only `blocking` stands alone"),
                )),
            };
            errors.keep(outcome);
        }
        if !is_valid_tool_name(&options.name) {
            errors.push(syn::Error::new(
                name_span,
                format!(
                    "tool name `{}` is not valid: use 1 to 64 ASCII letters, digits, `_` or `-`{}",
                    options.name,
                    if seen.iter().any(|key| key == "name") {
                        ""
                    } else {
                        " (set one with `name = \"...\"`)"
                    }
                ),
            ));
        }
        if options.blocking && function.sig.asyncness.is_some() {
            errors.push(syn::Error::new_spanned(function.sig.asyncness,
                "`blocking` is for synchronous functions (run on tokio's blocking pool); drop `async` or `blocking`",
            ));
        }
        errors.finish().map(|()| options)
    }

    fn set(&mut self, key: &str, value: &Expr, name_span: &mut Span) -> syn::Result<()> {
        match key {
            "name" => {
                let name = string(value)?;
                *name_span = name.span();
                self.name = name.value();
            }
            "description" => {
                let description = string(value)?.value();
                if description.trim().is_empty() {
                    return Err(syn::Error::new_spanned(value, "the description is empty"));
                }
                self.description = Some(description);
            }
            "scope" => {
                let scope = string(value)?;
                self.scope = match scope.value().as_str() {
                    "read" => Scope::Read,
                    "write" => Scope::Write,
                    "dangerous" => Scope::Dangerous,
                    other => {
                        return Err(syn::Error::new_spanned(
                            &scope,
                            format!(
                                "unknown scope `{other}`: use \"read\", \"write\" or \"dangerous\""
                            ),
                        ));
                    }
                };
            }
            "timeout" => {
                let timeout = string(value)?;
                self.timeout_ms = parse_duration_ms(&timeout.value()).ok_or_else(|| {
                    syn::Error::new_spanned(&timeout,
                        format!(
                            "invalid timeout \"{}\": write a whole number and a unit, as \"500ms\", \"15s\", \"2m\" or \"1h\" (more than zero)",
                            timeout.value()
                        ),
                    )
                })?;
            }
            "tags" => self.tags = strings(value)?,
            "permissions" => {
                let permissions = strings(value)?;
                if let Some(bad) = permissions.iter().find(|p| !is_permission(p)) {
                    return Err(syn::Error::new_spanned(
                        value,
                        format!("permission `{bad}` is not of the form `domain:action` (or `*`)"),
                    ));
                }
                self.permissions = permissions;
            }
            "max_result_bytes" => {
                let Expr::Lit(ExprLit {
                    lit: Lit::Int(int), ..
                }) = value
                else {
                    return Err(syn::Error::new_spanned(
                        value,
                        "expected a whole number of bytes",
                    ));
                };
                let bytes: usize = int.base10_parse()?;
                if bytes < 64 {
                    return Err(syn::Error::new_spanned(
                        int,
                        "the result cap must be at least 64 bytes",
                    ));
                }
                self.max_result_bytes = bytes;
            }
            "handle" => match value {
                Expr::Path(path) if path.path.get_ident().is_some() => {
                    if let Some(ident) = path.path.get_ident() {
                        self.handle = ident.clone();
                    }
                }
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "expected a type name, as `handle = WeatherTool`",
                    ));
                }
            },
            _ => {
                return Err(syn::Error::new_spanned(
                    value,
                    format!("`{key}` takes no value"),
                ));
            }
        }
        Ok(())
    }
}

fn string(value: &Expr) -> syn::Result<LitStr> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(text),
            ..
        }) => Ok(text.clone()),
        other => Err(syn::Error::new_spanned(other, "expected a string literal")),
    }
}

fn strings(value: &Expr) -> syn::Result<Vec<String>> {
    let Expr::Array(ExprArray { elems, .. }) = value else {
        return Err(syn::Error::new_spanned(
            value,
            "expected a list of strings, as `[\"a\", \"b\"]`",
        ));
    };
    elems
        .iter()
        .map(|elem| string(elem).map(|text| text.value()))
        .collect()
}

/// `^[A-Za-z0-9_-]{1,64}$`, as hermes-core checks it.
fn is_valid_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn is_permission(permission: &str) -> bool {
    permission == "*"
        || permission.split_once(':').is_some_and(|(domain, action)| {
            let part = |s: &str| {
                !s.is_empty()
                    && s.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'*')
            };
            part(domain) && part(action)
        })
}

/// `500ms`, `15s`, `2m`, `1h` in milliseconds; `None` for anything else or zero.
pub(crate) fn parse_duration_ms(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().ok()?;
    let scale = match unit.trim() {
        "ms" => 1,
        "s" => 1_000,
        "m" | "min" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    number.checked_mul(scale).filter(|&ms| ms > 0)
}

/// `get_weather` -> `GetWeatherTool`.
fn handle_name(function: &str) -> String {
    let mut name: String = function
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|first| first.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect();
    name.push_str("Tool");
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ms("15s"), Some(15_000));
        assert_eq!(parse_duration_ms("500ms"), Some(500));
        assert_eq!(parse_duration_ms("2m"), Some(120_000));
        assert_eq!(parse_duration_ms("1h"), Some(3_600_000));
        for bad in ["", "15", "s", "15 sec", "1.5s", "0s", "-1s", "15S"] {
            assert_eq!(parse_duration_ms(bad), None, "{bad}");
        }
    }

    #[test]
    fn handles() {
        assert_eq!(handle_name("get_weather"), "GetWeatherTool");
        assert_eq!(handle_name("calc"), "CalcTool");
        assert_eq!(handle_name("_private_fn"), "PrivateFnTool");
    }

    #[test]
    fn permissions() {
        for good in ["file:read", "network:*", "*", "my-domain:do_it"] {
            assert!(is_permission(good), "{good}");
        }
        for bad in ["file", "file:", ":read", "file:read:x", "fi le:read"] {
            assert!(!is_permission(bad), "{bad}");
        }
    }
}

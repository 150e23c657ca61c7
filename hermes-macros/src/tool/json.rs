//! Rust literal expressions in `#[arg(...)]` as JSON values.

use serde_json::{Number, Value};
use syn::{Expr, ExprLit, ExprUnary, Lit, UnOp};

/// `3`, `-1.5`, `"GET"`, `true`, `null`, `[..]` of those. Anything else is an error at it.
pub(crate) fn to_json(expr: &Expr) -> syn::Result<Value> {
    match expr {
        Expr::Lit(ExprLit { lit, .. }) => literal(lit, false),
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => match expr.as_ref() {
            Expr::Lit(ExprLit {
                lit: lit @ (Lit::Int(_) | Lit::Float(_)),
                ..
            }) => literal(lit, true),
            other => Err(not_json(other)),
        },
        Expr::Array(array) => array
            .elems
            .iter()
            .map(to_json)
            .collect::<syn::Result<Vec<_>>>()
            .map(Value::Array),
        Expr::Path(path) if path.path.is_ident("null") || path.path.is_ident("None") => {
            Ok(Value::Null)
        }
        Expr::Group(group) => to_json(&group.expr),
        other => Err(not_json(other)),
    }
}

fn literal(lit: &Lit, negative: bool) -> syn::Result<Value> {
    let sign = if negative { "-" } else { "" };
    match lit {
        Lit::Str(text) => Ok(Value::String(text.value())),
        Lit::Bool(flag) => Ok(Value::Bool(flag.value)),
        Lit::Int(int) => format!("{sign}{}", int.base10_digits())
            .parse::<i128>()
            .ok()
            .and_then(|n| {
                i64::try_from(n)
                    .map(Number::from)
                    .ok()
                    .or_else(|| u64::try_from(n).ok().map(Number::from))
            })
            .map(Value::Number)
            .ok_or_else(|| syn::Error::new_spanned(int, "this integer does not fit in 64 bits")),
        Lit::Float(float) => format!("{sign}{}", float.base10_digits())
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| syn::Error::new_spanned(float, "this number is not a finite float")),
        other => Err(syn::Error::new_spanned(
            other,
            "expected a JSON value: a number, a string, `true`/`false`, `null` or `[...]`",
        )),
    }
}

fn not_json(expr: &Expr) -> syn::Error {
    syn::Error::new_spanned(
        expr,
        "expected a JSON value: a number, a string, `true`/`false`, `null` or `[...]`",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(source: &str) -> syn::Result<Value> {
        to_json(&syn::parse_str(source).unwrap())
    }

    #[test]
    fn literals_become_json() {
        assert_eq!(json("3").unwrap(), Value::from(3));
        assert_eq!(json("-7").unwrap(), Value::from(-7));
        assert_eq!(json("2.5").unwrap(), Value::from(2.5));
        assert_eq!(json("\"GET\"").unwrap(), Value::from("GET"));
        assert_eq!(json("true").unwrap(), Value::from(true));
        assert_eq!(json("null").unwrap(), Value::Null);
        assert_eq!(json("[\"a\", 1]").unwrap(), serde_json::json!(["a", 1]));
    }

    #[test]
    fn expressions_are_refused() {
        assert!(json("1 + 2").is_err());
        assert!(json("Unit::Celsius").is_err());
        assert!(json("b'x'").is_err());
    }
}

//! The doc comment: the first paragraph is the description, the `# Arguments` list
//! describes the parameters.

use std::collections::BTreeMap;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, Lit, Meta};

use super::signature::{Param, Signature};

/// What the doc comment says.
#[derive(Debug)]
pub(crate) struct Docs {
    /// The first paragraph, lines joined by spaces; empty when there are no docs.
    pub(crate) summary: String,
    /// Parameter name to its description, from `# Arguments` (or `# Parameters`).
    pub(crate) arguments: BTreeMap<String, String>,
    span: Span,
}

impl Docs {
    pub(crate) fn parse(attrs: &[Attribute]) -> syn::Result<Self> {
        let mut lines = Vec::new();
        let mut span = None;
        for attr in attrs {
            if let Meta::NameValue(pair) = &attr.meta {
                if pair.path.is_ident("doc") {
                    if let Expr::Lit(ExprLit {
                        lit: Lit::Str(text),
                        ..
                    }) = &pair.value
                    {
                        span.get_or_insert_with(|| attr.span());
                        lines.extend(text.value().split('\n').map(str::to_owned));
                    }
                }
            }
        }
        Ok(Self {
            summary: summary(&lines),
            arguments: arguments(&lines),
            span: span.unwrap_or_else(Span::call_site),
        })
    }

    /// Every documented argument must be a parameter (a typo would silently drop it).
    pub(crate) fn check_against(&self, signature: &Signature) -> syn::Result<()> {
        let names: Vec<String> = signature
            .params
            .iter()
            .filter_map(|param| match param {
                Param::Value { ident, .. } => Some(ident.to_string()),
                Param::Context { .. } => None,
            })
            .collect();
        match self.arguments.keys().find(|name| !names.contains(name)) {
            Some(unknown) => Err(syn::Error::new(
                self.span,
                format!(
                    "the `# Arguments` list documents `{unknown}`, which is not a parameter (parameters: {})",
                    if names.is_empty() {
                        "none".to_owned()
                    } else {
                        names.join(", ")
                    }
                ),
            )),
            None => Ok(()),
        }
    }
}

fn summary(lines: &[String]) -> String {
    lines
        .iter()
        .map(|line| line.trim())
        .skip_while(|line| line.is_empty())
        .take_while(|line| !line.is_empty() && !line.starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Items of the list under a `# Arguments` or `# Parameters` heading:
/// `` * `name` - text `` (also `-` bullets and `:` separators), continued on indented lines.
fn arguments(lines: &[String]) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    let mut in_section = false;
    let mut current: Option<String> = None;
    for line in lines {
        let trimmed = line.trim();
        if let Some(heading) = trimmed.strip_prefix('#') {
            let heading = heading.trim_start_matches('#').trim().to_ascii_lowercase();
            in_section = heading == "arguments" || heading == "parameters";
            current = None;
            continue;
        }
        if !in_section {
            continue;
        }
        if let Some((name, text)) = list_item(trimmed) {
            found.insert(name.clone(), text);
            current = Some(name);
        } else if trimmed.is_empty() {
            current = None;
        } else if let Some(name) = &current {
            if let Some(text) = found.get_mut(name) {
                text.push(' ');
                text.push_str(trimmed);
            }
        }
    }
    found
}

fn list_item(line: &str) -> Option<(String, String)> {
    let rest = line
        .strip_prefix('*')
        .or_else(|| line.strip_prefix('-'))?
        .trim_start();
    let rest = rest.strip_prefix('`')?;
    let (name, rest) = rest.split_once('`')?;
    let text = rest
        .trim_start()
        .trim_start_matches(['-', ':', '\u{2013}', '\u{2014}'])
        .trim();
    Some((name.to_owned(), text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    #[test]
    fn summary_is_the_first_paragraph() {
        let doc = lines(" Query the weather\n for a city.\n\n More details.\n # Arguments");
        assert_eq!(summary(&doc), "Query the weather for a city.");
        assert_eq!(summary(&lines("")), "");
    }

    #[test]
    fn argument_lists() {
        let doc = lines(
            " Summary.\n\n # Arguments\n * `city` - City name,\n   in any language.\n - `days`: Forecast days.\n\n # Errors\n * `x` - not an argument",
        );
        let found = arguments(&doc);
        assert_eq!(found.len(), 2);
        assert_eq!(found["city"], "City name, in any language.");
        assert_eq!(found["days"], "Forecast days.");
    }
}

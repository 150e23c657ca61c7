//! `endpoint`: a URL whose path and query may hold `{{param}}` placeholders, each value
//! percent-encoded for its place. The scheme and host are fixed by the operator: a
//! placeholder there is refused at load time, so no argument can send a request elsewhere.

use std::collections::BTreeSet;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value};

use super::placeholder::{self, Piece};

/// What stays unencoded in a value: RFC 3986's unreserved characters. Everything else,
/// `/`, `?`, `&`, `=` and `#` included, is encoded, so a value stays one path segment or
/// one query value.
const VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A compiled endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Endpoint {
    /// `scheme://authority`, fixed.
    origin: String,
    /// The path, with placeholders.
    path: Vec<Piece>,
    /// The query's `key=value` pairs, values with placeholders.
    query: Vec<(String, Vec<Piece>)>,
}

impl Endpoint {
    /// Compile `text`.
    ///
    /// # Errors
    ///
    /// Not an http(s) URL, a placeholder in the scheme or host, a malformed placeholder.
    pub(crate) fn compile(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (scheme, rest) = text.split_once("://").ok_or_else(|| {
            format!("endpoint `{text}` is not a URL: it needs http:// or https://")
        })?;
        if !matches!(scheme.to_ascii_lowercase().as_str(), "http" | "https") {
            return Err(format!(
                "endpoint `{text}`: only http and https are supported, not `{scheme}`"
            ));
        }
        let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        if authority.is_empty() {
            return Err(format!("endpoint `{text}` has no host"));
        }
        if authority.contains("{{") {
            return Err(format!(
                "endpoint `{text}`: placeholders may appear in the path and query only, not in the host"
            ));
        }
        if rest.contains('#') {
            return Err(format!(
                "endpoint `{text}`: a fragment (`#`) is never sent; remove it"
            ));
        }
        let (path, query) = match rest[authority_end..].split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (&rest[authority_end..], None),
        };
        let origin = format!("{scheme}://{authority}");
        // Check the fixed parts with a real URL parser, placeholders filled with a dummy.
        let probe = format!("{origin}{}", path.replace("{{", "x").replace("}}", "x"));
        let parsed = url::Url::parse(&probe)
            .map_err(|error| format!("endpoint `{text}` is not a valid URL: {error}"))?;
        if parsed.host_str().is_none_or(str::is_empty) {
            return Err(format!("endpoint `{text}` has no host"));
        }
        let mut pairs = Vec::new();
        for pair in query
            .unwrap_or_default()
            .split('&')
            .filter(|pair| !pair.is_empty())
        {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            if key.contains("{{") {
                return Err(format!(
                    "endpoint `{text}`: placeholders may not appear in query keys (`{key}`)"
                ));
            }
            pairs.push((key.to_owned(), placeholder::split(value)?));
        }
        Ok(Self {
            origin,
            path: placeholder::split(path)?,
            query: pairs,
        })
    }

    /// The parameters used in the path (which must always have a value).
    pub(crate) fn path_params(&self) -> BTreeSet<&str> {
        placeholder::params(&self.path).collect()
    }

    /// Every parameter used.
    pub(crate) fn params(&self) -> BTreeSet<&str> {
        let mut out = self.path_params();
        for (_, value) in &self.query {
            out.extend(placeholder::params(value));
        }
        out
    }

    /// The endpoint without its query, for messages.
    pub(crate) fn display(&self) -> String {
        let mut out = self.origin.clone();
        for piece in &self.path {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Param(name) => {
                    out.push_str("{{");
                    out.push_str(name);
                    out.push_str("}}");
                }
            }
        }
        out
    }

    /// The URL for `args`, with `extra` arguments appended to the query. A query pair
    /// whose argument is absent is left out.
    ///
    /// # Errors
    ///
    /// A path parameter without a value (a bug in the file's parameters: they are
    /// checked at load time to be required or defaulted).
    pub(crate) fn render(
        &self,
        args: &Map<String, Value>,
        extra: &[(&str, &Value)],
    ) -> Result<String, String> {
        let mut url = self.origin.clone();
        for piece in &self.path {
            match piece {
                Piece::Text(text) => url.push_str(text),
                Piece::Param(name) => {
                    let value = text_of(args.get(name))
                        .ok_or_else(|| format!("path parameter `{name}` has no value"))?;
                    url.extend(utf8_percent_encode(&value, VALUE));
                }
            }
        }
        let mut pairs: Vec<String> = Vec::new();
        'pairs: for (key, pieces) in &self.query {
            let mut value = String::new();
            for piece in pieces {
                match piece {
                    Piece::Text(text) => value.push_str(text),
                    Piece::Param(name) => match text_of(args.get(name)) {
                        Some(text) => value.extend(utf8_percent_encode(&text, VALUE)),
                        None => continue 'pairs,
                    },
                }
            }
            pairs.push(format!("{key}={value}"));
        }
        for (key, value) in extra {
            if let Some(text) = text_of(Some(value)) {
                pairs.push(format!(
                    "{}={}",
                    utf8_percent_encode(key, VALUE),
                    utf8_percent_encode(&text, VALUE)
                ));
            }
        }
        if !pairs.is_empty() {
            url.push('?');
            url.push_str(&pairs.join("&"));
        }
        Ok(url)
    }
}

/// An argument as URL text: strings as they are, other values as JSON; absent or null
/// as `None`.
fn text_of(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn args(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn path_and_query_values_are_encoded_for_their_place() {
        let endpoint =
            Endpoint::compile("https://api.example.com/v1/items/{{id}}?q={{query}}&lang=en")
                .unwrap();
        let url = endpoint
            .render(
                &args(json!({"id": "../admin?x=1", "query": "a&b=c #d"})),
                &[],
            )
            .unwrap();
        assert_eq!(
            url,
            "https://api.example.com/v1/items/..%2Fadmin%3Fx%3D1?q=a%26b%3Dc%20%23d&lang=en"
        );
        assert_eq!(
            url::Url::parse(&url).unwrap().host_str(),
            Some("api.example.com")
        );
    }

    #[test]
    fn absent_query_values_drop_their_pair_and_extras_are_appended() {
        let endpoint =
            Endpoint::compile("http://127.0.0.1:8080/search?q={{q}}&page={{page}}").unwrap();
        let extra = json!(true);
        let url = endpoint
            .render(&args(json!({"q": "rust"})), &[("safe mode", &extra)])
            .unwrap();
        assert_eq!(url, "http://127.0.0.1:8080/search?q=rust&safe%20mode=true");
    }

    #[test]
    fn the_host_is_fixed() {
        for bad in [
            "https://{{host}}/x",
            "https://api.{{tenant}}.com/x",
            "ftp://example.com/x",
            "example.com/x",
            "https:///nohost",
            "https://example.com/x#frag",
            "https://example.com/x?{{k}}=1",
        ] {
            assert!(Endpoint::compile(bad).is_err(), "{bad}");
        }
    }
}

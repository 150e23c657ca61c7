//! `http_request`: one HTTP request, any method; the status, headers and (capped) body
//! come back whatever the status, JSON bodies parsed.
//!
//! Its scope is `write`: a spec is static and the tool can POST, PUT or DELETE, so it
//! may change things elsewhere; the write scope also gives each call an idempotency key,
//! so a repeated call does not send a second POST. Read-only fetching has `web_fetch`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hermes_core::{ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool, Violation};
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::web::Web;
use crate::common::http::{self, body::is_json};
use crate::common::output::truncate_middle;

/// Arguments of `http_request`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The absolute http:// or https:// URL to request.
    #[schemars(url)]
    url: String,
    /// The HTTP method (default GET).
    #[serde(default)]
    #[schemars(schema_with = "method_schema")]
    method: Method,
    /// Request headers, name to value.
    #[serde(default)]
    headers: BTreeMap<String, String>,
    /// The request body: a string sent as is, or an object sent as JSON (with
    /// `Content-Type: application/json` unless a header sets another).
    #[serde(default)]
    #[schemars(schema_with = "body_schema")]
    body: Option<RequestBody>,
    /// Seconds to wait for the whole response.
    #[serde(default = "default_timeout")]
    #[schemars(range(min = 1, max = 300))]
    timeout_seconds: u64,
    /// Follow redirects (each hop is checked like the first URL).
    #[serde(default = "default_follow")]
    follow_redirects: bool,
}

fn default_timeout() -> u64 {
    30
}

fn default_follow() -> bool {
    true
}

/// The schema of `method`: a plain enum with its default.
fn method_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "enum": ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"],
        "default": "GET",
        "description": "The HTTP method."
    })
}

/// The schema of `body`: a string, an object or null.
fn body_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": ["string", "object", "null"],
        "description": "The request body: a string sent as is, or an object sent as JSON (with \
                        Content-Type: application/json unless a header sets another)."
    })
}

/// An HTTP method.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub(crate) enum Method {
    /// Read a resource.
    #[default]
    Get,
    /// Send data to create or act.
    Post,
    /// Replace a resource.
    Put,
    /// Delete a resource.
    Delete,
    /// Change part of a resource.
    Patch,
    /// Like GET, without the body.
    Head,
}

impl Method {
    fn as_reqwest(self) -> reqwest::Method {
        match self {
            Self::Get => reqwest::Method::GET,
            Self::Post => reqwest::Method::POST,
            Self::Put => reqwest::Method::PUT,
            Self::Delete => reqwest::Method::DELETE,
            Self::Patch => reqwest::Method::PATCH,
            Self::Head => reqwest::Method::HEAD,
        }
    }
}

/// A request body.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum RequestBody {
    /// Sent as is.
    Text(String),
    /// Sent as JSON.
    Json(Map<String, Value>),
}

/// What `http_request` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The HTTP status code.
    status: u16,
    /// Whether the status is 2xx.
    ok: bool,
    /// The URL that answered, after redirects.
    url: String,
    /// Response headers (repeated ones joined with `, `).
    headers: BTreeMap<String, String>,
    /// `json`, `text`, `binary` or `empty`.
    body_kind: &'static str,
    /// The body: parsed JSON, text, or a description of binary data.
    body: Value,
    /// The body was cut (at the read cap, or to fit the result).
    body_truncated: bool,
    /// Milliseconds until the body was read.
    elapsed_ms: u64,
}

/// The `http_request` tool.
#[derive(Debug)]
pub(crate) struct HttpRequest {
    /// The family's shared state.
    web: Arc<Web>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl HttpRequest {
    /// The tool, its spec built from the settings.
    pub(crate) fn new(web: &Arc<Web>) -> Result<Self, Error> {
        let description = format!(
            "Send one HTTP request (GET, POST, PUT, DELETE, PATCH or HEAD) with optional headers \
             and a string or JSON body. Returns status, ok, the final url, response headers and \
             the body: parsed JSON when the response is JSON, else text cut to {} KiB \
             (body_truncated says so). An error status is a result, not a failure. Only public \
             addresses are reachable unless the operator allows more.",
            web.text_cap() / 1024
        );
        let spec = ToolSpec::builder("http_request", description)
            .parameters_for::<Args>()
            .tag(super::FAMILY_TAG)
            .scope(Scope::Write)
            .permission("network:fetch")
            .arg_kind("url", ArgKind::Url)
            .timeout(Duration::from_secs(310))
            .max_result_bytes(super::result_cap(web))
            .build()?;
        Ok(Self {
            web: Arc::clone(web),
            spec,
        })
    }
}

impl TypedTool for HttpRequest {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, _ctx: &ToolContext) -> Result<Output, ToolError> {
        let url = self.web.http_url(&args.url)?;
        let headers = header_map(&args.headers)?;
        let timeout = Duration::from_secs(args.timeout_seconds.clamp(1, 300));
        let method = args.method;
        let mut request = self
            .web
            .client(args.follow_redirects)?
            .request(method.as_reqwest(), url)
            .headers(headers.clone())
            .timeout(timeout);
        match args.body {
            Some(RequestBody::Text(text)) => request = request.body(text),
            Some(RequestBody::Json(object)) => {
                if !headers.contains_key(CONTENT_TYPE) {
                    request = request.header(CONTENT_TYPE, "application/json");
                }
                request = request.body(Value::Object(object).to_string());
            }
            None => {}
        }
        let started = Instant::now();
        let response = request
            .send()
            .await
            .map_err(|error| http::request_failed(error, &args.url, timeout))?;
        let status = response.status();
        let final_url = response.url().to_string();
        let response_headers = flatten(response.headers());
        let content_type = response_headers
            .get("content-type")
            .cloned()
            .unwrap_or_default();
        let body = http::read_capped(response, self.web.config().max_body_bytes)
            .await
            .map_err(|error| http::request_failed(error, &args.url, timeout))?;
        let (body_kind, body, body_truncated) = present(body, &content_type, self.web.text_cap());
        Ok(Output {
            status: status.as_u16(),
            ok: status.is_success(),
            url: final_url,
            headers: response_headers,
            body_kind,
            body,
            body_truncated,
            elapsed_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        })
    }
}

/// The call's headers, checked.
fn header_map(headers: &BTreeMap<String, String>) -> Result<HeaderMap, ToolError> {
    let mut map = HeaderMap::new();
    let mut violations = Vec::new();
    for (name, value) in headers {
        let pointer = format!("/headers/{}", name.replace('~', "~0").replace('/', "~1"));
        match (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) {
            (Ok(name), Ok(value)) => {
                map.insert(name, value);
            }
            (Err(_), _) => violations.push(Violation::new(
                pointer,
                "format",
                format!("`{name}` is not a valid header name (letters, digits and `-`)"),
            )),
            (_, Err(_)) => violations.push(Violation::new(
                pointer,
                "format",
                "the value holds characters a header cannot carry (line breaks, control characters)",
            )),
        }
    }
    if violations.is_empty() {
        Ok(map)
    } else {
        Err(ToolError::InvalidArguments { violations })
    }
}

/// Headers as a map; repeated names joined with `, `.
fn flatten(headers: &HeaderMap) -> BTreeMap<String, String> {
    let mut flat: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        flat.entry(name.as_str().to_owned())
            .and_modify(|joined| {
                joined.push_str(", ");
                joined.push_str(&value);
            })
            .or_insert(value);
    }
    flat
}

/// The body for the model: kind, value, whether it was cut.
fn present(body: http::Body, content_type: &str, cap: usize) -> (&'static str, Value, bool) {
    if body.bytes.is_empty() {
        return ("empty", Value::Null, body.truncated);
    }
    if is_json(content_type) && !body.truncated && body.bytes.len() <= cap {
        if let Ok(value) = serde_json::from_slice::<Value>(&body.bytes) {
            return ("json", value, false);
        }
    }
    match String::from_utf8(body.bytes) {
        Ok(text) => {
            let cut = text.len() > cap;
            (
                "text",
                Value::String(truncate_middle(text, cap)),
                body.truncated || cut,
            )
        }
        Err(bytes) => (
            "binary",
            Value::String(format!(
                "{}{} bytes of binary data ({}); use download_file to save it",
                bytes.as_bytes().len(),
                if body.truncated { "+" } else { "" },
                if content_type.is_empty() {
                    "no content type"
                } else {
                    content_type
                }
            )),
            body.truncated,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_the_documented_one() {
        let schema = hermes_core::tool::schema_for::<Args>();
        let properties = &schema["properties"];
        assert_eq!(properties["url"]["format"], "uri");
        assert_eq!(
            properties["method"]["enum"],
            serde_json::json!(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"])
        );
        assert_eq!(properties["method"]["default"], "GET");
        assert_eq!(
            properties["headers"]["additionalProperties"]["type"],
            "string"
        );
        assert_eq!(
            properties["body"]["type"],
            serde_json::json!(["string", "object", "null"])
        );
        assert_eq!(
            (
                &properties["timeout_seconds"]["minimum"],
                &properties["timeout_seconds"]["maximum"],
                &properties["timeout_seconds"]["default"]
            ),
            (
                &serde_json::json!(1),
                &serde_json::json!(300),
                &serde_json::json!(30)
            )
        );
        assert_eq!(properties["follow_redirects"]["default"], true);
        assert_eq!(schema["required"], serde_json::json!(["url"]));
    }
}

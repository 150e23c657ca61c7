//! The tool a YAML definition becomes: one HTTP request per call.

use std::sync::{Arc, OnceLock};

use hermes_core::{Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue};
use serde_json::{Map, Value, json};

use super::auth::Credentials;
use super::definition::Definition;
use crate::common::http::{self, AddressPolicy, ClientPolicy};
use hermes_core::tool::truncate_middle;

/// The most of a response body read; past it the body is cut (and not parsed as JSON).
const MAX_BODY_BYTES: usize = 1024 * 1024;
/// The most of a result sent to the model.
const MAX_RESULT_BYTES: usize = 64 * 1024;
/// The most of an error response quoted in the error message.
const MAX_ERROR_BODY: usize = 1000;
/// The tag every YAML-defined tool carries, besides its own.
pub(crate) const SOURCE_TAG: &str = "source:yaml";

/// An `http_wrapper` tool.
#[derive(Debug)]
pub(crate) struct HttpTool {
    definition: Arc<Definition>,
    spec: ToolSpec,
}

impl HttpTool {
    /// The tool for `definition`.
    ///
    /// # Errors
    ///
    /// A spec the registry would refuse (the definition's checks make this unlikely).
    pub(crate) fn new(definition: Arc<Definition>) -> Result<Self, Error> {
        let scope = if definition.method.is_read() {
            Scope::Read
        } else {
            Scope::Write
        };
        let spec = ToolSpec::builder(definition.name.as_str(), definition.description.as_str())
            .parameters(definition.schema())
            .scope(scope)
            .permission("external:api")
            .tags(definition.tags.iter().cloned())
            .tag(SOURCE_TAG)
            // What an API answers is outside content: the gateway fences it.
            .tag("external")
            .timeout(definition.timeout)
            .max_result_bytes(MAX_RESULT_BYTES)
            .build()?;
        Ok(Self { definition, spec })
    }

    /// Send the request for `args` and read the answer.
    async fn send(
        &self,
        args: &Map<String, Value>,
        credentials: &Credentials,
    ) -> Result<Value, ToolError> {
        let definition = &self.definition;
        let in_query = definition.method.args_in_query();
        let unplaced: Vec<(&str, &Value)> = definition
            .unplaced()
            .filter_map(|name| args.get_key_value(name))
            .map(|(name, value)| (name.as_str(), value))
            .collect();
        let extra: &[(&str, &Value)] = if in_query { &unplaced } else { &[] };
        let url = definition
            .endpoint
            .render(args, extra)
            .map_err(ToolError::failed)?;
        let body = match &definition.template {
            Some(template) => template.render(args),
            None if !in_query => Some(Value::Object(
                unplaced
                    .iter()
                    .map(|(name, value)| ((*name).to_owned(), (*value).clone()))
                    .collect(),
            )),
            None => None,
        };
        let mut request = client()?
            .request(definition.method.as_reqwest(), &url)
            .timeout(definition.timeout)
            .header(
                ACCEPT,
                HeaderValue::from_static("application/json, */*;q=0.5"),
            );
        if let Some((name, value)) = &credentials.header {
            request = request.header(name, value.clone());
        }
        if let Some(body) = &body {
            let bytes = serde_json::to_vec(body)
                .map_err(|error| ToolError::failed(format!("cannot encode the body: {error}")))?;
            request = request
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(bytes);
        }
        let response = request
            .send()
            .await
            .map_err(|error| self.transport_error(error))?;
        self.answer(response, credentials).await
    }

    /// Judge and shape the response.
    async fn answer(
        &self,
        response: reqwest::Response,
        credentials: &Credentials,
    ) -> Result<Value, ToolError> {
        let status = response.status();
        let body = http::read_capped(response, MAX_BODY_BYTES)
            .await
            .map_err(|error| self.transport_error(error))?;
        let truncated = body.truncated;
        let text = if credentials.has_secrets() {
            credentials.redact(&body.text())
        } else {
            body.text()
        };
        let endpoint = format!(
            "{} {}",
            self.definition.method.as_str(),
            self.definition.endpoint.display()
        );
        if !status.is_success() {
            return Err(ToolError::failed(format!(
                "HTTP {status} from {endpoint}: {}",
                quote(&text)
            )));
        }
        let json: Option<Value> = if truncated {
            None
        } else {
            serde_json::from_str(&text).ok()
        };
        let mapping = self.definition.mapping.as_ref();
        let data = match (json, mapping) {
            (Some(body), Some(mapping)) => {
                if let Some(field) = &mapping.success_field {
                    if field.lookup(&body).is_none() {
                        return Err(ToolError::failed(format!(
                            "HTTP {status} from {endpoint}, but the response has no `{}` field, so the call did not succeed: {}",
                            field.text,
                            quote(&text)
                        )));
                    }
                }
                mapping.pick(body)
            }
            (None, Some(mapping)) if mapping.success_field.is_some() => {
                return Err(ToolError::failed(format!(
                    "HTTP {status} from {endpoint}, but the response is not JSON{}: {}",
                    if truncated { " (or too large)" } else { "" },
                    quote(&text)
                )));
            }
            (Some(body), _) => body,
            (None, _) => Value::String(text),
        };
        let mut result = json!({"status": status.as_u16(), "data": data});
        if truncated {
            result["truncated"] = Value::Bool(true);
        }
        Ok(result)
    }

    /// A failed exchange, in words, naming the endpoint without its query (which holds
    /// arguments).
    fn transport_error(&self, error: reqwest::Error) -> ToolError {
        http::request_failed(
            error,
            &self.definition.endpoint.display(),
            self.definition.timeout,
        )
    }
}

impl TypedTool for HttpTool {
    type Args = Map<String, Value>;
    type Output = Value;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Map<String, Value>, _ctx: &ToolContext) -> Result<Value, ToolError> {
        let credentials = self.definition.auth.credentials(&self.definition.name)?;
        self.send(&args, &credentials)
            .await
            .map_err(|error| match error {
                ToolError::Failed { message, .. } if credentials.has_secrets() => {
                    ToolError::failed(credentials.redact(&message))
                }
                other => other,
            })
    }
}

/// The client every YAML-defined tool shares (one connection pool). Endpoints are the
/// operator's configuration, so every address is allowed (the SSRF guard is for URLs a
/// model chooses).
fn client() -> Result<&'static reqwest::Client, ToolError> {
    static CLIENT: OnceLock<Result<reqwest::Client, String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            http::build_client(&ClientPolicy {
                addresses: Arc::new(AddressPolicy::trusted()),
                max_redirects: 10,
                user_agent: concat!("hermes/", env!("CARGO_PKG_VERSION")).to_owned(),
            })
            .map_err(|error| error.to_string())
        })
        .as_ref()
        .map_err(|error| ToolError::failed(format!("cannot start the HTTP client: {error}")))
}

/// A body for an error message: cut in the middle past [`MAX_ERROR_BODY`].
fn quote(text: &str) -> String {
    if text.trim().is_empty() {
        return "(empty body)".to_owned();
    }
    truncate_middle(text.trim().to_owned(), MAX_ERROR_BODY)
}

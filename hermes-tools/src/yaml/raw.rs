//! The file format as written, before validation: serde types that keep each value's
//! line and column, and a parser with limits against hostile YAML.
//!
//! ```yaml
//! tools:
//!   - name: jira_create_issue
//!     description: Create an issue in Jira.
//!     type: http_wrapper
//!     endpoint: https://example.atlassian.net/rest/api/3/issue
//!     method: POST
//!     auth: {type: basic, username_env: JIRA_USER, password_env: JIRA_TOKEN}
//!     parameters:
//!       - {name: summary, type: string, required: true, description: One line.}
//!     request_template: '{"fields": {"summary": "{{summary}}"}}'
//!     response_mapping: {success_field: key, output_fields: [key, self]}
//!     tags: [jira]
//!     timeout_seconds: 30
//! ```

use serde::Deserialize;
use serde_json::Value;
use serde_saphyr::{Budget, Options, Spanned};

use super::error::Problem;

/// The largest tools file read, in bytes.
pub(crate) const MAX_FILE_BYTES: usize = 1024 * 1024;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawFile {
    pub(crate) tools: Vec<Spanned<RawTool>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTool {
    pub(crate) name: Spanned<String>,
    pub(crate) description: Spanned<String>,
    /// Checked by parsing: `http_wrapper` is the only kind.
    #[serde(rename = "type")]
    #[expect(dead_code, reason = "parsing it is the check: other kinds are refused")]
    pub(crate) kind: Spanned<ToolKind>,
    pub(crate) endpoint: Spanned<String>,
    #[serde(default)]
    pub(crate) method: Option<Spanned<Method>>,
    #[serde(default)]
    pub(crate) auth: Option<Spanned<RawAuth>>,
    #[serde(default)]
    pub(crate) parameters: Vec<Spanned<RawParameter>>,
    #[serde(default)]
    pub(crate) request_template: Option<Spanned<Value>>,
    #[serde(default)]
    pub(crate) response_mapping: Option<Spanned<RawMapping>>,
    #[serde(default)]
    pub(crate) tags: Vec<String>,
    #[serde(default)]
    pub(crate) timeout_seconds: Option<Spanned<f64>>,
}

/// The kinds of tool a file may declare.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ToolKind {
    /// A call is one HTTP request.
    HttpWrapper,
}

/// An HTTP method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub(crate) enum Method {
    #[serde(alias = "get")]
    Get,
    #[serde(alias = "post")]
    Post,
    #[serde(alias = "put")]
    Put,
    #[serde(alias = "patch")]
    Patch,
    #[serde(alias = "delete")]
    Delete,
    #[serde(alias = "head")]
    Head,
}

impl Method {
    /// The method's name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
            Self::Put => "PUT",
            Self::Patch => "PATCH",
            Self::Delete => "DELETE",
            Self::Head => "HEAD",
        }
    }

    /// Whether the method only reads (GET, HEAD).
    pub(crate) fn is_read(self) -> bool {
        matches!(self, Self::Get | Self::Head)
    }

    /// Whether arguments the endpoint does not use go in the query string (rather than a
    /// JSON body).
    pub(crate) fn args_in_query(self) -> bool {
        matches!(self, Self::Get | Self::Head | Self::Delete)
    }

    pub(crate) fn as_reqwest(self) -> reqwest::Method {
        match self {
            Self::Get => reqwest::Method::GET,
            Self::Post => reqwest::Method::POST,
            Self::Put => reqwest::Method::PUT,
            Self::Patch => reqwest::Method::PATCH,
            Self::Delete => reqwest::Method::DELETE,
            Self::Head => reqwest::Method::HEAD,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawAuth {
    #[serde(rename = "type")]
    pub(crate) kind: AuthKind,
    #[serde(default)]
    pub(crate) username_env: Option<String>,
    #[serde(default)]
    pub(crate) password_env: Option<String>,
    #[serde(default)]
    pub(crate) token_env: Option<String>,
    #[serde(default)]
    pub(crate) header_name: Option<String>,
}

/// How a tool authenticates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AuthKind {
    Basic,
    Bearer,
    Header,
    None,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawParameter {
    pub(crate) name: Spanned<String>,
    #[serde(rename = "type", default)]
    pub(crate) kind: Option<ParamType>,
    #[serde(default)]
    pub(crate) required: bool,
    #[serde(rename = "enum", default)]
    pub(crate) allowed: Option<Vec<Value>>,
    #[serde(default)]
    pub(crate) default: Option<Value>,
    #[serde(default)]
    pub(crate) description: Option<String>,
}

/// A parameter's JSON type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ParamType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
}

impl ParamType {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Integer => "integer",
            Self::Number => "number",
            Self::Boolean => "boolean",
            Self::Array => "array",
            Self::Object => "object",
        }
    }

    /// Whether `value` is of this type.
    pub(crate) fn accepts(self, value: &Value) -> bool {
        match self {
            Self::String => value.is_string(),
            Self::Integer => value.is_i64() || value.is_u64(),
            Self::Number => value.is_number(),
            Self::Boolean => value.is_boolean(),
            Self::Array => value.is_array(),
            Self::Object => value.is_object(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawMapping {
    #[serde(default)]
    pub(crate) success_field: Option<String>,
    #[serde(default)]
    pub(crate) output_fields: Vec<String>,
}

/// Where a spanned value starts: (line, column).
pub(crate) fn at<T>(spanned: &Spanned<T>) -> (u64, u64) {
    (spanned.referenced.line(), spanned.referenced.column())
}

/// Parse `text` under limits that stop alias bombs and oversized input (a few hundred
/// aliases at most: a tools file has no use for more).
pub(crate) fn parse(text: &str) -> Result<RawFile, Problem> {
    if text.len() > MAX_FILE_BYTES {
        return Err(Problem::new(
            (0, 0),
            None,
            format!(
                "the file is {} bytes; a tools file may be at most {MAX_FILE_BYTES}",
                text.len()
            ),
        ));
    }
    let mut budget = Budget::default();
    budget.max_aliases = 256;
    budget.max_anchors = 256;
    budget.max_nodes = 100_000;
    budget.max_depth = 32;
    budget.max_total_scalar_bytes = MAX_FILE_BYTES * 4;
    budget.max_recorded_anchor_bytes = MAX_FILE_BYTES;
    let mut options = Options::default();
    options.budget = Some(budget);
    serde_saphyr::from_str_with_options(text, options).map_err(|error| {
        let at = error
            .location()
            .map_or((0, 0), |at| (at.line(), at.column()));
        let message = error.to_string();
        let first = message.lines().next().unwrap_or_default().to_owned();
        Problem::new(at, None, first)
    })
}

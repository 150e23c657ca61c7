//! `auth`: credentials read from the environment at call time, never from the file, and
//! kept out of everything the tool reports.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hermes_core::ToolError;
use reqwest::header::{AUTHORIZATION, HeaderName, HeaderValue};

use super::raw::{AuthKind, RawAuth};

/// How a tool authenticates; names of environment variables only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Auth {
    /// No credentials.
    None,
    /// HTTP basic authentication.
    Basic {
        /// The variable holding the user name.
        username_env: String,
        /// The variable holding the password.
        password_env: String,
    },
    /// `Authorization: Bearer <token>`.
    Bearer {
        /// The variable holding the token.
        token_env: String,
    },
    /// `<header_name>: <token>`.
    Header {
        /// The header.
        header_name: HeaderName,
        /// The variable holding its value.
        token_env: String,
    },
}

impl Auth {
    /// Check `raw`: each type has exactly the fields it uses.
    ///
    /// # Errors
    ///
    /// A missing field, a field of another type, an invalid header name.
    pub(crate) fn from_raw(raw: &RawAuth) -> Result<Self, String> {
        let unused = |field: &str, present: bool| -> Result<(), String> {
            if present {
                Err(format!(
                    "auth: `{field}` does not apply to auth type `{}`",
                    kind_name(raw.kind)
                ))
            } else {
                Ok(())
            }
        };
        let needed = |field: &str, value: &Option<String>| -> Result<String, String> {
            match value.as_deref().map(str::trim) {
                Some(name) if !name.is_empty() => Ok(name.to_owned()),
                _ => Err(format!(
                    "auth type `{}` needs `{field}` (the name of an environment variable)",
                    kind_name(raw.kind)
                )),
            }
        };
        match raw.kind {
            AuthKind::None => {
                unused("username_env", raw.username_env.is_some())?;
                unused("password_env", raw.password_env.is_some())?;
                unused("token_env", raw.token_env.is_some())?;
                unused("header_name", raw.header_name.is_some())?;
                Ok(Self::None)
            }
            AuthKind::Basic => {
                unused("token_env", raw.token_env.is_some())?;
                unused("header_name", raw.header_name.is_some())?;
                Ok(Self::Basic {
                    username_env: needed("username_env", &raw.username_env)?,
                    password_env: needed("password_env", &raw.password_env)?,
                })
            }
            AuthKind::Bearer => {
                unused("username_env", raw.username_env.is_some())?;
                unused("password_env", raw.password_env.is_some())?;
                unused("header_name", raw.header_name.is_some())?;
                Ok(Self::Bearer {
                    token_env: needed("token_env", &raw.token_env)?,
                })
            }
            AuthKind::Header => {
                unused("username_env", raw.username_env.is_some())?;
                unused("password_env", raw.password_env.is_some())?;
                let name = needed("header_name", &raw.header_name)?;
                let header_name = HeaderName::try_from(name.as_str())
                    .map_err(|_| format!("auth: `{name}` is not a valid HTTP header name"))?;
                Ok(Self::Header {
                    header_name,
                    token_env: needed("token_env", &raw.token_env)?,
                })
            }
        }
    }

    /// Read the credentials from the environment.
    ///
    /// # Errors
    ///
    /// A variable that is not set (named; its value never appears anywhere), or a value
    /// that cannot be a header.
    pub(crate) fn credentials(&self, tool: &str) -> Result<Credentials, ToolError> {
        let read = |variable: &str| -> Result<String, ToolError> {
            match std::env::var(variable) {
                Ok(value) if !value.is_empty() => Ok(value),
                _ => Err(ToolError::failed(format!(
                    "tool `{tool}` cannot authenticate: the environment variable {variable} is not set \
                     (the operator must set it; do not retry)"
                ))),
            }
        };
        let header = |name: HeaderName, value: String, secrets: Vec<String>| {
            let mut value = HeaderValue::try_from(value).map_err(|_| {
                ToolError::failed(format!(
                    "tool `{tool}` cannot authenticate: its credential holds characters a header cannot carry"
                ))
            })?;
            value.set_sensitive(true);
            Ok(Credentials {
                header: Some((name, value)),
                secrets,
            })
        };
        match self {
            Self::None => Ok(Credentials::default()),
            Self::Basic {
                username_env,
                password_env,
            } => {
                let (user, password) = (read(username_env)?, read(password_env)?);
                let encoded = STANDARD.encode(format!("{user}:{password}"));
                header(
                    AUTHORIZATION,
                    format!("Basic {encoded}"),
                    vec![password, encoded],
                )
            }
            Self::Bearer { token_env } => {
                let token = read(token_env)?;
                header(AUTHORIZATION, format!("Bearer {token}"), vec![token])
            }
            Self::Header {
                header_name,
                token_env,
            } => {
                let token = read(token_env)?;
                header(header_name.clone(), token.clone(), vec![token])
            }
        }
    }
}

fn kind_name(kind: AuthKind) -> &'static str {
    match kind {
        AuthKind::Basic => "basic",
        AuthKind::Bearer => "bearer",
        AuthKind::Header => "header",
        AuthKind::None => "none",
    }
}

/// The credentials of one call, and the secret strings to scrub from what it reports.
#[derive(Debug, Default)]
pub(crate) struct Credentials {
    /// The header to send.
    pub(crate) header: Option<(HeaderName, HeaderValue)>,
    /// Values that must not appear in results or errors.
    secrets: Vec<String>,
}

impl Credentials {
    /// `text` with every secret replaced by `[redacted]`.
    pub(crate) fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in self.secrets.iter().filter(|secret| secret.len() >= 4) {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), "[redacted]");
            }
        }
        out
    }

    /// Whether there is anything to scrub.
    pub(crate) fn has_secrets(&self) -> bool {
        !self.secrets.is_empty()
    }
}

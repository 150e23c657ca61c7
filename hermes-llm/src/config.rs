//! Settings shared by the backends, and reading them from the environment.

use std::time::Duration;

use crate::Error;

/// OpenAI's API root, the default base URL.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// Anthropic's API root.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";
/// The default wait for a byte of an answer: local models on CPUs are slow.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// What the environment says: `HERMES_*`, else `OPENAI_*`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Settings {
    /// `HERMES_BASE_URL` / `OPENAI_BASE_URL`.
    pub base_url: Option<String>,
    /// `HERMES_API_KEY` / `OPENAI_API_KEY`.
    pub api_key: Option<String>,
    /// `HERMES_MODEL` / `OPENAI_MODEL`.
    pub model: Option<String>,
}

impl Settings {
    /// Read the process environment.
    pub fn from_env() -> Self {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Read through `lookup` (for tests and embedding).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let pick = |hermes: &str, openai: &str| {
            lookup(hermes)
                .or_else(|| lookup(openai))
                .filter(|value| !value.trim().is_empty())
        };
        Self {
            base_url: pick("HERMES_BASE_URL", "OPENAI_BASE_URL"),
            api_key: pick("HERMES_API_KEY", "OPENAI_API_KEY"),
            model: pick("HERMES_MODEL", "OPENAI_MODEL"),
        }
    }
}

/// A base URL without its trailing slash, refused unless `http(s)://host...`.
pub(crate) fn check_base_url(url: &str) -> Result<String, Error> {
    let trimmed = url.trim().trim_end_matches('/');
    let ok = (trimmed.starts_with("http://") || trimmed.starts_with("https://"))
        && trimmed
            .split("://")
            .nth(1)
            .is_some_and(|rest| !rest.is_empty());
    if ok {
        Ok(trimmed.to_owned())
    } else {
        Err(Error::Invalid {
            what: "base URL",
            value: url.to_owned(),
            reason: "write it as http(s)://host[:port]/path".to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hermes_variables_win_over_openai_ones() {
        let env = |name: &str| match name {
            "HERMES_MODEL" => Some("hermes-3".to_owned()),
            "OPENAI_MODEL" => Some("gpt".to_owned()),
            "OPENAI_API_KEY" => Some("sk-x".to_owned()),
            "HERMES_BASE_URL" => Some(" ".to_owned()),
            _ => None,
        };
        let settings = Settings::from_lookup(env);
        assert_eq!(settings.model.as_deref(), Some("hermes-3"));
        assert_eq!(settings.api_key.as_deref(), Some("sk-x"));
        assert_eq!(settings.base_url, None);
    }

    #[test]
    fn base_urls() {
        assert_eq!(
            check_base_url("http://127.0.0.1:8080/v1/").unwrap(),
            "http://127.0.0.1:8080/v1"
        );
        assert!(check_base_url("localhost:8080").is_err());
        assert!(check_base_url("https://").is_err());
    }
}

/// What every backend builder takes; the setters come from [`common_setters`].
#[derive(Debug, Default)]
pub(crate) struct Common {
    pub(crate) base_url: Option<String>,
    pub(crate) api_key: Option<String>,
    pub(crate) model: Option<String>,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) temperature: Option<f32>,
    pub(crate) max_tokens: Option<u32>,
    pub(crate) retry: crate::http::RetryPolicy,
    pub(crate) timeout: Option<Duration>,
}

impl Common {
    pub(crate) fn model(&mut self) -> Result<String, Error> {
        self.model.take().ok_or(Error::Missing {
            what: "the model",
            hint: "call `model` on the builder",
        })
    }

    /// The base URL, or `default`, checked.
    pub(crate) fn base_url(&self, default: Option<&str>) -> Result<String, Error> {
        let url = self.base_url.as_deref().or(default).ok_or(Error::Missing {
            what: "the base URL",
            hint: "call `base_url` on the builder (the server's API root, as http://127.0.0.1:8080/v1)",
        })?;
        check_base_url(url)
    }

    pub(crate) fn http(&self) -> Result<crate::http::Http, Error> {
        crate::http::Http::new(self.retry, self.timeout.unwrap_or(DEFAULT_TIMEOUT))
    }

    /// The extra headers plus `auth` (the backend's way of sending the key).
    pub(crate) fn headers(
        &self,
        auth: impl FnOnce(&str) -> (String, String),
    ) -> Result<reqwest::header::HeaderMap, Error> {
        let mut pairs = self.headers.clone();
        if let Some(key) = &self.api_key {
            pairs.push(auth(key));
        }
        crate::http::headers(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }
}

/// The setters every backend builder shares (its `common` field holds them).
macro_rules! common_setters {
    () => {
        /// The API root.
        pub fn base_url(mut self, url: impl Into<String>) -> Self {
            self.common.base_url = Some(url.into());
            self
        }

        /// The API key.
        pub fn api_key(mut self, key: impl Into<String>) -> Self {
            self.common.api_key = Some(key.into());
            self
        }

        /// The model name.
        pub fn model(mut self, model: impl Into<String>) -> Self {
            self.common.model = Some(model.into());
            self
        }

        /// An extra header (OpenRouter's `HTTP-Referer`, a proxy's key...).
        pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
            self.common.headers.push((name.into(), value.into()));
            self
        }

        /// Sampling temperature (unset: the server's default).
        pub fn temperature(mut self, temperature: f32) -> Self {
            self.common.temperature = Some(temperature);
            self
        }

        /// Most tokens to generate.
        pub fn max_tokens(mut self, max_tokens: u32) -> Self {
            self.common.max_tokens = Some(max_tokens);
            self
        }

        /// How failed requests are retried (default: 4 attempts, from 500 ms).
        pub fn retry(mut self, retry: $crate::RetryPolicy) -> Self {
            self.common.retry = retry;
            self
        }

        /// The longest wait for a byte of the answer (default 10 minutes).
        pub fn timeout(mut self, timeout: ::std::time::Duration) -> Self {
            self.common.timeout = Some(timeout);
            self
        }
    };
}
pub(crate) use common_setters;

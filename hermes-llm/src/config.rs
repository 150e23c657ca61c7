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

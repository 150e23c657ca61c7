//! What every HTTP backend shares: one client, retries with backoff, reading what an
//! erring server said, and server-sent events.

mod deltas;
mod retry;
mod sse;

use std::time::Duration;

use hermes_core::LlmError;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio::time::Instant;

pub(crate) use deltas::{DeltaSource, Flow, deltas};
pub use retry::RetryPolicy;
pub(crate) use sse::{SseEvent, events};

use crate::Error;

/// The longest error body kept for the message.
const MAX_ERROR_BODY: usize = 2048;

/// The most of an error body read: enough to find the message in a JSON error, and a
/// bound on what a server's error page can cost.
const MAX_ERROR_READ: usize = 16 * 1024;

/// The longest whole (not streamed) answer read: far above any model's answer, and a
/// bound on what a wrong URL serving a large file can cost.
const MAX_ANSWER_BYTES: usize = 64 << 20;

/// The body up to `limit` bytes, and how it ended: `Ok(true)` whole, `Ok(false)` cut at
/// the limit, or the error that broke it off (the bytes before it are kept).
async fn read_at_most(
    mut response: reqwest::Response,
    limit: usize,
) -> (Vec<u8>, Result<bool, reqwest::Error>) {
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                body.extend_from_slice(&chunk);
                if body.len() > limit {
                    body.truncate(limit);
                    return (body, Ok(false));
                }
            }
            Ok(None) => return (body, Ok(true)),
            Err(error) => return (body, Err(error)),
        }
    }
}

/// A client and its retry policy.
#[derive(Debug, Clone)]
pub(crate) struct Http {
    client: reqwest::Client,
    retry: RetryPolicy,
}

impl Http {
    pub(crate) fn new(retry: RetryPolicy, timeout: Duration) -> Result<Self, Error> {
        #[cfg(feature = "rustls")]
        {
            // Only if the program has not chosen a provider itself.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .read_timeout(timeout)
            .build()
            .map_err(Error::Client)?;
        Ok(Self { client, retry })
    }

    /// POST `body` as JSON to `url`, retrying connection errors, 408, 429 and 5xx with
    /// backoff (and `Retry-After`), within the attempts and before `deadline`. Returns
    /// the first successful response, whose body is not read yet.
    pub(crate) async fn post(
        &self,
        url: &str,
        headers: &HeaderMap,
        body: &Value,
        deadline: Option<Instant>,
    ) -> Result<reqwest::Response, LlmError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            let sent = self
                .client
                .post(url)
                .headers(headers.clone())
                .json(body)
                .send()
                .await;
            let (error, retry_after) = match sent {
                Ok(response) if response.status().is_success() => return Ok(response),
                Ok(response) => {
                    let retry_after = retry::retry_after(response.headers());
                    (status_error(response).await, retry_after)
                }
                Err(error) => (transport_error(url, error), None),
            };
            if !error.is_retryable() || attempt >= self.retry.max_attempts {
                return Err(error);
            }
            let wait = self.retry.delay(attempt, retry_after);
            if deadline.is_some_and(|deadline| Instant::now() + wait >= deadline) {
                tracing::warn!(%error, "not retrying: the run's deadline comes first");
                return Err(error);
            }
            tracing::warn!(%error, attempt, ?wait, "retrying the model request");
            tokio::time::sleep(wait).await;
        }
    }
}

impl Http {
    /// [`post`](Self::post), then read the body as `T` (`what` names it in errors).
    pub(crate) async fn post_for<T: serde::de::DeserializeOwned>(
        &self,
        url: &str,
        headers: &HeaderMap,
        body: &Value,
        deadline: Option<Instant>,
        what: &str,
    ) -> Result<T, LlmError> {
        let response = self.post(url, headers, body, deadline).await?;
        let (bytes, ending) = read_at_most(response, MAX_ANSWER_BYTES).await;
        let whole = ending.map_err(|error| LlmError::Transport {
            message: "the connection broke while reading the answer".to_owned(),
            source: Some(Box::new(error)),
        })?;
        if !whole {
            return Err(LlmError::InvalidResponse {
                message: format!(
                    "the answer is longer than {} MiB; no model answer is that long (a wrong URL?)",
                    MAX_ANSWER_BYTES >> 20
                ),
            });
        }
        let text = String::from_utf8_lossy(&bytes);
        serde_json::from_str(&text).map_err(|error| LlmError::InvalidResponse {
            message: format!(
                "the answer is not {what} ({error}): {}",
                server_message(&text)
            ),
        })
    }
}

/// Headers from `(name, value)` pairs.
pub(crate) fn headers<'a>(
    pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<HeaderMap, Error> {
    let mut map = HeaderMap::new();
    for (name, value) in pairs {
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|error| Error::Invalid {
            what: "header name",
            value: name.to_owned(),
            reason: error.to_string(),
        })?;
        let mut value = HeaderValue::from_str(value).map_err(|error| Error::Invalid {
            what: "header value",
            value: format!("{name}: ..."),
            reason: error.to_string(),
        })?;
        if name.eq_ignore_ascii_case("authorization") || name.to_ascii_lowercase().contains("key") {
            value.set_sensitive(true);
        }
        map.insert(header, value);
    }
    Ok(map)
}

fn transport_error(url: &str, error: reqwest::Error) -> LlmError {
    let what = if error.is_connect() {
        format!("cannot connect to {url}; is the server running?")
    } else if error.is_timeout() {
        format!("{url} did not answer in time")
    } else {
        format!("the request to {url} failed")
    };
    LlmError::Transport {
        message: what,
        source: Some(Box::new(error)),
    }
}

/// An error status with what the server said: the `error.message` of a JSON body, or
/// the text. Reads at most [`MAX_ERROR_READ`] bytes of the body.
pub(crate) async fn status_error(response: reqwest::Response) -> LlmError {
    let status = response.status().as_u16();
    // However it ended, what came is the message.
    let (body, _) = read_at_most(response, MAX_ERROR_READ).await;
    LlmError::Status {
        status,
        body: server_message(&String::from_utf8_lossy(&body)),
    }
}

pub(crate) fn server_message(text: &str) -> String {
    let from_json = serde_json::from_str::<Value>(text).ok().and_then(|value| {
        let candidates = [
            value.pointer("/error/message"),
            value.pointer("/error"),
            value.pointer("/message"),
            value.pointer("/detail"),
        ];
        candidates
            .into_iter()
            .flatten()
            .find_map(|v| v.as_str().map(str::to_owned))
    });
    let mut message = from_json.unwrap_or_else(|| text.trim().to_owned());
    if message.is_empty() {
        message = "(no body)".to_owned();
    }
    if message.len() > MAX_ERROR_BODY {
        let cut = (0..=MAX_ERROR_BODY)
            .rev()
            .find(|&i| message.is_char_boundary(i))
            .unwrap_or(0);
        message.truncate(cut);
        message.push_str("...");
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_messages() {
        assert_eq!(
            server_message(r#"{"error": {"message": "Invalid API key", "type": "auth"}}"#),
            "Invalid API key"
        );
        assert_eq!(
            server_message(r#"{"error": "model not found"}"#),
            "model not found"
        );
        assert_eq!(server_message(r#"{"detail": "Not Found"}"#), "Not Found");
        assert_eq!(server_message("Bad Gateway\n"), "Bad Gateway");
        assert_eq!(server_message(""), "(no body)");
        assert!(server_message(&"x".repeat(5000)).ends_with("..."));
    }
}

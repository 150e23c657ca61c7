//! When to try again, and how long to wait.

use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};

/// Retries of failed requests: connection errors, 408, 429 and 5xx.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Attempts in all, the first included (default 4).
    pub max_attempts: u32,
    /// The wait after the first failure, doubled after each (default 500 ms).
    pub base_delay: Duration,
    /// The longest wait, also for a server's `Retry-After` (default 30 s).
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// No retries: one attempt.
    pub const fn none() -> Self {
        Self {
            max_attempts: 1,
            base_delay: Duration::ZERO,
            max_delay: Duration::ZERO,
        }
    }

    /// A policy with `attempts` attempts and `base` as the first wait.
    pub fn new(attempts: u32, base: Duration) -> Self {
        Self {
            max_attempts: attempts.max(1),
            base_delay: base,
            ..Self::default()
        }
    }

    /// The wait before attempt `attempt + 1`: the server's `Retry-After` if it gave one,
    /// else exponential backoff with jitter (between half and all of it).
    pub(crate) fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(self.max_delay);
        }
        let exponent = attempt.saturating_sub(1).min(16);
        let full = self
            .base_delay
            .saturating_mul(1 << exponent)
            .min(self.max_delay);
        full.mul_f64(0.5 + fastrand::f64() * 0.5)
    }
}

/// `Retry-After` in seconds (the HTTP-date form is rare for APIs and ignored).
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    let seconds: f64 = value.parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_with_jitter_and_honours_retry_after() {
        let policy = RetryPolicy::default();
        for attempt in 1..6 {
            let full = Duration::from_millis(500) * (1 << (attempt - 1));
            let wait = policy.delay(attempt, None);
            assert!(
                wait >= full / 2 && wait <= full.min(policy.max_delay),
                "{attempt}: {wait:?}"
            );
        }
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(2))),
            Duration::from_secs(2)
        );
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(999))),
            policy.max_delay
        );
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, "3".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(3)));
        headers.insert(
            RETRY_AFTER,
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(retry_after(&headers), None);
    }
}

//! The HTTP client every network tool uses: the guarded resolver, no proxy from the
//! environment (a proxy would connect for us, past the guard), rustls with ring, and a
//! redirect policy that checks every hop.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use reqwest::redirect;

use super::resolve::GuardedResolver;
use super::ssrf::{AddressPolicy, Blocked};

/// What a client may do: where it may connect and how it follows redirects.
#[derive(Debug, Clone)]
pub(crate) struct ClientPolicy {
    /// The addresses it may reach.
    pub(crate) addresses: Arc<AddressPolicy>,
    /// The most redirects followed; 0 returns redirects as they are.
    pub(crate) max_redirects: usize,
    /// The `User-Agent` header.
    pub(crate) user_agent: String,
}

/// A URL the tools refuse before sending anything.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UrlError {
    /// Not a URL.
    #[error("`{url}` is not a valid URL ({reason}); give an absolute http:// or https:// URL")]
    Invalid {
        /// The text given.
        url: String,
        /// The parser's complaint.
        reason: String,
    },
    /// A scheme other than the ones allowed.
    #[error("the scheme `{scheme}` is not supported here; use {allowed}")]
    Scheme {
        /// The scheme given.
        scheme: String,
        /// The schemes allowed, for the message.
        allowed: &'static str,
    },
    /// An address literal the policy refuses.
    #[error(transparent)]
    Blocked(#[from] Blocked),
}

/// The redirect limit was reached.
#[derive(Debug, thiserror::Error)]
#[error("stopped after {0} redirects; the server redirects too often (a loop?)")]
pub(crate) struct TooManyRedirects(pub(crate) usize);

/// `raw` parsed, if its scheme is one of `schemes` and a literal address host is
/// allowed (named hosts are checked when they resolve).
///
/// # Errors
///
/// [`UrlError`] for text that is not a URL, another scheme, or a refused address.
pub(crate) fn check_url(
    raw: &str,
    schemes: &[&str],
    addresses: &AddressPolicy,
) -> Result<Url, UrlError> {
    let url = Url::parse(raw).map_err(|error| UrlError::Invalid {
        url: raw.to_owned(),
        reason: error.to_string(),
    })?;
    if !schemes.contains(&url.scheme()) {
        return Err(UrlError::Scheme {
            scheme: url.scheme().to_owned(),
            allowed: if schemes.contains(&"ws") {
                "ws:// or wss://"
            } else {
                "http:// or https://"
            },
        });
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(UrlError::Invalid {
            url: raw.to_owned(),
            reason: "no host".to_owned(),
        });
    }
    if let Some(ip) = literal_ip(&url) {
        addresses.check(ip)?;
    }
    Ok(url)
}

/// The host of `url` when it is an address, not a name.
pub(crate) fn literal_ip(url: &Url) -> Option<IpAddr> {
    match url.host()? {
        url::Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
        url::Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
        url::Host::Domain(_) => None,
    }
}

/// A client following `policy`.
///
/// # Errors
///
/// `reqwest`'s error when the TLS backend cannot start.
pub(crate) fn build_client(policy: &ClientPolicy) -> Result<reqwest::Client, reqwest::Error> {
    build_client_with(policy, GuardedResolver::new(Arc::clone(&policy.addresses)))
}

/// A client following `policy` whose names are resolved by `resolver` (tests script its
/// answers).
///
/// # Errors
///
/// `reqwest`'s error when the TLS backend cannot start.
pub(super) fn build_client_with(
    policy: &ClientPolicy,
    resolver: GuardedResolver,
) -> Result<reqwest::Client, reqwest::Error> {
    // Only if the program has not chosen a provider itself.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .dns_resolver(resolver)
        .redirect(redirects(policy))
        .user_agent(policy.user_agent.clone())
        .connect_timeout(Duration::from_secs(15))
        .build()
}

/// The redirect policy: at most `max_redirects` hops, each to http(s) and, for an
/// address literal, to an allowed address (names are checked when they resolve).
fn redirects(policy: &ClientPolicy) -> redirect::Policy {
    let max = policy.max_redirects;
    if max == 0 {
        return redirect::Policy::none();
    }
    let addresses = Arc::clone(&policy.addresses);
    redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() > max {
            return attempt.error(TooManyRedirects(max));
        }
        match check_url(attempt.url().as_str(), &["http", "https"], &addresses) {
            Ok(_) => attempt.follow(),
            Err(error) => attempt.error(error),
        }
    })
}

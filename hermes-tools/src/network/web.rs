//! [`Web`]: what the family's tools share to reach the network: the configuration, the
//! address policy, clients built from them, and fetching a page for reading.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use hermes_core::ToolError;
use reqwest::Url;
use reqwest::header::{ACCEPT, CONTENT_TYPE};

use crate::NetworkConfig;
use crate::common::Shared;
use crate::common::http::{self, AddressPolicy, Body, ClientPolicy};

/// The schemes of web pages.
pub(crate) const HTTP_SCHEMES: &[&str] = &["http", "https"];

/// The network settings and state the family's tools share.
#[derive(Debug)]
pub(crate) struct Web {
    /// The settings of the built-in tools.
    pub(crate) shared: Arc<Shared>,
    /// The addresses the tools may reach.
    pub(crate) addresses: Arc<AddressPolicy>,
    /// Clients built on first use and kept (with their connection pools): following
    /// redirects, not following them, and for trusted endpoints.
    clients: [OnceLock<reqwest::Client>; 3],
}

/// Which of the kept clients.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// Guarded, following redirects.
    Follow,
    /// Guarded, returning redirects.
    Direct,
    /// For operator-configured endpoints: any address, no redirects.
    Trusted,
}

/// A page fetched for reading.
#[derive(Debug)]
pub(crate) struct Page {
    /// Where it was found, after redirects.
    pub(crate) url: Url,
    /// Its `Content-Type`, empty when none.
    pub(crate) content_type: String,
    /// Its body, up to the configured cap.
    pub(crate) body: Body,
}

impl Web {
    /// The family's state over `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Self {
        Self {
            addresses: Arc::new(AddressPolicy::from_config(&shared.config.network)),
            shared: Arc::clone(shared),
            clients: Default::default(),
        }
    }

    /// The network settings.
    pub(crate) fn config(&self) -> &NetworkConfig {
        &self.shared.config.network
    }

    /// The cap on text a tool returns.
    pub(crate) fn text_cap(&self) -> usize {
        self.shared.config.max_output_bytes()
    }

    /// A client reaching only allowed addresses, following redirects or not.
    pub(crate) fn client(&self, follow_redirects: bool) -> Result<reqwest::Client, ToolError> {
        self.kept(if follow_redirects {
            Kind::Follow
        } else {
            Kind::Direct
        })
    }

    /// A client for endpoints the operator configured (search providers): any address,
    /// no redirects.
    pub(crate) fn trusted_client(&self) -> Result<reqwest::Client, ToolError> {
        self.kept(Kind::Trusted)
    }

    /// The client of `kind`, built on first use.
    fn kept(&self, kind: Kind) -> Result<reqwest::Client, ToolError> {
        let slot = &self.clients[kind as usize];
        if let Some(client) = slot.get() {
            return Ok(client.clone());
        }
        let (addresses, max_redirects) = match kind {
            Kind::Follow => (Arc::clone(&self.addresses), self.config().max_redirects),
            Kind::Direct => (Arc::clone(&self.addresses), 0),
            Kind::Trusted => (Arc::new(AddressPolicy::trusted()), 0),
        };
        let policy = ClientPolicy {
            addresses,
            max_redirects,
            user_agent: self.config().user_agent.clone(),
        };
        let client = http::build_client(&policy)
            .map_err(|error| ToolError::failed_with("the HTTP client could not start", error))?;
        // Two first calls at once may both build one; either is fine to keep.
        Ok(slot.get_or_init(|| client).clone())
    }

    /// `raw` as an http(s) URL the policy allows.
    pub(crate) fn http_url(&self, raw: &str) -> Result<Url, ToolError> {
        http::check_url(raw, HTTP_SCHEMES, &self.addresses).map_err(http::url_refused)
    }

    /// GET `raw` (following redirects) for reading: a 2xx response, its body up to the
    /// configured cap.
    pub(crate) async fn get(
        &self,
        raw: &str,
        accept: &str,
        timeout: Duration,
    ) -> Result<Page, ToolError> {
        let url = self.http_url(raw)?;
        let response = self
            .client(true)?
            .get(url)
            .header(ACCEPT, accept)
            .timeout(timeout)
            .send()
            .await
            .map_err(|error| http::request_failed(error, raw, timeout))?;
        let status = response.status();
        if !status.is_success() {
            return Err(ToolError::failed(format!(
                "`{raw}` answered HTTP {status}; {}",
                status_advice(status.as_u16())
            )));
        }
        let url = response.url().clone();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let body = http::read_capped(response, self.config().max_body_bytes)
            .await
            .map_err(|error| http::request_failed(error, raw, timeout))?;
        Ok(Page {
            url,
            content_type,
            body,
        })
    }
}

/// What to do about an error status.
pub(crate) fn status_advice(status: u16) -> &'static str {
    match status {
        401 | 403 => "the page needs credentials this tool does not have",
        404 | 410 => "the page does not exist; check the URL",
        429 => "the server is rate limiting; wait before trying again",
        500..=599 => "the server failed; try again later",
        _ => "check the URL",
    }
}

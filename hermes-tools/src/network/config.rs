//! [`NetworkConfig`]: the network family's settings.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};

/// A web search provider `web_search` can ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum SearchProvider {
    /// A SearXNG instance's JSON API.
    SearXng,
    /// The Brave Search API.
    Brave,
    /// The Tavily search API.
    Tavily,
    /// DuckDuckGo's HTML results page (no key).
    DuckDuckGo,
}

/// The network family's settings, part of [`ToolsConfig`](crate::ToolsConfig).
///
/// By default the tools reach public addresses only: loopback, private, link-local and
/// other non-public targets are refused (checked on the resolved address, on every
/// redirect). Search settings come from here or, when unset, from the environment
/// (`SEARXNG_URL`, `BRAVE_API_KEY`, `TAVILY_API_KEY`). The default provider is the first
/// of SearXNG, Brave and Tavily set here, else the first set in the environment, else
/// DuckDuckGo; a call may pick another with `search_engine`.
#[derive(Debug, Clone)]
pub struct NetworkConfig {
    pub(crate) allow_private: bool,
    pub(crate) allowed_networks: Vec<(IpAddr, u8)>,
    pub(crate) search_endpoints: BTreeMap<SearchProvider, String>,
    pub(crate) brave_api_key: Option<String>,
    pub(crate) tavily_api_key: Option<String>,
    pub(crate) nameserver: Option<SocketAddr>,
    pub(crate) max_download_bytes: u64,
    pub(crate) max_body_bytes: usize,
    pub(crate) max_redirects: usize,
    pub(crate) user_agent: String,
}

impl Default for NetworkConfig {
    fn default() -> Self {
        Self {
            allow_private: false,
            allowed_networks: Vec::new(),
            search_endpoints: BTreeMap::new(),
            brave_api_key: None,
            tavily_api_key: None,
            nameserver: None,
            max_download_bytes: 100 * 1024 * 1024,
            max_body_bytes: 5 * 1024 * 1024,
            max_redirects: 10,
            user_agent: concat!("hermes-tools/", env!("CARGO_PKG_VERSION")).to_owned(),
        }
    }
}

impl NetworkConfig {
    /// Let the tools reach every non-public address too: loopback, private ranges,
    /// link-local (cloud metadata services live there) and the rest (default: off).
    #[must_use]
    pub fn allow_private(mut self, allow: bool) -> Self {
        self.allow_private = allow;
        self
    }

    /// Let the tools reach the non-public addresses in `network`/`prefix_len` (say
    /// `10.1.0.0`/16 for an intranet), keeping the others refused. A prefix longer than
    /// the address is cut to its length.
    #[must_use]
    pub fn allow_network(mut self, network: IpAddr, prefix_len: u8) -> Self {
        let max = if network.is_ipv4() { 32 } else { 128 };
        self.allowed_networks.push((network, prefix_len.min(max)));
        self
    }

    /// The SearXNG instance `web_search` asks (default: `SEARXNG_URL`). With one set,
    /// it is the default provider. The instance is trusted: it may be on a private
    /// address.
    #[must_use]
    pub fn searxng_url(mut self, url: impl Into<String>) -> Self {
        self.search_endpoints
            .insert(SearchProvider::SearXng, url.into());
        self
    }

    /// Another endpoint for the Brave Search API (a proxy, a test server; default
    /// `https://api.search.brave.com/res/v1/web/search`). Trusted like the SearXNG URL.
    #[must_use]
    pub fn brave_endpoint(mut self, url: impl Into<String>) -> Self {
        self.search_endpoints
            .insert(SearchProvider::Brave, url.into());
        self
    }

    /// Another endpoint for Tavily (default `https://api.tavily.com/search`). Trusted
    /// like the SearXNG URL.
    #[must_use]
    pub fn tavily_endpoint(mut self, url: impl Into<String>) -> Self {
        self.search_endpoints
            .insert(SearchProvider::Tavily, url.into());
        self
    }

    /// Another endpoint for DuckDuckGo's HTML results (default
    /// `https://html.duckduckgo.com/html/`). Trusted like the SearXNG URL.
    #[must_use]
    pub fn duckduckgo_endpoint(mut self, url: impl Into<String>) -> Self {
        self.search_endpoints
            .insert(SearchProvider::DuckDuckGo, url.into());
        self
    }

    /// The Brave Search API key (default: `BRAVE_API_KEY`). Keys never appear in errors.
    #[must_use]
    pub fn brave_api_key(mut self, key: impl Into<String>) -> Self {
        self.brave_api_key = Some(key.into());
        self
    }

    /// The Tavily API key (default: `TAVILY_API_KEY`).
    #[must_use]
    pub fn tavily_api_key(mut self, key: impl Into<String>) -> Self {
        self.tavily_api_key = Some(key.into());
        self
    }

    /// The DNS server `dns_lookup` asks, over UDP and TCP (default: the system's).
    #[must_use]
    pub fn nameserver(mut self, address: SocketAddr) -> Self {
        self.nameserver = Some(address);
        self
    }

    /// The most `download_file` may write, whatever the call asks (default 100 MiB).
    #[must_use]
    pub fn max_download_bytes(mut self, bytes: u64) -> Self {
        self.max_download_bytes = bytes.max(1);
        self
    }

    /// The most of a response body the tools read before cutting it (default 5 MiB;
    /// at least 1 KiB). What they return is cut again to the tools' output cap.
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes.max(1024);
        self
    }

    /// The most redirects a request follows (default 10).
    #[must_use]
    pub fn max_redirects(mut self, hops: usize) -> Self {
        self.max_redirects = hops;
        self
    }

    /// The `User-Agent` header sent (default `hermes-tools/VERSION`).
    #[must_use]
    pub fn user_agent(mut self, agent: impl Into<String>) -> Self {
        self.user_agent = agent.into();
        self
    }
}

//! The `network` family: `web_search`, `http_request`, `web_fetch`, `web_extract`,
//! `download_file`, `dns_lookup`, `port_check`, `websocket` and `rss_read`.
//!
//! Every connection goes through [`crate::common::http`]: addresses are checked after resolution and
//! on every redirect, so non-public targets (loopback, private ranges, cloud metadata
//! services) are refused unless [`NetworkConfig`] allows them, and bodies are read up
//! to a cap. [`web::Web`] holds what the tools share; [`html`] turns pages into text.

mod config;
mod dns;
mod download;
mod extract;
mod fetch;
mod html;
mod port;
mod request;
mod rss;
mod search;
mod web;
mod websocket;

use std::sync::Arc;

use hermes_core::{Error, Tool};

use crate::common::Shared;

pub use config::NetworkConfig;

/// The tag every tool of the family carries (the README's table reads it).
const FAMILY_TAG: &str = "family:network";

/// The most a network tool's result may be, whatever the configured output cap.
const MAX_RESULT_BYTES: usize = 256 * 1024;

/// Every tool of the family.
///
/// # Errors
///
/// An invalid spec: the specs are constants of this crate, so a bug the tests catch.
pub(crate) fn tools(shared: &Arc<Shared>) -> Result<Vec<Arc<dyn Tool>>, Error> {
    let web = Arc::new(web::Web::new(shared));
    Ok(vec![
        Arc::new(search::WebSearch::new(&web)?),
        Arc::new(request::HttpRequest::new(&web)?),
        Arc::new(fetch::WebFetch::new(&web)?),
        Arc::new(extract::WebExtract::new(&web)?),
        Arc::new(download::DownloadFile::new(&web)?),
        Arc::new(dns::DnsLookup::new(&web)?),
        Arc::new(port::PortCheck::new(&web)?),
        Arc::new(websocket::WebSocket::new(&web)?),
        Arc::new(rss::RssRead::new(&web)?),
    ])
}

/// The cap on a tool's whole result: room for the configured text cap escaped as JSON,
/// plus the result's other fields, within [`MAX_RESULT_BYTES`].
fn result_cap(web: &web::Web) -> usize {
    web.text_cap()
        .saturating_mul(2)
        .saturating_add(8192)
        .min(MAX_RESULT_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolsConfig;

    #[test]
    fn every_spec_builds() {
        let shared = Arc::new(Shared::new(ToolsConfig::default()));
        let names: Vec<String> = tools(&shared)
            .unwrap()
            .iter()
            .map(|tool| tool.spec().name().to_owned())
            .collect();
        assert_eq!(
            names,
            [
                "web_search",
                "http_request",
                "web_fetch",
                "web_extract",
                "download_file",
                "dns_lookup",
                "port_check",
                "websocket",
                "rss_read"
            ]
        );
    }
}

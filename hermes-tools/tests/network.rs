//! Behaviour tests of the `network` family: every call goes through the gateway,
//! against real servers on 127.0.0.1 (HTTP, WebSocket, DNS over UDP) started by the
//! tests; never the internet.
#![cfg(feature = "network")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs,
    unreachable_pub
)]

mod common;

#[path = "network/dns.rs"]
mod dns;
#[path = "network/download.rs"]
mod download;
#[path = "network/extract.rs"]
mod extract;
#[path = "network/fetch.rs"]
mod fetch;
#[path = "network/http_request.rs"]
mod http_request;
#[path = "network/pages.rs"]
mod pages;
#[path = "network/port.rs"]
mod port;
#[path = "network/rss.rs"]
mod rss;
#[path = "network/search.rs"]
mod search;
#[path = "network/ssrf.rs"]
mod ssrf;
#[path = "network/support.rs"]
mod support;
#[path = "network/websocket.rs"]
mod websocket;

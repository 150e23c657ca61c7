//! The HTTP layer, shared by every network tool and the YAML-configured HTTP tools: one
//! way to build a client that only reaches allowed addresses, one capped body reader,
//! one translation of transport errors.
//!
//! - [`ssrf`]: which addresses are non-public, and the [`AddressPolicy`] that refuses
//!   them unless allowed;
//! - [`resolve`]: name resolution filtered by the policy, for `reqwest` and for raw
//!   sockets (`port_check`, `websocket`), so the checked address is the one connected to;
//! - [`client`]: URL checks (scheme, address literals), and the client with the guarded
//!   resolver and a redirect policy re-checking every hop;
//! - [`body`]: bodies read up to a cap;
//! - [`error`]: transport failures as messages for the model.

// Built for the YAML tools alone, the parts only network tools use go unused.
#![cfg_attr(not(feature = "network"), allow(dead_code, unused_imports))]

pub(crate) mod body;
pub(crate) mod client;
pub(crate) mod error;
#[cfg(test)]
#[cfg(feature = "network")]
mod rebinding_tests;
pub(crate) mod resolve;
pub(crate) mod ssrf;

pub(crate) use body::{Body, read_capped};
pub(crate) use client::{ClientPolicy, build_client, check_url};
pub(crate) use error::{lookup_failed, request_failed, url_refused};
pub(crate) use ssrf::AddressPolicy;

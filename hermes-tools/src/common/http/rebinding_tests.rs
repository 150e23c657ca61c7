//! The guarded client against DNS rebinding and redirects, with scripted name answers.
//!
//! A server on 127.0.0.1, which the policy refuses, counts every request that reaches
//! it; the same port on 127.0.0.2, which the policy allows, stands in for a public host
//! (so no test needs the internet or waits for a connection that cannot succeed).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::Query;
use axum::response::Redirect;
use axum::routing::get;
use reqwest::Url;

use super::client::{ClientPolicy, build_client_with};
use super::error::request_failed;
use super::resolve::GuardedResolver;
use super::ssrf::AddressPolicy;
use crate::NetworkConfig;

/// Allowed by the test policy: the stand-in for a public address.
const ALLOWED: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
/// Refused by the test policy (loopback).
const REFUSED: Ipv4Addr = Ipv4Addr::LOCALHOST;
/// What the message names when 127.0.0.1 is refused.
const REFUSAL: &str = "127.0.0.1 is a loopback address";
/// A safety net: every address is local, so nothing should come near it.
const SAFETY_NET: Duration = Duration::from_secs(20);

/// Requests a server answered.
type Hits = Arc<AtomicUsize>;

/// The two servers, on one port: the allowed one answers `allowed` on `/` and
/// redirects `/hop?to=URL` to `URL`; the refused one answers `refused`.
struct Servers {
    port: u16,
    allowed: Hits,
    refused: Hits,
}

impl Servers {
    async fn start() -> Self {
        let refused = Hits::default();
        let (listener, port) = loop {
            let listener = tokio::net::TcpListener::bind((REFUSED, 0)).await.unwrap();
            let port = listener.local_addr().unwrap().port();
            // The port is free on 127.0.0.1; on 127.0.0.2 it almost always is too.
            if let Ok(allowed) = tokio::net::TcpListener::bind((ALLOWED, port)).await {
                spawn(listener, counted(answering("refused"), &refused));
                break (allowed, port);
            }
        };
        let allowed = Hits::default();
        let router = answering("allowed").route(
            "/hop",
            get(|Query(query): Query<HashMap<String, String>>| async move {
                Redirect::to(&query["to"])
            }),
        );
        let router = counted(router, &allowed);
        spawn(listener, router);
        Self {
            port,
            allowed,
            refused,
        }
    }

    fn refused_hits(&self) -> usize {
        self.refused.load(Ordering::SeqCst)
    }

    fn allowed_hits(&self) -> usize {
        self.allowed.load(Ordering::SeqCst)
    }
}

/// A router answering `body` on `/`.
fn answering(body: &'static str) -> Router {
    Router::new().route("/", get(move || async move { body }))
}

/// `router`, counting every request it gets in `hits`.
fn counted(router: Router, hits: &Hits) -> Router {
    let hits = Arc::clone(hits);
    router.layer(axum::middleware::from_fn(
        move |request, next: axum::middleware::Next| {
            hits.fetch_add(1, Ordering::SeqCst);
            async move { next.run(request).await }
        },
    ))
}

fn spawn(listener: tokio::net::TcpListener, router: Router) {
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
}

/// A policy refusing non-public addresses but 127.0.0.2.
fn policy() -> ClientPolicy {
    let config = NetworkConfig::default().allow_network(IpAddr::V4(ALLOWED), 32);
    ClientPolicy {
        addresses: Arc::new(AddressPolicy::from_config(&config)),
        max_redirects: 5,
        user_agent: "hermes-test".to_owned(),
    }
}

/// A resolver under [`policy`] where `rebind.test` answers `first`, then `later` on
/// every lookup after; `public.test` answers 127.0.0.2, `loopback.test` 127.0.0.1.
/// Also the count of `rebind.test` lookups.
fn resolver(first: Ipv4Addr, later: Ipv4Addr) -> (GuardedResolver, Hits) {
    let lookups = Hits::default();
    let counted = Arc::clone(&lookups);
    let resolver = GuardedResolver::scripted(policy().addresses, move |host| match host {
        "rebind.test" => {
            let n = counted.fetch_add(1, Ordering::SeqCst);
            vec![IpAddr::V4(if n == 0 { first } else { later })]
        }
        "public.test" => vec![IpAddr::V4(ALLOWED)],
        "loopback.test" => vec![IpAddr::V4(REFUSED)],
        _ => Vec::new(),
    });
    (resolver, lookups)
}

/// GET `url` with a new client (no pooled connection: the name is resolved again) of
/// `resolver`: the body, or the message the model would read.
async fn get_text(resolver: &GuardedResolver, url: &str) -> Result<String, String> {
    let client = build_client_with(&policy(), resolver.clone()).unwrap();
    let sent = tokio::time::timeout(SAFETY_NET, async {
        client
            .get(url)
            .send()
            .await?
            .error_for_status()?
            .text()
            .await
    })
    .await
    .expect("a local request hung");
    sent.map_err(|error| request_failed(error, url, SAFETY_NET).to_string())
}

/// Public at the first lookup, loopback after: the first connection goes to the
/// address that was checked (the allowed server answers), the second is refused with
/// 127.0.0.1 named, and nothing reaches the refused server. A client that checked one
/// answer and connected with another (a second lookup) would reach it.
#[tokio::test]
async fn a_name_rebinding_to_loopback_is_refused_at_the_connection_that_would_use_it() {
    let servers = Servers::start().await;
    let (resolver, lookups) = resolver(ALLOWED, REFUSED);
    let url = format!("http://rebind.test:{}/", servers.port);
    assert_eq!(get_text(&resolver, &url).await.unwrap(), "allowed");
    assert_eq!(
        lookups.load(Ordering::SeqCst),
        1,
        "one lookup per connection"
    );
    let message = get_text(&resolver, &url).await.unwrap_err();
    assert!(message.contains(REFUSAL), "{message}");
    assert!(message.contains("rebind.test"), "{message}");
    assert_eq!(lookups.load(Ordering::SeqCst), 2);
    assert_eq!(servers.refused_hits(), 0);
    assert_eq!(servers.allowed_hits(), 1);
}

/// The reverse: loopback first, public after. The first connection is refused (a client
/// connecting with an earlier answer than the one it checked would reach 127.0.0.1),
/// and the next one, judged on its own answer, goes through.
#[tokio::test]
async fn a_name_answering_loopback_first_is_refused_then_judged_again() {
    let servers = Servers::start().await;
    let (resolver, lookups) = resolver(REFUSED, ALLOWED);
    let url = format!("http://rebind.test:{}/", servers.port);
    let message = get_text(&resolver, &url).await.unwrap_err();
    assert!(message.contains(REFUSAL), "{message}");
    assert_eq!(
        lookups.load(Ordering::SeqCst),
        1,
        "one lookup per connection"
    );
    assert_eq!(get_text(&resolver, &url).await.unwrap(), "allowed");
    assert_eq!(servers.refused_hits(), 0);
    assert_eq!(servers.allowed_hits(), 1);
}

/// From an allowed host, a redirect is followed to an allowed name, but refused at the
/// hop to a name resolving to loopback (checked when the hop's connection resolves it)
/// and to loopback literals (checked by the redirect policy). The refused server sees
/// no request; the allowed one sees each first hop.
#[tokio::test]
async fn every_redirect_hop_is_checked() {
    let servers = Servers::start().await;
    let (resolver, _) = resolver(ALLOWED, ALLOWED);
    let port = servers.port;
    let start = |to: &str| {
        let mut url = Url::parse(&format!("http://public.test:{port}/hop")).unwrap();
        url.query_pairs_mut().append_pair("to", to);
        url.to_string()
    };
    let followed = get_text(&resolver, &start(&format!("http://public.test:{port}/"))).await;
    assert_eq!(followed.unwrap(), "allowed");
    let mut first_hops = 2;
    for to in [
        format!("http://loopback.test:{port}/"),
        format!("http://127.0.0.1:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        format!("http://2130706433:{port}/"),
    ] {
        let message = get_text(&resolver, &start(&to)).await.unwrap_err();
        assert!(message.contains(REFUSAL), "{to}: {message}");
        first_hops += 1;
        assert_eq!(servers.allowed_hits(), first_hops, "{to}");
    }
    assert_eq!(servers.refused_hits(), 0);
}

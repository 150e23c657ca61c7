//! The guard against server-side request forgery: non-public targets are refused by
//! default, by address literal, by resolved name and on redirects; the configuration
//! opens exactly what it names.

use std::net::Ipv4Addr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::response::Redirect;
use axum::routing::get;
use hermes_tools::NetworkConfig;
use serde_json::json;

use crate::common::Bench;
use crate::support::{bench_with, serve};

async fn server() -> std::net::SocketAddr {
    let router = Router::new()
        .route("/", get(|| async { "hello" }))
        .route("/loop", get(|| async { Redirect::to("/loop") }));
    serve(router).await
}

#[tokio::test]
async fn loopback_is_refused_by_default() {
    let bench = Bench::new();
    let address = server().await;
    let port = address.port();
    for url in [
        format!("http://127.0.0.1:{port}/"),
        format!("http://localhost:{port}/"),
        format!("http://[::1]:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        format!("http://2130706433:{port}/"),
        format!("http://0x7f.0.0.1:{port}/"),
    ] {
        let message = bench
            .fails("http_request", json!({"url": url}), "failed", "loopback")
            .await;
        assert!(message.contains("refused"), "{url}: {message}");
    }
}

#[tokio::test]
async fn metadata_private_and_unspecified_addresses_are_refused() {
    let bench = Bench::new();
    for (url, class) in [
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://10.0.0.1/", "private"),
        ("http://192.168.1.1/", "private"),
        ("http://100.64.0.1/", "carrier-grade NAT"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://[fd00::1]/", "unique local"),
    ] {
        bench
            .fails("web_fetch", json!({"url": url}), "failed", class)
            .await;
    }
}

#[tokio::test]
async fn every_tool_of_the_family_applies_the_guard() {
    let bench = Bench::new();
    let port = server().await.port();
    let url = format!("http://127.0.0.1:{port}/");
    for (tool, args) in [
        ("web_fetch", json!({"url": url})),
        ("web_extract", json!({"url": url, "selector": "p"})),
        ("rss_read", json!({"url": url})),
        ("download_file", json!({"url": url, "path": "x.bin"})),
        ("port_check", json!({"host": "127.0.0.1", "port": port})),
        ("port_check", json!({"host": "localhost", "port": port})),
        (
            "websocket",
            json!({"url": format!("ws://127.0.0.1:{port}/ws")}),
        ),
    ] {
        bench.fails(tool, args, "failed", "loopback").await;
    }
    assert!(!bench.path("x.bin").exists());
}

#[tokio::test]
async fn an_allowed_network_opens_only_itself_and_redirects_are_rechecked() {
    let bench = bench_with(NetworkConfig::default().allow_network([127, 0, 0, 1].into(), 32));
    let port = server().await.port();
    let redirector = serve(Router::new().route(
        "/away",
        get(move || async move { Redirect::to(&format!("http://127.0.0.2:{port}/")) }),
    ))
    .await;
    let ok = bench
        .ok(
            "http_request",
            json!({"url": format!("http://127.0.0.1:{port}/")}),
        )
        .await;
    assert_eq!(ok["body"], "hello");
    bench
        .fails(
            "http_request",
            json!({"url": format!("http://127.0.0.2:{port}/")}),
            "failed",
            "127.0.0.2 is a loopback address",
        )
        .await;
    // The first hop is allowed, the redirect's target is not.
    let message = bench
        .fails(
            "http_request",
            json!({"url": format!("http://{redirector}/away")}),
            "failed",
            "127.0.0.2",
        )
        .await;
    assert!(message.contains("redirect"), "{message}");
    // Without following, the redirect itself comes back.
    let kept = bench
        .ok(
            "http_request",
            json!({"url": format!("http://{redirector}/away"), "follow_redirects": false}),
        )
        .await;
    assert_eq!(kept["status"], 303);
}

#[tokio::test]
async fn names_are_judged_by_the_addresses_they_resolve_to() {
    let bench = bench_with(NetworkConfig::default().allow_network([127, 0, 0, 1].into(), 32));
    let port = server().await.port();
    // `localhost` may resolve to ::1 as well as 127.0.0.1; the guard keeps 127.0.0.1 only,
    // so follow to a port where a server listens on 127.0.0.1.
    let redirector = serve(Router::new().route(
        "/named",
        get(move || async move { Redirect::to(&format!("http://localhost:{port}/")) }),
    ))
    .await;
    let out = bench
        .ok(
            "http_request",
            json!({"url": format!("http://{redirector}/named")}),
        )
        .await;
    assert_eq!(out["body"], "hello");
    let strict = Bench::new();
    strict
        .fails(
            "http_request",
            json!({"url": format!("http://localhost:{port}/")}),
            "failed",
            "resolves to",
        )
        .await;
}

#[tokio::test]
async fn redirect_loops_stop_at_the_limit() {
    let bench = bench_with(
        NetworkConfig::default()
            .allow_private(true)
            .max_redirects(3),
    );
    let address = server().await;
    bench
        .fails(
            "http_request",
            json!({"url": format!("http://{address}/loop")}),
            "failed",
            "stopped after 3 redirects",
        )
        .await;
}

/// Serve `router` on `ip:port` for the rest of the test; `None` if the port is taken.
async fn serve_on(ip: Ipv4Addr, port: u16, router: Router) -> Option<()> {
    let listener = tokio::net::TcpListener::bind((ip, port)).await.ok()?;
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    Some(())
}

/// Through the tool and the system's resolver: 127.0.0.2 is allowed and redirects to
/// `localhost` on the same port, where a server on 127.0.0.1 counts what reaches it.
/// The hop is refused when its name resolves (to loopback only), and that server gets
/// no request. With the hop's name resolved outside the guard, it would get one.
#[tokio::test]
async fn a_redirect_hop_to_a_name_of_loopback_is_refused_before_connecting() {
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&hits);
    let watched = Router::new().route(
        "/",
        get(move || async move {
            counted.fetch_add(1, Ordering::SeqCst);
            "reached"
        }),
    );
    let port = loop {
        let port = crate::support::closed_port().await;
        if serve_on(Ipv4Addr::LOCALHOST, port, watched.clone())
            .await
            .is_some()
        {
            let hop = Router::new().route(
                "/away",
                get(move || async move { Redirect::to(&format!("http://localhost:{port}/")) }),
            );
            if serve_on(Ipv4Addr::new(127, 0, 0, 2), port, hop)
                .await
                .is_some()
            {
                break port;
            }
        }
    };
    let bench = bench_with(NetworkConfig::default().allow_network([127, 0, 0, 2].into(), 32));
    let message = bench
        .fails(
            "http_request",
            json!({"url": format!("http://127.0.0.2:{port}/away")}),
            "failed",
            "`localhost` resolves to",
        )
        .await;
    assert!(message.contains("loopback"), "{message}");
    assert_eq!(hits.load(Ordering::SeqCst), 0);
}

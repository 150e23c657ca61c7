//! A small site for the page-reading tests.

use axum::Router;
use axum::http::{StatusCode, header};
use axum::routing::get;

use crate::support::serve;

pub const ARTICLE: &str = r#"<!doctype html>
<html><head><title>Tide Tables  of Brest</title>
<style>body { color: red }</style><script>var tracking = 1;</script></head>
<body>
<header><a href="/">Home</a> | <a href="/about">About</a></header>
<nav><ul><li><a href="/menu">Menu entry</a></li></ul></nav>
<main>
  <h1>Tides</h1>
  <p>The tide at <b>Brest</b> rises twice a day.</p>
  <h2>Table</h2>
  <table class="tides">
    <tr><td class="time">06:12</td><td class="height" data-unit="m">6.1</td></tr>
    <tr><td class="time">18:40</td><td class="height" data-unit="m">5.8</td></tr>
  </table>
  <p>Read the <a href="/docs/tides.pdf">full report</a> or
     <a href="https://example.org/ocean">the ocean page</a>.</p>
  <script>document.write("injected")</script>
</main>
<footer>Copyright footer</footer>
</body></html>"#;

/// Serves `/article`, `/plain`, `/missing` (404), `/binary` and `/many` (120 items).
pub async fn site() -> String {
    let router = Router::new()
        .route(
            "/article",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                    ARTICLE,
                )
            }),
        )
        .route(
            "/plain",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/plain")],
                    "just text\nsecond line",
                )
            }),
        )
        .route(
            "/missing",
            get(|| async { (StatusCode::NOT_FOUND, "no such page") }),
        )
        .route(
            "/broken",
            get(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "boom") }),
        )
        .route(
            "/binary",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "application/octet-stream")],
                    vec![0u8, 159, 146, 150, 1, 2, 3],
                )
            }),
        )
        .route(
            "/many",
            get(|| async {
                let items: String = (1..=120)
                    .map(|n| format!(r#"<li class="item"><a href="/item/{n}">Item {n}</a></li>"#))
                    .collect();
                (
                    [(header::CONTENT_TYPE, "text/html")],
                    format!("<html><body><ul>{items}</ul></body></html>"),
                )
            }),
        );
    format!("http://{}", serve(router).await)
}

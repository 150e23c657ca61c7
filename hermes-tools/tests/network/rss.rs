//! `rss_read` with an RSS 2.0 and an Atom feed served locally.

use axum::Router;
use axum::http::header;
use axum::routing::get;
use serde_json::json;

use crate::support::{local_bench, serve};

const RSS: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel>
  <title>Harbour News</title><link>http://example.test/</link>
  <description>News from the harbour</description>
  <item>
    <title>Ferry delayed</title><link>http://example.test/ferry</link>
    <pubDate>Mon, 02 Jun 2025 08:30:00 GMT</pubDate>
    <description>&lt;p&gt;The &lt;b&gt;morning&lt;/b&gt; ferry is late.&lt;/p&gt;</description>
  </item>
  <item>
    <title>New pier</title><link>http://example.test/pier</link>
    <pubDate>Sun, 01 Jun 2025 12:00:00 GMT</pubDate>
    <description>LONG</description>
  </item>
  <item><title>Third</title><link>http://example.test/third</link></item>
</channel></rss>"#;

const ATOM: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Lighthouse Log</title><id>urn:uuid:1</id><updated>2025-06-03T10:00:00Z</updated>
  <entry>
    <title>Lamp replaced</title><id>urn:uuid:2</id>
    <link rel="alternate" href="http://example.test/lamp"/>
    <published>2025-06-03T09:00:00Z</published><updated>2025-06-03T10:00:00Z</updated>
    <summary>A new lamp was fitted.</summary>
  </entry>
  <entry>
    <title>Fog</title><id>urn:uuid:3</id>
    <link href="http://example.test/fog"/>
    <updated>2025-06-02T06:00:00Z</updated>
    <content type="html">&lt;p&gt;Thick fog all night.&lt;/p&gt;</content>
  </entry>
</feed>"#;

async fn server() -> String {
    let long = "word ".repeat(400);
    let rss = RSS.replace("LONG", &long);
    let router = Router::new()
        .route(
            "/rss",
            get(move || async move { ([(header::CONTENT_TYPE, "application/rss+xml")], rss) }),
        )
        .route(
            "/atom",
            get(|| async { ([(header::CONTENT_TYPE, "application/atom+xml")], ATOM) }),
        )
        .route(
            "/page",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html")],
                    "<html><body>hi</body></html>",
                )
            }),
        );
    format!("http://{}", serve(router).await)
}

#[tokio::test]
async fn an_rss_feed_gives_its_entries() {
    let bench = local_bench();
    let base = server().await;
    let out = bench
        .ok("rss_read", json!({"url": format!("{base}/rss")}))
        .await;
    assert_eq!(out["format"], "rss2");
    assert_eq!(out["title"], "Harbour News");
    assert_eq!(out["total_entries"], 3);
    let first = &out["entries"][0];
    assert_eq!(first["title"], "Ferry delayed");
    assert_eq!(first["link"], "http://example.test/ferry");
    assert_eq!(first["published"], "2025-06-02T08:30:00+00:00");
    assert_eq!(first["summary"], "The morning ferry is late.");
}

#[tokio::test]
async fn long_summaries_are_cut_and_max_entries_applies() {
    let bench = local_bench();
    let base = server().await;
    let out = bench
        .ok(
            "rss_read",
            json!({"url": format!("{base}/rss"), "max_entries": 2}),
        )
        .await;
    assert_eq!(out["entries"].as_array().unwrap().len(), 2);
    assert_eq!(out["total_entries"], 3);
    let summary = out["entries"][1]["summary"].as_str().unwrap();
    assert_eq!(summary.chars().count(), 501);
    assert!(summary.ends_with('…'));
}

#[tokio::test]
async fn an_atom_feed_gives_its_entries() {
    let bench = local_bench();
    let base = server().await;
    let out = bench
        .ok("rss_read", json!({"url": format!("{base}/atom")}))
        .await;
    assert_eq!(out["format"], "atom");
    assert_eq!(out["title"], "Lighthouse Log");
    assert_eq!(
        out["entries"],
        json!([
            {
                "title": "Lamp replaced",
                "link": "http://example.test/lamp",
                "published": "2025-06-03T09:00:00+00:00",
                "summary": "A new lamp was fitted."
            },
            {
                "title": "Fog",
                "link": "http://example.test/fog",
                "published": "2025-06-02T06:00:00+00:00",
                "summary": "Thick fog all night."
            }
        ])
    );
}

#[tokio::test]
async fn a_page_that_is_not_a_feed_is_a_clear_error() {
    let bench = local_bench();
    let base = server().await;
    bench
        .fails(
            "rss_read",
            json!({"url": format!("{base}/page")}),
            "failed",
            "is not an RSS or Atom feed",
        )
        .await;
    bench
        .fails(
            "rss_read",
            json!({"url": format!("{base}/rss"), "max_entries": 0}),
            "invalid_arguments",
            "",
        )
        .await;
}

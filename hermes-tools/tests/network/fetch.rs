//! `web_fetch`: pages as Markdown or text without their furniture; titles, links,
//! plain text, error statuses and binary content.

use serde_json::json;

use crate::pages::site;
use crate::support::local_bench;

#[tokio::test]
async fn a_page_becomes_markdown_of_its_main_content() {
    let bench = local_bench();
    let base = site().await;
    let out = bench
        .ok("web_fetch", json!({"url": format!("{base}/article")}))
        .await;
    assert_eq!(out["title"], "Tide Tables of Brest");
    let content = out["content"].as_str().unwrap();
    assert!(content.contains("# Tides"), "{content}");
    assert!(content.contains("## Table"), "{content}");
    assert!(content.contains("**Brest**"), "{content}");
    assert!(
        content.contains("[full report](/docs/tides.pdf)"),
        "{content}"
    );
    for furniture in [
        "tracking",
        "injected",
        "Menu entry",
        "Copyright",
        "color: red",
    ] {
        assert!(!content.contains(furniture), "{furniture} in {content}");
    }
    assert_eq!(out["truncated"], false);
    assert_eq!(out["content_type"], "text/html; charset=utf-8");
}

#[tokio::test]
async fn links_are_absolute_and_from_the_content() {
    let bench = local_bench();
    let base = site().await;
    let out = bench
        .ok("web_fetch", json!({"url": format!("{base}/article")}))
        .await;
    let links = out["links"].as_array().unwrap();
    assert_eq!(links.len(), 2, "{links:?}");
    assert_eq!(links[0]["url"], format!("{base}/docs/tides.pdf"));
    assert_eq!(links[0]["text"], "full report");
    assert_eq!(links[1]["url"], "https://example.org/ocean");
    assert_eq!(out["total_links"], 2);
}

#[tokio::test]
async fn text_format_gives_plain_lines() {
    let bench = local_bench();
    let base = site().await;
    let out = bench
        .ok(
            "web_fetch",
            json!({"url": format!("{base}/article"), "format": "text"}),
        )
        .await;
    let content = out["content"].as_str().unwrap();
    assert!(
        content.starts_with(
            "Tides\nThe tide at Brest rises twice a day.\nTable\n06:12 6.1\n18:40 5.8\nRead the full report or the ocean page."
        ),
        "{content}"
    );
    assert!(
        !content.contains('#') && !content.contains("**"),
        "{content}"
    );
}

#[tokio::test]
async fn the_link_list_is_capped_and_counted() {
    let bench = local_bench();
    let base = site().await;
    let out = bench
        .ok(
            "web_fetch",
            json!({"url": format!("{base}/many"), "max_links": 5}),
        )
        .await;
    assert_eq!(out["links"].as_array().unwrap().len(), 5);
    assert_eq!(out["total_links"], 120);
    bench
        .fails(
            "web_fetch",
            json!({"url": format!("{base}/many"), "max_links": 500}),
            "invalid_arguments",
            "",
        )
        .await;
}

#[tokio::test]
async fn content_is_cut_to_the_output_cap() {
    let bench = crate::common::Bench::with_config(|config| {
        config
            .max_output_bytes(1024)
            .network(hermes_tools::NetworkConfig::default().allow_private(true))
    });
    let base = site().await;
    let out = bench
        .ok("web_fetch", json!({"url": format!("{base}/many")}))
        .await;
    assert_eq!(out["truncated"], true);
    let content = out["content"].as_str().unwrap();
    // The cap, plus the one-line marker saying how much was cut.
    assert!(content.len() <= 1024 + 120, "{}", content.len());
    assert!(content.contains("bytes cut"), "{content}");
}

#[tokio::test]
async fn plain_text_comes_back_as_it_is() {
    let bench = local_bench();
    let base = site().await;
    let out = bench
        .ok("web_fetch", json!({"url": format!("{base}/plain")}))
        .await;
    assert_eq!(out["content"], "just text\nsecond line");
    assert!(out.get("title").is_none());
}

#[tokio::test]
async fn error_statuses_and_binary_content_are_clear_errors() {
    let bench = local_bench();
    let base = site().await;
    bench
        .fails(
            "web_fetch",
            json!({"url": format!("{base}/missing")}),
            "failed",
            "HTTP 404 Not Found; the page does not exist",
        )
        .await;
    bench
        .fails(
            "web_fetch",
            json!({"url": format!("{base}/broken")}),
            "failed",
            "HTTP 500",
        )
        .await;
    bench
        .fails(
            "web_fetch",
            json!({"url": format!("{base}/binary")}),
            "failed",
            "use download_file",
        )
        .await;
}

#[tokio::test]
async fn redirects_are_followed_to_the_page() {
    use axum::response::Redirect;
    use axum::routing::get;

    let bench = local_bench();
    let base = site().await;
    let target = format!("{base}/plain");
    let hop = crate::support::serve(axum::Router::new().route(
        "/old",
        get(move || async move { Redirect::permanent(&target) }),
    ))
    .await;
    let out = bench
        .ok("web_fetch", json!({"url": format!("http://{hop}/old")}))
        .await;
    assert_eq!(out["url"], format!("{base}/plain"));
    assert_eq!(out["content"], "just text\nsecond line");
}

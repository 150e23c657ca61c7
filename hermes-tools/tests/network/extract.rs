//! `web_extract`: elements by CSS selector, their text and attributes; limits and bad
//! selectors.

use serde_json::json;

use crate::pages::site;
use crate::support::local_bench;

#[tokio::test]
async fn matching_elements_come_with_text_and_the_attributes_asked_for() {
    let bench = local_bench();
    let base = site().await;
    let out = bench
        .ok(
            "web_extract",
            json!({
                "url": format!("{base}/article"),
                "selector": "table.tides td.height",
                "attributes": ["data-unit", "missing"]
            }),
        )
        .await;
    assert_eq!(out["total_matches"], 2);
    let matches = out["matches"].as_array().unwrap();
    assert_eq!(matches[0]["text"], "6.1");
    assert_eq!(matches[1]["text"], "5.8");
    assert_eq!(matches[0]["tag"], "td");
    assert_eq!(matches[0]["attributes"], json!({"data-unit": "m"}));
    assert!(matches[0].get("html").is_none());
    assert_eq!(out["truncated"], false);
}

#[tokio::test]
async fn html_is_included_on_request() {
    let bench = local_bench();
    let base = site().await;
    let out = bench
        .ok(
            "web_extract",
            json!({
                "url": format!("{base}/article"),
                "selector": "a[href$='.pdf']",
                "attributes": ["href"],
                "include_html": true
            }),
        )
        .await;
    assert_eq!(out["matches"][0]["attributes"]["href"], "/docs/tides.pdf");
    assert_eq!(
        out["matches"][0]["html"],
        r#"<a href="/docs/tides.pdf">full report</a>"#
    );
}

#[tokio::test]
async fn max_results_limits_the_matches_not_the_count() {
    let bench = local_bench();
    let base = site().await;
    let out = bench
        .ok(
            "web_extract",
            json!({"url": format!("{base}/many"), "selector": "li.item", "max_results": 3}),
        )
        .await;
    assert_eq!(out["total_matches"], 120);
    assert_eq!(out["matches"].as_array().unwrap().len(), 3);
    assert_eq!(out["matches"][2]["text"], "Item 3");
    assert_eq!(out["truncated"], true);
}

#[tokio::test]
async fn no_match_is_an_empty_result() {
    let bench = local_bench();
    let base = site().await;
    let out = bench
        .ok(
            "web_extract",
            json!({"url": format!("{base}/article"), "selector": "div.nothing"}),
        )
        .await;
    assert_eq!(out["total_matches"], 0);
    assert_eq!(out["matches"], json!([]));
}

#[tokio::test]
async fn an_invalid_selector_is_an_argument_error() {
    let bench = local_bench();
    let base = site().await;
    for selector in ["td[", "p >> q", "::nope("] {
        bench
            .fails(
                "web_extract",
                json!({"url": format!("{base}/article"), "selector": selector}),
                "invalid_arguments",
                "not a valid CSS selector",
            )
            .await;
    }
    bench
        .fails(
            "web_extract",
            json!({"url": format!("{base}/article"), "selector": ""}),
            "invalid_arguments",
            "",
        )
        .await;
}

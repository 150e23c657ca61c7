//! `web_search`: each provider contract-tested against a local server answering in
//! that provider's documented shape; provider choice; keys kept out of errors.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::Query;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use hermes_tools::NetworkConfig;
use serde_json::{Value, json};

use crate::support::{bench_with, serve};

/// What the fake provider saw: query parameters, headers of interest, body.
type Seen = Arc<Mutex<Vec<Value>>>;

fn record(seen: &Seen, query: &HashMap<String, String>, headers: &HeaderMap, body: &str) {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    seen.lock().unwrap().push(json!({
        "query": query,
        "token": header("x-subscription-token"),
        "authorization": header("authorization"),
        "body": body,
    }));
}

async fn searxng(seen: Seen) -> String {
    let router = Router::new().route(
        "/search",
        get(move |Query(query): Query<HashMap<String, String>>, headers: HeaderMap| {
            let seen = Arc::clone(&seen);
            async move {
                record(&seen, &query, &headers, "");
                axum::Json(json!({
                    "query": query.get("q"),
                    "number_of_results": 1520.0,
                    "results": [
                        {"url": "https://rust-lang.org/", "title": "Rust <span>Programming</span> Language",
                         "content": "A language empowering everyone", "engine": "duckduckgo",
                         "score": 4.5, "category": "general"},
                        {"url": "https://doc.rust-lang.org/book/", "title": "The Book",
                         "content": "Learn Rust", "engine": "bing", "score": 2.0}
                    ],
                    "answers": [], "corrections": [], "infoboxes": [], "suggestions": [],
                    "unresponsive_engines": []
                }))
            }
        }),
    );
    format!("http://{}", serve(router).await)
}

async fn brave(seen: Seen, status: StatusCode) -> String {
    let router = Router::new().route(
        "/res/v1/web/search",
        get(move |Query(query): Query<HashMap<String, String>>, headers: HeaderMap| {
            let seen = Arc::clone(&seen);
            async move {
                record(&seen, &query, &headers, "");
                if status != StatusCode::OK {
                    let key = headers
                        .get("x-subscription-token")
                        .and_then(|value| value.to_str().ok())
                        .unwrap_or_default()
                        .to_owned();
                    // A server that quotes the key back: the tool must not pass it on.
                    return (status, format!(r#"{{"error": "invalid token {key}"}}"#)).into_response();
                }
                axum::Json(json!({
                    "type": "search",
                    "query": {"original": query.get("q")},
                    "mixed": {"type": "mixed", "main": []},
                    "web": {
                        "type": "search",
                        "results": [
                            {"type": "search_result", "title": "Tokio - An asynchronous <strong>Rust</strong> runtime",
                             "url": "https://tokio.rs/", "description": "Tokio is an <strong>event-driven</strong> platform.",
                             "is_source_local": false, "language": "en"},
                            {"type": "search_result", "title": "tokio - crates.io", "url": "https://crates.io/crates/tokio",
                             "description": "An event-driven, non-blocking I/O platform."}
                        ],
                        "family_friendly": true
                    }
                }))
                .into_response()
            }
        }),
    );
    format!("http://{}/res/v1/web/search", serve(router).await)
}

async fn tavily(seen: Seen) -> String {
    let router = Router::new().route(
        "/search",
        post(move |headers: HeaderMap, body: String| {
            let seen = Arc::clone(&seen);
            async move {
                record(&seen, &HashMap::new(), &headers, &body);
                axum::Json(json!({
                    "query": "who maintains serde",
                    "answer": null,
                    "images": [],
                    "results": [
                        {"title": "serde-rs/serde", "url": "https://github.com/serde-rs/serde",
                         "content": "Serialization framework for Rust", "score": 0.93, "raw_content": null},
                        {"title": "serde.rs", "url": "https://serde.rs/", "content": "Serde docs", "score": 0.71}
                    ],
                    "response_time": 1.08
                }))
            }
        }),
    );
    format!("http://{}/search", serve(router).await)
}

const DDG_PAGE: &str = r#"<html><body><div id="links" class="results">
<div class="result results_links results_links_deep result--ad">
  <h2 class="result__title"><a class="result__a" href="https://ads.example/">Sponsored</a></h2>
  <a class="result__snippet" href="https://ads.example/">Buy now</a>
</div>
<div class="result results_links results_links_deep web-result">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.sqlite.org%2Findex.html&amp;rut=abc">SQLite Home Page</a></h2>
    <div class="result__extras"><a class="result__url" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.sqlite.org%2Findex.html">www.sqlite.org</a></div>
    <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.sqlite.org%2Findex.html"><b>SQLite</b> is a C-language library.</a>
  </div>
</div>
<div class="result results_links results_links_deep web-result">
  <div class="links_main links_deep result__body">
    <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://en.wikipedia.org/wiki/SQLite">SQLite - Wikipedia</a></h2>
    <a class="result__snippet" href="https://en.wikipedia.org/wiki/SQLite">An embedded database engine.</a>
  </div>
</div>
</div></body></html>"#;

async fn duckduckgo(seen: Seen) -> String {
    let router = Router::new().route(
        "/html/",
        get(
            move |Query(query): Query<HashMap<String, String>>, headers: HeaderMap| {
                let seen = Arc::clone(&seen);
                async move {
                    record(&seen, &query, &headers, "");
                    ([(header::CONTENT_TYPE, "text/html")], DDG_PAGE)
                }
            },
        ),
    );
    format!("http://{}/html/", serve(router).await)
}

#[tokio::test]
async fn searxng_results_scores_and_total() {
    let seen = Seen::default();
    let url = searxng(Arc::clone(&seen)).await;
    let bench = bench_with(NetworkConfig::default().searxng_url(url));
    let out = bench
        .ok(
            "web_search",
            json!({"query": "rust language", "date_range": "week", "safe_search": "strict"}),
        )
        .await;
    assert_eq!(out["provider"], "searxng");
    assert_eq!(out["total_results"], 1520);
    assert_eq!(
        out["results"][0],
        json!({"title": "Rust Programming Language", "url": "https://rust-lang.org/",
               "snippet": "A language empowering everyone", "score": 4.5})
    );
    assert!(out["query_time_ms"].is_u64());
    let request = &seen.lock().unwrap()[0];
    assert_eq!(request["query"]["q"], "rust language");
    assert_eq!(request["query"]["format"], "json");
    assert_eq!(request["query"]["time_range"], "week");
    assert_eq!(request["query"]["safesearch"], "2");
}

#[tokio::test]
async fn brave_sends_the_key_as_a_header_and_reads_web_results() {
    let seen = Seen::default();
    let url = brave(Arc::clone(&seen), StatusCode::OK).await;
    let bench = bench_with(
        NetworkConfig::default()
            .brave_endpoint(url)
            .brave_api_key("BSA-secret-key"),
    );
    let out = bench
        .ok(
            "web_search",
            json!({"query": "tokio", "max_results": 1, "date_range": "day"}),
        )
        .await;
    assert_eq!(out["provider"], "brave");
    assert_eq!(
        out["results"],
        json!([{"title": "Tokio - An asynchronous Rust runtime", "url": "https://tokio.rs/",
                "snippet": "Tokio is an event-driven platform.", "score": null}])
    );
    assert_eq!(out["total_results"], 2);
    let request = &seen.lock().unwrap()[0];
    assert_eq!(request["token"], "BSA-secret-key");
    assert_eq!(request["query"]["count"], "1");
    assert_eq!(request["query"]["freshness"], "pd");
    assert_eq!(request["query"]["safesearch"], "moderate");
}

#[tokio::test]
async fn tavily_posts_json_with_a_bearer_key() {
    let seen = Seen::default();
    let url = tavily(Arc::clone(&seen)).await;
    let bench = bench_with(
        NetworkConfig::default()
            .tavily_endpoint(url)
            .tavily_api_key("tvly-secret"),
    );
    let out = bench
        .ok(
            "web_search",
            json!({"query": "who maintains serde", "search_engine": "tavily", "max_results": 7, "date_range": "month"}),
        )
        .await;
    assert_eq!(out["provider"], "tavily");
    assert_eq!(
        out["results"][0]["url"],
        "https://github.com/serde-rs/serde"
    );
    assert_eq!(out["results"][0]["score"], 0.93);
    assert_eq!(out["results"][1]["snippet"], "Serde docs");
    let request = &seen.lock().unwrap()[0];
    assert_eq!(request["authorization"], "Bearer tvly-secret");
    let body: Value = serde_json::from_str(request["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["query"], "who maintains serde");
    assert_eq!(body["max_results"], 7);
    assert_eq!(body["time_range"], "month");
}

#[tokio::test]
async fn duckduckgo_html_results_skip_ads_and_unwrap_links() {
    let seen = Seen::default();
    let url = duckduckgo(Arc::clone(&seen)).await;
    let bench = bench_with(NetworkConfig::default().duckduckgo_endpoint(url));
    let out = bench
        .ok(
            "web_search",
            json!({"query": "sqlite", "search_engine": "duckduckgo", "safe_search": "off"}),
        )
        .await;
    assert_eq!(out["provider"], "duckduckgo");
    assert_eq!(
        out["results"],
        json!([
            {"title": "SQLite Home Page", "url": "https://www.sqlite.org/index.html",
             "snippet": "SQLite is a C-language library.", "score": null},
            {"title": "SQLite - Wikipedia", "url": "https://en.wikipedia.org/wiki/SQLite",
             "snippet": "An embedded database engine.", "score": null}
        ])
    );
    let request = &seen.lock().unwrap()[0];
    assert_eq!(request["query"]["q"], "sqlite");
    assert_eq!(request["query"]["kp"], "-2");
}

#[tokio::test]
async fn a_refused_key_never_appears_in_the_error() {
    let seen = Seen::default();
    let url = brave(Arc::clone(&seen), StatusCode::UNAUTHORIZED).await;
    let bench = bench_with(
        NetworkConfig::default()
            .brave_endpoint(url)
            .brave_api_key("BSA-very-secret"),
    );
    let message = bench
        .fails(
            "web_search",
            json!({"query": "anything"}),
            "failed",
            "HTTP 401 Unauthorized",
        )
        .await;
    assert!(message.contains("the API key was refused"), "{message}");
    assert!(message.contains("[redacted]"), "{message}");
    assert!(!message.contains("BSA-very-secret"), "{message}");
}

#[tokio::test]
async fn an_engine_without_its_key_is_a_clear_error() {
    let bench = bench_with(NetworkConfig::default().searxng_url("http://127.0.0.1:9"));
    if std::env::var_os("TAVILY_API_KEY").is_none() {
        bench
            .fails(
                "web_search",
                json!({"query": "x", "search_engine": "tavily"}),
                "failed",
                "no Tavily API key (TAVILY_API_KEY)",
            )
            .await;
    }
    bench
        .fails(
            "web_search",
            json!({"query": "x", "search_engine": "google"}),
            "invalid_arguments",
            "",
        )
        .await;
    bench
        .fails("web_search", json!({"query": ""}), "invalid_arguments", "")
        .await;
}

#[tokio::test]
async fn an_unreachable_provider_and_a_malformed_answer_are_clear_errors() {
    let port = crate::support::closed_port().await;
    let bench =
        bench_with(NetworkConfig::default().searxng_url(format!("http://127.0.0.1:{port}")));
    bench
        .fails(
            "web_search",
            json!({"query": "x"}),
            "failed",
            "the searxng search failed",
        )
        .await;
    let garbage =
        serve(Router::new().route("/search", get(|| async { "<html>not json</html>" }))).await;
    let bench = bench_with(NetworkConfig::default().searxng_url(format!("http://{garbage}")));
    bench
        .fails(
            "web_search",
            json!({"query": "x"}),
            "failed",
            "unexpected shape",
        )
        .await;
}

#[tokio::test]
async fn the_configured_provider_is_the_default_and_a_call_may_pick_another() {
    let searx = searxng(Seen::default()).await;
    let ddg = duckduckgo(Seen::default()).await;
    let bench = bench_with(
        NetworkConfig::default()
            .duckduckgo_endpoint(ddg)
            .searxng_url(searx),
    );
    let default = bench.ok("web_search", json!({"query": "q"})).await;
    assert_eq!(default["provider"], "searxng");
    let picked = bench
        .ok(
            "web_search",
            json!({"query": "q", "search_engine": "duckduckgo", "max_results": 1}),
        )
        .await;
    assert_eq!(picked["provider"], "duckduckgo");
    assert_eq!(picked["results"].as_array().unwrap().len(), 1);
    assert_eq!(picked["total_results"], 2);
}

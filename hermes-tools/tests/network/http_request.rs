//! `http_request`: methods, headers, bodies, statuses, redirects, timeouts, caps and
//! bad arguments.

use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{AppendHeaders, IntoResponse, Redirect};
use axum::routing::{any, get};
use serde_json::json;

use crate::support::{closed_port, local_bench, serve};

/// Echoes the method, the headers of interest and the body as JSON.
async fn echo(method: axum::http::Method, headers: HeaderMap, body: String) -> impl IntoResponse {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    axum::Json(json!({
        "method": method.as_str(),
        "content_type": header("content-type"),
        "x_token": header("x-token"),
        "body": body,
    }))
}

async fn server() -> String {
    let router = Router::new()
        .route("/echo", any(echo))
        .route(
            "/text",
            get(|| async { ([(header::CONTENT_TYPE, "text/plain")], "plain words") }),
        )
        .route(
            "/teapot",
            get(|| async {
                (
                    StatusCode::IM_A_TEAPOT,
                    [(header::CONTENT_TYPE, "application/json")],
                    r#"{"error":"short and stout"}"#,
                )
            }),
        )
        .route("/moved", get(|| async { Redirect::to("/text") }))
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(30)).await;
                "late"
            }),
        )
        .route("/big", get(|| async { "x".repeat(200_000) }))
        .route(
            "/multi",
            get(|| async {
                (
                    AppendHeaders([("set-cookie", "a=1"), ("set-cookie", "b=2")]),
                    "cookies",
                )
            }),
        );
    format!("http://{}", serve(router).await)
}

#[tokio::test]
async fn get_returns_status_headers_and_parsed_json() {
    let bench = local_bench();
    let base = server().await;
    let out = bench
        .ok("http_request", json!({"url": format!("{base}/echo")}))
        .await;
    assert_eq!(out["status"], 200);
    assert_eq!(out["ok"], true);
    assert_eq!(out["body_kind"], "json");
    assert_eq!(out["body"]["method"], "GET");
    assert_eq!(out["headers"]["content-type"], "application/json");
    assert_eq!(out["body_truncated"], false);
    assert_eq!(out["url"], format!("{base}/echo"));
}

#[tokio::test]
async fn an_object_body_is_sent_as_json_with_the_headers_given() {
    let bench = local_bench();
    let base = server().await;
    let out = bench
        .ok(
            "http_request",
            json!({
                "url": format!("{base}/echo"),
                "method": "POST",
                "headers": {"X-Token": "t-123"},
                "body": {"name": "hermes", "n": 2}
            }),
        )
        .await;
    assert_eq!(out["body"]["method"], "POST");
    assert_eq!(out["body"]["content_type"], "application/json");
    assert_eq!(out["body"]["x_token"], "t-123");
    let sent: serde_json::Value =
        serde_json::from_str(out["body"]["body"].as_str().unwrap()).unwrap();
    assert_eq!(sent, json!({"name": "hermes", "n": 2}));
}

#[tokio::test]
async fn a_string_body_is_sent_as_is_with_other_methods() {
    let bench = local_bench();
    let base = server().await;
    for method in ["PUT", "PATCH", "DELETE"] {
        let out = bench
            .ok(
                "http_request",
                json!({
                    "url": format!("{base}/echo"),
                    "method": method,
                    "headers": {"content-type": "text/csv"},
                    "body": "a,b\n1,2"
                }),
            )
            .await;
        assert_eq!(out["body"]["method"], method);
        assert_eq!(out["body"]["body"], "a,b\n1,2");
        assert_eq!(out["body"]["content_type"], "text/csv");
    }
}

#[tokio::test]
async fn head_returns_no_body_and_text_stays_text() {
    let bench = local_bench();
    let base = server().await;
    let head = bench
        .ok(
            "http_request",
            json!({"url": format!("{base}/text"), "method": "HEAD"}),
        )
        .await;
    assert_eq!(head["status"], 200);
    assert_eq!(head["body_kind"], "empty");
    assert!(head["body"].is_null());
    let text = bench
        .ok("http_request", json!({"url": format!("{base}/text")}))
        .await;
    assert_eq!(text["body_kind"], "text");
    assert_eq!(text["body"], "plain words");
}

#[tokio::test]
async fn an_error_status_is_a_result_not_a_failure() {
    let bench = local_bench();
    let base = server().await;
    let out = bench
        .ok("http_request", json!({"url": format!("{base}/teapot")}))
        .await;
    assert_eq!(out["status"], 418);
    assert_eq!(out["ok"], false);
    assert_eq!(out["body"]["error"], "short and stout");
}

#[tokio::test]
async fn redirects_are_followed_unless_told_not_to() {
    let bench = local_bench();
    let base = server().await;
    let followed = bench
        .ok("http_request", json!({"url": format!("{base}/moved")}))
        .await;
    assert_eq!(followed["status"], 200);
    assert_eq!(followed["url"], format!("{base}/text"));
    let kept = bench
        .ok(
            "http_request",
            json!({"url": format!("{base}/moved"), "follow_redirects": false}),
        )
        .await;
    assert_eq!(kept["status"], 303);
    assert_eq!(kept["headers"]["location"], "/text");
}

#[tokio::test]
async fn repeated_headers_are_joined() {
    let bench = local_bench();
    let base = server().await;
    let out = bench
        .ok("http_request", json!({"url": format!("{base}/multi")}))
        .await;
    assert_eq!(out["headers"]["set-cookie"], "a=1, b=2");
}

#[tokio::test]
async fn a_large_body_is_cut_to_the_output_cap() {
    let bench = crate::common::Bench::with_config(|config| {
        config
            .max_output_bytes(4096)
            .network(hermes_tools::NetworkConfig::default().allow_private(true))
    });
    let base = server().await;
    let out = bench
        .ok("http_request", json!({"url": format!("{base}/big")}))
        .await;
    assert_eq!(out["body_truncated"], true);
    let body = out["body"].as_str().unwrap();
    // The cap, plus the one-line marker saying how much was cut.
    assert!(body.len() <= 4096 + 120, "{}", body.len());
    assert!(body.contains("bytes cut"), "{body}");
    assert!(body.starts_with("xxxx") && body.ends_with("xxxx"));
}

#[tokio::test]
async fn a_slow_server_times_out_with_a_clear_error() {
    let bench = local_bench();
    let base = server().await;
    bench
        .fails(
            "http_request",
            json!({"url": format!("{base}/slow"), "timeout_seconds": 1}),
            "failed",
            "timed out after 1 s",
        )
        .await;
}

#[tokio::test]
async fn a_refused_connection_and_an_unknown_host_are_clear_errors() {
    let bench = local_bench();
    let port = closed_port().await;
    bench
        .fails(
            "http_request",
            json!({"url": format!("http://127.0.0.1:{port}/")}),
            "failed",
            "was refused",
        )
        .await;
    bench
        .fails(
            "http_request",
            json!({"url": "http://no-such-host.invalid/"}),
            "failed",
            "could not be resolved",
        )
        .await;
}

#[tokio::test]
async fn bad_arguments_are_refused_before_anything_is_sent() {
    let bench = local_bench();
    let base = server().await;
    for args in [
        json!({"url": format!("{base}/echo"), "method": "BREW"}),
        json!({"url": format!("{base}/echo"), "timeout_seconds": 0}),
        json!({"url": format!("{base}/echo"), "timeout_seconds": 301}),
        json!({"url": format!("{base}/echo"), "timeout_seconds": "soon"}),
        json!({"url": format!("{base}/echo"), "headers": {"x": 1}}),
        json!({"url": format!("{base}/echo"), "body": 12}),
        json!({"url": 42}),
        json!({}),
    ] {
        bench
            .fails("http_request", args, "invalid_arguments", "")
            .await;
    }
    bench
        .fails(
            "http_request",
            json!({"url": format!("{base}/echo"), "headers": {"bad header": "x"}}),
            "invalid_arguments",
            "not a valid header name",
        )
        .await;
    bench
        .fails(
            "http_request",
            json!({"url": format!("{base}/echo"), "headers": {"x-a": "line\nbreak"}}),
            "invalid_arguments",
            "cannot carry",
        )
        .await;
}

#[tokio::test]
async fn other_schemes_and_non_urls_are_refused() {
    let bench = local_bench();
    for (url, needle) in [
        ("file:///etc/passwd", "scheme `file`"),
        ("gopher://example.com/", "scheme `gopher`"),
        ("ftp://example.com/", "scheme `ftp`"),
    ] {
        bench
            .fails("http_request", json!({"url": url}), "failed", needle)
            .await;
    }
    let report = bench
        .report("http_request", json!({"url": "not a url"}))
        .await;
    assert!(!report.is_success());
    assert!(
        report.message.content.contains("not a valid URL")
            || report.message.content.contains("invalid_arguments"),
        "{}",
        report.message.content
    );
}

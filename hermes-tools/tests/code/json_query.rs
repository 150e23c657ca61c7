//! `json_query`: jq filters on values, JSON text and files, bounded, with errors that
//! say where.

use serde_json::json;

use crate::common::Bench;

#[tokio::test]
async fn runs_filters_on_values_text_and_files() {
    let bench = Bench::new();
    let items = json!({"items": [
        {"name": "pen", "price": 2}, {"name": "book", "price": 12}, {"name": "lamp", "price": 30}
    ]});
    let value = bench
        .ok(
            "json_query",
            json!({"filter": ".items[] | select(.price > 10) | {name}", "input": items}),
        )
        .await;
    assert_eq!(
        value,
        json!({"outputs": [{"name": "book"}, {"name": "lamp"}], "count": 2, "truncated": false})
    );
    let value = bench
        .ok(
            "json_query",
            json!({"filter": "[.items[].price] | add", "input": items.to_string()}),
        )
        .await;
    assert_eq!(value["outputs"], json!([44]));

    std::fs::write(
        bench.path("events.jsonl"),
        "{\"n\": 1}\n{\"n\": 2}\n{\"n\": 3}\n",
    )
    .unwrap();
    let value = bench
        .ok(
            "json_query",
            json!({"filter": ".n * 10", "path": "events.jsonl"}),
        )
        .await;
    assert_eq!(value["outputs"], json!([10, 20, 30]));
    let value = bench
        .ok(
            "json_query",
            json!({"filter": "map(.n) | add", "path": "events.jsonl", "slurp": true}),
        )
        .await;
    assert_eq!(value["outputs"], json!([6]));
}

#[tokio::test]
async fn outputs_are_bounded() {
    let bench = Bench::with_config(|config| config.max_output_bytes(2048));
    let value = bench
        .ok(
            "json_query",
            json!({"filter": "range(1000)", "input": null_text(), "max_outputs": 3}),
        )
        .await;
    assert_eq!(value["outputs"], json!([0, 1, 2]));
    assert_eq!(value["truncated"], true);
    assert!(value["note"].as_str().unwrap().contains("first 3 outputs"));
    let value = bench
        .ok(
            "json_query",
            json!({"filter": "range(100000) | tostring * 10", "input": null_text(), "max_outputs": 1000}),
        )
        .await;
    assert_eq!(value["truncated"], true);
    let note = value["note"].as_str().unwrap();
    assert!(note.contains("together they pass 2048 bytes"), "{note}");
    assert!(value["count"].as_u64().unwrap() < 100);
}

/// The text of JSON `null`, to run filters that need no input.
fn null_text() -> &'static str {
    "null"
}

#[tokio::test]
async fn errors_say_where_and_what_to_do() {
    let bench = Bench::new();
    let input = json!({"a": 1});
    let message = bench
        .fails(
            "json_query",
            json!({"filter": ".a |\n  map(", "input": input}),
            "failed",
            "does not compile",
        )
        .await;
    assert!(message.contains("line 2, column"), "{message}");
    bench
        .fails(
            "json_query",
            json!({"filter": ".a | nosuch(1)", "input": input}),
            "failed",
            "undefined filter `nosuch/1` at line 1, column 6",
        )
        .await;
    bench
        .fails(
            "json_query",
            json!({"filter": ".a | .[0]", "input": input}),
            "failed",
            "the filter failed on input 1 after 0 output(s)",
        )
        .await;
    bench
        .fails(
            "json_query",
            json!({"filter": "env", "input": input}),
            "failed",
            "`env` is not available",
        )
        .await;
    bench
        .fails(
            "json_query",
            json!({"filter": ".", "input": "{\"a\": tru}"}),
            "failed",
            "line 1 column",
        )
        .await;
    bench
        .fails(
            "json_query",
            json!({"filter": "."}),
            "failed",
            "give the JSON to query",
        )
        .await;
    bench
        .fails(
            "json_query",
            json!({"filter": ".", "input": 1, "path": "x.json"}),
            "failed",
            "not both",
        )
        .await;
    bench
        .fails(
            "json_query",
            json!({"filter": ".", "path": "missing.json"}),
            "failed",
            "cannot read `missing.json`",
        )
        .await;
    bench
        .fails(
            "json_query",
            json!({"filter": ".", "path": "/etc/hostname"}),
            "failed",
            "outside the workspace",
        )
        .await;
}

//! `database_query` against PostgreSQL (`HERMES_TEST_POSTGRES_URL`).

use serde_json::json;

use crate::servers::{self, Dialect};
use crate::support::{reader, server};

fn postgres() -> Option<Dialect> {
    Some(Dialect {
        url: server("HERMES_TEST_POSTGRES_URL")?,
        name: "postgresql",
        series: |n| format!("SELECT g FROM generate_series(1, {n}) AS g"),
        sleep: "SELECT pg_sleep(10)",
        connection_id: "SELECT pg_backend_pid()",
    })
}

#[tokio::test]
async fn values_come_back_typed() {
    let Some(d) = postgres() else { return };
    let sql = "SELECT 1::int2 AS small, 2::int4 AS int, 9007199254740993::int8 AS big, \
               1.5::float8 AS float, 12.340::numeric(6,3) AS exact, 'héllo'::text AS text, \
               true AS yes, NULL::int AS nothing, '{\"a\": [1, 2]}'::jsonb AS doc, \
               '2024-01-02 03:04:05.5'::timestamp AS at, \
               '2024-01-02 03:04:05+02'::timestamptz AS at_tz, '2024-02-29'::date AS day, \
               '\\xdeadbeef'::bytea AS raw, \
               'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS id";
    let result = servers::query(&reader(), &d.url, sql).await;
    let row = &result["rows"][0];
    assert_eq!(
        row,
        &json!([
            1,
            2,
            9_007_199_254_740_993_i64,
            1.5,
            "12.340",
            "héllo",
            true,
            null,
            {"a": [1, 2]},
            "2024-01-02T03:04:05.500",
            "2024-01-02T01:04:05+00:00",
            "2024-02-29",
            {"base64": "3q2+7w=="},
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
        ]),
        "{result}"
    );
    let types: Vec<&str> = result["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|column| column["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "INT2",
            "INT4",
            "INT8",
            "FLOAT8",
            "NUMERIC",
            "TEXT",
            "BOOL",
            "INT4",
            "JSONB",
            "TIMESTAMP",
            "TIMESTAMPTZ",
            "DATE",
            "BYTEA",
            "UUID"
        ]
    );
    assert_eq!(result["columns"][0]["name"], "small");
    assert_eq!(result["row_count"], 1);
    assert_eq!(result["truncated"], false);
    assert_eq!(result["dialect"], "postgresql");
    assert!(result["query_time_ms"].is_u64());
    assert!(
        !result["database"]
            .as_str()
            .unwrap()
            .contains("hermes-test-pw"),
        "{result}"
    );
}

#[tokio::test]
async fn an_empty_result_still_names_its_columns() {
    let Some(d) = postgres() else { return };
    let result = servers::query(
        &reader(),
        &d.url,
        "SELECT 1 AS one, 'x'::text AS label WHERE false",
    )
    .await;
    assert_eq!(result["row_count"], 0);
    assert_eq!(
        result["columns"],
        json!([{"name": "one", "type": "INT4"}, {"name": "label", "type": "TEXT"}])
    );
}

#[tokio::test]
async fn max_rows_truncates() {
    let Some(d) = postgres() else { return };
    servers::max_rows_truncates(&d).await;
}

#[tokio::test]
async fn insert_is_refused_without_write_and_runs_with_it() {
    let Some(d) = postgres() else { return };
    servers::insert_is_refused_without_write_and_runs_with_it(&d).await;
}

#[tokio::test]
async fn a_syntax_error_is_reported() {
    let Some(d) = postgres() else { return };
    servers::a_syntax_error_is_reported(&d, "syntax error").await;
}

#[tokio::test]
async fn a_slow_statement_times_out() {
    let Some(d) = postgres() else { return };
    servers::a_slow_statement_times_out(&d).await;
}

#[tokio::test]
async fn a_wrong_password_is_masked() {
    let Some(d) = postgres() else { return };
    servers::a_wrong_password_is_masked(&d).await;
}

#[tokio::test]
async fn connections_are_reused_and_closed_at_teardown() {
    let Some(d) = postgres() else { return };
    servers::connections_are_reused_and_closed_at_teardown(&d).await;
}

#[tokio::test]
async fn transaction_control_is_refused() {
    let Some(d) = postgres() else { return };
    servers::transaction_control_is_refused(&d).await;
}

//! `database_query` against MariaDB (`HERMES_TEST_MYSQL_URL`).

use serde_json::json;

use crate::servers::{self, Dialect};
use crate::support::{reader, server};

fn mysql() -> Option<Dialect> {
    Some(Dialect {
        url: server("HERMES_TEST_MYSQL_URL")?,
        name: "mysql",
        series: |n| {
            format!(
                "WITH RECURSIVE s (g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < {n}) \
                 SELECT g FROM s"
            )
        },
        sleep: "SELECT SLEEP(10)",
        connection_id: "SELECT CONNECTION_ID()",
    })
}

#[tokio::test]
async fn values_come_back_typed() {
    let Some(d) = mysql() else { return };
    let sql = "SELECT CAST(7 AS SIGNED) AS big, CAST(5 AS UNSIGNED) AS positive, \
               CAST(1.5 AS DOUBLE) AS ratio, CAST(12.340 AS DECIMAL(6,3)) AS exact, \
               'héllo' AS text, NULL AS nothing, \
               CAST('2024-01-02 03:04:05' AS DATETIME) AS at, CAST('2024-02-29' AS DATE) AS day, \
               X'DEADBEEF' AS raw";
    let result = servers::query(&reader(), &d.url, sql).await;
    assert_eq!(
        result["rows"][0],
        json!([
            7,
            5,
            1.5,
            "12.340",
            "héllo",
            null,
            "2024-01-02T03:04:05",
            "2024-02-29",
            {"base64": "3q2+7w=="}
        ]),
        "{result}"
    );
    assert_eq!(result["columns"][3]["type"], "DECIMAL", "{result}");
    assert_eq!(result["dialect"], "mysql");
}

#[tokio::test]
async fn max_rows_truncates() {
    let Some(d) = mysql() else { return };
    servers::max_rows_truncates(&d).await;
}

#[tokio::test]
async fn insert_is_refused_without_write_and_runs_with_it() {
    let Some(d) = mysql() else { return };
    servers::insert_is_refused_without_write_and_runs_with_it(&d).await;
}

#[tokio::test]
async fn a_syntax_error_is_reported() {
    let Some(d) = mysql() else { return };
    servers::a_syntax_error_is_reported(&d, "SQL syntax").await;
}

#[tokio::test]
async fn a_slow_statement_times_out() {
    let Some(d) = mysql() else { return };
    servers::a_slow_statement_times_out(&d).await;
}

#[tokio::test]
async fn a_wrong_password_is_masked() {
    let Some(d) = mysql() else { return };
    servers::a_wrong_password_is_masked(&d).await;
}

#[tokio::test]
async fn connections_are_reused_and_closed_at_teardown() {
    let Some(d) = mysql() else { return };
    servers::connections_are_reused_and_closed_at_teardown(&d).await;
}

//! `database_query` on SQLite files in the workspace: typed values, read-only by
//! default, confinement, and the statements SQLite must not get.

use serde_json::json;

use crate::common::Bench;
use crate::support::writer;

/// A writer bench holding `app.db` with a table `t` of typed rows, and a reader bench
/// (default policy) in the same workspace.
async fn database() -> (Bench, Bench) {
    let writer = writer();
    for sql in [
        "CREATE TABLE t (id INTEGER, score REAL, name TEXT, raw BLOB, flag BOOLEAN, note TEXT)",
        "INSERT INTO t VALUES (1, 2.5, 'ünï', X'00FF', 1, NULL), (2, -1.0, 'b', X'', 0, 'x')",
    ] {
        writer
            .ok(
                "database_query",
                json!({"connection": "sqlite:app.db", "query": sql}),
            )
            .await;
    }
    let root = writer.root().to_path_buf();
    let reader = Bench::with_config(|config| config.workspace_root(&root));
    (writer, reader)
}

#[tokio::test]
async fn values_come_back_typed() {
    let (_writer, reader) = database().await;
    let result = reader
        .ok(
            "database_query",
            json!({"connection": "sqlite:app.db", "query": "SELECT * FROM t ORDER BY id"}),
        )
        .await;
    assert_eq!(
        result["rows"],
        json!([
            [1, 2.5, "ünï", {"base64": "AP8="}, true, null],
            [2, -1.0, "b", {"base64": ""}, false, "x"]
        ]),
        "{result}"
    );
    assert_eq!(
        result["columns"][0],
        json!({"name": "id", "type": "INTEGER"})
    );
    assert_eq!(result["read_only"], true);
    assert_eq!(result["dialect"], "sqlite");
}

#[tokio::test]
async fn a_bare_path_with_the_sqlite_dialect_works() {
    let (_writer, reader) = database().await;
    let result = reader
        .ok(
            "database_query",
            json!({"connection": "app.db", "dialect": "sqlite", "query": "SELECT COUNT(*) FROM t"}),
        )
        .await;
    assert_eq!(result["rows"], json!([[2]]));
}

#[tokio::test]
async fn writes_need_database_write() {
    let (writer, reader) = database().await;
    let insert = "INSERT INTO t (id) VALUES (3)";
    let message = reader
        .fails(
            "database_query",
            json!({"connection": "sqlite:app.db", "query": insert}),
            "failed",
            "database:write",
        )
        .await;
    assert!(message.contains("read-only"), "{message}");
    let count = reader
        .ok(
            "database_query",
            json!({"connection": "sqlite:app.db", "query": "SELECT COUNT(*) FROM t"}),
        )
        .await;
    assert_eq!(count["rows"], json!([[2]]));

    let inserted = writer
        .ok(
            "database_query",
            json!({"connection": "sqlite:app.db", "query": insert}),
        )
        .await;
    assert_eq!(inserted["rows_affected"], 1, "{inserted}");
    // The reader's pooled connection sees the committed row, and stays read-only.
    let count = reader
        .ok(
            "database_query",
            json!({"connection": "sqlite:app.db", "query": "SELECT COUNT(*) FROM t"}),
        )
        .await;
    assert_eq!(count["rows"], json!([[3]]));
    reader
        .fails(
            "database_query",
            json!({"connection": "sqlite:app.db", "query": "DELETE FROM t"}),
            "failed",
            "database:write",
        )
        .await;
}

#[tokio::test]
async fn max_rows_truncates() {
    let (_writer, reader) = database().await;
    let result = reader
        .ok(
            "database_query",
            json!({
                "connection": "sqlite:app.db",
                "query": "WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < 100) SELECT g FROM s",
                "max_rows": 7,
            }),
        )
        .await;
    assert_eq!(result["row_count"], 7);
    assert_eq!(result["truncated"], true);
    assert_eq!(result["rows"][6], json!([7]));
}

#[tokio::test]
async fn a_missing_file_is_not_created_by_a_reader() {
    let bench = Bench::new();
    bench
        .fails(
            "database_query",
            json!({"connection": "sqlite:nothing.db", "query": "SELECT 1"}),
            "failed",
            "no SQLite database at `nothing.db`",
        )
        .await;
    assert!(!bench.path("nothing.db").exists());
}

#[tokio::test]
async fn paths_outside_the_workspace_are_refused() {
    let bench = writer();
    for connection in ["sqlite:../../etc/passwd", "sqlite:///etc/hostname"] {
        bench
            .fails(
                "database_query",
                json!({"connection": connection, "query": "SELECT 1"}),
                "failed",
                "outside the workspace",
            )
            .await;
    }
}

#[tokio::test]
async fn several_statements_attach_and_pragmas_are_refused() {
    let (writer, _reader) = database().await;
    for (sql, needle) in [
        ("SELECT 1; DELETE FROM t", "one statement per call"),
        (
            "ATTACH DATABASE '/tmp/x.db' AS x",
            "`ATTACH` is not allowed",
        ),
        ("PRAGMA query_only = OFF", "`PRAGMA` is not allowed"),
        ("BEGIN", "transaction of its own"),
    ] {
        writer
            .fails(
                "database_query",
                json!({"connection": "sqlite:app.db", "query": sql}),
                "failed",
                needle,
            )
            .await;
    }
    let count = writer
        .ok(
            "database_query",
            json!({"connection": "sqlite:app.db", "query": "SELECT COUNT(*) FROM t"}),
        )
        .await;
    assert_eq!(count["rows"], json!([[2]]));
}

#[tokio::test]
async fn a_syntax_error_is_reported() {
    let (_writer, reader) = database().await;
    reader
        .fails(
            "database_query",
            json!({"connection": "sqlite:app.db", "query": "SELEKT * FROM t"}),
            "failed",
            "syntax error",
        )
        .await;
}

#[tokio::test]
async fn a_runaway_statement_is_interrupted_at_its_timeout() {
    let (_writer, reader) = database().await;
    reader
        .fails(
            "database_query",
            json!({
                "connection": "sqlite:app.db",
                "query": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c",
                "timeout_ms": 300,
            }),
            "failed",
            "timeout of 300 ms",
        )
        .await;
    // The connection was interrupted, not lost: the next call runs.
    let count = reader
        .ok(
            "database_query",
            json!({"connection": "sqlite:app.db", "query": "SELECT COUNT(*) FROM t"}),
        )
        .await;
    assert_eq!(count["rows"], json!([[2]]));
}

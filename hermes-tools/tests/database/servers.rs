//! Behaviour both servers share, written once and run against PostgreSQL and MariaDB:
//! each server's module gives its own SQL where the dialects differ.

use serde_json::{Value, json};

use crate::support::{READ_ONLY, engine_bench, reader, unique, writer};

/// The SQL that differs between servers.
pub struct Dialect {
    /// The connection string.
    pub url: String,
    /// `postgresql` or `mysql`.
    pub name: &'static str,
    /// A query returning `n` rows numbered from 1.
    pub series: fn(usize) -> String,
    /// A query that sleeps for 10 seconds.
    pub sleep: &'static str,
    /// A query returning the connection's id on the server.
    pub connection_id: &'static str,
}

/// Run `sql` on `url` with `bench`, expecting success.
pub async fn query(bench: &crate::common::Bench, url: &str, sql: &str) -> Value {
    bench
        .ok("database_query", json!({"connection": url, "query": sql}))
        .await
}

/// Create a table `name (id INT, label VARCHAR(20))` with the writer.
pub async fn create_table(url: &str, name: &str) {
    query(
        &writer(),
        url,
        &format!("CREATE TABLE {name} (id INT, label VARCHAR(20))"),
    )
    .await;
}

pub async fn max_rows_truncates(d: &Dialect) {
    let bench = reader();
    let result = bench
        .ok(
            "database_query",
            json!({"connection": d.url, "query": (d.series)(50), "max_rows": 10}),
        )
        .await;
    assert_eq!(result["row_count"], 10, "{result}");
    assert_eq!(result["rows"].as_array().unwrap().len(), 10);
    assert_eq!(result["truncated"], true);
    assert_eq!(result["rows"][0][0], 1);
    assert_eq!(result["rows"][9][0], 10);

    let all = bench
        .ok(
            "database_query",
            json!({"connection": d.url, "query": (d.series)(50), "max_rows": 50}),
        )
        .await;
    assert_eq!(all["row_count"], 50);
    assert_eq!(all["truncated"], false);
}

pub async fn insert_is_refused_without_write_and_runs_with_it(d: &Dialect) {
    let table = unique("hermes_rw");
    create_table(&d.url, &table).await;
    let insert = format!("INSERT INTO {table} (id, label) VALUES (1, 'one')");

    // The default policy: read-only.
    let message = reader()
        .fails(
            "database_query",
            json!({"connection": d.url, "query": insert}),
            "failed",
            "database:write",
        )
        .await;
    assert!(message.contains("read-only"), "{message}");

    // An engine profile granting database:read only: still read-only.
    engine_bench(READ_ONLY, hermes_tools::PlatformConfig::default())
        .fails(
            "database_query",
            json!({"connection": d.url, "query": insert}),
            "failed",
            "database:write",
        )
        .await;
    let count = query(&reader(), &d.url, &format!("SELECT COUNT(*) FROM {table}")).await;
    assert_eq!(count["rows"][0][0], 0, "{count}");

    // Granted: the insert is committed.
    let inserted = query(&writer(), &d.url, &insert).await;
    assert_eq!(inserted["read_only"], false);
    assert_eq!(inserted["rows_affected"], 1, "{inserted}");
    let read = query(&reader(), &d.url, &format!("SELECT id, label FROM {table}")).await;
    assert_eq!(read["read_only"], true);
    assert_eq!(read["rows"], json!([[1, "one"]]));
    query(&writer(), &d.url, &format!("DROP TABLE {table}")).await;
}

pub async fn a_syntax_error_is_reported(d: &Dialect, needle: &str) {
    let message = reader()
        .fails(
            "database_query",
            json!({"connection": d.url, "query": "SELEC 1 FROMM nowhere"}),
            "failed",
            needle,
        )
        .await;
    assert!(message.contains("fix the SQL"), "{message}");
    assert!(message.contains(d.name), "{message}");
}

pub async fn a_slow_statement_times_out(d: &Dialect) {
    let bench = reader();
    bench
        .fails(
            "database_query",
            json!({"connection": d.url, "query": d.sleep, "timeout_ms": 300}),
            "failed",
            "timeout of 300 ms",
        )
        .await;
    // The pool is still usable.
    let after = query(&bench, &d.url, &(d.series)(1)).await;
    assert_eq!(after["rows"][0][0], 1);
}

pub async fn a_wrong_password_is_masked(d: &Dialect) {
    let url = d.url.replacen("hermes-test-pw", "wrong-pw-4821", 1);
    assert_ne!(url, d.url, "the services' password changed");
    let message = reader()
        .fails(
            "database_query",
            json!({"connection": url, "query": "SELECT 1"}),
            "failed",
            "could not connect",
        )
        .await;
    assert!(!message.contains("wrong-pw-4821"), "{message}");
    assert!(message.contains("****"), "{message}");
}

pub async fn connections_are_reused_and_closed_at_teardown(d: &Dialect) {
    // Eight calls one after another: a pool of at most four connections serves them
    // all, where connecting per call would show eight ids.
    let bench = reader();
    let mut ids = Vec::new();
    for _ in 0..8 {
        let result = query(&bench, &d.url, d.connection_id).await;
        let id = result["rows"][0][0].as_u64().unwrap();
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    assert!(ids.len() <= 4, "connections not reused: {ids:?}");

    // Another bench (its own pool) sees them; after teardown they are gone.
    let watcher = reader();
    let list = ids
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let alive = if d.name == "postgresql" {
        format!("SELECT COUNT(*) FROM pg_stat_activity WHERE pid IN ({list})")
    } else {
        format!("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID IN ({list})")
    };
    let before = query(&watcher, &d.url, &alive).await;
    assert!(before["rows"][0][0].as_u64().unwrap() >= 1, "{before}");
    bench.dispatcher.registry().shutdown().await;
    let mut gone = false;
    for _ in 0..50 {
        let now = query(&watcher, &d.url, &alive).await;
        if now["rows"][0][0] == 0 {
            gone = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(gone, "connections {ids:?} still open after teardown");
}

pub async fn transaction_control_is_refused(d: &Dialect) {
    reader()
        .fails(
            "database_query",
            json!({"connection": d.url, "query": "COMMIT"}),
            "failed",
            "transaction of its own",
        )
        .await;
}

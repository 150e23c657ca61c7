//! `database_query`'s checks of its input, which need no server.

use serde_json::json;

use crate::common::Bench;

#[tokio::test]
async fn an_unreachable_server_is_reported_with_the_password_masked() {
    let bench = Bench::new();
    let check = |url: &'static str| {
        let bench = &bench;
        async move {
            let message = bench
                .fails(
                    "database_query",
                    json!({"connection": url, "query": "SELECT 1"}),
                    "failed",
                    "could not connect to",
                )
                .await;
            assert!(!message.contains("topsecret-77"), "{message}");
            assert!(message.contains("someone:****@127.0.0.1:1/"), "{message}");
        }
    };
    // Both at once: each waits out the pool's connect deadline.
    tokio::join!(
        check("postgres://someone:topsecret-77@127.0.0.1:1/app"),
        check("mysql://someone:topsecret-77@127.0.0.1:1/app"),
    );
}

#[tokio::test]
async fn unknown_schemes_and_contradicting_dialects_are_refused() {
    let bench = Bench::new();
    let message = bench
        .fails(
            "database_query",
            json!({"connection": "mongodb://u:pw-9911@127.0.0.1/x", "query": "SELECT 1"}),
            "failed",
            "not a connection string this tool knows",
        )
        .await;
    assert!(!message.contains("pw-9911"), "{message}");
    bench
        .fails(
            "database_query",
            json!({"connection": "postgres://127.0.0.1/x", "dialect": "mysql", "query": "SELECT 1"}),
            "failed",
            "is for postgresql, not mysql",
        )
        .await;
}

#[tokio::test]
async fn arguments_of_the_wrong_type_are_refused() {
    let bench = Bench::new();
    for args in [
        json!({"connection": "sqlite:a.db", "query": "SELECT 1", "max_rows": "ten"}),
        json!({"connection": "sqlite:a.db", "query": "SELECT 1", "max_rows": 0}),
        json!({"connection": "sqlite:a.db", "query": "SELECT 1", "dialect": "oracle"}),
        json!({"connection": "sqlite:a.db"}),
        json!({"connection": "sqlite:a.db", "query": "SELECT 1", "timeout_ms": 999_999}),
    ] {
        bench
            .fails("database_query", args, "invalid_arguments", "")
            .await;
    }
}

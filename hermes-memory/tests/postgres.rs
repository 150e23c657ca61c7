//! The PostgreSQL store against a real server (`eval "$(scripts/services)"` exports
//! HERMES_TEST_POSTGRES_URL). Without it these tests skip loudly, unless `CI` is set.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    missing_docs
)]

mod common;

use hermes_core::memory::MemoryStore;
use hermes_memory::PostgresMemory;

fn url() -> Option<String> {
    match std::env::var("HERMES_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var_os("CI").is_some() => {
            panic!(
                "CI is set but HERMES_TEST_POSTGRES_URL is not: run `eval \"$(scripts/services)\"`"
            )
        }
        _ => {
            eprintln!(
                "\n*** SKIPPED: no PostgreSQL. Run `eval \"$(scripts/services)\"` to test the PostgreSQL memory. ***\n"
            );
            None
        }
    }
}

/// A namespace of this test run's own, so runs and tests do not see each other.
fn fresh(name: &str) -> String {
    format!(
        "{name}-{}-{}",
        std::process::id(),
        hermes_core::new_trace_id()
    )
}

#[tokio::test]
async fn the_postgres_store_keeps_the_contract() {
    let Some(url) = url() else { return };
    let store = PostgresMemory::connect(&url).await.unwrap();
    common::contract(&store, &fresh("contract")).await;
}

#[tokio::test]
async fn two_workers_share_one_memory() {
    let Some(url) = url() else { return };
    let ns = fresh("shared");
    let (one, two) = tokio::join!(PostgresMemory::connect(&url), PostgresMemory::connect(&url));
    let (one, two) = (one.unwrap(), two.unwrap());
    one.save_fact(&ns, "plan", "ship on friday").await.unwrap();
    assert_eq!(
        two.recall(&ns, "plan").await.unwrap().unwrap().text,
        "ship on friday"
    );
    assert_eq!(two.search(&ns, "friday", 5).await.unwrap()[0].key, "plan");
    assert!(two.forget(&ns, "plan").await.unwrap());
    assert_eq!(one.recall(&ns, "plan").await.unwrap(), None);
}

#[tokio::test]
async fn an_unreachable_server_is_a_clear_error() {
    let error = PostgresMemory::connect("postgres://hermes:pw@127.0.0.1:9/nothing")
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("connecting to the memory database"),
        "{error}"
    );
}

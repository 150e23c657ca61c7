//! The SQLite store: the contract, and facts that survive reopening the file.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use hermes_core::memory::MemoryStore;
use hermes_memory::SqliteMemory;

#[tokio::test]
async fn the_sqlite_store_keeps_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteMemory::open(dir.path().join("memory.db"))
        .await
        .unwrap();
    common::contract(&store, "user:1").await;
}

#[tokio::test]
async fn facts_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("memory.db");
    let store = SqliteMemory::open(&path).await.unwrap();
    store.save_fact("s", "colour", "likes teal").await.unwrap();
    store.close().await;
    drop(store);
    let reopened = SqliteMemory::open(&path).await.unwrap();
    assert_eq!(
        reopened.recall("s", "colour").await.unwrap().unwrap().text,
        "likes teal"
    );
    assert_eq!(reopened.search("s", "teal", 5).await.unwrap().len(), 1);
}

#[tokio::test]
async fn keep_pii_stores_facts_as_given() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteMemory::open(dir.path().join("m.db"))
        .await
        .unwrap()
        .keep_pii();
    let fact = store
        .save_fact("s", "mail", "li.lei@example.com")
        .await
        .unwrap();
    assert_eq!(fact.text, "li.lei@example.com");
}

#[tokio::test]
async fn an_unopenable_path_is_a_clear_error() {
    let error = SqliteMemory::open("/nonexistent/dir/memory.db")
        .await
        .unwrap_err();
    assert!(error.to_string().contains("opening the memory"), "{error}");
}

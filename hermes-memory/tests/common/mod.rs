//! The behaviour every store must have, run against each one.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    dead_code,
    missing_docs,
    unreachable_pub
)]

use hermes_core::memory::{MemoryError, MemoryStore};

/// Save, recall, replace, search, forget, namespaces, PII masking, hostile queries.
pub async fn contract(store: &dyn MemoryStore, ns: &str) {
    let other = format!("{ns}-other");
    // Save and recall.
    let saved = store
        .save_fact(ns, "diet", "vegetarian, allergic to peanuts")
        .await
        .unwrap();
    assert_eq!(saved.key, "diet");
    assert!(
        saved.updated_at.ends_with('Z') && saved.updated_at.len() == 20,
        "{}",
        saved.updated_at
    );
    let recalled = store.recall(ns, "diet").await.unwrap().unwrap();
    assert_eq!(recalled.text, "vegetarian, allergic to peanuts");
    assert_eq!(store.recall(ns, "nothing").await.unwrap(), None);
    // Replace under the same key.
    store
        .save_fact(ns, "diet", "vegan, allergic to peanuts and soy")
        .await
        .unwrap();
    assert_eq!(
        store.recall(ns, "diet").await.unwrap().unwrap().text,
        "vegan, allergic to peanuts and soy"
    );
    // Search, best first; the replaced text is searched, not the old one.
    store
        .save_fact(ns, "city", "lives in Lyon, likes soy milk")
        .await
        .unwrap();
    store
        .save_fact(ns, "pet", "has a cat named Soja")
        .await
        .unwrap();
    let hits = store.search(ns, "peanuts soy", 10).await.unwrap();
    let keys: Vec<&str> = hits.iter().map(|fact| fact.key.as_str()).collect();
    assert_eq!(keys.first(), Some(&"diet"), "{keys:?}");
    assert!(keys.contains(&"city"), "{keys:?}");
    assert!(!keys.contains(&"pet"), "{keys:?}");
    assert!(store.search(ns, "vegetarian", 10).await.unwrap().is_empty());
    assert_eq!(store.search(ns, "peanuts soy", 1).await.unwrap().len(), 1);
    // Namespaces do not mix.
    assert_eq!(store.recall(&other, "diet").await.unwrap(), None);
    assert!(
        store
            .search(&other, "peanuts", 10)
            .await
            .unwrap()
            .is_empty()
    );
    // Query syntax in the text is only words.
    for hostile in [
        "\"",
        "peanuts\" OR *",
        "a:b & !c | (d",
        "'; DROP TABLE facts; --",
        "NEAR(x y)",
    ] {
        store.search(ns, hostile, 5).await.unwrap();
    }
    assert!(store.search(ns, "", 5).await.unwrap().is_empty());
    // PII is masked before it is stored.
    let masked = store
        .save_fact(ns, "contact", "mail li.lei@example.com or call 13812345678")
        .await
        .unwrap();
    assert_eq!(masked.text, "mail [EMAIL] or call [PHONE]");
    // Bad keys are refused with a clear error.
    let error = store.save_fact(ns, " ", "x").await.unwrap_err();
    assert!(matches!(error, MemoryError::Invalid(_)), "{error}");
    // Forget.
    assert!(store.forget(ns, "diet").await.unwrap());
    assert!(!store.forget(ns, "diet").await.unwrap());
    assert_eq!(store.recall(ns, "diet").await.unwrap(), None);
    let keys: Vec<String> = store
        .search(ns, "peanuts", 10)
        .await
        .unwrap()
        .into_iter()
        .map(|fact| fact.key)
        .collect();
    assert!(!keys.contains(&"diet".to_owned()), "{keys:?}");
}

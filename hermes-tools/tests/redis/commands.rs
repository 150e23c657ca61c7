//! Commands and their replies as JSON.

use hermes_tools::PlatformConfig;
use serde_json::{Value, json};

use crate::common::Bench;
use crate::support::{OPEN, engine_bench, server, unique};

/// A bench that may write to the test server, and one that may only read.
pub fn benches(url: &str) -> (Bench, Bench) {
    let platform = PlatformConfig::default().redis_url(url);
    let writer = engine_bench(OPEN, platform.clone());
    let reader = Bench::with_config(|config| config.platform(platform));
    (writer, reader)
}

pub async fn run(bench: &Bench, command: &str, args: Value) -> Value {
    bench
        .ok("redis_command", json!({"command": command, "args": args}))
        .await["result"]
        .clone()
}

#[tokio::test]
async fn set_then_get_and_nil() {
    let Some(url) = server("HERMES_TEST_REDIS_URL") else {
        return;
    };
    let (writer, reader) = benches(&url);
    let key = unique("hermes:str");
    assert_eq!(run(&writer, "SET", json!([key, "héllo"])).await, "OK");
    let got = reader
        .ok("redis_command", json!({"command": "get", "args": [key]}))
        .await;
    assert_eq!(got["result"], "héllo");
    assert_eq!(got["command"], "GET");
    assert_eq!(got["server"], url.trim_end_matches('/'));
    assert_eq!(
        run(&reader, "GET", json!([unique("hermes:none")])).await,
        Value::Null
    );
    assert_eq!(run(&reader, "EXISTS", json!([key])).await, 1);
    assert_eq!(run(&writer, "DEL", json!([key])).await, 1);
    assert_eq!(run(&reader, "GET", json!([key])).await, Value::Null);
}

#[tokio::test]
async fn hashes_come_back_as_objects() {
    let Some(url) = server("HERMES_TEST_REDIS_URL") else {
        return;
    };
    let (writer, reader) = benches(&url);
    let key = unique("hermes:hash");
    assert_eq!(
        run(&writer, "HSET", json!([key, "name", "ada", "age", 36])).await,
        2
    );
    assert_eq!(
        run(&reader, "HGETALL", json!([key])).await,
        json!({"name": "ada", "age": "36"})
    );
    assert_eq!(run(&reader, "HGET", json!([key, "age"])).await, "36");
    assert_eq!(
        run(&reader, "HGETALL", json!([unique("hermes:none")])).await,
        json!({})
    );
    run(&writer, "DEL", json!([key])).await;
}

#[tokio::test]
async fn lists_come_back_as_arrays() {
    let Some(url) = server("HERMES_TEST_REDIS_URL") else {
        return;
    };
    let (writer, reader) = benches(&url);
    let key = unique("hermes:list");
    assert_eq!(run(&writer, "RPUSH", json!([key, "x", "y", "z"])).await, 3);
    assert_eq!(
        run(&reader, "LRANGE", json!([key, 0, -1])).await,
        json!(["x", "y", "z"])
    );
    assert_eq!(
        run(&reader, "LRANGE", json!([key, 1, 1])).await,
        json!(["y"])
    );
    assert_eq!(run(&reader, "LLEN", json!([key])).await, 3);
    run(&writer, "DEL", json!([key])).await;
}

#[tokio::test]
async fn bytes_that_are_not_utf8_come_back_as_base64() {
    let Some(url) = server("HERMES_TEST_REDIS_URL") else {
        return;
    };
    let (writer, reader) = benches(&url);
    let key = unique("hermes:bytes");
    run(&writer, "SET", json!([key, "é"])).await;
    // The first byte of "é" (0xC3) alone is not UTF-8.
    assert_eq!(
        run(&reader, "GETRANGE", json!([key, 0, 0])).await,
        json!({"base64": "ww=="})
    );
    run(&writer, "DEL", json!([key])).await;
}

#[tokio::test]
async fn an_error_reply_is_a_clear_error() {
    let Some(url) = server("HERMES_TEST_REDIS_URL") else {
        return;
    };
    let (writer, reader) = benches(&url);
    let key = unique("hermes:wrongtype");
    run(&writer, "SET", json!([key, "plain"])).await;
    let message = reader
        .fails(
            "redis_command",
            json!({"command": "LRANGE", "args": [key, 0, -1]}),
            "failed",
            "WRONGTYPE",
        )
        .await;
    assert!(
        message.contains("Redis answered `LRANGE` with an error"),
        "{message}"
    );
    reader
        .fails(
            "redis_command",
            json!({"command": "GET", "args": []}),
            "failed",
            "wrong number of arguments",
        )
        .await;
    run(&writer, "DEL", json!([key])).await;
}

#[tokio::test]
async fn the_connection_is_reused_and_closed_at_teardown() {
    let Some(url) = server("HERMES_TEST_REDIS_URL") else {
        return;
    };
    let platform = PlatformConfig::default()
        .redis_url(&url)
        .allow_dangerous_redis_commands(true);
    let bench = engine_bench(OPEN, platform.clone());
    let first = run(&bench, "CLIENT", json!(["ID"])).await;
    let second = run(&bench, "CLIENT", json!(["ID"])).await;
    assert!(first.is_i64(), "{first}");
    assert_eq!(first, second, "a new connection for each call");

    let watcher = engine_bench(OPEN, platform);
    let listed = |id: &Value| json!(["LIST", "ID", id]);
    let before = run(&watcher, "CLIENT", listed(&first)).await;
    assert!(
        before.as_str().unwrap().contains(&format!("id={first}")),
        "{before}"
    );
    bench.dispatcher.registry().shutdown().await;
    let mut gone = false;
    for _ in 0..50 {
        let now = run(&watcher, "CLIENT", listed(&first)).await;
        if !now.as_str().unwrap().contains(&format!("id={first}")) {
            gone = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(gone, "connection {first} still open after teardown");
}

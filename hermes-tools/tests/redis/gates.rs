//! Which commands run: reads always, writes with `database:write`, server-wide commands
//! only when configured, connection-changing commands never; and bad input.

use hermes_tools::PlatformConfig;
use serde_json::json;

use crate::commands::{benches, run};
use crate::common::Bench;
use crate::support::{OPEN, READ_ONLY, engine_bench, server, unique};

#[tokio::test]
async fn writes_need_database_write() {
    let Some(url) = server("HERMES_TEST_REDIS_URL") else {
        return;
    };
    let (writer, reader) = benches(&url);
    let key = unique("hermes:guarded");
    for (command, args) in [
        ("SET", json!([key, "v"])),
        ("DEL", json!([key])),
        ("FLUSHDB", json!([])),
        ("SOMEFUTURECOMMAND", json!([key])),
    ] {
        reader
            .fails(
                "redis_command",
                json!({"command": command, "args": args}),
                "failed",
                "database:write",
            )
            .await;
    }
    let read_only = engine_bench(READ_ONLY, PlatformConfig::default().redis_url(&url));
    read_only
        .fails(
            "redis_command",
            json!({"command": "SET", "args": [key, "v"]}),
            "failed",
            "database:write",
        )
        .await;
    assert_eq!(run(&reader, "EXISTS", json!([key])).await, 0);
    // The writer may.
    assert_eq!(run(&writer, "SET", json!([key, "v"])).await, "OK");
    assert_eq!(run(&reader, "EXISTS", json!([key])).await, 1);
    run(&writer, "DEL", json!([key])).await;
}

#[tokio::test]
async fn server_wide_commands_are_refused_unless_configured() {
    let Some(url) = server("HERMES_TEST_REDIS_URL") else {
        return;
    };
    let (writer, _reader) = benches(&url);
    for (command, args) in [
        ("FLUSHALL", json!([])),
        ("CONFIG", json!(["GET", "maxmemory"])),
        ("SHUTDOWN", json!(["NOSAVE"])),
        ("DEBUG", json!(["SLEEP", 0])),
        ("MODULE", json!(["LIST"])),
        ("EVAL", json!(["return redis.call('FLUSHALL')", 0])),
    ] {
        writer
            .fails(
                "redis_command",
                json!({"command": command, "args": args}),
                "failed",
                "allow_dangerous_redis_commands",
            )
            .await;
    }
    // Configured, and granted: CONFIG GET runs (and comes back as an object).
    let allowed = engine_bench(
        OPEN,
        PlatformConfig::default()
            .redis_url(&url)
            .allow_dangerous_redis_commands(true),
    );
    let config = run(&allowed, "CONFIG", json!(["GET", "maxmemory"])).await;
    assert!(config["maxmemory"].is_string(), "{config}");
    // Configured but not granted: still refused.
    let reader = Bench::with_config(|config| {
        config.platform(
            PlatformConfig::default()
                .redis_url(&url)
                .allow_dangerous_redis_commands(true),
        )
    });
    reader
        .fails(
            "redis_command",
            json!({"command": "CONFIG", "args": ["GET", "maxmemory"]}),
            "failed",
            "database:write",
        )
        .await;
}

#[tokio::test]
async fn connection_changing_commands_never_run() {
    let Some(url) = server("HERMES_TEST_REDIS_URL") else {
        return;
    };
    let (writer, _reader) = benches(&url);
    for (command, args) in [
        ("SELECT", json!([1])),
        ("MULTI", json!([])),
        ("BLPOP", json!(["hermes:nothing", 0])),
        ("SUBSCRIBE", json!(["news"])),
        ("XREAD", json!(["BLOCK", 0, "STREAMS", "s", "$"])),
    ] {
        writer
            .fails(
                "redis_command",
                json!({"command": command, "args": args}),
                "failed",
                "connection every call shares",
            )
            .await;
    }
}

#[tokio::test]
async fn an_unreachable_server_is_reported_without_its_password() {
    let bench = engine_bench(
        OPEN,
        PlatformConfig::default().redis_url("redis://:pw-7788@127.0.0.1:1/0"),
    );
    let message = bench
        .fails(
            "redis_command",
            json!({"command": "GET", "args": ["k"]}),
            "failed",
            "could not connect to Redis at redis://127.0.0.1:1/0",
        )
        .await;
    assert!(!message.contains("pw-7788"), "{message}");
}

#[tokio::test]
async fn bad_arguments_are_refused() {
    let bench = Bench::with_config(|config| {
        config.platform(PlatformConfig::default().redis_url("redis://127.0.0.1:1/0"))
    });
    for args in [
        json!({"command": "GET key"}),
        json!({"command": "GET", "args": {"key": 1}}),
        json!({"command": "GET", "args": [["nested"]]}),
        json!({"command": ""}),
        json!({"args": ["k"]}),
    ] {
        bench
            .fails("redis_command", args, "invalid_arguments", "")
            .await;
    }
}

//! `env_get` and `env_set`: the session's variables over the process's, secrets masked
//! unless the policy allows reading them, the host environment never touched.

use std::sync::Arc;

use hermes_core::{ApproveAll, RunContext};
use serde_json::json;

use crate::common::Bench;
use crate::support::bench_with_engine;

#[tokio::test]
async fn a_secret_is_masked_and_a_plain_variable_is_not() {
    let bench = Bench::new();
    bench
        .ok(
            "env_set",
            json!({"name": "HERMES_API_KEY", "value": "sk-secret-1234"}),
        )
        .await;
    bench
        .ok(
            "env_set",
            json!({"name": "HERMES_GREETING", "value": "hello"}),
        )
        .await;

    let report = bench
        .report("env_get", json!({"name": "HERMES_API_KEY"}))
        .await;
    assert!(
        !report.message.content.contains("sk-secret"),
        "{}",
        report.message.content
    );
    let secret: serde_json::Value = serde_json::from_str(&report.message.content).unwrap();
    assert_eq!(secret["set"], true);
    assert_eq!(secret["masked"], true);
    assert_eq!(secret["value"], "****");
    assert_eq!(secret["length"], 14);
    assert_eq!(secret["source"], "session");

    let plain = bench
        .ok("env_get", json!({"name": "HERMES_GREETING"}))
        .await;
    assert_eq!(plain["value"], "hello");
    assert!(plain.get("masked").is_none());

    // Commands still get the real value.
    let result = bench
        .ok(
            "terminal",
            json!({"command": "printf %s \"$HERMES_API_KEY\""}),
        )
        .await;
    assert_eq!(result["stdout"], "sk-secret-1234");
}

#[tokio::test]
async fn the_engine_reveals_secrets_unless_a_profile_masks_them() {
    let open = "profiles:\n  open:\n    allow: [\"*\"]\n";
    let masking =
        "profiles:\n  open:\n    allow: [\"*\"]\n    tools:\n      env_secret: {deny: true}\n";
    for (profiles, revealed) in [(open, true), (masking, false)] {
        let bench = bench_with_engine(profiles, Arc::new(ApproveAll));
        bench
            .ok(
                "env_set",
                json!({"name": "DB_PASSWORD", "value": "hunter2"}),
            )
            .await;
        let read = bench.ok("env_get", json!({"name": "DB_PASSWORD"})).await;
        if revealed {
            assert_eq!(read["value"], "hunter2", "{read}");
        } else {
            assert_eq!(read["value"], "****", "{read}");
            assert_eq!(read["masked"], true);
        }
    }
}

#[tokio::test]
async fn env_set_never_touches_the_host_environment() {
    let mut bench = Bench::new();
    let name = "HERMES_SYSTEM_TEST_ONLY_IN_SESSION";
    bench
        .ok("env_set", json!({"name": name, "value": "session value"}))
        .await;
    assert!(std::env::var_os(name).is_none());
    let read = bench.ok("env_get", json!({"name": name})).await;
    assert_eq!(read["value"], "session value");

    bench.run = RunContext::new().with_session("another");
    let elsewhere = bench.ok("env_get", json!({"name": name})).await;
    assert_eq!(elsewhere["set"], false, "{elsewhere}");

    bench.run = RunContext::new().with_session("tests");
    let unset = bench.ok("env_set", json!({"name": name})).await;
    assert_eq!(unset["action"], "unset");
    assert_eq!(unset["was_set"], true);
    let read = bench.ok("env_get", json!({"name": name})).await;
    assert_eq!(read["set"], false);
    assert!(std::env::var_os(name).is_none());
}

#[tokio::test]
async fn inherited_variables_are_read_from_the_process() {
    let bench = Bench::new();
    let read = bench.ok("env_get", json!({"name": "PATH"})).await;
    assert_eq!(read["source"], "process");
    assert_eq!(
        read["value"].as_str().unwrap(),
        std::env::var("PATH").unwrap()
    );
}

#[tokio::test]
async fn names_are_listed_by_prefix_without_values() {
    let bench = Bench::new();
    for (name, value) in [("HERMES_LIST_B", "vb"), ("HERMES_LIST_A_TOKEN", "va")] {
        bench
            .ok("env_set", json!({"name": name, "value": value}))
            .await;
    }
    let report = bench
        .report("env_get", json!({"prefix": "HERMES_LIST_"}))
        .await;
    assert!(!report.message.content.contains("\"vb\""));
    let listing: serde_json::Value = serde_json::from_str(&report.message.content).unwrap();
    assert_eq!(
        listing["names"],
        json!([
            {"name": "HERMES_LIST_A_TOKEN", "source": "session"},
            {"name": "HERMES_LIST_B", "source": "session"}
        ])
    );
    assert_eq!(listing["total"], 2);

    let limited = bench.ok("env_get", json!({"limit": 1})).await;
    assert_eq!(limited["names"].as_array().unwrap().len(), 1);
    assert_eq!(limited["truncated"], true);

    bench
        .fails(
            "env_get",
            json!({"name": "A", "prefix": "B"}),
            "failed",
            "not both",
        )
        .await;
}

#[tokio::test]
async fn bad_and_protected_names_are_refused() {
    let bench = Bench::new();
    bench
        .fails(
            "env_set",
            json!({"name": "1BAD", "value": "x"}),
            "invalid_arguments",
            "name",
        )
        .await;
    bench
        .fails(
            "env_set",
            json!({"name": "LD_PRELOAD", "value": "/tmp/x.so"}),
            "failed",
            "cannot be set",
        )
        .await;
    bench
        .fails(
            "env_set",
            json!({"name": "BIG", "value": "x".repeat(40 * 1024)}),
            "invalid_arguments",
            "value",
        )
        .await;
}

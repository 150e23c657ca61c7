//! `system_info`, and the specs of the family as the gateway and the README see them.

use hermes_core::{Access, ArgKind, Scope};
use hermes_tools::ToolsConfig;
use serde_json::json;

use crate::common::Bench;

#[tokio::test]
async fn system_info_describes_this_machine() {
    let bench = Bench::new();
    let info = bench.ok("system_info", json!({})).await;
    assert!(!info["os"]["arch"].as_str().unwrap().is_empty(), "{info}");
    if cfg!(target_os = "linux") {
        assert!(info["os"]["name"].is_string(), "{info}");
        assert!(info["os"]["kernel"].is_string(), "{info}");
    }
    assert!(info["cpu"]["logical_cores"].as_u64().unwrap() >= 1);
    let memory = &info["memory"];
    let total = memory["total_bytes"].as_u64().unwrap();
    assert!(total > 0);
    assert!(memory["available_bytes"].as_u64().unwrap() <= total);
    assert!(memory["used_bytes"].as_u64().unwrap() <= total);
    for disk in info["disks"].as_array().unwrap() {
        assert!(
            disk["mount_point"].as_str().unwrap().starts_with('/'),
            "{disk}"
        );
        assert!(disk["available_bytes"].as_u64().unwrap() <= disk["total_bytes"].as_u64().unwrap());
    }
    assert!(info["boot_time_unix"].as_u64().unwrap() > 0);
    assert!(info["load_average"]["one"].as_f64().unwrap() >= 0.0);
    bench
        .fails(
            "system_info",
            json!({"verbose": true}),
            "invalid_arguments",
            "verbose",
        )
        .await;
}

#[test]
fn the_specs_say_what_the_engine_judges() {
    let tools = hermes_tools::tools(ToolsConfig::default()).unwrap();
    let spec = |name: &str| {
        tools
            .iter()
            .find(|tool| tool.spec().name() == name)
            .unwrap_or_else(|| panic!("no {name}"))
            .spec()
            .clone()
    };
    for name in [
        "terminal",
        "process_start",
        "process_output",
        "process_kill",
        "process_list",
        "env_get",
        "env_set",
        "system_info",
    ] {
        let tool = tools
            .iter()
            .find(|tool| tool.spec().name() == name)
            .unwrap();
        assert_eq!(
            hermes_tools::family_of(tool.as_ref()),
            Some("system"),
            "{name}"
        );
    }
    let terminal = spec("terminal");
    assert_eq!(terminal.scope(), Scope::Write);
    assert_eq!(terminal.permissions(), ["terminal:execute"]);
    assert!(
        terminal
            .arg_kinds()
            .contains(&("command".to_owned(), ArgKind::Command))
    );
    assert!(
        terminal
            .arg_kinds()
            .contains(&("cwd".to_owned(), ArgKind::Path(Access::Read)))
    );
    assert!(terminal.timeout() > ToolsConfig::default().max_command_timeout());
    let start = spec("process_start");
    assert_eq!(start.permissions(), ["terminal:execute", "process:manage"]);
    assert!(
        start
            .arg_kinds()
            .contains(&("command".to_owned(), ArgKind::Command))
    );
    assert_eq!(spec("process_output").scope(), Scope::Read);
    assert_eq!(spec("process_list").scope(), Scope::Read);
    assert_eq!(spec("process_kill").scope(), Scope::Write);
    assert_eq!(spec("env_get").permissions(), ["env:read"]);
    assert_eq!(spec("env_set").permissions(), ["env:write"]);
    assert_eq!(spec("env_set").scope(), Scope::Write);
    assert!(spec("system_info").permissions().is_empty());
}

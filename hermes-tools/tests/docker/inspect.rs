//! `docker_inspect` against a real engine: lists, one container or image, logs.

use std::process::Command;

use serde_json::{Value, json};

use crate::engine::engine;
use crate::support::unique;

/// A call to the engine's API over its socket with curl, outside the tools: the test's
/// own container, made and removed without going through the tool under test.
fn api(host: &str, method: &str, path: &str, body: Option<&Value>) -> Value {
    let socket = host.strip_prefix("unix://").expect("a unix socket");
    let mut command = Command::new("curl");
    command.args(["-sS", "--unix-socket", socket, "-X", method]);
    if let Some(body) = body {
        command.args([
            "-H",
            "Content-Type: application/json",
            "-d",
            &body.to_string(),
        ]);
    }
    command.arg(format!("http://d/v1.41{path}"));
    let output = command.output().expect("curl runs");
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).unwrap_or(Value::Null)
}

/// A stopped container that printed five lines and exited with 7; its name.
fn finished_container(host: &str, image: &str) -> String {
    let name = unique("hermes-inspect");
    let body = json!({
        "Image": image,
        "Cmd": ["sh", "-c", "for i in 1 2 3 4 5; do echo line $i; done; echo warn >&2; exit 7"],
        "Env": ["SECRET_TOKEN=hunter2", "MODE=test"],
    });
    api(
        host,
        "POST",
        &format!("/containers/create?name={name}"),
        Some(&body),
    );
    api(host, "POST", &format!("/containers/{name}/start"), None);
    api(host, "POST", &format!("/containers/{name}/wait"), None);
    name
}

fn remove(host: &str, name: &str) {
    api(
        host,
        "DELETE",
        &format!("/containers/{name}?force=true"),
        None,
    );
}

#[tokio::test]
async fn images_are_listed_and_inspected() {
    let Some((bench, _host, image)) = engine() else {
        return;
    };
    let images = bench
        .ok("docker_inspect", json!({"action": "images"}))
        .await;
    let tags: Vec<&str> = images["items"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|item| item["RepoTags"].as_array().cloned().unwrap_or_default())
        .filter_map(|tag| tag.as_str().map(str::to_owned))
        .map(|tag| &*tag.leak())
        .collect();
    assert!(tags.iter().any(|tag| tag.starts_with(&image)), "{images}");

    let inspected = bench
        .ok(
            "docker_inspect",
            json!({"action": "image", "target": image}),
        )
        .await;
    assert!(inspected["Id"].is_string(), "{inspected}");
    assert_eq!(inspected["Os"], "linux");
}

#[tokio::test]
async fn a_container_is_inspected_with_env_names_only() {
    let Some((bench, host, image)) = engine() else {
        return;
    };
    let name = finished_container(&host, &image);
    let inspected = bench
        .ok(
            "docker_inspect",
            json!({"action": "container", "target": name}),
        )
        .await;
    remove(&host, &name);
    assert_eq!(inspected["State"]["ExitCode"], 7, "{inspected}");
    assert_eq!(inspected["State"]["Running"], false);
    let env: Vec<&str> = inspected["EnvNames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|name| name.as_str().unwrap())
        .collect();
    assert!(
        env.contains(&"SECRET_TOKEN") && env.contains(&"MODE"),
        "{inspected}"
    );
    assert!(!inspected.to_string().contains("hunter2"), "{inspected}");
}

#[tokio::test]
async fn logs_are_read_from_the_tail() {
    let Some((bench, host, image)) = engine() else {
        return;
    };
    let name = finished_container(&host, &image);
    let logs = bench
        .ok(
            "docker_inspect",
            json!({"action": "logs", "target": name, "tail": 2}),
        )
        .await;
    let all = bench
        .ok("docker_inspect", json!({"action": "logs", "target": name}))
        .await;
    let listed = bench
        .ok(
            "docker_inspect",
            json!({"action": "containers", "all": true}),
        )
        .await;
    let running = bench
        .ok("docker_inspect", json!({"action": "containers"}))
        .await;
    remove(&host, &name);
    // The last two lines of the interleaved output: one of each stream's tail.
    let tail = format!(
        "{}{}",
        logs["output"]["stdout"].as_str().unwrap(),
        logs["output"]["stderr"].as_str().unwrap()
    );
    assert_eq!(tail.lines().count(), 2, "{logs}");
    assert!(tail.contains("line 5") && tail.contains("warn"), "{logs}");
    assert_eq!(
        all["output"]["stdout"],
        "line 1\nline 2\nline 3\nline 4\nline 5\n"
    );
    let named = |list: &Value| {
        list["items"].as_array().unwrap().iter().any(|item| {
            item["Names"].as_array().is_some_and(|names| {
                names
                    .iter()
                    .any(|n| n.as_str().unwrap().trim_start_matches('/') == name)
            })
        })
    };
    assert!(named(&listed), "{listed}");
    assert!(
        !named(&running),
        "a stopped container listed as running: {running}"
    );
}

#[tokio::test]
async fn an_unknown_container_is_not_found() {
    let Some((bench, _host, _image)) = engine() else {
        return;
    };
    for action in ["container", "logs"] {
        bench
            .fails(
                "docker_inspect",
                json!({"action": action, "target": "hermes-no-such-container"}),
                "failed",
                "was not found",
            )
            .await;
    }
    bench
        .fails(
            "docker_inspect",
            json!({"action": "container"}),
            "failed",
            "give `target`",
        )
        .await;
}

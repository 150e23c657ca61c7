//! `hermes permissions`: the JSON users script against, and the exit codes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use common::{hermes, stdout_json as json};

const PROFILES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/profiles.yaml");

#[test]
fn check_command_prints_a_verdict_and_exits_0() {
    for (command, verdict) in [
        ("rm -rf /", "hardline"),
        ("git reset --hard HEAD~3", "dangerous"),
        ("ls -la", "safe"),
        ("echo reboot", "safe"),
    ] {
        let output = hermes(&["permissions", "check-command", command]);
        assert_eq!(output.status.code(), Some(0), "{command}: {output:?}");
        let value = json(&output);
        assert_eq!(value["verdict"], verdict, "{command}: {value}");
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["reason", "rule", "verdict"], "{value}");
        assert!(value["rule"].as_str().is_some_and(|rule| !rule.is_empty()));
    }
}

#[test]
fn check_a_bare_permission_and_value() {
    let allowed = hermes(&[
        "permissions",
        "check",
        "--profiles",
        PROFILES,
        "--profile",
        "readonly_research",
        "--permission",
        "file:read",
        "--path",
        "/workspace/notes.md",
    ]);
    assert_eq!(allowed.status.code(), Some(0), "{allowed:?}");
    let value = json(&allowed);
    assert_eq!(value["decision"], "allow");
    let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["decision", "layer", "reason", "rule"], "{value}");

    let traversal = hermes(&[
        "permissions",
        "check",
        "--profiles",
        PROFILES,
        "--profile",
        "readonly_research",
        "--permission",
        "file:read",
        "--path",
        "../etc/passwd",
        "--cwd",
        "/workspace",
    ]);
    assert_eq!(traversal.status.code(), Some(1));
    let value = json(&traversal);
    assert_eq!(
        (
            value["decision"].as_str(),
            value["layer"].as_str(),
            value["rule"].as_str()
        ),
        (Some("deny"), Some("parameter"), Some("allowed_paths"))
    );

    let command = hermes(&[
        "permissions",
        "check",
        "--profiles",
        PROFILES,
        "--profile",
        "full_developer",
        "--permission",
        "terminal:execute",
        "--command",
        "git reset --hard",
    ]);
    assert_eq!(json(&command)["decision"], "needs_approval");
    assert_eq!(command.status.code(), Some(1));

    let url = hermes(&[
        "permissions",
        "check",
        "--profiles",
        PROFILES,
        "--profile",
        "production_deploy",
        "--permission",
        "network:fetch",
        "--url",
        "https://pastebin.com/x",
    ]);
    assert_eq!(json(&url)["rule"], "allowed_hosts");
}

#[test]
fn check_a_tool_call() {
    let output = hermes(&[
        "permissions",
        "check",
        "--profiles",
        PROFILES,
        "--profile",
        "readonly_research",
        "--tool",
        "calculator",
        "--args",
        r#"{"expression": "1+1"}"#,
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(json(&output)["decision"], "allow");
}

#[test]
fn usage_errors_exit_2_with_the_reason_on_stderr() {
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                "permissions",
                "check",
                "--profiles",
                PROFILES,
                "--profile",
                "admin",
                "--permission",
                "file:read",
            ],
            "no profile named `admin`",
        ),
        (
            &[
                "permissions",
                "check",
                "--profiles",
                "/nonexistent.yaml",
                "--profile",
                "p",
                "--permission",
                "file:read",
            ],
            "/nonexistent.yaml",
        ),
        (
            &[
                "permissions",
                "check",
                "--profiles",
                PROFILES,
                "--profile",
                "readonly_research",
                "--tool",
                "nope",
            ],
            "no tool named `nope`",
        ),
        (
            &[
                "permissions",
                "check",
                "--profiles",
                PROFILES,
                "--profile",
                "readonly_research",
            ],
            "--tool",
        ),
    ];
    for (args, needle) in cases {
        let output = hermes(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty());
    }
}

#[test]
fn a_bad_profile_file_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.yaml");
    std::fs::write(
        &file,
        "profiles:\n  p:\n    allow: [file:read]\n    deny: [file:raed]\n",
    )
    .unwrap();
    let output = hermes(&[
        "permissions",
        "check",
        "--profiles",
        file.to_str().unwrap(),
        "--profile",
        "p",
        "--permission",
        "file:read",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.yaml:4:12"), "{stderr}");
    assert!(stderr.contains("file:raed"), "{stderr}");
}

#[test]
fn tool_call_under_a_profile() {
    let output = hermes(&[
        "tool",
        "call",
        "calculator",
        "--args",
        r#"{"expression": "6*7"}"#,
        "--profiles",
        PROFILES,
        "--profile",
        "readonly_research",
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(json(&output)["result"], 42);
}

/// With no terminal to ask (stdin is not one), a call that needs approval is denied, and
/// nothing runs: with the default policy and with a profile that asks.
#[test]
fn headless_approval_fails_closed() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("keep.txt"), "still here").unwrap();
    let profile = ["--profiles", PROFILES, "--profile", "full_developer"];
    for policy in [&[][..], &profile[..]] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_hermes"))
            .args(["tool", "call", "terminal", "--args"])
            .arg(r#"{"command": "rm -rf victim"}"#)
            .args(policy)
            .current_dir(dir.path())
            .env(
                "HERMES_HOME",
                concat!(env!("CARGO_TARGET_TMPDIR"), "/hermes-home-without-tools"),
            )
            .env_remove("HERMES_LOG")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{policy:?}: {output:?}");
        let value = json(&output);
        assert_eq!(
            value["error"]["kind"], "approval_denied",
            "{policy:?}: {value}"
        );
        assert!(
            victim.join("keep.txt").exists(),
            "{policy:?}: the command ran"
        );
    }
}

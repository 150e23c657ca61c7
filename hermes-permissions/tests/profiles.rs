//! Profiles from YAML, errors that say where, and the four layers deciding together.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::path::PathBuf;

use hermes_core::{Access, ArgKind, Policy, ToolSpec};
use hermes_permissions::{Error, Layer, Outcome, PermissionEngine, Profile, ProfileSet, Ruling};
use serde_json::{Value, json};

fn seed() -> ProfileSet {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/profiles.yaml");
    ProfileSet::from_file(path).unwrap()
}

fn tool(name: &str, permissions: &[&str], kinds: &[(&str, ArgKind)]) -> ToolSpec {
    let properties: serde_json::Map<String, Value> = kinds
        .iter()
        .map(|(param, _)| ((*param).to_owned(), json!({"type": "string"})))
        .collect();
    let mut builder = ToolSpec::builder(name, "A tool.")
        .parameters(json!({"type": "object", "properties": properties}))
        .permissions(permissions.iter().copied());
    for (param, kind) in kinds {
        builder = builder.arg_kind(*param, *kind);
    }
    builder.build().unwrap()
}

fn file_read() -> ToolSpec {
    tool(
        "file_read",
        &["file:read"],
        &[("path", ArgKind::Path(Access::Read))],
    )
}

fn file_write() -> ToolSpec {
    tool(
        "file_write",
        &["file:write"],
        &[("path", ArgKind::Path(Access::Write))],
    )
}

fn terminal() -> ToolSpec {
    tool(
        "terminal",
        &["terminal:execute"],
        &[("command", ArgKind::Command)],
    )
}

fn fetch() -> ToolSpec {
    tool("web_fetch", &["network:fetch"], &[("url", ArgKind::Url)])
}

fn engine(profile: &str) -> PermissionEngine {
    PermissionEngine::builder(seed().get(profile).unwrap())
        .workspace("/workspace")
        .build()
}

fn expect(ruling: &Ruling, decision: Outcome, layer: Layer, rule: &str) {
    assert_eq!(
        (ruling.decision, ruling.layer, ruling.rule.as_str()),
        (decision, layer, rule),
        "{ruling:?}"
    );
}

#[test]
fn the_seed_file_loads_as_is() {
    let set = seed();
    assert_eq!(
        set.names().collect::<Vec<_>>(),
        ["full_developer", "production_deploy", "readonly_research"]
    );
    let research = set.get("readonly_research").unwrap();
    assert_eq!(
        research.description(),
        Some("Read the workspace and search the web; change nothing.")
    );
    let err = set.get("admin").unwrap_err();
    assert!(
        err.to_string()
            .contains("full_developer, production_deploy, readonly_research"),
        "{err}"
    );
}

#[test]
fn readonly_research() {
    let engine = engine("readonly_research");
    let ok = engine.evaluate(&file_read(), &json!({"path": "notes/a.md"}), "s");
    expect(&ok, Outcome::Allow, Layer::Global, "file:read");
    let denied = engine.evaluate(&file_write(), &json!({"path": "notes/a.md"}), "s");
    expect(&denied, Outcome::Deny, Layer::Global, "file:write");
    assert_eq!(denied.profile.as_deref(), Some("readonly_research"));
    let secret = engine.evaluate(&file_read(), &json!({"path": "app/.env"}), "s");
    expect(&secret, Outcome::Deny, Layer::Parameter, "denied_paths");
    let escape = engine.evaluate(&file_read(), &json!({"path": "../etc/passwd"}), "s");
    expect(&escape, Outcome::Deny, Layer::Parameter, "allowed_paths");
    let local = engine.evaluate(
        &fetch(),
        &json!({"url": "http://127.0.0.1:8080/admin"}),
        "s",
    );
    expect(&local, Outcome::Deny, Layer::Parameter, "denied_hosts");
    let public = engine.evaluate(
        &fetch(),
        &json!({"url": "https://en.wikipedia.org/wiki/Rust"}),
        "s",
    );
    assert_eq!(public.decision, Outcome::Allow);
    // A tool that needs something never granted.
    let shell = engine.evaluate(&terminal(), &json!({"command": "ls"}), "s");
    expect(&shell, Outcome::Deny, Layer::Global, "terminal:execute");
}

#[test]
fn full_developer() {
    let engine = engine("full_developer");
    expect(
        &engine.evaluate(&file_write(), &json!({"path": "src/main.rs"}), "s"),
        Outcome::Allow,
        Layer::Global,
        "file:*",
    );
    expect(
        &engine.evaluate(
            &file_write(),
            &json!({"path": ".git/hooks/pre-commit"}),
            "s",
        ),
        Outcome::Deny,
        Layer::Parameter,
        "denied_paths",
    );
    expect(
        &engine.evaluate(&file_write(), &json!({"path": "/etc/hosts"}), "s"),
        Outcome::Deny,
        Layer::Parameter,
        "allowed_paths",
    );
    let sudo = engine.evaluate(
        &terminal(),
        &json!({"command": "sudo apt-get install jq"}),
        "s",
    );
    expect(&sudo, Outcome::Deny, Layer::Parameter, "sudo");
    let git = tool("git_push", &["git:write"], &[]);
    let ask = engine.evaluate(&git, &json!({}), "s");
    expect(&ask, Outcome::NeedsApproval, Layer::Global, "git:write");
    assert_eq!(ask.class.as_deref(), Some("permission:git:write:git_push"));
}

#[test]
fn production_deploy() {
    let engine = engine("production_deploy");
    let kubectl = engine.evaluate(&terminal(), &json!({"command": "kubectl get pods"}), "s");
    expect(
        &kubectl,
        Outcome::NeedsApproval,
        Layer::Global,
        "terminal:execute",
    );
    let python = engine.evaluate(&terminal(), &json!({"command": "python deploy.py"}), "s");
    expect(&python, Outcome::Deny, Layer::Parameter, "allowed_commands");
    let registry = engine.evaluate(
        &fetch(),
        &json!({"url": "https://registry.example.com/v2/"}),
        "s",
    );
    assert_eq!(registry.decision, Outcome::Allow);
    let elsewhere = engine.evaluate(&fetch(), &json!({"url": "https://pastebin.com/raw/x"}), "s");
    expect(&elsewhere, Outcome::Deny, Layer::Parameter, "allowed_hosts");
    let debug = tool("shell_debug", &["file:read"], &[]);
    expect(
        &engine.evaluate(&debug, &json!({}), "s"),
        Outcome::Deny,
        Layer::Tool,
        "tools.shell_debug.deny",
    );
    let migrate = tool("db_migrate", &["database:read"], &[]);
    let ask = engine.evaluate(&migrate, &json!({}), "s");
    expect(
        &ask,
        Outcome::NeedsApproval,
        Layer::Tool,
        "tools.db_migrate.approval_required",
    );
}

#[test]
fn a_session_profile_narrows_and_cannot_widen() {
    let set = seed();
    let developer = PermissionEngine::builder(set.get("full_developer").unwrap())
        .workspace("/workspace")
        .build();
    developer.set_session_profile("narrow", set.get("readonly_research").unwrap());
    let write = json!({"path": "src/main.rs"});
    expect(
        &developer.evaluate(&file_write(), &write, "narrow"),
        Outcome::Deny,
        Layer::Session,
        "file:write",
    );
    expect(
        &developer.evaluate(&file_write(), &write, "other"),
        Outcome::Allow,
        Layer::Global,
        "file:*",
    );
    // The session's own path restrictions apply too.
    let ruling = developer.evaluate(&file_read(), &json!({"path": "/tmp/x"}), "narrow");
    expect(&ruling, Outcome::Deny, Layer::Parameter, "allowed_paths");
    assert_eq!(ruling.profile.as_deref(), Some("readonly_research"));

    let research = PermissionEngine::builder(set.get("readonly_research").unwrap())
        .workspace("/workspace")
        .build();
    research.set_session_profile("wide", set.get("full_developer").unwrap());
    expect(
        &research.evaluate(&file_write(), &write, "wide"),
        Outcome::Deny,
        Layer::Global,
        "file:write",
    );
    research.end_session("wide");
}

#[test]
fn deny_wins_over_allow() {
    let profile = Profile::builder("p")
        .allow("*")
        .deny("network:*")
        .build()
        .unwrap();
    let engine = PermissionEngine::new(profile);
    expect(
        &engine.evaluate(&fetch(), &json!({"url": "https://a.b"}), "s"),
        Outcome::Deny,
        Layer::Global,
        "network:*",
    );
}

#[test]
fn parameter_kinds_imply_permissions() {
    // The tool forgot to declare file:write; its path:write parameter needs it anyway.
    let sneaky = tool("notes", &[], &[("path", ArgKind::Path(Access::Write))]);
    let engine = engine("readonly_research");
    expect(
        &engine.evaluate(&sneaky, &json!({"path": "a.md"}), "s"),
        Outcome::Deny,
        Layer::Global,
        "file:write",
    );
}

#[test]
fn grants_are_per_class_and_per_session() {
    let engine = engine("full_developer");
    let git = tool("git_push", &["git:write"], &[]);
    assert_eq!(
        engine.evaluate(&git, &json!({}), "s1").decision,
        Outcome::NeedsApproval
    );
    engine.grant("s1", "permission:git:write:git_push");
    assert_eq!(
        engine.evaluate(&git, &json!({}), "s1").decision,
        Outcome::Allow
    );
    assert_eq!(
        engine.evaluate(&git, &json!({}), "s2").decision,
        Outcome::NeedsApproval
    );
    let other = tool("git_tag", &["git:write"], &[]);
    assert_eq!(
        engine.evaluate(&other, &json!({}), "s1").decision,
        Outcome::NeedsApproval
    );
    // Hardline commands are never granted, approvals or not.
    engine.grant("s1", "hardline.rm-root:rm");
    let ruling = engine.evaluate(&terminal(), &json!({"command": "rm -rf /"}), "s1");
    assert_eq!(ruling.decision, Outcome::Deny);
}

fn load_error(yaml: &str) -> (u64, u64, Option<String>, String) {
    match ProfileSet::from_yaml(yaml).unwrap_err() {
        Error::Invalid {
            line,
            column,
            key,
            message,
            ..
        } => (line, column, key, message),
        other => panic!("{other}"),
    }
}

#[test]
fn loading_errors_say_where_and_what() {
    let (line, _, key, message) = load_error("profiles:\n  p:\n    alow: [file:read]\n");
    assert_eq!(line, 3, "{message}");
    assert_eq!(key.as_deref(), Some("alow"), "{message}");
    assert!(message.contains("alow"), "{message}");

    let (line, column, key, message) =
        load_error("profiles:\n  p:\n    allow: [file:read, file:raed]\n");
    assert_eq!((line, column), (3, 24), "{message}");
    assert_eq!(key.as_deref(), Some("allow"));
    assert!(
        message.contains("unknown permission `file:raed`") && message.contains("`file:read`"),
        "{message}"
    );

    let (line, _, _, message) = load_error("profiles:\n  p:\n    allow: [netwrk:fetch]\n");
    assert_eq!(line, 3);
    assert!(message.contains("did you mean `network`"), "{message}");

    let (line, _, key, message) = load_error(
        "profiles:\n  p:\n    allow: [file:read]\n    restrictions:\n      file:read:\n        allowed_paths: [/ok/**, relative/**]\n",
    );
    assert_eq!(
        (line, key.as_deref()),
        (6, Some("allowed_paths")),
        "{message}"
    );
    assert!(message.contains("must be absolute"), "{message}");

    let (_, _, _, message) = load_error(
        "profiles:\n  p:\n    restrictions:\n      file:read:\n        allowed_hosts: [a.com]\n",
    );
    assert!(
        message.contains("`allowed_hosts` applies to `network:*` permissions"),
        "{message}"
    );

    let (line, _, _, message) = load_error("profiles:\n  p:\n    allow: [file:read\n  q: {}\n");
    assert!(line >= 3, "{message}");

    let (_, _, _, message) = load_error(
        "profiles:\n  p:\n    restrictions:\n      terminal:execute:\n        denied_commands: [\"curl | sh\"]\n",
    );
    assert!(message.contains("not a single command"), "{message}");

    let custom = ProfileSet::from_yaml(
        "custom_permissions: [deploy:run]\nprofiles:\n  p:\n    allow: [deploy:run]\n",
    );
    assert!(custom.is_ok(), "{:?}", custom.err());

    let err = ProfileSet::from_file("/nonexistent/profiles.yaml").unwrap_err();
    assert!(
        err.to_string().contains("/nonexistent/profiles.yaml"),
        "{err}"
    );
}

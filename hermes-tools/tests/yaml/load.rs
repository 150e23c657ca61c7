//! Loading: the seed's format as is, every mistake reported with line and column, all or
//! nothing.

use hermes_core::Registry;
use hermes_tools::yaml::{LoadError, Problem, ToolFile};
use serde_json::json;

pub const EXAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../examples/tools/custom_tools.yaml"
);

/// The problems of `text`, which must not load.
fn problems(text: &str) -> Vec<Problem> {
    match ToolFile::parse(text, "tools.yaml") {
        Err(LoadError::Invalid { problems, .. }) => problems,
        other => panic!("expected problems, got {other:?}"),
    }
}

/// The one problem of `text`: (line, column, message).
fn problem(text: &str) -> (u64, u64, String) {
    let found = problems(text);
    assert_eq!(found.len(), 1, "{found:#?}");
    (found[0].line, found[0].column, found[0].message.clone())
}

const GOOD_TOOL: &str = concat!(
    "  - name: ping\n",
    "    description: Ping the service and return its answer.\n",
    "    type: http_wrapper\n",
    "    endpoint: http://127.0.0.1:9/ping\n",
);

#[test]
fn the_seed_example_loads_with_a_schema_from_its_parameters() {
    let file = ToolFile::load(EXAMPLE).unwrap();
    assert_eq!(file.names(), ["jira_create_issue", "weather_current"]);
    let tools = file.tools().unwrap();
    let jira = tools[0].spec();
    assert_eq!(jira.scope().as_str(), "write");
    assert_eq!(jira.permissions(), ["external:api"]);
    assert_eq!(jira.timeout().as_secs(), 30);
    assert!(jira.tags().iter().any(|tag| tag == "jira"));
    assert!(jira.tags().iter().any(|tag| tag == "source:yaml"));
    let schema = jira.parameters();
    assert_eq!(schema["required"], json!(["project_key", "summary"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(
        schema["properties"]["issue_type"],
        json!({"type": "string", "enum": ["Bug", "Task", "Story"], "default": "Task", "description": "The kind of issue."})
    );
    assert_eq!(tools[1].spec().scope().as_str(), "read");
}

#[test]
fn unknown_keys_and_wrong_types_name_the_line_and_column() {
    let (line, column, message) = problem(&format!("tools:\n{GOOD_TOOL}    retries: 3\n"));
    assert_eq!((line, column), (6, 5), "{message}");
    assert!(message.contains("retries"), "{message}");

    let (line, _, message) = problem(&format!("tools:\n{GOOD_TOOL}    timeout_seconds: soon\n"));
    assert_eq!(line, 6, "{message}");

    let (line, _, message) = problem(&format!("tools:\n{GOOD_TOOL}    method: FETCH\n"));
    assert_eq!(line, 6, "{message}");
    assert!(message.contains("FETCH"), "{message}");

    let (_, _, message) = problem(
        "tools:\n  - name: x\n    description: y\n    type: grpc_wrapper\n    endpoint: http://a/\n",
    );
    assert!(message.contains("grpc_wrapper"), "{message}");

    let (_, _, message) = problem("tool: []\n");
    assert!(message.contains("tool"), "{message}");
}

#[test]
fn duplicate_names_point_at_both_definitions() {
    let found = problems(&format!("tools:\n{GOOD_TOOL}{GOOD_TOOL}"));
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].line, found[0].column), (6, 11));
    assert!(
        found[0].message.contains("already defined on line 2"),
        "{}",
        found[0].message
    );
}

#[test]
fn templates_are_checked_at_load_time() {
    let tool = |extra: &str| {
        format!(
            "tools:\n  - name: t\n    description: A tool with a template.\n    type: http_wrapper\n    endpoint: http://127.0.0.1:9/{{{{id}}}}?q={{{{q}}}}\n    method: POST\n    parameters:\n      - {{name: id, required: true}}\n      - {{name: q}}\n      - {{name: body}}\n{extra}"
        )
    };
    // A placeholder that names no parameter.
    let (line, _, message) = problem(&tool("    request_template: '{\"a\": \"{{bdy}}\"}'\n"));
    assert_eq!(line, 11);
    assert!(
        message.contains("unknown placeholder `{{bdy}}`"),
        "{message}"
    );
    assert!(message.contains("`body`"), "{message}");
    // Not JSON once filled in.
    let (_, _, message) = problem(&tool("    request_template: '{\"a\": \"{{body}}\",}'\n"));
    assert!(message.contains("not valid JSON"), "{message}");
    // A parameter used nowhere.
    let (_, _, message) = problem(&tool("    request_template: '{\"a\": 1}'\n"));
    assert!(
        message.contains("`body`") && message.contains("neither"),
        "{message}"
    );
    // The good version loads.
    ToolFile::parse(
        &tool("    request_template: '{\"a\": {{body}}}'\n"),
        "t.yaml",
    )
    .unwrap();
}

#[test]
fn endpoints_keep_their_host_and_need_path_values() {
    let (_, _, message) = problem(
        "tools:\n  - name: t\n    description: Host from an argument.\n    type: http_wrapper\n    endpoint: https://{{host}}/x\n    parameters: [{name: host, required: true}]\n",
    );
    assert!(message.contains("not in the host"), "{message}");
    let (_, _, message) = problem(
        "tools:\n  - name: t\n    description: An optional path value.\n    type: http_wrapper\n    endpoint: https://a.example/items/{{id}}\n    parameters: [{name: id}]\n",
    );
    assert!(
        message.contains("must be required or have a default"),
        "{message}"
    );
    let (_, _, message) = problem(
        "tools:\n  - name: t\n    description: A GET with a body.\n    type: http_wrapper\n    endpoint: https://a.example/x\n    request_template: '{}'\n",
    );
    assert!(message.contains("GET request has no body"), "{message}");
}

#[test]
fn parameters_enums_defaults_and_auth_are_checked() {
    let base = "tools:\n  - name: t\n    description: Checks its parameters.\n    type: http_wrapper\n    endpoint: https://a.example/x\n";
    for (extra, needle) in [
        (
            "    parameters: [{name: n, type: integer, default: \"3\"}]\n",
            "not of type integer",
        ),
        (
            "    parameters: [{name: n, enum: [a, b], default: c}]\n",
            "not one of its enum values",
        ),
        (
            "    parameters: [{name: n, type: integer, enum: [1, x]}]\n",
            "not of type integer",
        ),
        ("    parameters: [{name: n}, {name: n}]\n", "declared twice"),
        ("    parameters: [{name: 1n}]\n", "parameter name"),
        ("    auth: {type: bearer}\n", "needs `token_env`"),
        (
            "    auth: {type: basic, username_env: U, password_env: P, token_env: T}\n",
            "does not apply",
        ),
        (
            "    auth: {type: header, header_name: \"bad header\", token_env: T}\n",
            "not a valid HTTP header name",
        ),
        ("    auth: {type: oauth}\n", "oauth"),
        ("    timeout_seconds: 0\n", "timeout_seconds"),
        ("    timeout_seconds: 301\n", "timeout_seconds"),
        (
            "    response_mapping: {success_field: \"a..b\"}\n",
            "not a field path",
        ),
    ] {
        let found = problems(&format!("{base}{extra}"));
        assert!(
            found.iter().any(|problem| problem.message.contains(needle)),
            "{extra}: {found:#?}"
        );
        assert!(found.iter().all(|problem| problem.line > 0), "{found:#?}");
    }
}

#[test]
fn one_bad_tool_loads_nothing_and_every_problem_is_listed() {
    let text = format!(
        "tools:\n{GOOD_TOOL}  - name: bad one\n    description: \"\"\n    type: http_wrapper\n    endpoint: ftp://x/\n"
    );
    let error = ToolFile::parse(&text, "tools.yaml").unwrap_err();
    let rendered = error.to_string();
    assert!(
        rendered.contains("3 problems (nothing from this file was loaded)"),
        "{rendered}"
    );
    assert!(
        rendered.contains("tools.yaml:6:11: tool `bad one`"),
        "{rendered}"
    );
    assert!(rendered.contains("ftp"), "{rendered}");

    // Through a registry: nothing of the file appears, what was there stays.
    let registry = Registry::new();
    ToolFile::parse(&format!("tools:\n{GOOD_TOOL}"), "tools.yaml")
        .unwrap()
        .register(&registry)
        .unwrap();
    assert!(ToolFile::parse(&text, "tools.yaml").is_err());
    assert_eq!(registry.names(), ["ping"]);
}

#[test]
fn a_name_taken_by_another_source_is_refused_whole() {
    let registry = Registry::new();
    ToolFile::parse(&format!("tools:\n{GOOD_TOOL}"), "a.yaml")
        .unwrap()
        .register(&registry)
        .unwrap();
    let other = format!(
        "tools:\n  - name: fresh\n    description: Another tool of another file.\n    type: http_wrapper\n    endpoint: http://127.0.0.1:9/\n{GOOD_TOOL}"
    );
    let error = ToolFile::parse(&other, "b.yaml")
        .unwrap()
        .register(&registry)
        .unwrap_err();
    assert!(matches!(error, LoadError::Registry { .. }), "{error}");
    assert!(error.to_string().contains("ping"), "{error}");
    assert_eq!(registry.names(), ["ping"]);
    assert_eq!(registry.source_of("ping").as_deref(), Some("a.yaml"));
}

#[test]
fn alias_bombs_and_huge_files_are_refused() {
    let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..12 {
        let prev = level - 1;
        bomb.push_str(&format!(
            "l{level}: &l{level} [*{}, *{0}, *{0}, *{0}, *{0}, *{0}, *{0}, *{0}, *{0}, *{0}]\n",
            if prev == 0 {
                "a".to_owned()
            } else {
                format!("l{prev}")
            }
        ));
    }
    bomb.push_str("tools: []\n");
    let found = problems(&bomb);
    assert!(!found.is_empty());

    let huge = format!("tools: []\n#{}\n", "x".repeat(2 * 1024 * 1024));
    let (_, _, message) = problem(&huge);
    assert!(message.contains("at most"), "{message}");
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let error = ToolFile::load("/nonexistent/tools.yaml").unwrap_err();
    assert!(matches!(error, LoadError::Io { .. }));
    assert!(
        error.to_string().contains("/nonexistent/tools.yaml"),
        "{error}"
    );
}

#[test]
fn a_placeholder_inside_a_block_template_is_located_on_its_own_line() {
    let text = std::fs::read_to_string(EXAMPLE)
        .unwrap()
        .replace("{{summary}}", "{{sumary}}");
    let line = text
        .lines()
        .position(|line| line.contains("{{sumary}}"))
        .unwrap()
        + 1;
    let column = text.lines().nth(line - 1).unwrap().find("{{").unwrap() + 1;
    let found = problems(&text);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        (found[0].line, found[0].column),
        (line as u64, column as u64),
        "{}",
        found[0].message
    );
    assert_eq!(found[0].tool.as_deref(), Some("jira_create_issue"));
}

//! Calls: real HTTP against a server on 127.0.0.1 — auth, the exact body sent, injection
//! attempts, encoding, response mapping, error statuses, timeouts, secrets kept out.

use hermes_core::Registry;
use hermes_tools::yaml::ToolFile;
use serde_json::{Value, json};

use super::load::EXAMPLE;
use super::server::{Server, call, err, gateway, ok, set_env};

/// Register the tools of `text` (with `{base}` replaced by the server's URL).
fn tools(server: &Server, text: &str) -> hermes_core::Dispatcher {
    let text = text.replace("{base}", &server.url(""));
    let registry = Registry::new();
    ToolFile::parse(&text, "calls.yaml")
        .unwrap()
        .register(&registry)
        .unwrap();
    gateway(registry)
}

/// The seed's example file, pointed at the local server.
fn example(server: &Server) -> hermes_core::Dispatcher {
    let text = std::fs::read_to_string(EXAMPLE).unwrap();
    tools(
        server,
        &text
            .replace("https://your-company.atlassian.net/rest/api/2", "{base}")
            .replace("https://api.weather.example/v1/current", "{base}/echo"),
    )
}

#[tokio::test]
async fn the_jira_example_sends_the_exact_body_with_basic_auth() {
    set_env(&[
        ("JIRA_USERNAME", "bot@example.com"),
        ("JIRA_API_TOKEN", "s3cret-token"),
    ]);
    let server = Server::start().await;
    let dispatcher = example(&server);
    let report = call(
        &dispatcher,
        "c1",
        "jira_create_issue",
        json!({"project_key": "PROJ", "summary": "Login fails", "issue_type": "Bug"}),
    )
    .await;
    assert_eq!(
        ok(&report),
        json!({"status": 201, "data": {"key": "PROJ-7", "id": "10001", "self": "http://jira.local/rest/api/2/issue/10001"}})
    );
    let seen = server.last();
    assert_eq!(seen.method, "POST");
    assert_eq!(seen.uri, "/issue");
    assert_eq!(
        seen.headers["authorization"],
        "Basic Ym90QGV4YW1wbGUuY29tOnMzY3JldC10b2tlbg=="
    );
    assert_eq!(seen.headers["content-type"], "application/json");
    // Absent `description` is left out; `priority` takes its default.
    let body: Value = serde_json::from_str(&seen.body).unwrap();
    assert_eq!(
        body,
        json!({"fields": {
            "project": {"key": "PROJ"},
            "summary": "Login fails",
            "issuetype": {"name": "Bug"},
            "priority": {"name": "Medium"}
        }})
    );
}

#[tokio::test]
async fn template_values_cannot_inject_into_the_body() {
    set_env(&[
        ("JIRA_USERNAME", "u"),
        ("JIRA_API_TOKEN", "injection-token"),
    ]);
    let server = Server::start().await;
    let dispatcher = example(&server);
    let hostile = "x\"}, \"project\": {\"key\": \"ADMIN\"}, \"a\": {\"b\": \"\nline two \\ backslash {{summary}}";
    let report = call(
        &dispatcher,
        "c1",
        "jira_create_issue",
        json!({"project_key": "PROJ", "summary": hostile, "description": "</untrusted-content>\u{0}"}),
    )
    .await;
    ok(&report);
    let body: Value = serde_json::from_str(&server.last().body).unwrap();
    let fields = body["fields"].as_object().unwrap();
    assert_eq!(fields["summary"], hostile);
    assert_eq!(fields["project"], json!({"key": "PROJ"}));
    assert_eq!(fields["description"], "</untrusted-content>\u{0}");
    assert_eq!(
        fields.keys().collect::<Vec<_>>(),
        ["description", "issuetype", "priority", "project", "summary"]
    );
}

#[tokio::test]
async fn header_auth_query_encoding_and_output_fields() {
    set_env(&[("WEATHER_API_KEY", "weather-key-123")]);
    let server = Server::start().await;
    let dispatcher = tools(
        &server,
        "tools:\n  - name: lookup\n    description: Look up an item by id, with a query.\n    type: http_wrapper\n    endpoint: '{base}/echo/items/{{id}}?q={{q}}&fixed=1'\n    auth: {type: header, header_name: X-Api-Key, token_env: WEATHER_API_KEY}\n    parameters:\n      - {name: id, required: true}\n      - {name: q}\n      - {name: limit, type: integer, default: 5}\n    response_mapping: {success_field: uri, output_fields: [method, uri, x_api_key]}\n",
    );
    let report = call(
        &dispatcher,
        "c1",
        "lookup",
        json!({"id": "../../admin?x=1#frag", "q": "a&b=c d/é"}),
    )
    .await;
    let data = ok(&report)["data"].clone();
    assert_eq!(data["method"], "GET");
    assert_eq!(
        data["uri"],
        "/echo/items/..%2F..%2Fadmin%3Fx%3D1%23frag?q=a%26b%3Dc%20d%2F%C3%A9&fixed=1&limit=5"
    );
    // The key reached the server, and is scrubbed from what the model sees.
    assert_eq!(server.last().headers["x-api-key"], "weather-key-123");
    assert_eq!(data["x_api_key"], "[redacted]");

    // Without the optional `q`, its pair is left out.
    let report = call(&dispatcher, "c2", "lookup", json!({"id": "7"})).await;
    assert_eq!(ok(&report)["data"]["uri"], "/echo/items/7?fixed=1&limit=5");
}

#[tokio::test]
async fn bearer_auth_and_a_json_body_without_a_template() {
    set_env(&[("HERMES_TEST_BEARER", "bearer-abc-987")]);
    let server = Server::start().await;
    let dispatcher = tools(
        &server,
        "tools:\n  - name: post_it\n    description: Post the arguments as JSON and echo them.\n    type: http_wrapper\n    endpoint: '{base}/echo'\n    method: PUT\n    auth: {type: bearer, token_env: HERMES_TEST_BEARER}\n    parameters:\n      - {name: title, required: true}\n      - {name: count, type: integer}\n      - {name: labels, type: array}\n",
    );
    let report = call(
        &dispatcher,
        "c1",
        "post_it",
        json!({"title": "t \"q\"", "count": 2, "labels": ["a", "b"]}),
    )
    .await;
    let data = ok(&report)["data"].clone();
    assert_eq!(data["method"], "PUT");
    assert_eq!(data["authorization"], "Bearer [redacted]");
    assert_eq!(
        data["body"],
        json!({"title": "t \"q\"", "count": 2, "labels": ["a", "b"]})
    );
    assert_eq!(
        server.last().headers["authorization"],
        "Bearer bearer-abc-987"
    );
}

#[tokio::test]
async fn a_missing_secret_is_named_and_nothing_is_sent() {
    let server = Server::start().await;
    let dispatcher = tools(
        &server,
        "tools:\n  - name: needs_token\n    description: Needs a token nobody set.\n    type: http_wrapper\n    endpoint: '{base}/echo'\n    auth: {type: bearer, token_env: HERMES_TEST_NEVER_SET_TOKEN}\n",
    );
    let report = call(&dispatcher, "c1", "needs_token", json!({})).await;
    let (kind, message) = err(&report);
    assert_eq!(kind, "failed");
    assert!(
        message.contains("HERMES_TEST_NEVER_SET_TOKEN is not set"),
        "{message}"
    );
    assert!(server.seen().is_empty());
}

#[tokio::test]
async fn error_statuses_carry_the_status_and_the_start_of_the_body() {
    set_env(&[("HERMES_TEST_STATUS_TOKEN", "status-token-xyz")]);
    let server = Server::start().await;
    let dispatcher = tools(
        &server,
        "tools:\n  - name: status\n    description: Answers with the status asked for.\n    type: http_wrapper\n    endpoint: '{base}/status/{{code}}'\n    auth: {type: bearer, token_env: HERMES_TEST_STATUS_TOKEN}\n    parameters: [{name: code, type: integer, required: true}]\n",
    );
    for (code, reason) in [
        (404, "404 Not Found"),
        (500, "500 Internal Server Error"),
        (429, "429 Too Many Requests"),
    ] {
        let report = call(&dispatcher, "c1", "status", json!({"code": code})).await;
        let (kind, message) = err(&report);
        assert_eq!(kind, "failed");
        assert!(
            message.contains(&format!("HTTP {reason} from GET")),
            "{message}"
        );
        assert!(
            message.contains(&format!("upstream says no: error {code} details")),
            "{message}"
        );
        assert!(!message.contains("status-token-xyz"), "{message}");
    }
}

#[tokio::test]
async fn success_field_missing_or_not_json_is_an_error_and_plain_text_is_returned() {
    let server = Server::start().await;
    let dispatcher = tools(
        &server,
        "tools:\n  - name: mapped\n    description: Needs a key in the answer.\n    type: http_wrapper\n    endpoint: '{base}/nokey'\n    response_mapping: {success_field: key}\n  - name: mapped_text\n    description: Needs JSON but gets text.\n    type: http_wrapper\n    endpoint: '{base}/text'\n    response_mapping: {success_field: key}\n  - name: text\n    description: Returns whatever the server says.\n    type: http_wrapper\n    endpoint: '{base}/text'\n",
    );
    let (_, message) = err(&call(&dispatcher, "c1", "mapped", json!({})).await);
    assert!(message.contains("has no `key` field"), "{message}");
    assert!(message.contains("project is required"), "{message}");
    let (_, message) = err(&call(&dispatcher, "c2", "mapped_text", json!({})).await);
    assert!(message.contains("not JSON"), "{message}");
    let result = ok(&call(&dispatcher, "c3", "text", json!({})).await);
    assert_eq!(
        result,
        json!({"status": 200, "data": "plain words, not JSON"})
    );
}

#[tokio::test]
async fn a_slow_server_times_out_and_an_absent_one_is_a_clear_error() {
    let server = Server::start().await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_port = closed.local_addr().unwrap().port();
    drop(closed);
    let dispatcher = tools(
        &server,
        &format!(
            "tools:\n  - name: slow\n    description: Answers after thirty seconds.\n    type: http_wrapper\n    endpoint: '{{base}}/slow'\n    timeout_seconds: 1\n  - name: gone\n    description: Nobody listens there.\n    type: http_wrapper\n    endpoint: 'http://127.0.0.1:{closed_port}/x'\n"
        ),
    );
    let report = call(&dispatcher, "c1", "slow", json!({})).await;
    let (kind, message) = err(&report);
    assert!(
        kind == "timed_out" || message.contains("timed out after 1 s"),
        "{kind}: {message}"
    );
    let (kind, message) = err(&call(&dispatcher, "c2", "gone", json!({})).await);
    assert_eq!(kind, "failed");
    assert!(
        message.contains("was refused: nothing listens there"),
        "{message}"
    );
}

#[tokio::test]
async fn arguments_are_validated_by_the_gateway_before_any_request() {
    let server = Server::start().await;
    let dispatcher = example(&server);
    set_env(&[
        ("JIRA_USERNAME", "u"),
        ("JIRA_API_TOKEN", "validation-token"),
    ]);
    for args in [
        json!({"summary": "no project"}),
        json!({"project_key": "P", "summary": "s", "issue_type": "Epic"}),
        json!({"project_key": "P", "summary": 5}),
        json!({"project_key": "P", "summary": "s", "extra": true}),
    ] {
        let (kind, _) = err(&call(&dispatcher, "c1", "jira_create_issue", args).await);
        assert_eq!(kind, "invalid_arguments");
    }
    assert!(server.seen().is_empty());
}

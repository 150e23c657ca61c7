//! `hermes tool register | unregister | list | call` with YAML files of tools, in a
//! HERMES_HOME of the test's own.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

/// Run `hermes` with `args` and HERMES_HOME set to `home`.
fn hermes(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hermes"))
        .args(args)
        .env("HERMES_HOME", home)
        .env_remove("HERMES_LOG")
        .output()
        .expect("hermes runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const TWO_TOOLS: &str = "\
# Two tools; the second one is unregistered by the test.
tools:
  - name: greet
    description: Greet someone by name through the greeting service.
    type: http_wrapper
    endpoint: {base}/greet
    method: POST
    parameters:
      - {name: who, type: string, required: true, description: Whom to greet.}
    request_template: '{\"name\": \"{{who}}\"}'
    response_mapping: {success_field: greeting, output_fields: [greeting]}

  # The farewell tool.
  - name: farewell
    description: Say goodbye through the greeting service.
    type: http_wrapper
    endpoint: {base}/bye
";

/// One HTTP exchange on 127.0.0.1: answers `body` as JSON and returns the request.
fn serve_once(body: &'static str) -> (String, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (stream, _) = listener.accept().unwrap();
        let mut reader = BufReader::new(stream.try_clone().unwrap());
        let mut head = String::new();
        let mut length = 0;
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                length = value.trim().parse().unwrap();
            }
            head.push_str(&line);
            if line == "\r\n" {
                break;
            }
        }
        let mut request_body = vec![0; length];
        reader.read_exact(&mut request_body).unwrap();
        let mut stream = stream;
        write!(
            stream,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        format!("{head}{}", text(&request_body))
    });
    (base, handle)
}

#[test]
fn register_list_call_and_unregister() {
    let home = tempfile::tempdir().unwrap();
    let (base, server) = serve_once(r#"{"greeting": "hello, Ada", "extra": 1}"#);
    let source = home.path().join("mine.yaml");
    std::fs::write(&source, TWO_TOOLS.replace("{base}", &base)).unwrap();

    // Register: validated, copied, listed.
    let output = hermes(
        home.path(),
        &[
            "tool",
            "register",
            "--config",
            source.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let copy = home.path().join("tools").join("mine.yaml");
    let registered: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        registered,
        json!({"file": copy.display().to_string(), "tools": ["greet", "farewell"]})
    );
    assert!(copy.is_file());

    // Listed with their source, next to the built-in tools.
    let output = hermes(home.path(), &["tool", "list", "--json"]);
    let rows: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    let greet = rows.iter().find(|row| row["name"] == "greet").unwrap();
    assert_eq!(greet["source"], copy.display().to_string());
    assert_eq!(greet["scope"], "write");
    let calculator = rows.iter().find(|row| row["name"] == "calculator").unwrap();
    assert_eq!(calculator["source"], "builtin");
    let table = text(&hermes(home.path(), &["tool", "list"]).stdout);
    let row = table
        .lines()
        .find(|line| line.starts_with("greet "))
        .unwrap();
    assert!(row.contains(" mine.yaml "), "{row}");

    // Called through the gateway, against the local server.
    let output = hermes(
        home.path(),
        &[
            "tool",
            "call",
            "greet",
            "--args",
            r#"{"who": "Ada \"the first\""}"#,
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let request = server.join().unwrap();
    assert!(request.starts_with("POST /greet HTTP/1.1"), "{request}");
    assert!(
        request.ends_with(r#"{"name":"Ada \"the first\""}"#),
        "{request}"
    );
    assert!(
        text(&output.stdout).contains(r#"{"data":{"greeting":"hello, Ada"},"status":200}"#),
        "{}",
        text(&output.stdout)
    );

    // Unregister one: the file keeps the other, comments and all.
    let output = hermes(home.path(), &["tool", "unregister", "farewell"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let rest = std::fs::read_to_string(&copy).unwrap();
    assert!(
        rest.contains("# Two tools;") && rest.contains("name: greet"),
        "{rest}"
    );
    assert!(!rest.contains("farewell"), "{rest}");
    let names = text(&hermes(home.path(), &["tool", "list"]).stdout);
    assert!(names.lines().any(|line| line.starts_with("greet ")));
    assert!(!names.lines().any(|line| line.starts_with("farewell ")));

    // Unregister the last one: the file goes.
    let output = hermes(home.path(), &["tool", "unregister", "greet"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(!copy.exists());
}

#[test]
fn a_bad_file_registers_nothing_and_says_where() {
    let home = tempfile::tempdir().unwrap();
    let source = home.path().join("bad.yaml");
    let bad = TWO_TOOLS
        .replace("{base}", "http://127.0.0.1:9")
        .replace("{{who}}", "{{whom}}");
    std::fs::write(&source, bad).unwrap();
    let output = hermes(
        home.path(),
        &["tool", "register", "--config", source.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains(
            "bad.yaml:10:34: tool `greet`: request_template: unknown placeholder `{{whom}}`"
        ),
        "{stderr}"
    );
    assert!(!home.path().join("tools").join("bad.yaml").exists());
}

#[test]
fn names_taken_and_built_in_tools_are_refused() {
    let home = tempfile::tempdir().unwrap();
    let source = home.path().join("clash.yaml");
    std::fs::write(
        &source,
        "tools:\n  - name: calculator\n    description: A calculator that shadows the built-in one.\n    type: http_wrapper\n    endpoint: http://127.0.0.1:9/\n",
    )
    .unwrap();
    let output = hermes(
        home.path(),
        &["tool", "register", "--config", source.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr)
            .contains("`calculator` is already registered (from the built-in tools)"),
        "{}",
        text(&output.stderr)
    );

    let output = hermes(home.path(), &["tool", "unregister", "calculator"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("built-in tool"),
        "{}",
        text(&output.stderr)
    );
    let output = hermes(home.path(), &["tool", "unregister", "nothing_here"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("no tool named `nothing_here`"));
}

#[test]
fn a_broken_file_in_the_tool_directory_is_skipped_with_a_warning() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("tools")).unwrap();
    std::fs::write(
        home.path().join("tools").join("broken.yaml"),
        "tools: [oops\n",
    )
    .unwrap();
    let output = hermes(home.path(), &["tool", "list"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(
        text(&output.stderr).contains("warning: skipped"),
        "{}",
        text(&output.stderr)
    );
    assert!(text(&output.stdout).contains("calculator"));
}

//! A real HTTP server on 127.0.0.1 for the YAML tools to call: it records every request
//! and answers by path.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use hermes_core::{ApproveAll, CallReport, Dispatcher, Registry, RunContext, ToolCall};
use serde_json::{Value, json};
use tokio::sync::Semaphore;

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub uri: String,
    pub headers: HashMap<String, String>,
    pub body: String,
}

#[derive(Clone)]
struct Shared {
    seen: Arc<Mutex<Vec<Seen>>>,
    /// Permits for `/gate/<name>`, by name: each request there takes one before
    /// answering.
    gates: Arc<Mutex<HashMap<String, Arc<Semaphore>>>>,
}

pub struct Server {
    pub addr: SocketAddr,
    shared: Shared,
}

impl Server {
    pub async fn start() -> Self {
        let shared = Shared {
            seen: Arc::default(),
            gates: Arc::default(),
        };
        let app = Router::new()
            .route("/{*path}", any(handle))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { addr, shared }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.shared.seen.lock().unwrap().clone()
    }

    pub fn last(&self) -> Seen {
        self.seen().pop().expect("no request reached the server")
    }

    /// How many requests reached a path starting with `prefix`.
    pub fn count(&self, prefix: &str) -> usize {
        self.seen()
            .iter()
            .filter(|seen| seen.uri.starts_with(prefix))
            .count()
    }

    /// Let `n` requests waiting at `/gate/<name>` answer.
    pub fn open_gate(&self, name: &str, n: usize) {
        self.shared.gate(name).add_permits(n);
    }
}

impl Shared {
    fn gate(&self, name: &str) -> Arc<Semaphore> {
        let mut gates = self.gates.lock().unwrap();
        Arc::clone(
            gates
                .entry(name.to_owned())
                .or_insert_with(|| Arc::new(Semaphore::new(0))),
        )
    }
}

async fn handle(
    State(shared): State<Shared>,
    Path(path): Path<String>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let seen = Seen {
        method: method.to_string(),
        uri: uri.to_string(),
        headers: headers
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    value.to_str().unwrap_or_default().to_owned(),
                )
            })
            .collect(),
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    shared.seen.lock().unwrap().push(seen.clone());
    let mut parts = path.split('/');
    match parts.next().unwrap_or_default() {
        "issue" => (
            StatusCode::CREATED,
            axum::Json(json!({"id": "10001", "key": "PROJ-7", "self": "http://jira.local/rest/api/2/issue/10001"})),
        )
            .into_response(),
        "echo" => axum::Json(json!({
            "method": seen.method,
            "uri": seen.uri,
            "authorization": seen.headers.get("authorization"),
            "x_api_key": seen.headers.get("x-api-key"),
            "content_type": seen.headers.get("content-type"),
            "body": serde_json::from_str::<Value>(&seen.body).ok(),
        }))
        .into_response(),
        "status" => {
            let code = parts.next().and_then(|code| code.parse().ok()).unwrap_or(500);
            (
                StatusCode::from_u16(code).unwrap(),
                format!("upstream says no: error {code} details"),
            )
                .into_response()
        }
        "text" => ([(header::CONTENT_TYPE, "text/plain")], "plain words, not JSON").into_response(),
        "nokey" => axum::Json(json!({"errorMessages": ["project is required"]})).into_response(),
        "slow" => {
            tokio::time::sleep(Duration::from_secs(30)).await;
            "late".into_response()
        }
        "gate" => {
            let version = parts.next().unwrap_or_default().to_owned();
            let gate = shared.gate(&version);
            gate.acquire().await.unwrap().forget();
            axum::Json(json!({"version": version})).into_response()
        }
        _ => (StatusCode::NOT_FOUND, "no such route").into_response(),
    }
}

/// A gateway over `registry` that approves everything.
pub fn gateway(registry: Registry) -> Dispatcher {
    Dispatcher::builder(registry)
        .approver(ApproveAll)
        .build()
        .unwrap()
}

/// Call `tool` with `args` through `dispatcher`.
pub async fn call(dispatcher: &Dispatcher, id: &str, tool: &str, args: Value) -> CallReport {
    dispatcher
        .dispatch(&ToolCall::with_args(id, tool, &args), &RunContext::new())
        .await
}

/// The result of a successful call, parsed.
pub fn ok(report: &CallReport) -> Value {
    assert!(
        report.is_success(),
        "the call failed: {}",
        report.message.content
    );
    serde_json::from_str(unfence(&report.message.content)).unwrap()
}

/// The text inside an untrusted-content fence, or `content` when it is not fenced.
pub fn unfence(content: &str) -> &str {
    if !content.starts_with("<untrusted-content ") {
        return content;
    }
    let start = content.find('\n').unwrap() + 1;
    let end = content.rfind("\n</untrusted-content boundary=").unwrap();
    &content[start..end]
}

/// The error of a failed call: (kind, message).
pub fn err(report: &CallReport) -> (String, String) {
    assert!(
        !report.is_success(),
        "the call succeeded: {}",
        report.message.content
    );
    let value: Value = serde_json::from_str(&report.message.content).unwrap();
    (
        value["error"]["kind"].as_str().unwrap().to_owned(),
        value["error"]["message"].as_str().unwrap().to_owned(),
    )
}

/// Write `text` to `name` in `dir`; the path.
pub fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Set the environment variables the tests' auth blocks name. Each test uses its own
/// variables, so the order tests run in does not matter.
pub fn set_env(pairs: &[(&str, &str)]) {
    for (name, value) in pairs {
        // SAFETY: the test threads read the environment only through std, whose
        // accesses are serialised; no C code reads these variables.
        #[allow(unsafe_code)]
        unsafe {
            std::env::set_var(name, value);
        }
    }
}

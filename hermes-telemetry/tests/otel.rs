//! A real agent run exported over OTLP/HTTP to a receiver on 127.0.0.1.
#![cfg(feature = "otel")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use hermes_core::{Agent, Registry, ScriptedBackend, ScriptedTurn, ToolCall, Usage, demo::Calc};
use hermes_telemetry::otel::{self, OtelConfig};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value::Value};
use opentelemetry_proto::tonic::trace::v1::{Span, span::SpanKind};
use prost::Message as _;
use tracing_subscriber::prelude::*;

/// How long to wait for the receiver to get an export. Only a bound: the exports
/// arrive before `shutdown` returns.
const PATIENCE: Duration = Duration::from_secs(10);

/// One POST the receiver got.
#[derive(Debug)]
struct Post {
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

/// An OTLP/HTTP receiver: HTTP/1.1 over a std listener, one request per connection,
/// answering 200 with an empty (valid) protobuf response.
struct OtlpReceiver {
    addr: SocketAddr,
    posts: Receiver<Post>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl OtlpReceiver {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (sender, posts) = channel();
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = stream {
                    serve(stream, &sender);
                }
            }
        });
        Self {
            addr,
            posts,
            stop,
            thread: Some(thread),
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every POST received so far; waits (bounded) for the first.
    fn received(&self) -> Vec<Post> {
        let first = self
            .posts
            .recv_timeout(PATIENCE)
            .expect("no export reached the receiver");
        let mut posts = vec![first];
        posts.extend(self.posts.try_iter());
        posts
    }
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(stream: TcpStream, posts: &Sender<Post>) {
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = request_line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .map_or(0, |(_, value)| value.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let status = if method == "POST" {
        "200 OK"
    } else {
        "405 Method Not Allowed"
    };
    let _ = posts.send(Post {
        path: path.to_owned(),
        headers,
        body,
    });
    let response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    );
    reader.get_mut().write_all(response.as_bytes()).unwrap();
}

/// The exported spans, and the `service.name` of each resource they came under.
fn decode(posts: &[Post]) -> (Vec<Span>, Vec<String>) {
    let mut spans = Vec::new();
    let mut services = Vec::new();
    for post in posts {
        assert_eq!(post.path, "/v1/traces");
        let request = ExportTraceServiceRequest::decode(post.body.as_slice()).unwrap();
        for resource_spans in request.resource_spans {
            let resource = resource_spans.resource.unwrap_or_default();
            services.push(string(&resource.attributes, "service.name").unwrap_or_default());
            for scope_spans in resource_spans.scope_spans {
                spans.extend(scope_spans.spans);
            }
        }
    }
    (spans, services)
}

fn attribute<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a Value> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|value: &AnyValue| value.value.as_ref())
}

fn string(attributes: &[KeyValue], key: &str) -> Option<String> {
    match attribute(attributes, key)? {
        Value::StringValue(text) => Some(text.clone()),
        other => panic!("{key} is {other:?}"),
    }
}

/// A count. `tracing-opentelemetry` exports signed integers as numbers but unsigned
/// ones (hermes records `round` and the token counts as `u32`/`u64` today) as their
/// decimal text, so both are taken.
fn count(attributes: &[KeyValue], key: &str) -> Option<i64> {
    match attribute(attributes, key)? {
        Value::IntValue(number) => Some(*number),
        other => panic!("{key} is {other:?}, not an integer"),
    }
}

fn named<'a>(spans: &'a [Span], name: &str) -> Vec<&'a Span> {
    spans.iter().filter(|span| span.name == name).collect()
}

fn calc_agent() -> Agent {
    let registry = Registry::new();
    registry.register(Calc::new()).unwrap();
    Agent::builder()
        .backend(ScriptedBackend::new([
            ScriptedTurn::tool_calls([ToolCall::new("c1", "calc", r#"{"expression": "6*7"}"#)])
                .with_usage(Usage::new(100, 20)),
            ScriptedTurn::text("42").with_usage(Usage::new(130, 8)),
        ]))
        .registry(registry)
        .build()
        .unwrap()
}

#[tokio::test]
async fn an_agent_run_is_exported_as_one_trace_of_genai_spans() {
    let receiver = OtlpReceiver::start();
    let config = OtelConfig::from_env()
        .with_endpoint(receiver.url())
        .with_service_name("hermes-otel-test")
        .with_header("x-api-key", "secret");
    let (layer, guard) = otel::layer(config).unwrap();
    let agent = calc_agent();
    let outcome = {
        let _scope = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
        agent.run("6 times 7?").await
    };
    assert_eq!(outcome.answer.as_deref(), Some("42"));
    let started = Instant::now();
    guard.shutdown().unwrap();
    assert!(
        started.elapsed() < PATIENCE,
        "shutdown took {:?}",
        started.elapsed()
    );

    let posts = receiver.received();
    assert!(posts.iter().all(|post| {
        post.headers
            .contains(&("x-api-key".to_owned(), "secret".to_owned()))
    }));
    assert!(posts.iter().all(|post| post.headers.contains(&(
        "content-type".to_owned(),
        "application/x-protobuf".to_owned()
    ))));
    let (spans, services) = decode(&posts);
    assert!(!services.is_empty());
    assert!(services.iter().all(|service| service == "hermes-otel-test"));

    let [agent_span] = named(&spans, "invoke_agent")[..] else {
        panic!("{spans:#?}")
    };
    let rounds = named(&spans, "round");
    let chats = named(&spans, "chat");
    let [tool_span] = named(&spans, "execute_tool")[..] else {
        panic!("{spans:#?}")
    };
    assert_eq!((rounds.len(), chats.len()), (2, 2));

    // invoke_agent: the run, with hermes' own trace id as an attribute.
    let attributes = &agent_span.attributes;
    assert_eq!(
        string(attributes, "gen_ai.operation.name").as_deref(),
        Some("invoke_agent")
    );
    assert_eq!(
        string(attributes, "trace_id").as_deref(),
        Some(outcome.trace_id.as_str())
    );
    assert!(string(attributes, "session_id").is_some());

    // One OTel trace (its own 16-byte id, not hermes' 12 hex digits) for the run.
    assert_eq!(agent_span.trace_id.len(), 16);
    assert!(
        spans
            .iter()
            .all(|span| span.trace_id == agent_span.trace_id)
    );

    // invoke_agent > round > {chat, execute_tool}.
    for round in &rounds {
        assert_eq!(round.parent_span_id, agent_span.span_id);
    }
    let round_ids: Vec<&Vec<u8>> = rounds.iter().map(|round| &round.span_id).collect();
    for chat in &chats {
        assert!(round_ids.contains(&&chat.parent_span_id));
        assert_eq!(chat.kind, SpanKind::Client as i32);
        assert_eq!(
            string(&chat.attributes, "gen_ai.operation.name").as_deref(),
            Some("chat")
        );
        assert_eq!(string(&chat.attributes, "error.type"), None);
    }
    let first_round = rounds
        .iter()
        .find(|round| count(&round.attributes, "round") == Some(1))
        .unwrap();
    assert_eq!(tool_span.parent_span_id, first_round.span_id);
    let first_chat = chats
        .iter()
        .find(|chat| chat.parent_span_id == first_round.span_id)
        .unwrap();
    assert_eq!(
        count(&first_chat.attributes, "gen_ai.usage.input_tokens"),
        Some(100)
    );
    assert_eq!(
        count(&first_chat.attributes, "gen_ai.usage.output_tokens"),
        Some(20)
    );

    // execute_tool: which tool, which call, which hermes run.
    let attributes = &tool_span.attributes;
    assert_eq!(
        string(attributes, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(
        string(attributes, "gen_ai.tool.name").as_deref(),
        Some("calc")
    );
    assert_eq!(
        string(attributes, "gen_ai.tool.call.id").as_deref(),
        Some("c1")
    );
    assert_eq!(
        string(attributes, "trace_id").as_deref(),
        Some(outcome.trace_id.as_str())
    );
}

#[tokio::test]
async fn dropping_the_guard_sends_the_last_spans() {
    let receiver = OtlpReceiver::start();
    let config = OtelConfig::from_env().with_endpoint(format!("{}/", receiver.url()));
    let service = config.service_name().to_owned(); // "hermes" unless OTEL_SERVICE_NAME
    let (layer, guard) = otel::layer(config).unwrap();
    let agent = calc_agent();
    {
        let _scope = tracing::subscriber::set_default(tracing_subscriber::registry().with(layer));
        agent.run("6 times 7?").await;
    }
    drop(guard);

    let (spans, services) = decode(&receiver.received());
    assert!(!named(&spans, "invoke_agent").is_empty(), "{spans:#?}");
    assert!(services.iter().all(|name| *name == service));
}

#[test]
fn a_config_that_cannot_work_is_refused_up_front() {
    let config = OtelConfig::from_env().with_endpoint("127.0.0.1:4318");
    let error = otel::layer::<tracing_subscriber::Registry>(config)
        .err()
        .unwrap();
    assert!(
        matches!(error, otel::OtelError::InvalidEndpoint { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("127.0.0.1:4318"));
}

#[test]
fn an_https_endpoint_gets_a_tls_client() {
    // Builds the client (rustls with the ring provider) without sending anything.
    let config = OtelConfig::from_env().with_endpoint("https://127.0.0.1:9");
    let (_layer, guard) = otel::layer::<tracing_subscriber::Registry>(config).unwrap();
    guard.shutdown().unwrap();
}

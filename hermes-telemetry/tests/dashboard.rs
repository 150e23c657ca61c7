//! The dashboard: its JSON API over plain HTTP, and its page rendered by headless
//! chromium (the DOM checked, a screenshot kept at `$CARGO_TARGET_TMPDIR/dashboard.png`).
#![cfg(feature = "dashboard")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    missing_docs
)]

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use hermes_telemetry::{LlmCallRow, Report, TelemetryStore, ToolCallRow, epoch_ms};

const DAY: Duration = Duration::from_secs(24 * 3600);
const MINUTE_MS: i64 = 60_000;

fn tool_row(at_ms: i64, tool: &str, outcome: &str, duration_us: i64) -> ToolCallRow {
    ToolCallRow {
        at_ms,
        trace_id: "trace".into(),
        session_id: "session".into(),
        user_id: None,
        tool: tool.into(),
        outcome: outcome.into(),
        duration_us,
        replayed: false,
    }
}

fn llm_row(at_ms: i64, prompt: u64, completion: u64, tools: &[&str]) -> LlmCallRow {
    LlmCallRow {
        at_ms,
        trace_id: "trace".into(),
        session_id: "session".into(),
        user_id: None,
        round: 1,
        duration_us: 800_000,
        prompt_tokens: prompt,
        completion_tokens: completion,
        tools: tools.iter().map(|t| (*t).to_owned()).collect(),
        error: None,
    }
}

/// A tool, its calls, their base latency in µs, and which of them fail how.
type Plan = (&'static str, usize, i64, &'static [(usize, &'static str)]);

/// 49 tool calls of four tools over the last 19 hours (7 failed: 3 `failed`,
/// 3 `timeout`, 1 `denied`), 20 model calls, and one call of 30 hours ago that a
/// day's report leaves out.
fn seed(path: &Path) {
    let now = epoch_ms(SystemTime::now());
    let plan: [Plan; 4] = [
        ("calc", 24, 1_000, &[(5, "failed"), (17, "failed")]),
        ("web_search", 12, 80_000, &[(3, "timeout"), (9, "timeout")]),
        ("file_read", 8, 2_000, &[(4, "denied")]),
        ("shell", 5, 300_000, &[(1, "failed"), (3, "timeout")]),
    ];
    let mut tools = Vec::new();
    let mut k = 0_i64;
    for (tool, calls, base_us, failures) in plan {
        for i in 0..calls {
            let outcome = failures
                .iter()
                .find(|(at, _)| *at == i)
                .map_or("ok", |(_, kind)| kind);
            let at = now - 5 * MINUTE_MS - (k * 23 * MINUTE_MS) % (19 * 60 * MINUTE_MS);
            tools.push(tool_row(at, tool, outcome, base_us * (1 + i as i64 % 7)));
            k += 1;
        }
    }
    tools.push(tool_row(now - 30 * 60 * MINUTE_MS, "old_tool", "ok", 10));
    let rounds: [&[&str]; 5] = [
        &["calc"],
        &["web_search", "calc"],
        &["file_read"],
        &["shell"],
        &[],
    ];
    let llm: Vec<_> = (0..20_u32)
        .map(|i| {
            let at = now - 7 * MINUTE_MS - i64::from(i) * 53 * MINUTE_MS;
            llm_row(at, 900 + u64::from(i) * 40, 120, rounds[i as usize % 5])
        })
        .collect();
    TelemetryStore::open(path)
        .unwrap()
        .insert(&tools, &llm)
        .unwrap();
}

async fn start(db: PathBuf) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(hermes_telemetry::dashboard::serve(listener, db));
    addr
}

/// One HTTP/1.1 GET: the status and the body (the server sends a Content-Length).
async fn get(addr: SocketAddr, path: &str) -> (u16, serde_json::Value) {
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let response = tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    })
    .await
    .unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{head}"
    );
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let json = serde_json::from_str(body).unwrap_or_else(|_| panic!("not JSON: {body}"));
    (status, json)
}

fn error_message(body: &serde_json::Value) -> &str {
    body["error"]["message"].as_str().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_answers_what_the_store_reports() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("telemetry.db");
    seed(&db);
    let addr = start(db.clone()).await;
    let store = TelemetryStore::open_read_only(&db).unwrap();

    let (status, body) = get(addr, "/api/report").await;
    assert_eq!(status, 200, "{body}");
    let report: Report = serde_json::from_value(body).unwrap();
    assert_eq!(report, store.report(DAY).unwrap());
    assert_eq!(report.total_calls, 49);
    assert_eq!(report.error_breakdown["timeout"], 3);

    let (status, body) = get(addr, "/api/report?hours=48").await;
    assert_eq!(status, 200);
    assert_eq!(body["total_calls"], 50);
    assert_eq!(body["period"], "48h");

    let (status, body) = get(addr, "/api/series?hours=24&buckets=12").await;
    assert_eq!(status, 200);
    let buckets = body.as_array().unwrap();
    assert_eq!(buckets.len(), 12);
    let sum = |key: &str| {
        buckets
            .iter()
            .map(|b| b[key].as_u64().unwrap())
            .sum::<u64>()
    };
    assert_eq!(sum("calls"), 49);
    assert_eq!(sum("errors"), 7);
    assert_eq!(sum("llm_calls"), 20);
    assert_eq!(sum("tokens"), report.token_consumption.total);

    let (status, body) = get(addr, "/api/series").await;
    assert_eq!(status, 200);
    assert_eq!(body.as_array().unwrap().len(), 48);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_query_parameters_get_400_saying_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("telemetry.db");
    seed(&db);
    let addr = start(db).await;
    for (path, says) in [
        ("/api/report?hours=0", "`hours` must be a number above 0"),
        ("/api/report?hours=abc", "not `abc`"),
        ("/api/report?hours=100000", "at most 8784"),
        (
            "/api/series?buckets=0",
            "`buckets` must be a whole number from 1 to 500",
        ),
        ("/api/series?buckets=501", "not `501`"),
        ("/api/series?hours=-2&buckets=10", "`hours` must be"),
        ("/api/report?hour=1", "unknown query parameter `hour`"),
        ("/api/report?buckets=3", "unknown query parameter `buckets`"),
    ] {
        let (status, body) = get(addr, path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert_eq!(body["error"]["kind"], "bad_request");
        assert!(error_message(&body).contains(says), "{path}: {body}");
    }
    let (status, body) = get(addr, "/api/nothing").await;
    assert_eq!(status, 404);
    assert!(error_message(&body).contains("/api/report"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_or_foreign_store_gets_503_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere.db");
    let addr = start(missing.clone()).await;
    for path in ["/api/report", "/api/series?buckets=5"] {
        let (status, body) = get(addr, path).await;
        assert_eq!(status, 503, "{body}");
        assert_eq!(body["error"]["kind"], "store_unavailable");
        let message = error_message(&body);
        assert!(
            message.contains(&missing.display().to_string()),
            "{message}"
        );
        assert!(
            message.contains("run an agent with telemetry on"),
            "{message}"
        );
    }
    assert!(
        !missing.exists(),
        "a read-only dashboard must not create the store"
    );

    let foreign = dir.path().join("notes.db");
    std::fs::write(&foreign, "not a database, just notes\n".repeat(100)).unwrap();
    let addr = start(foreign.clone()).await;
    let (status, body) = get(addr, "/api/report").await;
    assert_eq!(status, 503, "{body}");
    let message = error_message(&body);
    assert!(
        message.contains(&foreign.display().to_string()),
        "{message}"
    );
    assert!(message.contains("telemetry store"), "{message}");
}

// ---- the page, in a real browser ----

/// Debian's `chromium`, or another Chrome on PATH. None: the test fails under CI and
/// is skipped (loudly) elsewhere.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

fn chromium_or_skip(test: &str) -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: no chromium on PATH, and CI must run this test: install `chromium` \
             (scripts/system-deps does)"
        );
        eprintln!(
            "\n!!!! SKIPPED {test}: no chromium, chromium-browser or google-chrome on PATH; \
             install chromium (scripts/system-deps) to run it !!!!\n"
        );
    }
    found
}

/// Run headless chromium on `url` with `extra` flags, under a 60 s deadline, and return
/// its stdout.
async fn run_chromium(binary: PathBuf, url: String, extra: Vec<String>) -> String {
    tokio::task::spawn_blocking(move || {
        let profile = tempfile::tempdir().unwrap();
        let mut child = Command::new(&binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--hide-scrollbars",
                "--virtual-time-budget=10000",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(&extra)
            .arg(&url)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let out = std::thread::spawn(move || {
            let mut text = String::new();
            stdout.read_to_string(&mut text).map(|_| text)
        });
        let err = std::thread::spawn(move || {
            let mut text = String::new();
            stderr.read_to_string(&mut text).map(|_| text)
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                child.kill().unwrap();
                child.wait().unwrap();
                panic!("chromium took over 60 s on {url} {extra:?}");
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let out = out.join().unwrap().unwrap();
        let err = err.join().unwrap().unwrap();
        assert!(status.success(), "chromium failed ({status}): {err}");
        out
    })
    .await
    .unwrap()
}

/// The attribute `name` of the element whose tag holds `marker`.
fn attribute<'a>(dom: &'a str, marker: &str, name: &str) -> Option<&'a str> {
    let at = dom.find(marker)?;
    let start = dom[..=at].rfind('<')?;
    let end = at + dom[at..].find('>')?;
    let tag = &dom[start..end];
    let needle = format!(" {name}=\"");
    let from = tag.find(&needle)? + needle.len();
    let len = tag[from..].find('"')?;
    Some(&tag[from..from + len])
}

fn number(dom: &str, marker: &str, name: &str) -> u64 {
    attribute(dom, marker, name)
        .unwrap_or_else(|| panic!("no {name} on {marker}"))
        .parse()
        .unwrap_or_else(|_| panic!("{name} of {marker} is not a number"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_draws_every_chart_from_the_seeded_calls() {
    let Some(chromium) = chromium_or_skip("the_page_draws_every_chart_from_the_seeded_calls")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("telemetry.db");
    seed(&db);
    let report = TelemetryStore::open_read_only(&db)
        .unwrap()
        .report(DAY)
        .unwrap();
    let addr = start(db).await;
    let url = format!("http://{addr}/");

    let dom = run_chromium(chromium.clone(), url.clone(), vec!["--dump-dom".into()]).await;
    assert!(
        attribute(&dom, "<body", "data-ready") == Some("1"),
        "the page never rendered: {dom}"
    );
    assert!(!dom.contains("data-error=\"1\""), "a fetch failed: {dom}");
    for chart in [
        "calls",
        "tools",
        "latency",
        "tokens-time",
        "tokens-tool",
        "errors",
    ] {
        let marker = format!("data-chart=\"{chart}\"");
        assert!(
            number(&dom, &marker, "data-points") > 0,
            "chart {chart} is empty"
        );
    }
    assert_eq!(number(&dom, "data-chart=\"calls\"", "data-total"), 49);
    assert_eq!(
        number(&dom, "data-chart=\"tokens-time\"", "data-total"),
        report.token_consumption.total
    );
    assert_eq!(number(&dom, "data-chart=\"tools\"", "data-points"), 4);
    assert_eq!(number(&dom, "data-chart=\"errors\"", "data-points"), 3);
    for tool in ["calc", "web_search", "file_read", "shell"] {
        let marker = format!("data-tool=\"{tool}\"");
        assert!(dom.matches(&marker).count() >= 4, "{tool} is not charted");
    }
    assert!(
        !dom.contains("old_tool"),
        "a call older than the period is shown"
    );
    for kind in ["failed", "timeout", "denied"] {
        assert!(dom.contains(&format!("data-kind=\"{kind}\"")), "{kind}");
    }
    assert_eq!(number(&dom, "id=\"stat-calls\"", "data-value"), 49);
    assert_eq!(
        number(&dom, "id=\"stat-tokens\"", "data-value"),
        report.token_consumption.total
    );
    assert_eq!(number(&dom, "id=\"stat-llm\"", "data-value"), 20);
    assert_eq!(
        attribute(&dom, "id=\"stat-success\"", "data-value"),
        Some(report.success_rate.unwrap().to_string().as_str())
    );
    assert!(
        dom.contains(">85.7%<"),
        "the success rate is not shown readably"
    );

    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("dashboard.png");
    let _ = std::fs::remove_file(&shot);
    run_chromium(
        chromium.clone(),
        url.clone(),
        vec![
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,1800".into(),
        ],
    )
    .await;
    let png = std::fs::read(&shot).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert!(
        png.len() > 20_000,
        "a blank screenshot? {} bytes",
        png.len()
    );
    eprintln!("dashboard screenshot: {}", shot.display());

    // The period selector's state lives in the URL: a week holds the old call too.
    let week = format!("{url}#7d");
    let dom = run_chromium(chromium.clone(), week.clone(), vec!["--dump-dom".into()]).await;
    assert_eq!(
        attribute(&dom, "id=\"stat-period\"", "data-value"),
        Some("168h")
    );
    assert_eq!(number(&dom, "id=\"stat-calls\"", "data-value"), 50);
    assert!(
        dom.contains("data-tool=\"old_tool\""),
        "the week misses a call"
    );
    let shot = shot.with_file_name("dashboard-7d.png");
    run_chromium(
        chromium,
        week,
        vec![
            format!("--screenshot={}", shot.display()),
            "--window-size=1280,1800".into(),
        ],
    )
    .await;
    assert!(std::fs::metadata(&shot).unwrap().len() > 20_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_store_says_no_calls_yet_and_a_missing_one_says_why() {
    let Some(chromium) =
        chromium_or_skip("an_empty_store_says_no_calls_yet_and_a_missing_one_says_why")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("telemetry.db");
    drop(TelemetryStore::open(&db).unwrap());
    let addr = start(db).await;
    let dom = run_chromium(
        chromium.clone(),
        format!("http://{addr}/"),
        vec!["--dump-dom".into()],
    )
    .await;
    assert_eq!(attribute(&dom, "<body", "data-ready"), Some("1"), "{dom}");
    assert_eq!(number(&dom, "data-chart=\"calls\"", "data-points"), 0);
    assert!(dom.contains("no calls yet"), "{dom}");
    assert_eq!(number(&dom, "id=\"stat-calls\"", "data-value"), 0);

    let missing = dir.path().join("nowhere.db");
    let addr = start(missing.clone()).await;
    let dom = run_chromium(
        chromium,
        format!("http://{addr}/"),
        vec!["--dump-dom".into()],
    )
    .await;
    assert_eq!(attribute(&dom, "<body", "data-error"), Some("1"), "{dom}");
    assert!(
        dom.contains(&format!("no telemetry store at {}", missing.display())),
        "{dom}"
    );
}

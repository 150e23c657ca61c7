//! `port_check`: open and closed ports, a port that never answers, bad arguments.

use serde_json::json;

use crate::support::{closed_port, local_bench};

#[tokio::test]
async fn a_listening_port_is_open() {
    let bench = local_bench();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let out = bench
        .ok("port_check", json!({"host": "127.0.0.1", "port": port}))
        .await;
    assert_eq!(out["status"], "open");
    assert_eq!(out["address"], format!("127.0.0.1:{port}"));
    assert!(out["latency_ms"].is_u64());
    assert!(out.get("reason").is_none());
}

#[tokio::test]
async fn a_port_without_a_listener_is_closed() {
    let bench = local_bench();
    let port = closed_port().await;
    let out = bench
        .ok("port_check", json!({"host": "127.0.0.1", "port": port}))
        .await;
    assert_eq!(out["status"], "closed");
    assert!(out["reason"].as_str().unwrap().contains("refused"), "{out}");
}

#[tokio::test]
async fn a_port_that_never_answers_times_out() {
    let bench = local_bench();
    // A listener whose accept queue is full: the kernel drops further handshakes, so a
    // connection attempt waits until the timeout.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(0).unwrap();
    let address = listener.local_addr().unwrap();
    let mut held = Vec::new();
    let mut status = String::new();
    for _ in 0..8 {
        let out = bench
            .ok(
                "port_check",
                json!({"host": "127.0.0.1", "port": address.port(), "timeout_seconds": 1}),
            )
            .await;
        status = out["status"].as_str().unwrap().to_owned();
        if status == "timeout" {
            assert_eq!(out["reason"], "no answer within 1 s");
            break;
        }
        // Fill the queue a little more with connections kept open.
        if let Ok(Ok(stream)) = tokio::time::timeout(
            std::time::Duration::from_millis(500),
            tokio::net::TcpStream::connect(address),
        )
        .await
        {
            held.push(stream);
        }
    }
    assert_eq!(status, "timeout");
}

#[tokio::test]
async fn an_unknown_host_or_a_bad_port_is_refused() {
    let bench = local_bench();
    bench
        .fails(
            "port_check",
            json!({"host": "no-such-host.invalid", "port": 80}),
            "failed",
            "could not be resolved",
        )
        .await;
    for args in [
        json!({"host": "127.0.0.1", "port": 0}),
        json!({"host": "127.0.0.1", "port": 70000}),
        json!({"host": "127.0.0.1", "port": "http"}),
        json!({"host": "127.0.0.1", "port": 80, "timeout_seconds": 61}),
        json!({"port": 80}),
    ] {
        bench
            .fails("port_check", args, "invalid_arguments", "")
            .await;
    }
}

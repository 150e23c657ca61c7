//! `websocket` against an axum server on 127.0.0.1: echoes, counts, waits, closes,
//! and a path that is not a WebSocket.

use axum::Router;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::json;

use crate::support::{local_bench, serve};

/// Echoes every text message, upper-cased.
async fn echo(mut socket: WebSocket) {
    while let Some(Ok(message)) = socket.recv().await {
        if let Message::Text(text) = message {
            let reply = text.to_uppercase();
            if socket.send(Message::Text(reply.into())).await.is_err() {
                return;
            }
        }
    }
}

/// Greets, sends two binary frames, then closes with a code and reason.
async fn farewell(mut socket: WebSocket) {
    let _ = socket.send(Message::Text("welcome".into())).await;
    let _ = socket
        .send(Message::Binary(b"raw bytes".to_vec().into()))
        .await;
    let _ = socket
        .send(Message::Binary(vec![0xff, 0xfe, 0x00].into()))
        .await;
    let _ = socket
        .send(Message::Close(Some(CloseFrame {
            code: 4001,
            reason: "done here".into(),
        })))
        .await;
}

/// Sends one message of 8 KiB.
async fn flood(mut socket: WebSocket) {
    let _ = socket.send(Message::Text("z".repeat(8192).into())).await;
    while let Some(Ok(_)) = socket.recv().await {}
}

/// Says nothing and waits.
async fn silent(mut socket: WebSocket) {
    while let Some(Ok(_)) = socket.recv().await {}
}

async fn server() -> String {
    let router = Router::new()
        .route(
            "/echo",
            get(|ws: WebSocketUpgrade| async { ws.on_upgrade(echo) }),
        )
        .route(
            "/farewell",
            get(|ws: WebSocketUpgrade| async { ws.on_upgrade(farewell) }),
        )
        .route(
            "/silent",
            get(|ws: WebSocketUpgrade| async { ws.on_upgrade(silent) }),
        )
        .route(
            "/flood",
            get(|ws: WebSocketUpgrade| async { ws.on_upgrade(flood) }),
        )
        .route("/plain", get(|| async { "not a socket".into_response() }));
    format!("ws://{}", serve(router).await)
}

#[tokio::test]
async fn messages_are_sent_in_order_and_replies_collected() {
    let bench = local_bench();
    let base = server().await;
    let out = bench
        .ok(
            "websocket",
            json!({"url": format!("{base}/echo"), "messages": ["one", "two", "three"], "max_messages": 3}),
        )
        .await;
    assert_eq!(out["sent"], 3);
    assert_eq!(out["stopped"], "max_messages");
    assert_eq!(
        out["received"],
        json!([
            {"kind": "text", "data": "ONE"},
            {"kind": "text", "data": "TWO"},
            {"kind": "text", "data": "THREE"}
        ])
    );
}

#[tokio::test]
async fn listening_stops_at_max_messages() {
    let bench = local_bench();
    let base = server().await;
    let out = bench
        .ok(
            "websocket",
            json!({"url": format!("{base}/echo"), "messages": ["a", "b", "c"], "max_messages": 1}),
        )
        .await;
    assert_eq!(out["received"].as_array().unwrap().len(), 1);
    assert_eq!(out["stopped"], "max_messages");
}

#[tokio::test]
async fn a_server_close_ends_listening_with_its_code() {
    let bench = local_bench();
    let base = server().await;
    let out = bench
        .ok("websocket", json!({"url": format!("{base}/farewell")}))
        .await;
    assert_eq!(out["sent"], 0);
    assert_eq!(out["stopped"], "closed");
    assert_eq!(out["close_code"], 4001);
    assert_eq!(out["close_reason"], "done here");
    assert_eq!(
        out["received"],
        json!([
            {"kind": "text", "data": "welcome"},
            {"kind": "binary", "data": "raw bytes"},
            {"kind": "binary", "data": "3 bytes of binary data"}
        ])
    );
}

#[tokio::test]
async fn a_quiet_server_stops_at_wait_seconds() {
    let bench = local_bench();
    let base = server().await;
    let out = bench
        .ok(
            "websocket",
            json!({"url": format!("{base}/silent"), "messages": ["anyone?"], "wait_seconds": 1}),
        )
        .await;
    assert_eq!(out["sent"], 1);
    assert_eq!(out["stopped"], "wait_seconds");
    assert_eq!(out["received"], json!([]));
}

#[tokio::test]
async fn a_path_that_is_not_a_websocket_is_a_clear_error() {
    let bench = local_bench();
    let base = server().await;
    bench
        .fails(
            "websocket",
            json!({"url": format!("{base}/plain")}),
            "failed",
            "did not accept a WebSocket connection",
        )
        .await;
}

#[tokio::test]
async fn other_schemes_and_closed_ports_are_refused() {
    let bench = local_bench();
    let base = server().await;
    let http = base.replacen("ws://", "http://", 1);
    bench
        .fails(
            "websocket",
            json!({"url": format!("{http}/echo")}),
            "failed",
            "use ws:// or wss://",
        )
        .await;
    let port = crate::support::closed_port().await;
    bench
        .fails(
            "websocket",
            json!({"url": format!("ws://127.0.0.1:{port}/")}),
            "failed",
            "cannot connect",
        )
        .await;
}

#[tokio::test]
async fn a_message_over_the_size_limit_is_a_clear_error() {
    let bench = crate::support::bench_with(
        hermes_tools::NetworkConfig::default()
            .allow_private(true)
            .max_body_bytes(4096),
    );
    let base = server().await;
    bench
        .fails(
            "websocket",
            json!({"url": format!("{base}/flood")}),
            "failed",
            "larger than 4096 bytes",
        )
        .await;
}

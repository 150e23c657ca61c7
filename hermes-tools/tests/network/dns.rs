//! `dns_lookup` against a tiny DNS server on 127.0.0.1 (real UDP, the real resolver):
//! it answers A, TXT and MX records for `hermes.test`, nothing for AAAA, and NXDOMAIN
//! for every other name.

use std::net::SocketAddr;

use hermes_tools::NetworkConfig;
use serde_json::json;
use tokio::net::UdpSocket;

use crate::support::bench_with;

const A: u16 = 1;
const MX: u16 = 15;
const TXT: u16 = 16;

/// The name encoded as DNS labels.
fn labels(name: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for label in name.split('.') {
        out.push(label.len() as u8);
        out.extend_from_slice(label.as_bytes());
    }
    out.push(0);
    out
}

/// The records of the test zone: type and data.
fn records(name: &str, kind: u16) -> Option<Vec<(u16, Vec<u8>)>> {
    if name != "hermes.test" {
        return None;
    }
    Some(match kind {
        A => vec![(A, vec![192, 0, 2, 7]), (A, vec![192, 0, 2, 8])],
        TXT => {
            let text = b"v=hermes1 hello";
            let mut data = vec![text.len() as u8];
            data.extend_from_slice(text);
            vec![(TXT, data)]
        }
        MX => {
            let mut data = 10u16.to_be_bytes().to_vec();
            data.extend(labels("mail.hermes.test"));
            vec![(MX, data)]
        }
        _ => Vec::new(),
    })
}

/// The response to `query`, or `None` for a packet that is not a query.
fn respond(query: &[u8]) -> Option<Vec<u8>> {
    let mut at = 12;
    let mut name = Vec::new();
    loop {
        let len = usize::from(*query.get(at)?);
        at += 1;
        if len == 0 {
            break;
        }
        name.push(String::from_utf8_lossy(query.get(at..at + len)?).to_lowercase());
        at += len;
    }
    let kind = u16::from_be_bytes([*query.get(at)?, *query.get(at + 1)?]);
    let question = query.get(12..at + 4)?;
    let answers = records(&name.join("."), kind);
    let rcode = if answers.is_some() { 0 } else { 3 };
    let answers = answers.unwrap_or_default();
    let mut out = query[0..2].to_vec();
    out.push(0x84 | (query[2] & 0x01));
    out.push(0x80 | rcode);
    out.extend(1u16.to_be_bytes());
    out.extend((answers.len() as u16).to_be_bytes());
    out.extend([0, 0, 0, 0]);
    out.extend_from_slice(question);
    for (kind, data) in answers {
        out.extend([0xc0, 0x0c]);
        out.extend(kind.to_be_bytes());
        out.extend(1u16.to_be_bytes());
        out.extend(300u32.to_be_bytes());
        out.extend((data.len() as u16).to_be_bytes());
        out.extend(data);
    }
    Some(out)
}

/// Start the test DNS server; its address.
async fn nameserver() -> SocketAddr {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let address = socket.local_addr().unwrap();
    tokio::spawn(async move {
        let mut buffer = [0u8; 1500];
        loop {
            let Ok((len, peer)) = socket.recv_from(&mut buffer).await else {
                return;
            };
            if let Some(response) = respond(&buffer[..len]) {
                let _ = socket.send_to(&response, peer).await;
            }
        }
    });
    address
}

async fn bench() -> crate::common::Bench {
    bench_with(NetworkConfig::default().nameserver(nameserver().await))
}

#[tokio::test]
async fn a_records_come_back_with_their_ttl() {
    let bench = bench().await;
    let out = bench.ok("dns_lookup", json!({"name": "hermes.test"})).await;
    assert_eq!(out["name"], "hermes.test");
    assert_eq!(out["record_type"], "A");
    assert_eq!(
        out["records"],
        json!([
            {"type": "A", "value": "192.0.2.7", "ttl": 300},
            {"type": "A", "value": "192.0.2.8", "ttl": 300}
        ])
    );
}

#[tokio::test]
async fn txt_and_mx_records_are_decoded() {
    let bench = bench().await;
    let txt = bench
        .ok(
            "dns_lookup",
            json!({"name": "hermes.test.", "record_type": "TXT"}),
        )
        .await;
    assert_eq!(txt["records"][0]["type"], "TXT");
    assert_eq!(txt["records"][0]["value"], "v=hermes1 hello");
    let mx = bench
        .ok(
            "dns_lookup",
            json!({"name": "HERMES.test", "record_type": "MX"}),
        )
        .await;
    assert_eq!(mx["records"][0]["value"], "mail.hermes.test.");
    assert_eq!(mx["records"][0]["preference"], 10);
}

#[tokio::test]
async fn a_name_without_records_of_the_type_gives_an_empty_list() {
    let bench = bench().await;
    let out = bench
        .ok(
            "dns_lookup",
            json!({"name": "hermes.test", "record_type": "AAAA"}),
        )
        .await;
    assert_eq!(out["records"], json!([]));
}

#[tokio::test]
async fn a_missing_name_is_nxdomain() {
    let bench = bench().await;
    bench
        .fails(
            "dns_lookup",
            json!({"name": "nowhere.test"}),
            "failed",
            "`nowhere.test` does not exist (NXDOMAIN)",
        )
        .await;
}

#[tokio::test]
async fn a_silent_server_is_a_clear_error() {
    // A socket that never answers.
    let silent = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let bench = bench_with(NetworkConfig::default().nameserver(silent.local_addr().unwrap()));
    bench
        .fails(
            "dns_lookup",
            json!({"name": "hermes.test"}),
            "failed",
            "the DNS lookup of `hermes.test` failed",
        )
        .await;
    drop(silent);
}

#[tokio::test]
async fn bad_record_types_and_names_are_argument_errors() {
    let bench = bench().await;
    for args in [
        json!({"name": "hermes.test", "record_type": "SRV"}),
        json!({"name": ""}),
        json!({"name": 5}),
    ] {
        bench
            .fails("dns_lookup", args, "invalid_arguments", "")
            .await;
    }
}

//! Local servers for the network tests, and benches allowed to reach them.

use std::net::SocketAddr;

use axum::Router;
use hermes_tools::NetworkConfig;

use crate::common::Bench;

/// A bench whose network tools may reach loopback (where the test servers are).
pub fn local_bench() -> Bench {
    bench_with(NetworkConfig::default().allow_private(true))
}

/// A bench with these network settings.
pub fn bench_with(network: NetworkConfig) -> Bench {
    Bench::with_config(|config| config.network(network))
}

/// Serve `router` on a free port of 127.0.0.1 for the rest of the test; its address.
pub async fn serve(router: Router) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, router).await.unwrap();
    });
    address
}

/// A port of 127.0.0.1 where nothing listens (bound, then released).
pub async fn closed_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

//! Plain JSON from the engine, for the answers bollard's typed models refuse: podman's
//! Docker-compatible API reports container states Docker's API does not have
//! (`stopped`, `configured`), and a typed list fails on them as a whole.

use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use serde_json::Value;

/// The most of an answer read.
const MAX_BYTES: usize = 16 * 1024 * 1024;

/// `GET path` (`/containers/json?all=1`) from the engine listening on the unix socket
/// `address` (`unix:///run/podman/podman.sock`), as JSON.
///
/// # Errors
///
/// Not a unix socket address, no connection, a non-2xx status, a body that is not JSON:
/// in words.
pub(super) async fn get_json(address: &str, path: &str) -> Result<Value, String> {
    let socket = address
        .strip_prefix("unix://")
        .ok_or_else(|| format!("`{address}` is not a unix socket"))?;
    let stream = tokio::net::UnixStream::connect(socket)
        .await
        .map_err(|error| format!("cannot connect to {address}: {error}"))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|error| format!("cannot talk HTTP to {address}: {error}"))?;
    let driver = tokio::spawn(connection);
    let request = hyper::Request::get(path)
        .header(hyper::header::HOST, "docker")
        .body(Empty::<Bytes>::new())
        .map_err(|error| error.to_string())?;
    let response = sender
        .send_request(request)
        .await
        .map_err(|error| format!("{address} did not answer: {error}"))?;
    let status = response.status();
    let body = http_body_util::Limited::new(response.into_body(), MAX_BYTES)
        .collect()
        .await
        .map_err(|error| format!("reading the answer of {address} failed: {error}"))?
        .to_bytes();
    driver.abort();
    if !status.is_success() {
        return Err(format!(
            "{address} answered {status}: {}",
            String::from_utf8_lossy(&body).trim()
        ));
    }
    serde_json::from_slice(&body).map_err(|error| format!("{address} sent bad JSON: {error}"))
}

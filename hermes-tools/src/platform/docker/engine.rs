//! The Docker Engine API both tools talk to: its address (configured, `DOCKER_HOST`, or
//! the standard socket), a client made once, and engine errors in the model's terms.

use std::sync::{Mutex, PoisonError};

use bollard::{API_DEFAULT_VERSION, Docker};
use hermes_core::ToolError;

/// The engine's address when neither the configuration nor `DOCKER_HOST` gives one.
const DEFAULT_HOST: &str = "unix:///var/run/docker.sock";
/// Seconds a request to the engine may take (a run's wait is bounded separately).
const REQUEST_TIMEOUT_SECS: u64 = 900;

/// The engine and, once reached, a client for it.
pub(crate) struct Engine {
    configured: Option<String>,
    client: Mutex<Option<(String, Docker)>>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("configured", &self.configured)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// The engine at `configured`, else `DOCKER_HOST`, else the standard socket.
    pub(crate) fn new(configured: Option<String>) -> Self {
        Self {
            configured,
            client: Mutex::new(None),
        }
    }

    fn address(&self) -> String {
        self.configured
            .clone()
            .or_else(|| {
                std::env::var("DOCKER_HOST")
                    .ok()
                    .filter(|host| !host.trim().is_empty())
            })
            .unwrap_or_else(|| DEFAULT_HOST.to_owned())
    }

    /// A client for the engine, and its address; the engine answered a ping.
    ///
    /// # Errors
    ///
    /// No engine at the address (with what to do about it), or an address this tool
    /// cannot use.
    pub(crate) async fn client(&self) -> Result<(Docker, String), ToolError> {
        let cached = self
            .client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if let Some((address, docker)) = cached {
            return Ok((docker, address));
        }
        let address = self.address();
        let docker = connect(&address)?;
        docker
            .ping()
            .await
            .map_err(|error| no_engine(&address, &error.to_string()))?;
        // Speak the engine's version when it is older than the client's (podman 4).
        let docker = docker
            .negotiate_version()
            .await
            .map_err(|error| no_engine(&address, &error.to_string()))?;
        *self.client.lock().unwrap_or_else(PoisonError::into_inner) =
            Some((address.clone(), docker.clone()));
        Ok((docker, address))
    }

    /// Forget the client (after the engine stopped answering).
    pub(crate) fn forget(&self) {
        self.client
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }
}

fn connect(address: &str) -> Result<Docker, ToolError> {
    if let Some(path) = address.strip_prefix("unix://") {
        if !std::path::Path::new(path).exists() {
            return Err(no_engine(address, "the socket does not exist"));
        }
        return Docker::connect_with_unix(address, REQUEST_TIMEOUT_SECS, API_DEFAULT_VERSION)
            .map_err(|error| no_engine(address, &error.to_string()));
    }
    if address.starts_with("tcp://") || address.starts_with("http://") {
        return Docker::connect_with_http(address, REQUEST_TIMEOUT_SECS, API_DEFAULT_VERSION)
            .map_err(|error| no_engine(address, &error.to_string()));
    }
    Err(ToolError::failed(format!(
        "`{address}` is not a Docker engine address this tool can use; set DOCKER_HOST to \
         unix:///path/to/docker.sock or tcp://host:port"
    )))
}

/// The error for an engine that is not there.
pub(crate) fn no_engine(address: &str, detail: &str) -> ToolError {
    ToolError::failed(format!(
        "no Docker engine at {address} ({detail}): start dockerd or `podman system service`, \
         or set DOCKER_HOST"
    ))
}

/// An engine error about `what` (a container or image the call named).
pub(crate) fn explain(address: &str, what: &str, error: &bollard::errors::Error) -> ToolError {
    use bollard::errors::Error;
    match error {
        Error::DockerResponseServerError {
            status_code: 404,
            message,
        } => ToolError::failed(format!(
            "{what} was not found ({message}); list what exists with docker_inspect \
             (action `containers` or `images`)"
        )),
        Error::DockerResponseServerError {
            status_code,
            message,
        } => ToolError::failed(format!(
            "the Docker engine at {address} refused ({status_code}): {message}"
        )),
        Error::IOError { .. }
        | Error::HyperResponseError { .. }
        | Error::HttpClientError { .. }
        | Error::RequestTimeoutError => no_engine(address, &error.to_string()),
        other => ToolError::failed(format!("the Docker engine at {address} failed: {other}")),
    }
}

//! The Redis server: its address (configured, or `HERMES_REDIS_URL`), shown without its
//! password, and one managed connection (reconnecting by itself) reused by every call.

use std::time::Duration;

use hermes_core::ToolError;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, ConnectionAddr};
use tokio::sync::Mutex;

/// The environment variable naming the server when the configuration does not.
pub(crate) const URL_VARIABLE: &str = "HERMES_REDIS_URL";
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The server and, once connected, the connection to it.
pub(crate) struct Server {
    configured: Option<String>,
    connection: Mutex<Option<(String, ConnectionManager)>>,
}

impl Server {
    /// A server at `configured`, or at `HERMES_REDIS_URL` when `None`; nothing connects
    /// until the first call.
    pub(crate) fn new(configured: Option<String>) -> Self {
        Self {
            configured,
            connection: Mutex::new(None),
        }
    }

    /// The connection (connecting on first use) and the server as it may be shown.
    ///
    /// # Errors
    ///
    /// No server configured, a malformed URL, or no answer from the server.
    pub(crate) async fn connection(&self) -> Result<(ConnectionManager, String), ToolError> {
        let mut slot = self.connection.lock().await;
        if let Some((shown, manager)) = slot.as_ref() {
            return Ok((manager.clone(), shown.clone()));
        }
        let url = match &self.configured {
            Some(url) => url.clone(),
            None => std::env::var(URL_VARIABLE).map_err(|_| {
                ToolError::failed(format!(
                    "no Redis server is configured: set {URL_VARIABLE} (redis://host:port/db) \
                     or PlatformConfig::redis_url"
                ))
            })?,
        };
        // The parser's message may quote the URL, password and all: not passed on.
        let client = Client::open(url.as_str()).map_err(|_| {
            ToolError::failed(
                "the Redis URL is malformed; use redis://[user:password@]host:port/db",
            )
        })?;
        let shown = show(&client);
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(CONNECT_TIMEOUT)
            .set_number_of_retries(1);
        let manager = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(|error| {
                ToolError::failed(format!(
                    "could not connect to Redis at {shown}: {error}; start the server or fix \
                     {URL_VARIABLE} / PlatformConfig::redis_url"
                ))
            })?;
        *slot = Some((shown.clone(), manager.clone()));
        Ok((manager, shown))
    }

    /// Drop the connection (teardown).
    pub(crate) async fn close(&self) {
        self.connection.lock().await.take();
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("configured", &self.configured.as_ref().map(|_| "****"))
            .finish_non_exhaustive()
    }
}

/// `redis://host:port/db`, never the password.
fn show(client: &Client) -> String {
    let info = client.get_connection_info();
    let scheme = match info.addr {
        ConnectionAddr::TcpTls { .. } => "rediss",
        ConnectionAddr::Unix(_) => "redis+unix",
        _ => "redis",
    };
    format!("{scheme}://{}/{}", info.addr, info.redis.db)
}

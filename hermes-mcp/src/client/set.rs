//! [`McpClients`]: every server of a configuration file, connected together.

use hermes_core::{EventSink, Registry};

use super::{McpClient, McpConfig};
use crate::McpError;

/// The connections to every server of an [`McpConfig`].
#[derive(Debug, Default)]
pub struct McpClients {
    clients: Vec<McpClient>,
}

impl McpClients {
    /// Connect to every server of `config` (one after the other) and register their
    /// tools in `registry`; events of all of them go to `events`.
    ///
    /// # Errors
    ///
    /// The first server that cannot be connected, named in the error; the servers
    /// connected before it are shut down again.
    pub async fn start(
        config: &McpConfig,
        registry: &Registry,
        events: &EventSink,
    ) -> Result<Self, McpError> {
        let mut clients = Vec::with_capacity(config.mcp_servers.len());
        for (name, server) in &config.mcp_servers {
            let connected = McpClient::builder(name, server.clone(), registry)
                .events(events.clone())
                .connect()
                .await;
            match connected {
                Ok(client) => clients.push(client),
                Err(error) => {
                    for client in clients {
                        client.shutdown().await;
                    }
                    return Err(error);
                }
            }
        }
        Ok(Self { clients })
    }

    /// The connections.
    pub fn clients(&self) -> &[McpClient] {
        &self.clients
    }

    /// Close every connection and remove every server's tools.
    pub async fn shutdown(self) {
        for client in self.clients {
            client.shutdown().await;
        }
    }
}

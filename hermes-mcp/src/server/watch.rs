//! `notifications/tools/list_changed`: the registry has no change subscription, so
//! each connection looks at it every interval. A look costs one pointer comparison
//! (the registry rebuilds its schema list on every change); only a change in the
//! exposed tools is announced.

use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{Peer, RoleServer};

use super::McpServer;

/// Watch the registry for `peer` until its connection closes or a notification
/// cannot be sent. The task owns nothing else; it ends at the first look after the
/// connection is gone.
pub(super) fn spawn(server: McpServer, peer: Peer<RoleServer>, interval: Duration) {
    tokio::spawn(async move {
        let registry = server.dispatcher.registry().clone();
        let mut seen = registry.schemas();
        let mut listed = server.tools();
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticks.tick().await;
        loop {
            ticks.tick().await;
            if peer.is_transport_closed() {
                return;
            }
            let now = registry.schemas();
            if Arc::ptr_eq(&now, &seen) {
                continue;
            }
            seen = now;
            let tools = server.tools();
            if tools == listed {
                continue;
            }
            listed = tools;
            if let Err(error) = peer.notify_tool_list_changed().await {
                tracing::debug!(%error, "could not send tools/list_changed; stop watching");
                return;
            }
            tracing::debug!("sent tools/list_changed");
        }
    });
}

//! [`ToolsConfig`]: the settings every built-in tool shares.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::Workspace;

/// The settings of the built-in tools; see [`ToolsConfig::builder`].
#[derive(Debug, Clone)]
pub struct ToolsConfig {
    pub(crate) workspace: Arc<dyn Workspace>,
    pub(crate) confine: bool,
    pub(crate) max_output_bytes: usize,
    pub(crate) allow_network: bool,
    pub(crate) command_timeout: Duration,
    pub(crate) max_command_timeout: Duration,
    /// The network family's settings.
    #[cfg(feature = "network")]
    pub(crate) network: crate::NetworkConfig,
    /// The platform family's settings.
    #[cfg(any(
        feature = "git",
        feature = "database",
        feature = "docker",
        feature = "redis"
    ))]
    pub(crate) platform: crate::PlatformConfig,
}

impl Default for ToolsConfig {
    fn default() -> Self {
        Self::builder().build()
    }
}

impl ToolsConfig {
    /// Start from the defaults: the process's working directory as every session's
    /// workspace, paths confined to it, 32 KiB of output per stream, no network for
    /// sandboxed code, commands timing out after 60 s (at most 600 s).
    pub fn builder() -> ToolsConfigBuilder {
        ToolsConfigBuilder {
            config: Self {
                workspace: Arc::new(crate::workspace::absolute(&PathBuf::from("."))),
                confine: true,
                max_output_bytes: 32 * 1024,
                allow_network: false,
                command_timeout: Duration::from_secs(60),
                max_command_timeout: Duration::from_secs(600),
                #[cfg(feature = "network")]
                network: crate::NetworkConfig::default(),
                #[cfg(any(
                    feature = "git",
                    feature = "database",
                    feature = "docker",
                    feature = "redis"
                ))]
                platform: crate::PlatformConfig::default(),
            },
        }
    }

    /// The workspace roots.
    pub fn workspace(&self) -> &Arc<dyn Workspace> {
        &self.workspace
    }

    /// Whether paths must stay inside the session's workspace.
    pub fn confine(&self) -> bool {
        self.confine
    }

    /// The cap on each output stream of a command, and on text a tool returns.
    pub fn max_output_bytes(&self) -> usize {
        self.max_output_bytes
    }

    /// Whether sandboxed code may use the network.
    pub fn allow_network(&self) -> bool {
        self.allow_network
    }

    /// A command's timeout when the call gives none.
    pub fn command_timeout(&self) -> Duration {
        self.command_timeout
    }

    /// The longest timeout a call may ask for.
    pub fn max_command_timeout(&self) -> Duration {
        self.max_command_timeout
    }

    /// The network family's settings.
    #[cfg(feature = "network")]
    pub fn network(&self) -> &crate::NetworkConfig {
        &self.network
    }

    /// The platform family's settings.
    #[cfg(any(
        feature = "git",
        feature = "database",
        feature = "docker",
        feature = "redis"
    ))]
    pub fn platform(&self) -> &crate::PlatformConfig {
        &self.platform
    }
}

/// Builds a [`ToolsConfig`].
#[derive(Debug)]
#[must_use]
pub struct ToolsConfigBuilder {
    config: ToolsConfig,
}

impl ToolsConfigBuilder {
    /// One workspace root for every session (relative: against the current directory).
    pub fn workspace_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.config.workspace = Arc::new(crate::workspace::absolute(&root.into()));
        self
    }

    /// Workspace roots per session, e.g. the [`PermissionEngine`](hermes_permissions::PermissionEngine)
    /// the gateway judges with.
    pub fn workspace(mut self, workspace: Arc<dyn Workspace>) -> Self {
        self.config.workspace = workspace;
        self
    }

    /// Refuse paths outside the session's workspace (default: on). Off, the permission
    /// policy alone decides where tools may go.
    pub fn confine(mut self, confine: bool) -> Self {
        self.config.confine = confine;
        self
    }

    /// The cap on each output stream of a command, and on text a tool returns
    /// (default 32 KiB; at least 1 KiB).
    pub fn max_output_bytes(mut self, bytes: usize) -> Self {
        self.config.max_output_bytes = bytes.max(1024);
        self
    }

    /// Let sandboxed code use the network (default: off).
    pub fn allow_network(mut self, allow: bool) -> Self {
        self.config.allow_network = allow;
        self
    }

    /// A command's timeout when the call gives none (default 60 s), and the longest a
    /// call may ask for (default 600 s).
    pub fn command_timeouts(mut self, default: Duration, max: Duration) -> Self {
        self.config.command_timeout = default;
        self.config.max_command_timeout = max.max(default);
        self
    }

    /// The network family's settings (search provider, private hosts...).
    #[cfg(feature = "network")]
    pub fn network(mut self, network: crate::NetworkConfig) -> Self {
        self.config.network = network;
        self
    }

    /// The platform family's settings (Redis server, Docker engine...).
    #[cfg(any(
        feature = "git",
        feature = "database",
        feature = "docker",
        feature = "redis"
    ))]
    pub fn platform(mut self, platform: crate::PlatformConfig) -> Self {
        self.config.platform = platform;
        self
    }

    /// Finish.
    pub fn build(self) -> ToolsConfig {
        self.config
    }
}

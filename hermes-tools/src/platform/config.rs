//! [`PlatformConfig`]: the platform family's settings.

/// The platform family's settings, part of [`ToolsConfig`](crate::ToolsConfig).
///
/// ```
/// let platform = hermes_tools::PlatformConfig::default()
///     .redis_url("redis://127.0.0.1:6379/0")
///     .docker_host("unix:///run/podman/podman.sock");
/// let config = hermes_tools::ToolsConfig::builder().platform(platform).build();
/// # let _ = config;
/// ```
#[derive(Debug, Clone, Default)]
pub struct PlatformConfig {
    redis_url: Option<String>,
    redis_dangerous: bool,
    docker_host: Option<String>,
}

impl PlatformConfig {
    /// The Redis server `redis_command` talks to (`redis://host:port/db`,
    /// `rediss://` for TLS). Unset, the `HERMES_REDIS_URL` environment variable, read
    /// when the tool first connects.
    #[must_use]
    pub fn redis_url(mut self, url: impl Into<String>) -> Self {
        self.redis_url = Some(url.into());
        self
    }

    /// Let `redis_command` run the commands that can wipe or reconfigure a whole server
    /// (`FLUSHALL`, `CONFIG`, `SHUTDOWN`, `DEBUG`, `MODULE`...), still only when the
    /// policy grants `database:write` (default: refused).
    #[must_use]
    pub fn allow_dangerous_redis_commands(mut self, allow: bool) -> Self {
        self.redis_dangerous = allow;
        self
    }

    /// The Docker Engine API the docker tools use (`unix:///path.sock`,
    /// `tcp://host:port`, `http://host:port`). Unset, the `DOCKER_HOST` environment
    /// variable, then `unix:///var/run/docker.sock`.
    #[must_use]
    pub fn docker_host(mut self, host: impl Into<String>) -> Self {
        self.docker_host = Some(host.into());
        self
    }

    /// The configured Redis URL, if any.
    pub fn redis(&self) -> Option<&str> {
        self.redis_url.as_deref()
    }

    /// Whether the server-wide Redis commands may run.
    pub fn redis_dangerous_allowed(&self) -> bool {
        self.redis_dangerous
    }

    /// The configured Docker engine address, if any.
    pub fn docker(&self) -> Option<&str> {
        self.docker_host.as_deref()
    }
}

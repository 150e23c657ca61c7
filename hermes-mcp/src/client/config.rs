//! What to connect to: [`ServerConfig`] per server, [`McpConfig`] for a YAML file of
//! them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hermes_core::Scope;
use serde::Deserialize;

use crate::McpError;

/// The default bound on one call to a server tool.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The permission server tools declare unless configured otherwise.
pub const DEFAULT_PERMISSION: &str = "mcp:call";

/// A file of MCP servers:
///
/// ```yaml
/// mcp_servers:
///   everything:                      # the server's name: tools become mcp_everything_<tool>
///     command: npx
///     args: ["-y", "@modelcontextprotocol/server-everything"]
///     env: {LOG_LEVEL: warn, API_TOKEN: "${EVERYTHING_TOKEN}"}   # ${VAR}: from our environment
///     scope: read                    # read | write | dangerous (the default: needs approval)
///     permissions: [mcp:call]        # what the permission engine judges (the default)
///     timeout: 30s
///     tools:
///       include: [echo, "get-*"]     # names or globs; default: every tool
///       exclude: [get-env]
///       overrides:
///         echo: {scope: read, timeout: 5s}
///   search:
///     url: http://127.0.0.1:3001/mcp # streamable HTTP instead of a command
///     headers: {Authorization: "Bearer ${SEARCH_TOKEN}"}
///     prefix: web_                   # tools become web_<tool>
/// ```
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct McpConfig {
    /// The servers, by name.
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, ServerConfig>,
}

impl McpConfig {
    /// Parse and check a YAML document.
    ///
    /// # Errors
    ///
    /// [`McpError::Config`] with the line and column of a syntax or shape error, or the
    /// server whose settings do not fit together.
    pub fn from_yaml(text: &str) -> Result<Self, McpError> {
        let config: Self =
            serde_saphyr::from_str(text).map_err(|error| McpError::Config(error.to_string()))?;
        for (name, server) in &config.mcp_servers {
            server.check(name)?;
        }
        Ok(config)
    }

    /// Read and parse a YAML file.
    ///
    /// # Errors
    ///
    /// As [`from_yaml`](Self::from_yaml), with the file's path in the message, or when
    /// the file cannot be read.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, McpError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|error| McpError::Config(format!("{}: {error}", path.display())))?;
        Self::from_yaml(&text)
            .map_err(|error| McpError::Config(format!("{}: {}", path.display(), strip(&error))))
    }
}

fn strip(error: &McpError) -> String {
    match error {
        McpError::Config(message) => message.clone(),
        other => other.to_string(),
    }
}

/// One MCP server: how to reach it, and how far to trust its tools.
///
/// The server's own hints (`readOnlyHint`, `destructiveHint`...) are ignored: scope and
/// permissions come from here. Unless configured, a server tool is `dangerous` (every
/// call needs approval) and declares the permission `mcp:call`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ServerConfig {
    /// The program to spawn (stdio transport).
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment variables; `${NAME}` in a value is read from this process's
    /// environment when connecting.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The directory to start it in.
    pub cwd: Option<PathBuf>,
    /// A streamable HTTP endpoint instead of a command.
    pub url: Option<String>,
    /// HTTP headers to send (with `url`); `${NAME}` expands as in `env`.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// What tool names start with (default `mcp_<server>_`).
    pub prefix: Option<String>,
    /// The scope of the server's tools (default `dangerous`).
    #[serde(default, deserialize_with = "scope::option")]
    pub scope: Option<Scope>,
    /// The permissions the server's tools declare (default `[mcp:call]`).
    pub permissions: Option<Vec<String>>,
    /// The bound on one call (default 60 s): a number of seconds, or `500ms`, `30s`, `2m`.
    #[serde(default, deserialize_with = "duration::option")]
    pub timeout: Option<Duration>,
    /// Which tools to take, and per-tool settings.
    #[serde(default)]
    pub tools: ToolsConfig,
}

/// Which of a server's tools to register, and settings for some of them.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ToolsConfig {
    /// Tool names (as the server names them) or globs (`get-*`) to take; empty: all.
    #[serde(default)]
    pub include: Vec<String>,
    /// Names or globs to leave out, even if included.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Settings for single tools, by the server's name for them.
    #[serde(default)]
    pub overrides: BTreeMap<String, ToolOverride>,
}

/// Settings for one server tool; what is unset comes from the server's settings.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ToolOverride {
    /// Its scope.
    #[serde(default, deserialize_with = "scope::option")]
    pub scope: Option<Scope>,
    /// The permissions it declares.
    pub permissions: Option<Vec<String>>,
    /// The bound on one call.
    #[serde(default, deserialize_with = "duration::option")]
    pub timeout: Option<Duration>,
}

impl ToolOverride {
    /// Set the tool's scope.
    #[must_use]
    pub fn scope(mut self, scope: Scope) -> Self {
        self.scope = Some(scope);
        self
    }

    /// Set the permissions the tool declares.
    #[must_use]
    pub fn permissions<I, S>(mut self, permissions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.permissions = Some(permissions.into_iter().map(Into::into).collect());
        self
    }

    /// Set the bound on one call.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }
}

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Endpoint<'a> {
    Stdio(&'a str),
    Http(&'a str),
}

impl ServerConfig {
    /// A server spawned as `command`, spoken to over its stdin and stdout.
    pub fn stdio(command: impl Into<String>) -> Self {
        Self {
            command: Some(command.into()),
            ..Self::default()
        }
    }

    /// A server at a streamable HTTP endpoint (`http://127.0.0.1:3001/mcp`).
    pub fn http(url: impl Into<String>) -> Self {
        Self {
            url: Some(url.into()),
            ..Self::default()
        }
    }

    /// Add arguments.
    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Set an environment variable of the spawned server.
    #[must_use]
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(name.into(), value.into());
        self
    }

    /// Send a header with every HTTP request.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Name the tools `<prefix><tool>`.
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// The scope of every tool of the server.
    #[must_use]
    pub fn scope(mut self, scope: Scope) -> Self {
        self.scope = Some(scope);
        self
    }

    /// The permissions every tool of the server declares.
    #[must_use]
    pub fn permissions<I, S>(mut self, permissions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.permissions = Some(permissions.into_iter().map(Into::into).collect());
        self
    }

    /// The bound on one call.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Take only the tools matching these names or globs.
    #[must_use]
    pub fn include<I, S>(mut self, patterns: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools
            .include
            .extend(patterns.into_iter().map(Into::into));
        self
    }

    /// Leave out the tools matching these names or globs.
    #[must_use]
    pub fn exclude<I, S>(mut self, patterns: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools
            .exclude
            .extend(patterns.into_iter().map(Into::into));
        self
    }

    /// Settings for one tool, by the server's name for it.
    #[must_use]
    pub fn tool(mut self, name: impl Into<String>, settings: ToolOverride) -> Self {
        self.tools.overrides.insert(name.into(), settings);
        self
    }

    /// Check that the settings fit together.
    pub(crate) fn check(&self, name: &str) -> Result<(), McpError> {
        let problem = |what: String| McpError::Config(format!("server `{name}`: {what}"));
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(McpError::Config(format!(
                "`{name}` is not a usable server name: use letters, digits, `_` and `-`"
            )));
        }
        match (&self.command, &self.url) {
            (Some(_), Some(_)) => return Err(problem("give `command` or `url`, not both".into())),
            (None, None) => {
                return Err(problem(
                    "give `command` (a program to spawn) or `url` (a streamable HTTP endpoint)"
                        .into(),
                ));
            }
            (Some(command), None) if command.trim().is_empty() => {
                return Err(problem("`command` is empty".into()));
            }
            (None, Some(url)) if !(url.starts_with("http://") || url.starts_with("https://")) => {
                return Err(problem(format!("`url` must be http(s)://..., not `{url}`")));
            }
            _ => {}
        }
        if self.url.is_none() && !self.headers.is_empty() {
            return Err(problem("`headers` go with `url`".into()));
        }
        if self.command.is_none() && (!self.args.is_empty() || !self.env.is_empty()) {
            return Err(problem("`args` and `env` go with `command`".into()));
        }
        if let Some(prefix) = &self.prefix {
            if !prefix
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            {
                return Err(problem(format!(
                    "prefix `{prefix}`: tool names may hold letters, digits, `_` and `-` only"
                )));
            }
        }
        if self.timeout.is_some_and(|t| t.is_zero())
            || self
                .tools
                .overrides
                .values()
                .any(|o| o.timeout.is_some_and(|t| t.is_zero()))
        {
            return Err(problem("a timeout must be longer than zero".into()));
        }
        for pattern in self.tools.include.iter().chain(&self.tools.exclude) {
            globset::Glob::new(pattern)
                .map_err(|error| problem(format!("tool pattern `{pattern}`: {error}")))?;
        }
        Ok(())
    }

    pub(crate) fn endpoint(&self) -> Endpoint<'_> {
        match (&self.command, &self.url) {
            (Some(command), _) => Endpoint::Stdio(command),
            (None, Some(url)) => Endpoint::Http(url),
            // `check` refuses a config with neither.
            (None, None) => Endpoint::Stdio(""),
        }
    }
}

/// `${NAME}` in `value` replaced by the environment variable `NAME`.
pub(crate) fn expand(value: &str, server: &str) -> Result<String, McpError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(McpError::Config(format!(
                "server `{server}`: `${{` without a closing `}}` in `{value}`"
            )));
        };
        let name = &after[..end];
        let found = std::env::var(name).map_err(|_| {
            McpError::Config(format!(
                "server `{server}`: the environment variable `{name}` is not set"
            ))
        })?;
        out.push_str(&found);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

mod scope {
    use hermes_core::Scope;
    use serde::{Deserialize, Deserializer};

    pub(super) fn option<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Scope>, D::Error> {
        let Some(name) = Option::<String>::deserialize(d)? else {
            return Ok(None);
        };
        match name.as_str() {
            "read" => Ok(Some(Scope::Read)),
            "write" => Ok(Some(Scope::Write)),
            "dangerous" => Ok(Some(Scope::Dangerous)),
            other => Err(serde::de::Error::custom(format!(
                "scope `{other}`: use read, write or dangerous"
            ))),
        }
    }
}

mod duration {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Seconds(f64),
        Text(String),
    }

    pub(super) fn option<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        let Some(raw) = Option::<Raw>::deserialize(d)? else {
            return Ok(None);
        };
        let bad = |text: &str| {
            serde::de::Error::custom(format!(
                "duration `{text}`: write a number of seconds, or 500ms, 30s, 2m"
            ))
        };
        let seconds = match raw {
            Raw::Seconds(seconds) => seconds,
            Raw::Text(text) => {
                let trimmed = text.trim();
                let (number, scale) = if let Some(n) = trimmed.strip_suffix("ms") {
                    (n, 0.001)
                } else if let Some(n) = trimmed.strip_suffix('s') {
                    (n, 1.0)
                } else if let Some(n) = trimmed.strip_suffix('m') {
                    (n, 60.0)
                } else {
                    (trimmed, 1.0)
                };
                number.trim().parse::<f64>().map_err(|_| bad(&text))? * scale
            }
        };
        Duration::try_from_secs_f64(seconds)
            .map(Some)
            .map_err(|_| bad(&seconds.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_file_parses() {
        let config = McpConfig::from_yaml(
            r#"
mcp_servers:
  everything:
    command: node
    args: [server.js, stdio]
    env: {A: "1"}
    scope: read
    timeout: 30s
    tools:
      include: [echo, "get-*"]
      exclude: [get-env]
      overrides:
        echo: {scope: write, timeout: 500ms}
  remote:
    url: http://127.0.0.1:3001/mcp
    headers: {Authorization: "Bearer x"}
    prefix: web_
    permissions: [network:fetch]
    timeout: 2
"#,
        )
        .unwrap();
        let everything = &config.mcp_servers["everything"];
        assert_eq!(everything.endpoint(), Endpoint::Stdio("node"));
        assert_eq!(everything.scope, Some(Scope::Read));
        assert_eq!(everything.timeout, Some(Duration::from_secs(30)));
        let echo = &everything.tools.overrides["echo"];
        assert_eq!(echo.timeout, Some(Duration::from_millis(500)));
        assert_eq!(echo.scope, Some(Scope::Write));
        let remote = &config.mcp_servers["remote"];
        assert_eq!(
            remote.endpoint(),
            Endpoint::Http("http://127.0.0.1:3001/mcp")
        );
        assert_eq!(remote.timeout, Some(Duration::from_secs(2)));
    }

    #[test]
    fn mistakes_are_named() {
        let cases = [
            (
                "mcp_servers: {a: {command: x, url: 'http://h'}}",
                "not both",
            ),
            ("mcp_servers: {a: {args: [x]}}", "give `command`"),
            ("mcp_servers: {a: {url: 'ftp://h'}}", "http(s)://"),
            (
                "mcp_servers: {a: {command: x, scope: admin}}",
                "scope `admin`",
            ),
            (
                "mcp_servers: {a: {command: x, timeout: soon}}",
                "duration `soon`",
            ),
            (
                "mcp_servers: {a: {command: x, timeout: 0}}",
                "longer than zero",
            ),
            ("mcp_servers: {a: {command: x, comand: y}}", "comand"),
            (
                "mcp_servers: {'a b': {command: x}}",
                "not a usable server name",
            ),
            (
                "mcp_servers: {a: {command: x, prefix: 'a.b'}}",
                "prefix `a.b`",
            ),
            (
                "mcp_servers: {a: {command: x, headers: {A: b}}}",
                "`headers` go with `url`",
            ),
            (
                "mcp_servers: {a: {command: x, tools: {include: ['[']}}}",
                "tool pattern",
            ),
        ];
        for (yaml, needle) in cases {
            let error = McpConfig::from_yaml(yaml).unwrap_err().to_string();
            assert!(error.contains(needle), "{yaml}: {error}");
        }
        let error = McpConfig::from_yaml("mcp_servers:\n  a:\n    command: [x\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("line"), "{error}");
    }

    #[test]
    fn variables_expand_from_the_environment() {
        let path = std::env::var("PATH").unwrap();
        assert_eq!(expand("a${PATH}b", "s").unwrap(), format!("a{path}b"));
        assert_eq!(expand("plain", "s").unwrap(), "plain");
        let error = expand("${HERMES_SURELY_UNSET_VAR}", "s")
            .unwrap_err()
            .to_string();
        assert!(error.contains("HERMES_SURELY_UNSET_VAR"), "{error}");
        assert!(expand("${OPEN", "s").is_err());
    }
}

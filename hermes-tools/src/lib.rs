//! The built-in tools of [hermes](https://github.com/hermes-rs/hermes), in families, one
//! cargo feature each (all on by default; `platform` splits into one per backend):
//!
//! - `system`: `terminal`, `process_start`, `process_output`, `process_kill`,
//!   `process_list`, `env_get`, `env_set`, `system_info`;
//! - `file`: `file_read`, `file_write`, `file_edit`, `list_directory`, `file_search`,
//!   `file_delete`, `archive`;
//! - `code`: `code_execute`, `code_test`, `code_analyze`, `calculator`, `json_query`,
//!   `text_diff`;
//! - `network`: `web_search`, `http_request`, `web_fetch`, `web_extract`,
//!   `download_file`, `dns_lookup`, `port_check`, `websocket`, `rss_read`;
//! - `multimedia`: `image_info`, `image_transform`, `pdf_read`, `audio_info`,
//!   `video_info`, `video_frame`;
//! - `platform` (= `git` + `database` + `docker` + `redis`): `git_status`, `git_log`,
//!   `git_diff`, `git_commit`, `database_query`, `docker_inspect`, `docker_run`,
//!   `redis_command`;
//! - `yaml`: HTTP tools defined in YAML files, hot reloaded ([`yaml`]).
//!
//! Network tools reach public addresses only, unless [`NetworkConfig`] allows private
//! ones (the SSRF guard checks the resolved address, and every redirect).
//!
//! Every tool declares its scope, the permissions it needs and the kind of each path,
//! command or URL parameter, so the permission engine judges it without tool-specific
//! code. Paths are resolved against the session's [`Workspace`] with the engine's own
//! normaliser: the tool opens exactly the path the engine judged. Output is bounded
//! everywhere, commands run in a process group that is killed on timeout or
//! cancellation, and every failure tells the model what to do next.
//!
//! ```
//! let registry = hermes_tools::builtin(hermes_tools::ToolsConfig::default())?;
//! for name in registry.names() {
//!     println!("{name}");
//! }
//! # Ok::<(), hermes_core::Error>(())
//! ```
//!
//! The README holds a table of every tool: name, family, scope, permissions.

#[cfg(any(feature = "_family", feature = "yaml"))]
mod common;
mod config;
mod workspace;

#[cfg(feature = "code")]
mod code;
#[cfg(feature = "file")]
mod file;
#[cfg(feature = "multimedia")]
mod multimedia;
#[cfg(feature = "network")]
mod network;
#[cfg(any(
    feature = "git",
    feature = "database",
    feature = "docker",
    feature = "redis"
))]
mod platform;
#[cfg(feature = "system")]
mod system;
#[cfg(feature = "yaml")]
pub mod yaml;

use std::sync::Arc;

use hermes_core::{Error, Registry, Tool};

pub use config::{ToolsConfig, ToolsConfigBuilder};
pub use workspace::Workspace;

#[cfg(feature = "network")]
pub use network::NetworkConfig;
#[cfg(any(
    feature = "git",
    feature = "database",
    feature = "docker",
    feature = "redis"
))]
pub use platform::PlatformConfig;

/// The tool families, as tagged on each tool (`family:system` and so on).
pub const FAMILIES: &[&str] = &[
    "system",
    "file",
    "code",
    "network",
    "multimedia",
    "platform",
];

/// A registry holding every built-in tool of the enabled families.
///
/// # Errors
///
/// [`Error`] if a tool cannot be registered (a bug: the names are distinct).
pub fn builtin(config: ToolsConfig) -> Result<Registry, Error> {
    let registry = Registry::new();
    register_builtin(&registry, config)?;
    Ok(registry)
}

/// Add every built-in tool of the enabled families to `registry`.
///
/// # Errors
///
/// [`Error::DuplicateTool`](hermes_core::Error) if `registry` already holds a tool of
/// the same name as a built-in one.
pub fn register_builtin(registry: &Registry, config: ToolsConfig) -> Result<(), Error> {
    for tool in tools(config)? {
        registry.register_arc(tool)?;
    }
    Ok(())
}

/// Every built-in tool of the enabled families, sharing one `config`.
///
/// # Errors
///
/// [`Error::InvalidSchema`](hermes_core::Error) or another spec error: a bug in this
/// crate (its tests build every tool).
pub fn tools(config: ToolsConfig) -> Result<Vec<Arc<dyn Tool>>, Error> {
    #[cfg(feature = "_family")]
    {
        let shared = Arc::new(common::Shared::new(config));
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        #[cfg(feature = "system")]
        tools.extend(system::tools(&shared)?);
        #[cfg(feature = "file")]
        tools.extend(file::tools(&shared)?);
        #[cfg(feature = "code")]
        tools.extend(code::tools(&shared)?);
        #[cfg(feature = "network")]
        tools.extend(network::tools(&shared)?);
        #[cfg(feature = "multimedia")]
        tools.extend(multimedia::tools(&shared)?);
        #[cfg(any(
            feature = "git",
            feature = "database",
            feature = "docker",
            feature = "redis"
        ))]
        tools.extend(platform::tools(&shared)?);
        Ok(tools)
    }
    #[cfg(not(feature = "_family"))]
    {
        let _ = config;
        Ok(Vec::new())
    }
}

/// The family a tool belongs to, from its `family:NAME` tag.
pub fn family_of(tool: &dyn Tool) -> Option<&str> {
    tool.spec()
        .tags()
        .iter()
        .find_map(|tag| tag.strip_prefix("family:"))
}

/// A Markdown table of `tools`, sorted by family then name: name, family, scope,
/// permissions, and the first sentence of the description. The README's table is this
/// table (a test keeps it so).
pub fn tool_table(tools: &[Arc<dyn Tool>]) -> String {
    let mut rows: Vec<(usize, String, String)> = tools
        .iter()
        .map(|tool| {
            let spec = tool.spec();
            let family = family_of(tool.as_ref()).unwrap_or("other");
            let order = FAMILIES
                .iter()
                .position(|known| *known == family)
                .unwrap_or(FAMILIES.len());
            let summary = first_sentence(spec.description());
            let permissions = if spec.permissions().is_empty() {
                "-".to_owned()
            } else {
                spec.permissions()
                    .iter()
                    .map(|permission| format!("`{permission}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let row = format!(
                "| `{}` | {family} | {} | {permissions} | {summary} |",
                spec.name(),
                spec.scope()
            );
            (order, spec.name().to_owned(), row)
        })
        .collect();
    rows.sort();
    let mut table = String::from(
        "| tool | family | scope | permissions | what it does |\n|---|---|---|---|---|\n",
    );
    for (_, _, row) in rows {
        table.push_str(&row);
        table.push('\n');
    }
    table
}

fn first_sentence(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    let end = line.find(". ").map_or(line.len(), |at| at + 1);
    line[..end].replace('|', "\\|")
}

//! Where the CLI keeps its files: `$HERMES_HOME` when set, else the XDG directories.

use std::ffi::OsString;
use std::path::PathBuf;

/// Where `hermes tool register` keeps YAML files of tools: `$HERMES_HOME/tools`, else
/// `$XDG_CONFIG_HOME/hermes/tools`, else `~/.config/hermes/tools`.
pub(crate) fn tools_dir() -> Result<PathBuf, String> {
    under("XDG_CONFIG_HOME", ".config", "tools")
        .ok_or_else(|| "set HERMES_HOME (or HOME) to say where the tool files live".to_owned())
}

/// The telemetry store `hermes run` records into and `hermes telemetry report` and
/// `hermes dashboard` read: `$HERMES_TELEMETRY_DB`, else `$HERMES_HOME/telemetry.db`,
/// else `$XDG_DATA_HOME/hermes/telemetry.db`, else `~/.local/share/hermes/telemetry.db`.
pub(crate) fn telemetry_db() -> Result<PathBuf, String> {
    if let Some(path) = non_empty("HERMES_TELEMETRY_DB") {
        return Ok(PathBuf::from(path));
    }
    under("XDG_DATA_HOME", ".local/share", "telemetry.db").ok_or_else(|| {
        "set HERMES_TELEMETRY_DB, HERMES_HOME or HOME to say where telemetry is kept (or pass --db)"
            .to_owned()
    })
}

/// The MCP servers `hermes run` connects to unless told `--mcp FILE`:
/// `$HERMES_HOME/mcp.yaml`, else `$XDG_CONFIG_HOME/hermes/mcp.yaml`, else
/// `~/.config/hermes/mcp.yaml`.
pub(crate) fn mcp_config() -> Option<PathBuf> {
    under("XDG_CONFIG_HOME", ".config", "mcp.yaml")
}

/// `$HERMES_HOME/<name>`, else `$<xdg>/hermes/<name>`, else `~/<fallback>/hermes/<name>`.
fn under(xdg: &str, fallback: &str, name: &str) -> Option<PathBuf> {
    if let Some(home) = non_empty("HERMES_HOME") {
        return Some(PathBuf::from(home).join(name));
    }
    if let Some(base) = non_empty(xdg) {
        return Some(PathBuf::from(base).join("hermes").join(name));
    }
    non_empty("HOME").map(|home| PathBuf::from(home).join(fallback).join("hermes").join(name))
}

fn non_empty(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}

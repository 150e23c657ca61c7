//! The tools the CLI registers: the built-in families of hermes-tools, with the current
//! directory as every session's workspace (the permission engine's default too).

use hermes_core::Registry;
use hermes_tools::ToolsConfig;

pub(crate) fn registry() -> Result<Registry, hermes_core::Error> {
    hermes_tools::builtin(ToolsConfig::default())
}

/// `registry` narrowed to `names` (`hermes run --tools`).
pub(crate) fn only(registry: &Registry, names: &[String]) -> Result<Registry, String> {
    let narrowed = Registry::new();
    for name in names {
        let tool = registry.get(name).ok_or_else(|| {
            format!("--tools: no tool named `{name}`; run `hermes tool list` to see the tools")
        })?;
        narrowed
            .register_arc(tool)
            .map_err(|error| format!("--tools: {error}"))?;
    }
    Ok(narrowed)
}

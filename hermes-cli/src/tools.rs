//! The tools the CLI registers. Until the built-in families land, a demo set.

use hermes_core::{Registry, demo::Calc};

pub(crate) fn registry() -> Result<Registry, hermes_core::Error> {
    let registry = Registry::new();
    registry.register(Calc::new())?;
    Ok(registry)
}

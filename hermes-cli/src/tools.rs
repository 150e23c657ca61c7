//! The tools the CLI registers: the built-in families of hermes-tools, with the current
//! directory as every session's workspace (the permission engine's default too), and the
//! YAML files of tools registered with `hermes tool register`.

use std::path::{Path, PathBuf};

use hermes_core::Registry;
use hermes_tools::ToolsConfig;
use hermes_tools::yaml::{ToolFile, Watcher};

use crate::home::tools_dir;

/// The built-in tools plus every YAML file in the tools directory. A file that does
/// not load is skipped with a warning on stderr: one broken file must not take the
/// command down.
pub(crate) fn registry() -> Result<Registry, hermes_core::Error> {
    let registry = hermes_tools::builtin(ToolsConfig::default())?;
    if let Ok(dir) = tools_dir() {
        for path in yaml_files(&dir) {
            if let Err(error) = ToolFile::load(&path).and_then(|file| file.register(&registry)) {
                eprintln!("hermes: warning: skipped {error}");
            }
        }
    }
    Ok(registry)
}

/// Hot reload for the files of the tool directory: a watcher per file that loaded (a
/// broken file was reported by [`registry`]). Reloads are logged (`HERMES_LOG=info`; a
/// failed one is a warning). Must run inside the tokio runtime.
pub(crate) fn watch(registry: &Registry) -> Vec<Watcher> {
    let Ok(dir) = tools_dir() else {
        return Vec::new();
    };
    yaml_files(&dir)
        .into_iter()
        .filter_map(|path| Watcher::builder(registry.clone()).start([path]).ok())
        .collect()
}

/// The `.yaml` and `.yml` files of `dir`, sorted; none if it does not exist.
pub(crate) fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.is_file()
                && path
                    .extension()
                    .is_some_and(|ext| ext == "yaml" || ext == "yml")
        })
        .collect();
    files.sort();
    files
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

//! `hermes tool register | unregister`: YAML files of tools in the tool directory.

use std::io::Write;
use std::path::Path;

use hermes_core::Registry;
use hermes_tools::yaml::ToolFile;
use serde::Serialize;

use crate::cli::{RegisterArgs, UnregisterArgs};
use crate::home::tools_dir;
use crate::tools::yaml_files;
use crate::{Status, UsageError};

/// What `tool register --json` prints.
#[derive(Debug, Serialize)]
struct Registered<'a> {
    /// Where the file now lives.
    file: String,
    /// Its tools, in file order.
    tools: Vec<&'a str>,
}

pub(crate) fn register(
    registry: &Registry,
    args: &RegisterArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Status> {
    // Read once: what is validated is exactly what is copied.
    let text = std::fs::read_to_string(&args.config).map_err(|error| {
        UsageError(format!(
            "{}: cannot read the file: {error}",
            args.config.display()
        ))
    })?;
    let file =
        ToolFile::parse(&text, &args.config).map_err(|error| UsageError(error.to_string()))?;
    let name = args
        .config
        .file_name()
        .ok_or_else(|| UsageError(format!("{} is not a file", args.config.display())))?;
    let dir = tools_dir().map_err(UsageError)?;
    let target = dir.join(name);
    // The file's tools must not collide with tools of other origins; a previous copy
    // of this same file (being replaced) does not count.
    let previous = target.display().to_string();
    for tool in file.names() {
        if registry.contains(tool) && registry.source_of(tool).as_deref() != Some(previous.as_str())
        {
            let origin = registry
                .source_of(tool)
                .unwrap_or_else(|| "the built-in tools".to_owned());
            return Err(UsageError(format!(
                "{}: tool `{tool}` is already registered (from {origin}); rename it",
                args.config.display()
            ))
            .into());
        }
    }
    std::fs::create_dir_all(&dir)
        .map_err(|error| UsageError(format!("cannot create {}: {error}", dir.display())))?;
    write_atomically(&target, &text)?;
    if args.json {
        let registered = Registered {
            file: target.display().to_string(),
            tools: file.names(),
        };
        serde_json::to_writer_pretty(&mut *out, &registered)?;
        writeln!(out)?;
    } else {
        let count = file.names().len();
        writeln!(
            out,
            "registered {count} tool{} from {}:",
            if count == 1 { "" } else { "s" },
            target.display()
        )?;
        for tool in file.names() {
            writeln!(out, "  {tool}")?;
        }
    }
    Ok(Status::Success)
}

pub(crate) fn unregister(
    registry: &Registry,
    args: &UnregisterArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Status> {
    let name = args.name.as_str();
    let dir = tools_dir().map_err(UsageError)?;
    let Some(path) = yaml_files(&dir)
        .into_iter()
        .find(|path| ToolFile::load(path).is_ok_and(|file| file.names().contains(&name)))
    else {
        let why = if registry.contains(name) && registry.source_of(name).is_none() {
            format!(
                "`{name}` is a built-in tool, which cannot be unregistered; offer fewer tools with `hermes run --tools` or deny it in a permission profile"
            )
        } else {
            format!(
                "no tool named `{name}` was registered from a file in {}",
                dir.display()
            )
        };
        return Err(UsageError(why).into());
    };
    let text = std::fs::read_to_string(&path)?;
    match ToolFile::remove_tool(&text, name, &path)
        .map_err(|error| UsageError(error.to_string()))?
    {
        None => {
            std::fs::remove_file(&path)?;
            writeln!(
                out,
                "unregistered {name} (removed {}, its last tool)",
                path.display()
            )?;
        }
        Some(rest) => {
            write_atomically(&path, &rest)?;
            writeln!(out, "unregistered {name} (from {})", path.display())?;
        }
    }
    Ok(Status::Success)
}

/// Write `text` to `to` through a temporary file, so a reader (a running `hermes run`
/// watching the directory) never sees half a file.
fn write_atomically(to: &Path, text: &str) -> anyhow::Result<()> {
    let temp = to.with_extension("yaml.tmp");
    std::fs::write(&temp, text)?;
    std::fs::rename(&temp, to)?;
    Ok(())
}

//! [`ToolFile`]: one YAML file of tools, read and checked whole.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use hermes_core::{Registry, SourceSwap, Tool};

use super::definition::{self, Definition};
use super::error::{LoadError, Problem};
use super::raw;
use super::tool::HttpTool;

/// A checked YAML file of tools: every tool in it is valid, or it did not load.
///
/// ```no_run
/// use hermes_core::Registry;
/// use hermes_tools::yaml::ToolFile;
///
/// let registry = Registry::new();
/// let file = ToolFile::load("tools/custom_tools.yaml")?;
/// let swap = file.register(&registry)?;
/// println!("registered {:?}", swap.added);
/// # Ok::<(), hermes_tools::yaml::LoadError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ToolFile {
    path: PathBuf,
    definitions: Vec<Arc<Definition>>,
}

impl ToolFile {
    /// Read and check the file at `path`.
    ///
    /// # Errors
    ///
    /// [`LoadError::Io`] if it cannot be read; [`LoadError::Invalid`] with every problem
    /// found (unknown keys, wrong types, duplicate names, bad templates...), each with
    /// its line and column.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, LoadError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| LoadError::Io {
            file: path.to_path_buf(),
            source,
        })?;
        Self::parse(&text, path)
    }

    /// Check `text`, reporting problems against `path`.
    ///
    /// # Errors
    ///
    /// As [`load`](Self::load), without the I/O.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Self, LoadError> {
        let path = path.as_ref().to_path_buf();
        let invalid = |problems: Vec<Problem>| LoadError::Invalid {
            file: path.clone(),
            problems,
        };
        let raw = raw::parse(text).map_err(|problem| invalid(vec![problem]))?;
        let definitions = definition::check(&raw, text).map_err(invalid)?;
        Ok(Self {
            path,
            definitions: definitions.into_iter().map(Arc::new).collect(),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The source name its tools are registered under: the path as given.
    pub fn source(&self) -> String {
        self.path.display().to_string()
    }

    /// The tools' names, in file order.
    pub fn names(&self) -> Vec<&str> {
        self.definitions
            .iter()
            .map(|definition| definition.name.as_str())
            .collect()
    }

    /// The tools, ready to register.
    ///
    /// # Errors
    ///
    /// [`LoadError::Registry`] if a spec is refused (a schema that does not compile).
    pub fn tools(&self) -> Result<Vec<Arc<dyn Tool>>, LoadError> {
        self.definitions
            .iter()
            .map(|definition| {
                HttpTool::new(Arc::clone(definition))
                    .map(|tool| Arc::new(tool) as Arc<dyn Tool>)
                    .map_err(|source| LoadError::Registry {
                        file: self.path.clone(),
                        source,
                    })
            })
            .collect()
    }

    /// Swap this file's tools into `registry` as one change (see
    /// [`Registry::swap_source`]): tools it had before and no longer has are removed.
    ///
    /// # Errors
    ///
    /// [`LoadError::Registry`] if a name belongs to a tool from elsewhere; the registry is
    /// then unchanged.
    pub fn register(&self, registry: &Registry) -> Result<SourceSwap, LoadError> {
        registry
            .swap_source(&self.source(), self.tools()?)
            .map_err(|source| LoadError::Registry {
                file: self.path.clone(),
                source,
            })
    }

    /// `text` (this file's contents) without the tool `name`, for `hermes tool
    /// unregister`: its lines are cut out, comments and layout of the rest kept. `None`
    /// when no tool would be left (delete the file instead).
    ///
    /// # Errors
    ///
    /// [`LoadError::Invalid`] if `text` does not load, has no tool `name`, or would not
    /// load once it is cut (a file written in flow style, `tools: [{...}]`, cannot be cut
    /// by lines).
    pub fn remove_tool(
        text: &str,
        name: &str,
        path: impl AsRef<Path>,
    ) -> Result<Option<String>, LoadError> {
        let path = path.as_ref();
        let invalid = |message: String| LoadError::Invalid {
            file: path.to_path_buf(),
            problems: vec![Problem::new((0, 0), Some(name), message)],
        };
        let file = Self::parse(text, path)?;
        if file.names() == [name] {
            return Ok(None);
        }
        let raw = raw::parse(text).map_err(|problem| LoadError::Invalid {
            file: path.to_path_buf(),
            problems: vec![problem],
        })?;
        let index = raw
            .tools
            .iter()
            .position(|tool| tool.value.name.value.trim() == name)
            .ok_or_else(|| invalid(format!("the file has no tool named `{name}`")))?;
        let lines: Vec<&str> = text.lines().collect();
        // Comment lines right above the tool belong to it.
        let mut start = raw.tools[index].referenced.line();
        while start > 1
            && lines
                .get(start as usize - 2)
                .is_some_and(|line| line.trim_start().starts_with('#'))
        {
            start -= 1;
        }
        let end = raw.tools.get(index + 1).map(|next| next.referenced.line());
        let kept: Vec<&str> = lines
            .iter()
            .copied()
            .enumerate()
            .filter(|(i, _)| {
                let line = *i as u64 + 1;
                line < start || end.is_some_and(|end| line >= end)
            })
            .map(|(_, line)| line)
            .collect();
        let mut cut = kept.join("\n");
        cut.push('\n');
        match Self::parse(&cut, path) {
            Ok(rest)
                if !rest.names().contains(&name)
                    && rest.names().len() + 1 == file.names().len() =>
            {
                Ok(Some(cut))
            }
            _ => Err(invalid(format!(
                "cannot cut `{name}` out of the file line by line (is it written in flow style?); edit the file by hand"
            ))),
        }
    }

    /// What changed from `before` to this version: tools added, changed and removed,
    /// each sorted.
    pub fn changes_since(&self, before: &Self) -> (Vec<String>, Vec<String>, Vec<String>) {
        let find = |file: &Self, name: &str| {
            file.definitions
                .iter()
                .find(|definition| definition.name == name)
                .cloned()
        };
        let mut added = Vec::new();
        let mut changed = Vec::new();
        for definition in &self.definitions {
            match find(before, &definition.name) {
                None => added.push(definition.name.clone()),
                Some(old) if old != *definition => changed.push(definition.name.clone()),
                Some(_) => {}
            }
        }
        let mut removed: Vec<String> = before
            .definitions
            .iter()
            .filter(|old| find(self, &old.name).is_none())
            .map(|old| old.name.clone())
            .collect();
        added.sort();
        changed.sort();
        removed.sort();
        (added, changed, removed)
    }
}

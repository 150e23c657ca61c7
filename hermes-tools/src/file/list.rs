//! `list_directory`: what a directory holds, a few levels deep, bounded.

use std::fs::Metadata;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fs::{Stop, blocking, failure};
use super::walk::{Gitignore, Hidden, walk};
use crate::common::Shared;
use crate::common::paths::{display, resolve, workspace_root};
use crate::common::time::rfc3339;

/// Arguments of `list_directory`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The directory to list: relative to the workspace root, or absolute inside it
    /// (default: the workspace root).
    #[serde(default = "here")]
    path: String,
    /// How many levels to descend: 1 lists the directory's own entries (default 1, at
    /// most 5).
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 5))]
    depth: usize,
    /// Include hidden entries, whose names start with `.` (default false).
    #[serde(default)]
    include_hidden: bool,
    /// Leave out what `.gitignore` and `.ignore` files exclude (default false).
    #[serde(default)]
    respect_gitignore: bool,
    /// The most entries returned (default 200, at most 2000).
    #[serde(default = "default_max_entries")]
    #[schemars(range(min = 1, max = 2000))]
    max_entries: usize,
}

/// The default path: the workspace root.
fn here() -> String {
    ".".to_owned()
}

/// The default depth.
fn one() -> usize {
    1
}

/// The default entry cap.
fn default_max_entries() -> usize {
    200
}

/// One entry of the listing.
#[derive(Debug, Serialize)]
pub(crate) struct Entry {
    /// The file name.
    name: String,
    /// Relative to the workspace root.
    path: String,
    /// `file`, `dir`, `symlink` or `other` (a socket, a device...).
    #[serde(rename = "type")]
    kind: &'static str,
    /// Bytes, for files.
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    /// Last modification, RFC 3339 in UTC.
    #[serde(skip_serializing_if = "Option::is_none")]
    modified: Option<String>,
    /// Where a symbolic link points (not followed).
    #[serde(skip_serializing_if = "Option::is_none")]
    target: Option<String>,
}

/// What `list_directory` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The directory listed, relative to the workspace.
    path: String,
    /// Its entries, depth first, sorted by name.
    entries: Vec<Entry>,
    /// More entries exist than were returned.
    truncated: bool,
    /// What to know about the listing: a cut, unreadable entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// The `list_directory` tool.
#[derive(Debug)]
pub(crate) struct ListDirectory {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl ListDirectory {
    /// The tool, its spec built from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let spec = ToolSpec::builder(
            "list_directory",
            "List a directory of the workspace: each entry's name, path, type (file, dir, \
             symlink), size and modification time, `depth` levels deep (1 to 5), sorted by name. \
             Hidden entries (names starting with `.`) are left out unless include_hidden is \
             true; with respect_gitignore, so is what .gitignore excludes. Symbolic links are \
             shown with their target, never followed. At most max_entries are returned; `truncated` says there \
             were more.",
        )
        .parameters_for::<Args>()
        .tag(super::FAMILY_TAG)
        .scope(Scope::Read)
        .permission("file:read")
        .arg_kind("path", ArgKind::Path(Access::Read))
        .timeout(Duration::from_secs(30))
        .max_result_bytes(super::result_cap(shared))
        .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl TypedTool for ListDirectory {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let path = resolve(&self.shared, ctx, &args.path)?;
        let shown = display(&self.shared, ctx, &path);
        let root = workspace_root(&self.shared, ctx);
        let budget = self.shared.config.max_output_bytes();
        let stop = Stop::of("list_directory", ctx);
        blocking("list_directory", move || {
            let metadata =
                std::fs::metadata(&path).map_err(|error| failure("list", &shown, error))?;
            if !metadata.is_dir() {
                return Err(ToolError::failed(format!(
                    "`{shown}` is a file, not a directory; read it with file_read"
                )));
            }
            list(&path, &root, shown, &args, budget, &stop)
        })
        .await
    }
}

/// Walk `dir` as `args` ask, within `budget` bytes of entries.
fn list(
    dir: &Path,
    root: &Path,
    shown: String,
    args: &Args,
    budget: usize,
    stop: &Stop,
) -> Result<Output, ToolError> {
    let walker = walk(
        dir,
        Hidden::from_flag(args.include_hidden),
        Gitignore::from_flag(args.respect_gitignore),
        Some(args.depth),
    );
    let mut entries = Vec::new();
    let mut used = 0;
    let mut truncated = false;
    let mut unreadable = 0;
    for item in walker {
        stop.check()?;
        let Ok(item) = item else {
            unreadable += 1;
            continue;
        };
        if item.depth() == 0 {
            continue;
        }
        let Ok(metadata) = item.path().symlink_metadata() else {
            unreadable += 1;
            continue;
        };
        let entry = describe(item.path(), root, &metadata);
        used += entry.name.len() + entry.path.len() + 100;
        if entries.len() == args.max_entries || used > budget {
            truncated = true;
            break;
        }
        entries.push(entry);
    }
    let mut notes = Vec::new();
    if truncated {
        notes.push(format!(
            "only the first {} entries are shown: list a subdirectory, lower depth, or set respect_gitignore",
            entries.len()
        ));
    }
    if unreadable > 0 {
        notes.push(format!("{unreadable} entries could not be read"));
    }
    Ok(Output {
        path: shown,
        entries,
        truncated,
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    })
}

/// The entry for `path`, from its own (not followed) metadata.
fn describe(path: &Path, root: &Path, metadata: &Metadata) -> Entry {
    let file_type = metadata.file_type();
    let kind = if file_type.is_symlink() {
        "symlink"
    } else if file_type.is_dir() {
        "dir"
    } else if file_type.is_file() {
        "file"
    } else {
        "other"
    };
    Entry {
        name: path
            .file_name()
            .map_or_else(String::new, |name| name.to_string_lossy().into_owned()),
        path: super::shown_under(root, path),
        kind,
        size: file_type.is_file().then_some(metadata.len()),
        modified: metadata.modified().ok().map(rfc3339),
        target: file_type
            .is_symlink()
            .then(|| std::fs::read_link(path).ok())
            .flatten()
            .map(|target| target.display().to_string()),
    }
}

//! `file_delete`: remove a file, a symbolic link, or (with `recursive` and a human's
//! approval) a directory tree. Never the workspace root or anything above it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::fs::{Stop, blocking, failure};
use crate::common::Shared;
use crate::common::paths::{display, resolve, workspace_root};

/// Entries counted before a directory is called "more than" that many.
const MAX_COUNTED: u64 = 100_000;

/// Arguments of `file_delete`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The file, symbolic link or directory to delete: relative to the workspace root,
    /// or absolute inside it.
    path: String,
    /// Delete a directory and everything in it (default false: directories are refused).
    /// A human is asked to approve it first unless the directory is empty.
    #[serde(default)]
    recursive: bool,
}

/// What `file_delete` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// What was deleted, relative to the workspace.
    path: String,
    /// `file`, `symlink`, `directory` or `other`.
    deleted: &'static str,
    /// For a directory: the entries it held, at any depth.
    #[serde(skip_serializing_if = "Option::is_none")]
    entries: Option<u64>,
}

/// The `file_delete` tool.
#[derive(Debug)]
pub(crate) struct FileDelete {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl FileDelete {
    /// The tool, its spec built from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let spec = ToolSpec::builder(
            "file_delete",
            "Delete a file or symbolic link in the workspace (a link itself, never what it \
             points to). A directory is deleted only with recursive: true, with everything in \
             it, and only after a human approves (an empty one needs no approval). The \
             workspace root and the directories above it are never deleted. Returns what was \
             deleted and, for a directory, how many entries it held.",
        )
        .parameters_for::<Args>()
        .tag(super::FAMILY_TAG)
        .scope(Scope::Write)
        .permission("file:delete")
        .arg_kind("path", ArgKind::Path(Access::Delete))
        .timeout(Duration::from_secs(120))
        .max_result_bytes(4096)
        .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }

    /// What `raw` names for deletion: the link itself when its last component is a
    /// symbolic link (which [`resolve`] would follow), else the resolved path.
    fn target(&self, ctx: &ToolContext, raw: &str) -> Result<PathBuf, ToolError> {
        let resolved = resolve(&self.shared, ctx, raw)?;
        let raw_path = Path::new(raw);
        let (Some(parent), Some(name)) = (raw_path.parent(), raw_path.file_name()) else {
            return Ok(resolved);
        };
        let parent = if parent.as_os_str().is_empty() {
            "."
        } else {
            parent.to_str().unwrap_or(".")
        };
        let Ok(directory) = resolve(&self.shared, ctx, parent) else {
            return Ok(resolved);
        };
        let link = directory.join(name);
        let is_link = link
            .symlink_metadata()
            .is_ok_and(|metadata| metadata.file_type().is_symlink());
        Ok(if is_link { link } else { resolved })
    }
}

impl TypedTool for FileDelete {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let target = self.target(ctx, &args.path)?;
        let shown = display(&self.shared, ctx, &target);
        if workspace_root(&self.shared, ctx).starts_with(&target) {
            return Err(ToolError::failed(format!(
                "`{shown}` is the workspace root or contains it; it is never deleted. Delete the entries inside it one by one"
            )));
        }
        let file_type = target
            .symlink_metadata()
            .map_err(|error| failure("delete", &shown, error))?
            .file_type();
        if !file_type.is_dir() {
            remove(target, shown.clone(), Removal::Entry).await?;
            let deleted = if file_type.is_symlink() {
                "symlink"
            } else if file_type.is_file() {
                "file"
            } else {
                "other"
            };
            return Ok(Output {
                path: shown,
                deleted,
                entries: None,
            });
        }
        if !args.recursive {
            return Err(ToolError::failed(format!(
                "`{shown}` is a directory; pass recursive: true to delete it with everything in it (a human will be asked to approve)"
            )));
        }
        let stop = Stop::of("file_delete", ctx);
        let counted = {
            let (target, shown) = (target.clone(), shown.clone());
            blocking("file_delete", move || count_entries(&target, &shown, &stop)).await?
        };
        if counted > 0 && !ctx.was_approved() {
            let more = if counted >= MAX_COUNTED {
                "more than "
            } else {
                ""
            };
            let prompt = format!(
                "Delete the directory `{shown}` and everything in it ({more}{counted} entries)?"
            );
            let request = json!({"path": args.path, "recursive": true});
            ctx.ask_approval(&self.spec, &request, prompt, None).await?;
        }
        remove(target, shown.clone(), Removal::Tree).await?;
        Ok(Output {
            path: shown,
            deleted: "directory",
            entries: Some(counted),
        })
    }
}

/// What [`remove`] takes away.
#[derive(Debug, Clone, Copy)]
enum Removal {
    /// One directory entry that is not a directory: a file, a link, a socket.
    Entry,
    /// A directory and everything in it (links inside are removed, not followed).
    Tree,
}

/// Remove `target` (shown as `shown`) off the runtime's threads.
async fn remove(target: PathBuf, shown: String, removal: Removal) -> Result<(), ToolError> {
    blocking("file_delete", move || {
        match removal {
            Removal::Entry => fs::remove_file(&target),
            Removal::Tree => fs::remove_dir_all(&target),
        }
        .map_err(|error| failure("delete", &shown, error))
    })
    .await
}

/// The entries under `dir` at any depth (links not followed), up to [`MAX_COUNTED`].
fn count_entries(dir: &Path, shown: &str, stop: &Stop) -> Result<u64, ToolError> {
    let mut pending = vec![dir.to_path_buf()];
    let mut count = 0;
    while let Some(next) = pending.pop() {
        stop.check()?;
        let entries = fs::read_dir(&next).map_err(|error| failure("read", shown, error))?;
        for entry in entries {
            let entry = entry.map_err(|error: io::Error| failure("read", shown, error))?;
            count += 1;
            if count >= MAX_COUNTED {
                return Ok(count);
            }
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
                pending.push(entry.path());
            }
        }
    }
    Ok(count)
}

//! `file_delete`: remove a file, a symbolic link, or (with `recursive` and a human's
//! approval) a directory tree. Never the workspace root or anything above it.
//!
//! The entry is inspected and removed relative to its directory, opened once and
//! checked, and a tree is removed without following any link in it: a directory swapped
//! for a symbolic link mid-way cannot send the deletion elsewhere (see
//! [`crate::common::directory`]). An empty directory deleted without approval is removed only
//! while still empty.

use std::ffi::{OsStr, OsString};
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
use crate::common::directory::{Directory, Kind, Parents, is_link_found, link_race};
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
        let (Some(parent), Some(name)) = (target.parent(), target.file_name()) else {
            return Err(root_refused(&shown));
        };
        if workspace_root(&self.shared, ctx).starts_with(&target) {
            return Err(root_refused(&shown));
        }
        let name = name.to_os_string();
        let (directory, kind) = {
            let (parent, name, shown) = (parent.to_path_buf(), name.clone(), shown.clone());
            blocking("file_delete", move || inspect(&parent, &name, &shown)).await?
        };
        if kind != Kind::Directory {
            remove(directory, name, shown.clone(), Removal::Entry).await?;
            return Ok(Output {
                path: shown,
                deleted: match kind {
                    Kind::Symlink => "symlink",
                    Kind::File => "file",
                    Kind::Directory | Kind::Other => "other",
                },
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
        let removal = if ctx.was_approved() {
            Removal::Tree
        } else if counted == 0 {
            // Unapproved: only while still empty (it may fill between the count and now).
            Removal::Empty
        } else {
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
            Removal::Tree
        };
        remove(directory, name, shown.clone(), removal).await?;
        Ok(Output {
            path: shown,
            deleted: "directory",
            entries: Some(counted),
        })
    }
}

/// The refusal to delete the workspace root or a directory above it.
fn root_refused(shown: &str) -> ToolError {
    ToolError::failed(format!(
        "`{shown}` is the workspace root or contains it; it is never deleted. Delete the entries inside it one by one"
    ))
}

/// Open `parent` (link-free, checked) and look at its entry `name`, without following
/// a link: the directory the removal will name `name` against, and what `name` is.
fn inspect(parent: &Path, name: &OsStr, shown: &str) -> Result<(Directory, Kind), ToolError> {
    let directory = Directory::open(parent, Parents::MustExist).map_err(|error| {
        if is_link_found(&error) {
            link_race(shown)
        } else {
            failure("delete", shown, error)
        }
    })?;
    match directory.entry(name) {
        Ok(Some(entry)) => Ok((directory, entry.kind)),
        Ok(None) => Err(failure("delete", shown, io::ErrorKind::NotFound.into())),
        Err(error) => Err(failure("delete", shown, error)),
    }
}

/// What [`remove`] takes away.
#[derive(Debug, Clone, Copy)]
enum Removal {
    /// One directory entry that is not a directory: a file, a link, a socket.
    Entry,
    /// A directory that must be empty.
    Empty,
    /// A directory and everything in it (links inside are removed, not followed).
    Tree,
}

/// Remove the entry `name` of `directory` (shown as `shown`) off the runtime's threads.
async fn remove(
    directory: Directory,
    name: OsString,
    shown: String,
    removal: Removal,
) -> Result<(), ToolError> {
    blocking("file_delete", move || {
        remove_in(&directory, &name, removal).map_err(|error| match removal {
            Removal::Empty if error.kind() == io::ErrorKind::DirectoryNotEmpty => {
                ToolError::failed(format!(
                    "`{shown}` was empty when checked but holds entries now; call again to be asked about deleting them"
                ))
            }
            _ => failure("delete", &shown, error),
        })
    })
    .await
}

/// Remove `name` from `directory` as `removal` says.
fn remove_in(directory: &Directory, name: &OsStr, removal: Removal) -> io::Result<()> {
    match removal {
        Removal::Entry => directory.remove_entry(name),
        Removal::Empty => directory.remove_empty(name),
        Removal::Tree => directory.remove_tree(name),
    }
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

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use super::*;

    /// A workspace with `sub/a.txt` and `sub/tree/b.txt`, and an outside directory with
    /// the same names.
    fn setup() -> (tempfile::TempDir, tempfile::TempDir) {
        let (ws, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for root in [ws.path().join("sub"), outside.path().to_path_buf()] {
            fs::create_dir_all(root.join("tree")).unwrap();
            fs::write(root.join("a.txt"), "a").unwrap();
            fs::write(root.join("tree/b.txt"), "b").unwrap();
        }
        (ws, outside)
    }

    /// Open `ws/sub` as the tool does, then swap it for a link to `outside`.
    #[cfg(target_os = "linux")]
    fn open_then_swap(ws: &Path, outside: &Path) -> Directory {
        let (directory, kind) = inspect(&ws.join("sub"), OsStr::new("a.txt"), "sub/a.txt").unwrap();
        assert_eq!(kind, Kind::File);
        fs::rename(ws.join("sub"), ws.join("moved")).unwrap();
        symlink(outside, ws.join("sub")).unwrap();
        directory
    }

    /// Linux: the removals name entries relative to the directory that was checked (now
    /// `moved`); by path, they would go through the link and delete `outside`'s files.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_directory_swapped_for_a_link_after_the_check_loses_nothing_outside() {
        let (ws, outside) = setup();
        let directory = open_then_swap(ws.path(), outside.path());
        remove_in(&directory, OsStr::new("a.txt"), Removal::Entry).unwrap();
        remove_in(&directory, OsStr::new("tree"), Removal::Tree).unwrap();
        assert!(!ws.path().join("moved/a.txt").exists());
        assert!(!ws.path().join("moved/tree").exists());
        assert_eq!(
            fs::read_to_string(outside.path().join("a.txt")).unwrap(),
            "a"
        );
        assert_eq!(
            fs::read_to_string(outside.path().join("tree/b.txt")).unwrap(),
            "b"
        );
    }

    /// A link on the way when the directory is opened is refused before anything.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_link_on_the_way_when_opening_is_refused() {
        let (ws, outside) = setup();
        fs::remove_dir_all(ws.path().join("sub")).unwrap();
        symlink(outside.path(), ws.path().join("sub")).unwrap();
        let error = inspect(&ws.path().join("sub"), OsStr::new("a.txt"), "sub/a.txt").unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert!(outside.path().join("a.txt").exists());
    }

    /// Links inside a tree, to a directory and to a file outside, go as links.
    #[test]
    fn a_tree_is_removed_without_following_its_links() {
        let (ws, outside) = setup();
        let tree = ws.path().join("sub/tree");
        fs::create_dir_all(tree.join("deep/er")).unwrap();
        fs::write(tree.join("deep/er/c.txt"), "c").unwrap();
        symlink(outside.path(), tree.join("deep/to_dir")).unwrap();
        symlink(outside.path().join("a.txt"), tree.join("to_file")).unwrap();
        let directory = Directory::open(&ws.path().join("sub"), Parents::MustExist).unwrap();
        remove_in(&directory, OsStr::new("tree"), Removal::Tree).unwrap();
        assert!(!tree.exists());
        assert_eq!(
            fs::read_to_string(outside.path().join("a.txt")).unwrap(),
            "a"
        );
        assert_eq!(
            fs::read_to_string(outside.path().join("tree/b.txt")).unwrap(),
            "b"
        );
    }

    /// An unapproved removal of a directory counted empty fails once it holds entries.
    #[test]
    fn an_empty_removal_keeps_a_directory_that_filled_up() {
        let (ws, _outside) = setup();
        let directory = Directory::open(&ws.path().join("sub"), Parents::MustExist).unwrap();
        let error = remove_in(&directory, OsStr::new("tree"), Removal::Empty).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::DirectoryNotEmpty, "{error}");
        assert!(ws.path().join("sub/tree/b.txt").exists());
        fs::remove_file(ws.path().join("sub/tree/b.txt")).unwrap();
        remove_in(&directory, OsStr::new("tree"), Removal::Empty).unwrap();
        assert!(!ws.path().join("sub/tree").exists());
    }
}

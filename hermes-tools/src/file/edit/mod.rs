//! `file_edit`: change part of a text file, by exact search and replace ([`replace`]) or
//! by a unified diff ([`patch`]), and write it back atomically.

mod patch;
mod replace;

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{
    Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool, Violation,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::atomic;
use super::fs::{blocking, failure, regular_file};
use super::text::{self, Encoding, Kind};
use crate::common::Shared;
use crate::common::directory::Parents;
use crate::common::paths::{display, resolve};

/// The largest file edited.
const MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;

/// Arguments of `file_edit`: `old_text` and `new_text`, or `patch`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The file to edit: relative to the workspace root, or absolute inside it.
    path: String,
    /// Search-and-replace mode: the exact text to replace, whitespace and line breaks
    /// included. It must occur exactly once unless replace_all is true.
    old_text: Option<String>,
    /// Search-and-replace mode: the text to put in its place (empty to delete it).
    new_text: Option<String>,
    /// Replace every occurrence of old_text instead of requiring exactly one (default
    /// false).
    #[serde(default)]
    replace_all: bool,
    /// Patch mode, instead of old_text/new_text: a unified diff of this one file (`@@ -l,n
    /// +l,n @@` hunks with ` ` context, `-` removed and `+` added lines; `---`/`+++`
    /// headers optional). Every hunk's context and removed lines must match the file.
    patch: Option<String>,
}

/// A change made, in the new file's lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Change {
    /// The first line of the new text (for a pure removal: the line now where the
    /// removed text was).
    pub(crate) start: u64,
    /// The last line of the new text (equal to `start` for a pure removal).
    pub(crate) end: u64,
    /// Lines of new text.
    pub(crate) added: u64,
    /// Lines of old text taken out.
    pub(crate) removed: u64,
}

/// An edit computed in memory, before it is written.
#[derive(Debug)]
pub(crate) struct Edited {
    /// The new text of the file.
    pub(crate) text: String,
    /// Where it changed.
    pub(crate) changes: Vec<Change>,
    /// What the model should know (a match made with CRLF line ends, say).
    pub(crate) notes: Vec<String>,
}

/// What `file_edit` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The file, relative to the workspace.
    path: String,
    /// `replace` or `patch`.
    mode: &'static str,
    /// Replacements made, or hunks applied.
    edits: usize,
    /// Where the new file changed.
    changed_lines: Vec<Change>,
    /// The file's size after the edit.
    bytes: usize,
    /// What to know about how the edit applied.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<String>,
}

/// Which kind of edit a call asks for.
#[derive(Debug)]
enum Request {
    /// Replace `old` with `new`, once or (`all`) everywhere.
    Replace {
        /// The exact text to find.
        old: String,
        /// Its replacement.
        new: String,
        /// Every occurrence rather than exactly one.
        all: bool,
    },
    /// Apply a unified diff.
    Patch(String),
}

impl Request {
    /// The request `args` make, or why they make none.
    fn of(args: Args) -> Result<Self, ToolError> {
        let refuse = |path: &str, message: &str| ToolError::InvalidArguments {
            violations: vec![Violation::new(path, "oneOf", message)],
        };
        match (args.old_text, args.new_text, args.patch) {
            (Some(_), _, Some(_)) | (_, Some(_), Some(_)) => Err(refuse(
                "/patch",
                "give either old_text and new_text, or patch, not both",
            )),
            (None, None, Some(patch)) => Ok(Self::Patch(patch)),
            (Some(old), Some(new), None) => {
                if old.is_empty() {
                    return Err(refuse(
                        "/old_text",
                        "old_text is empty; give the exact text to replace (to write a whole file, use file_write)",
                    ));
                }
                if old == new {
                    return Err(refuse(
                        "/new_text",
                        "new_text is the same as old_text; nothing would change",
                    ));
                }
                Ok(Self::Replace {
                    old,
                    new,
                    all: args.replace_all,
                })
            }
            (Some(_), None, None) => Err(refuse(
                "/new_text",
                "old_text needs new_text (an empty string deletes the text)",
            )),
            (None, Some(_), None) => Err(refuse(
                "/old_text",
                "new_text needs old_text, the exact text it replaces",
            )),
            (None, None, None) => Err(refuse(
                "",
                "give old_text and new_text (search and replace), or patch (a unified diff)",
            )),
        }
    }

    /// `replace` or `patch`.
    fn mode(&self) -> &'static str {
        match self {
            Self::Replace { .. } => "replace",
            Self::Patch(_) => "patch",
        }
    }

    /// The edit of `text` (the file shown as `shown`).
    fn apply(&self, text: &str, shown: &str) -> Result<Edited, ToolError> {
        match self {
            Self::Replace { old, new, all } => replace::apply(text, old, new, *all, shown),
            Self::Patch(patch) => patch::apply(text, patch, shown),
        }
    }
}

/// The `file_edit` tool.
#[derive(Debug)]
pub(crate) struct FileEdit {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl FileEdit {
    /// The tool, its spec built from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let spec = ToolSpec::builder(
            "file_edit",
            "Edit a UTF-8 text file in place. Either replace old_text (exact, whitespace \
             included; it must occur once, or pass replace_all) with new_text, or apply `patch`, \
             a unified diff whose context must match the file. Nothing is written when the edit \
             does not apply: the error says where it failed (no match: the closest line; several \
             matches: their lines). Writes atomically and returns the changed line ranges of the \
             new file. Files up to 10 MiB.",
        )
        .parameters_for::<Args>()
        .tag(super::FAMILY_TAG)
        .scope(Scope::Write)
        .permission("file:write")
        .arg_kind("path", ArgKind::Path(Access::Write))
        .timeout(Duration::from_secs(30))
        .max_result_bytes(16 * 1024)
        .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl TypedTool for FileEdit {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let path = resolve(&self.shared, ctx, &args.path)?;
        let shown = display(&self.shared, ctx, &path);
        let request = Request::of(args)?;
        blocking("file_edit", move || edit(&path, shown, &request)).await
    }
}

/// Read, edit and write back the file at `path`.
fn edit(path: &Path, shown: String, request: &Request) -> Result<Output, ToolError> {
    let (bom, text) = read_text(path, &shown)?;
    let edited = request.apply(&text, &shown)?;
    let bytes = bom.len() + edited.text.len();
    atomic::replace(path, &shown, Parents::MustExist, |file| {
        file.write_all(bom)?;
        file.write_all(edited.text.as_bytes())
    })?;
    Ok(Output {
        path: shown,
        mode: request.mode(),
        edits: edited.changes.len(),
        changed_lines: edited.changes,
        bytes,
        notes: edited.notes,
    })
}

/// The file's text, with its UTF-8 byte-order mark (if any) apart.
fn read_text(path: &Path, shown: &str) -> Result<(&'static [u8], String), ToolError> {
    let metadata = regular_file(path, shown, "edit")?;
    if metadata.len() > MAX_FILE_BYTES {
        return Err(ToolError::failed(format!(
            "`{shown}` is {} bytes, over file_edit's limit of {MAX_FILE_BYTES}; edit it with a command instead",
            metadata.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|error| failure("read", shown, error))?;
    let head = &bytes[..bytes.len().min(text::SNIFF_BYTES)];
    let (bom, body): (&'static [u8], &[u8]) = match text::classify(head) {
        Kind::Text(Encoding::Utf8) => (b"", &bytes),
        Kind::Text(Encoding::Utf8Bom) => (b"\xEF\xBB\xBF", &bytes[3..]),
        Kind::Text(encoding) => {
            return Err(ToolError::failed(format!(
                "`{shown}` is {}; file_edit edits UTF-8 files only: rewrite it with file_write",
                encoding.name()
            )));
        }
        Kind::Binary => {
            return Err(ToolError::failed(format!(
                "`{shown}` is a binary file; file_edit edits text files only"
            )));
        }
    };
    let text = String::from_utf8(body.to_vec()).map_err(|error| {
        ToolError::failed(format!(
            "`{shown}` is not valid UTF-8 (at byte {}); file_edit would corrupt it: rewrite it with file_write or a command",
            error.utf8_error().valid_up_to()
        ))
    })?;
    Ok((bom, text))
}

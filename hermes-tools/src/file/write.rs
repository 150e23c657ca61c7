//! `file_write`: create or replace a text file, atomically.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::atomic::{self, Replaced};
use super::fs::blocking;
use crate::common::Shared;
use crate::common::directory::Parents;
use crate::common::paths::{display, resolve};

/// The largest content one call writes.
const MAX_CONTENT_BYTES: usize = 10 * 1024 * 1024;

/// Arguments of `file_write`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The file to write: relative to the workspace root, or absolute inside it.
    path: String,
    /// The whole new content of the file (UTF-8 text).
    content: String,
    /// Create the file's missing parent directories (default false: a missing directory
    /// is an error).
    #[serde(default)]
    create_dirs: bool,
}

/// What `file_write` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The file, relative to the workspace.
    path: String,
    /// `created` or `overwrote`.
    action: &'static str,
    /// The content's size.
    bytes_written: usize,
}

/// The `file_write` tool.
#[derive(Debug)]
pub(crate) struct FileWrite {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl FileWrite {
    /// The tool, its spec built from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let spec = ToolSpec::builder(
            "file_write",
            "Write a text file in the workspace, replacing it whole if it exists. The write is \
             atomic (a temporary file renamed over the old one) and keeps an existing file's \
             permissions; read-only files are refused. A missing parent directory is an error \
             unless create_dirs is true. Returns the path, `created` or `overwrote`, and the \
             bytes written (at most 10 MiB per call). To change part of a file, use file_edit.",
        )
        .parameters_for::<Args>()
        .tag(super::FAMILY_TAG)
        .scope(Scope::Write)
        .permission("file:write")
        .arg_kind("path", ArgKind::Path(Access::Write))
        .timeout(Duration::from_secs(30))
        .max_result_bytes(4096)
        .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl TypedTool for FileWrite {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        if args.content.len() > MAX_CONTENT_BYTES {
            return Err(ToolError::failed(format!(
                "the content is {} bytes, over the limit of {MAX_CONTENT_BYTES}; write the file in parts (file_write, then file_edit) or generate it with a command",
                args.content.len()
            )));
        }
        let path = resolve(&self.shared, ctx, &args.path)?;
        let shown = display(&self.shared, ctx, &path);
        let parents = if args.create_dirs {
            Parents::Create
        } else {
            Parents::MustExist
        };
        blocking("file_write", move || {
            let content = args.content;
            let replaced = atomic::replace(&path, &shown, parents, |file| {
                file.write_all(content.as_bytes())
            })?;
            Ok(Output {
                path: shown,
                action: match replaced {
                    Replaced::Created => "created",
                    Replaced::Overwrote => "overwrote",
                },
                bytes_written: content.len(),
            })
        })
        .await
    }
}

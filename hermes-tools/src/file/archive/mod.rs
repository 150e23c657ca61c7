//! `archive`: create zip and tar.gz archives from workspace paths, and extract them
//! safely.
//!
//! Extraction refuses archives that try to leave their destination (`..`, absolute
//! paths, links pointing out) and stops archive bombs ([`limits`]); it works in a
//! staging directory and moves the result into place only when every entry passed, so
//! a refused archive leaves nothing behind. Symbolic links are never created: those
//! pointing inside the destination are skipped and reported, those pointing outside
//! make the whole archive refused. Hard links inside are extracted as copies.

mod create;
mod extract;
mod limits;
mod names;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{
    Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool, Violation,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::fs::{Stop, blocking};
use crate::common::Shared;
use crate::common::paths::{display, resolve, workspace_root};

pub(crate) use create::Created;
pub(crate) use extract::Extracted;

/// Sources one call may name.
const MAX_SOURCES: usize = 100;

/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Action {
    /// Make an archive from `sources`.
    Create,
    /// Unpack an archive into `destination`.
    Extract,
}

/// The archive format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
pub(crate) enum Format {
    /// A zip file (entries deflated).
    #[serde(rename = "zip")]
    Zip,
    /// A gzip-compressed tar file.
    #[serde(rename = "tar.gz")]
    TarGz,
}

impl Format {
    /// The name shown to the model.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Zip => "zip",
            Self::TarGz => "tar.gz",
        }
    }

    /// The format an archive's name says: `.zip`, `.tar.gz` or `.tgz`.
    pub(super) fn from_extension(path: &Path) -> Option<Self> {
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        if name.ends_with(".zip") {
            Some(Self::Zip)
        } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
            Some(Self::TarGz)
        } else {
            None
        }
    }

    /// The format an existing archive's first bytes say.
    pub(super) fn from_magic(path: &Path) -> Option<Self> {
        use std::io::Read;
        let mut head = [0u8; 4];
        let mut file = std::fs::File::open(path).ok()?;
        file.read_exact(&mut head).ok()?;
        match head {
            [b'P', b'K', 3 | 5, 4 | 6] => Some(Self::Zip),
            [0x1F, 0x8B, _, _] => Some(Self::TarGz),
            _ => None,
        }
    }
}

/// Arguments of `archive`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// `create` an archive from `sources`, or `extract` one into `destination`.
    action: Action,
    /// The archive file (written by create, read by extract): relative to the workspace
    /// root, or absolute inside it.
    archive: String,
    /// `zip` or `tar.gz` (default: from the archive's extension, `.zip`, `.tar.gz` or
    /// `.tgz`, or for extract from its content).
    format: Option<Format>,
    /// For create: the files and directories to archive (directories with everything in
    /// them, hidden files included; symbolic links are left out). Entries are named by
    /// their path relative to the workspace root.
    #[schemars(length(min = 1, max = 100))]
    sources: Option<Vec<String>>,
    /// For extract: the directory to extract into (created if missing).
    destination: Option<String>,
    /// Create: replace an existing archive. Extract: replace existing files in the
    /// destination. Default false: both are refused.
    #[serde(default)]
    overwrite: bool,
}

/// What `archive` returns.
#[derive(Debug, Serialize)]
#[serde(tag = "action", rename_all = "lowercase")]
pub(crate) enum Output {
    /// An archive was made.
    Create(Created),
    /// An archive was unpacked.
    Extract(Extracted),
}

/// The `archive` tool.
#[derive(Debug)]
pub(crate) struct Archive {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl Archive {
    /// The tool, its spec built from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let description = format!(
            "Create a zip or tar.gz archive from workspace files and directories, or extract one \
             into a directory. Extraction is all or nothing: it refuses entries that would land \
             outside the destination (`..`, absolute paths, links pointing out), archives over \
             {} entries, {} MiB in all, {} MiB per entry or a compression ratio of {}:1 (bombs), \
             and existing files unless overwrite is true; symbolic links are never created \
             (they are reported as skipped). Returns the counts of files, directories and \
             bytes, and what was skipped.",
            limits::MAX_ENTRIES,
            limits::MAX_TOTAL_BYTES / (1024 * 1024),
            limits::MAX_ENTRY_BYTES / (1024 * 1024),
            limits::MAX_RATIO,
        );
        let spec = ToolSpec::builder("archive", description)
            .parameters_for::<Args>()
            .tag(super::FAMILY_TAG)
            .scope(Scope::Write)
            .permission("file:write")
            .permission("file:read")
            .arg_kind("archive", ArgKind::Path(Access::Write))
            .arg_kind("destination", ArgKind::Path(Access::Write))
            .arg_kind("sources", ArgKind::Path(Access::Read))
            .timeout(Duration::from_secs(300))
            .max_result_bytes(32 * 1024)
            .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl Archive {
    /// Make the archive at `archive` (shown as `shown`) from `args.sources`.
    async fn create(
        &self,
        args: Args,
        ctx: &ToolContext,
        archive: PathBuf,
        shown: String,
    ) -> Result<Created, ToolError> {
        let raw = args.sources.unwrap_or_default();
        if raw.is_empty() || raw.len() > MAX_SOURCES {
            return Err(invalid(
                "/sources",
                format!("create needs sources: 1 to {MAX_SOURCES} files or directories to archive"),
            ));
        }
        let format = args
            .format
            .or_else(|| Format::from_extension(&archive))
            .ok_or_else(|| {
                invalid(
                    "/format",
                    format!("`{shown}` has no .zip, .tar.gz or .tgz extension; pass format"),
                )
            })?;
        let mut sources = Vec::with_capacity(raw.len());
        for source in &raw {
            let path = resolve(&self.shared, ctx, source)?;
            let name = display(&self.shared, ctx, &path);
            sources.push(create::Source { path, name });
        }
        let request = create::Request {
            archive,
            shown,
            format,
            overwrite: args.overwrite,
            root: workspace_root(&self.shared, ctx),
        };
        let stop = Stop::of("archive", ctx);
        blocking("archive", move || create::create(&request, &sources, &stop)).await
    }

    /// Unpack the archive at `archive` (shown as `shown`) into `args.destination`.
    async fn extract(
        &self,
        args: Args,
        ctx: &ToolContext,
        archive: PathBuf,
        shown: String,
    ) -> Result<Extracted, ToolError> {
        let Some(destination) = args.destination else {
            return Err(invalid(
                "/destination",
                "extract needs destination: the directory to extract into".to_owned(),
            ));
        };
        let destination = resolve(&self.shared, ctx, &destination)?;
        let request = extract::Request {
            archive,
            shown,
            format: args.format,
            shown_destination: display(&self.shared, ctx, &destination),
            destination,
            overwrite: args.overwrite,
        };
        let stop = Stop::of("archive", ctx);
        blocking("archive", move || extract::extract(&request, &stop)).await
    }
}

impl TypedTool for Archive {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let archive = resolve(&self.shared, ctx, &args.archive)?;
        let shown = display(&self.shared, ctx, &archive);
        match args.action {
            Action::Create => self
                .create(args, ctx, archive, shown)
                .await
                .map(Output::Create),
            Action::Extract => self
                .extract(args, ctx, archive, shown)
                .await
                .map(Output::Extract),
        }
    }
}

/// An argument problem found after the schema passed.
pub(super) fn invalid(path: &str, message: String) -> ToolError {
    ToolError::InvalidArguments {
        violations: vec![Violation::new(path, "required", message)],
    }
}

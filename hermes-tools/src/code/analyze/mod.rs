//! `code_analyze`: the outline of a source file (its functions, types and methods with
//! their lines) and its line counts, from a tree-sitter parse.

mod classify;
mod language;
mod lines;
mod outline;

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Access, ArgKind, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{FAMILY_TAG, text_file};
use crate::common::Shared;
use language::Language;
use lines::LineCounts;
use outline::Definition;

/// The largest file analysed, in bytes.
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The `code_analyze` tool.
#[derive(Debug)]
pub(crate) struct CodeAnalyze {
    spec: ToolSpec,
    shared: Arc<Shared>,
}

/// The arguments of `code_analyze`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CodeAnalyzeArgs {
    /// The source file, relative to the workspace.
    #[schemars(length(min = 1))]
    path: String,
    /// The language, when the extension does not tell it (`.rs`, `.py`, `.js`, `.ts`,
    /// `.tsx`, `.go` and their variants do).
    language: Option<Language>,
    /// The most definitions to list.
    #[serde(default = "default_max_definitions")]
    #[schemars(range(min = 1, max = 2000))]
    max_definitions: usize,
}

fn default_max_definitions() -> usize {
    300
}

/// What `code_analyze` returns.
#[derive(Debug, Serialize)]
pub(crate) struct CodeAnalyzeReport {
    /// The file, relative to the workspace when inside it.
    path: String,
    /// The language it was read as.
    language: Language,
    /// Its line counts.
    lines: LineCounts,
    /// Its definitions in source order: kind, name, parent, 1-based lines.
    definitions: Vec<Definition>,
    /// How many definitions there are in all.
    definitions_total: usize,
    /// Whether definitions were left out (raise `max_definitions` to see them).
    truncated: bool,
    /// Whether the file has syntax errors, so definitions may be missing.
    syntax_errors: bool,
}

impl CodeAnalyze {
    /// The tool.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, hermes_core::Error> {
        let spec = ToolSpec::builder(
            "code_analyze",
            "Outline a Rust, Python, JavaScript, TypeScript (.tsx too) or Go source file: \
             its definitions with their lines, and its line counts. It lists functions, \
             methods (with their class, impl, trait or interface), classes, structs, enums, \
             traits, interfaces and types with 1-based line ranges, and counts total, blank, \
             comment and code lines. Use it to find your way in a file before reading parts \
             of it.",
        )
        .parameters_for::<CodeAnalyzeArgs>()
        .tag(FAMILY_TAG)
        .scope(Scope::Read)
        .permission("file:read")
        .arg_kind("path", ArgKind::Path(Access::Read))
        .timeout(Duration::from_secs(30))
        .max_result_bytes(192 * 1024)
        .build()?;
        Ok(Self {
            spec,
            shared: Arc::clone(shared),
        })
    }
}

impl TypedTool for CodeAnalyze {
    type Args = CodeAnalyzeArgs;
    type Output = CodeAnalyzeReport;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: CodeAnalyzeArgs,
        ctx: &ToolContext,
    ) -> Result<CodeAnalyzeReport, ToolError> {
        let file = text_file::read(&self.shared, ctx, &args.path, MAX_FILE_BYTES).await?;
        let Some(language) = args.language.or_else(|| Language::of(&file.path)) else {
            return Err(ToolError::failed(format!(
                "cannot tell the language of `{}` from its extension; give `language` \
                 (rust, python, javascript, typescript, tsx or go)",
                file.shown
            )));
        };
        let max = args.max_definitions.clamp(1, 2000);
        let text = file.text;
        let outline = tokio::task::spawn_blocking(move || outline::outline(&text, language, max))
            .await
            .map_err(|error| ToolError::failed_with("the analysis stopped unexpectedly", error))?
            .map_err(|reason| {
                ToolError::failed(format!("cannot analyse `{}`: {reason}", file.shown))
            })?;
        Ok(CodeAnalyzeReport {
            path: file.shown,
            language,
            lines: outline.lines,
            truncated: outline.total > outline.definitions.len(),
            definitions_total: outline.total,
            definitions: outline.definitions,
            syntax_errors: outline.syntax_errors,
        })
    }
}

//! `pdf_read`: a PDF's page count, metadata and the text of a range of pages, within
//! the output cap.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{
    Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool, Violation,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::blocking::{Stop, blocking};
use super::source::{self, Source};
use super::{FAMILY_TAG, pdf_text, result_cap};
use crate::common::Shared;
use crate::common::output::truncate_middle;

/// The largest PDF read.
const MAX_FILE_BYTES: u64 = 256 * 1024 * 1024;
/// The most pages one call returns.
const MAX_PAGES: u32 = 200;

/// Arguments of `pdf_read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Args {
    /// The PDF: relative to the workspace root, or absolute inside it.
    #[schemars(length(min = 1, max = 4096))]
    path: String,
    /// The first page to return, 1-based (default 1).
    #[schemars(range(min = 1))]
    first_page: Option<u32>,
    /// The last page to return, inclusive (default: the last page, or as far as the size
    /// cap allows).
    #[schemars(range(min = 1))]
    last_page: Option<u32>,
    /// Return the pages' text (default true); false gives page count and metadata only.
    #[serde(default = "yes")]
    include_text: bool,
}

/// The default of `include_text`.
fn yes() -> bool {
    true
}

/// What `pdf_read` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The PDF, relative to the workspace.
    path: String,
    /// Pages in the document.
    page_count: u32,
    /// The PDF version (`1.7`...).
    pdf_version: String,
    /// The document information the file has: Title, Author, Subject, Keywords,
    /// Creator, Producer, CreationDate, ModDate (dates as ISO 8601).
    metadata: BTreeMap<String, String>,
    /// The pages returned, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pages: Vec<Page>,
    /// Text was cut at the size cap.
    truncated: bool,
    /// Where to continue after a cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_page: Option<u32>,
    /// Something to know: pages without text, cuts.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// The text of one page.
#[derive(Debug, Serialize)]
pub(crate) struct Page {
    /// Its number, 1-based.
    page: u32,
    /// Its text, in content order.
    text: String,
    /// Why its text could not be extracted, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The `pdf_read` tool.
#[derive(Debug)]
pub(crate) struct PdfRead {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl PdfRead {
    /// The tool, its spec built from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let cap = shared.config.max_output_bytes();
        let description = format!(
            "Read a PDF in the workspace. Returns page_count, pdf_version, metadata (Title, \
             Author, Subject, Keywords, Creator, Producer, CreationDate, ModDate where \
             present) and the text of pages first_page..last_page (1-based, inclusive; at \
             most {MAX_PAGES} a call) as `pages`: [{{page, text}}]. Text beyond {} KiB is cut \
             and `truncated` is set: continue from next_page. Scanned pages without a text \
             layer come back empty (no OCR); password-protected PDFs are refused.",
            cap / 1024
        );
        let spec = ToolSpec::builder("pdf_read", description)
            .parameters_for::<Args>()
            .tag(FAMILY_TAG)
            .scope(Scope::Read)
            .permission("file:read")
            .arg_kind("path", ArgKind::Path(Access::Read))
            .timeout(Duration::from_secs(120))
            .max_result_bytes(result_cap(shared))
            .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl TypedTool for PdfRead {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let first = args.first_page.unwrap_or(1).max(1);
        if let Some(last) = args.last_page.filter(|&last| last < first) {
            return Err(ToolError::InvalidArguments {
                violations: vec![Violation::new(
                    "/last_page",
                    "minimum",
                    format!(
                        "last_page ({last}) is before first_page ({first}); ask for last_page >= first_page"
                    ),
                )],
            });
        }
        let source = source::open(&self.shared, ctx, &args.path, MAX_FILE_BYTES).await?;
        let request = Request {
            first,
            last: args.last_page,
            include_text: args.include_text,
            budget: self.shared.config.max_output_bytes(),
        };
        let stop = Stop::of("pdf_read", ctx);
        blocking("pdf_read", move || read(source, &request, &stop)).await
    }
}

/// The pages asked for and the room for their text.
#[derive(Debug)]
struct Request {
    /// The first page, 1-based.
    first: u32,
    /// The last page, inclusive, if given.
    last: Option<u32>,
    /// Whether to extract text.
    include_text: bool,
    /// The most bytes of text returned.
    budget: usize,
}

/// Load the PDF and read the pages of `request`. Blocking.
fn read(source: Source, request: &Request, stop: &Stop) -> Result<Output, ToolError> {
    let document = pdf_text::load(&source.path, &source.shown)?;
    let page_count = u32::try_from(document.get_pages().len()).unwrap_or(u32::MAX);
    let mut output = Output {
        pdf_version: document.version.clone(),
        metadata: pdf_text::metadata(&document),
        path: source.shown,
        page_count,
        pages: Vec::new(),
        truncated: false,
        next_page: None,
        note: None,
    };
    if !request.include_text {
        return Ok(output);
    }
    if request.first > page_count {
        return Err(ToolError::failed(format!(
            "`{}` has {page_count} page(s); first_page {} is past the end",
            output.path, request.first
        )));
    }
    let asked_last = request.last.unwrap_or(page_count).min(page_count);
    let last = asked_last.min(request.first.saturating_add(MAX_PAGES - 1));
    let mut left = request.budget;
    let mut empty = 0;
    for number in request.first..=last {
        stop.check()?;
        let (mut text, error) = match pdf_text::page_text(&document, number) {
            Ok(text) => (text, None),
            Err(why) => (String::new(), Some(why)),
        };
        if text.trim().is_empty() {
            empty += 1;
        }
        if text.len() > left {
            if output.pages.is_empty() || left >= request.budget / 4 {
                // A page too large alone: its head and tail, and go on from the next.
                text = truncate_middle(text, left);
                output.pages.push(Page {
                    page: number,
                    text,
                    error,
                });
                output.truncated = true;
                output.next_page = (number < asked_last).then_some(number + 1);
            } else {
                output.truncated = true;
                output.next_page = Some(number);
            }
            break;
        }
        left -= text.len();
        output.pages.push(Page {
            page: number,
            text,
            error,
        });
    }
    if !output.truncated && last < asked_last {
        output.truncated = true;
        output.next_page = Some(last + 1);
    }
    output.note = note(&output, empty);
    Ok(output)
}

/// What the model should know about `output`.
fn note(output: &Output, empty: usize) -> Option<String> {
    let mut notes = Vec::new();
    if output.truncated {
        match output.next_page {
            Some(next) => notes.push(format!(
                "the text was cut at the size cap; call again with first_page {next} for more"
            )),
            None => notes.push("the last page's text was cut at the size cap".to_owned()),
        }
    }
    if empty > 0 && empty == output.pages.len() {
        notes.push(
            "no text was found on these pages: they may be scanned images (no OCR here)".to_owned(),
        );
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}

//! `web_fetch`: a web page as readable Markdown or text, with its title and links.

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::html::{self, Format, Link};
use super::web::{Page, Web};
use crate::common::blocking::blocking;
use crate::common::output::truncate_middle;

/// How long a fetch may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Arguments of `web_fetch`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The absolute http:// or https:// URL of the page.
    #[schemars(url)]
    url: String,
    /// `markdown` keeps headings, lists and links; `text` is plain.
    #[serde(default)]
    format: FetchFormat,
    /// The most links to list.
    #[serde(default = "default_max_links")]
    #[schemars(range(max = 200))]
    max_links: usize,
}

fn default_max_links() -> usize {
    50
}

/// The rendering asked for.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FetchFormat {
    /// Markdown.
    #[default]
    Markdown,
    /// Plain text.
    Text,
}

/// What `web_fetch` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The page's URL, after redirects.
    url: String,
    /// The page's title.
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    /// The `Content-Type` it was served with.
    content_type: String,
    /// The main content.
    content: String,
    /// The content was cut to fit.
    truncated: bool,
    /// Links in the content.
    links: Vec<Link>,
    /// How many distinct links there were (more than listed when capped).
    total_links: usize,
}

/// The `web_fetch` tool.
#[derive(Debug)]
pub(crate) struct WebFetch {
    /// The family's shared state.
    web: Arc<Web>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl WebFetch {
    /// The tool, its spec built from the settings.
    pub(crate) fn new(web: &Arc<Web>) -> Result<Self, Error> {
        let description = format!(
            "Fetch a web page and return its main content as Markdown (or plain text), without \
             navigation, scripts and other page furniture, plus its title and links (absolute \
             URLs). Text and JSON responses come back as they are. Content is cut to {} KiB \
             (truncated says so). Fails on an error status, naming it.",
            web.text_cap() / 1024
        );
        let spec = ToolSpec::builder("web_fetch", description)
            .parameters_for::<Args>()
            .tag(super::FAMILY_TAG)
            .scope(Scope::Read)
            .permission("network:fetch")
            .arg_kind("url", ArgKind::Url)
            .timeout(TIMEOUT + Duration::from_secs(10))
            .max_result_bytes(super::result_cap(web))
            .build()?;
        Ok(Self {
            web: Arc::clone(web),
            spec,
        })
    }
}

impl TypedTool for WebFetch {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, _ctx: &ToolContext) -> Result<Output, ToolError> {
        let page = self
            .web
            .get(
                &args.url,
                "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
                TIMEOUT,
            )
            .await?;
        let format = match args.format {
            FetchFormat::Markdown => Format::Markdown,
            FetchFormat::Text => Format::Text,
        };
        let cap = self.web.text_cap();
        let max_links = args.max_links.min(200);
        let read = blocking("web_fetch", move || render(page, format, max_links)).await?;
        let truncated = read.truncated || read.content.len() > cap;
        Ok(Output {
            content: truncate_middle(read.content, cap),
            truncated,
            ..read
        })
    }
}

/// `page` rendered, before the content is capped.
fn render(page: Page, format: Format, max_links: usize) -> Result<Output, ToolError> {
    let kind = crate::common::http::body::essence(&page.content_type);
    let text = page.body.text();
    let url = page.url.to_string();
    if kind.is_empty() || kind.contains("html") {
        let readable = html::readable(&text, &page.url, format, max_links)?;
        return Ok(Output {
            url,
            title: readable.title,
            content_type: page.content_type,
            content: readable.content,
            truncated: page.body.truncated,
            links: readable.links,
            total_links: readable.total_links,
        });
    }
    if kind.starts_with("text/") || kind.contains("json") || kind.contains("xml") {
        return Ok(Output {
            url,
            title: None,
            content_type: page.content_type,
            content: text,
            truncated: page.body.truncated,
            links: Vec::new(),
            total_links: 0,
        });
    }
    Err(ToolError::failed(format!(
        "`{url}` is {kind}, not a page to read; use download_file to save it"
    )))
}

//! `web_extract`: the elements of a page that match a CSS selector: their text and the
//! attributes asked for.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool, Violation};
use schemars::JsonSchema;
use scraper::{Html, Selector};
use serde::{Deserialize, Serialize};

use super::html::collapse;
use super::web::Web;
use crate::common::blocking::blocking;
use crate::common::output::truncate_middle;

/// How long a fetch may take.
const TIMEOUT: Duration = Duration::from_secs(30);
/// The most text kept of one element.
const MAX_ELEMENT_TEXT: usize = 4096;

/// Arguments of `web_extract`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The absolute http:// or https:// URL of the page.
    #[schemars(url)]
    url: String,
    /// A CSS selector, e.g. `table.prices td`, `a[href$=".pdf"]`, `h2`.
    #[schemars(length(min = 1, max = 1000))]
    selector: String,
    /// Attributes to return for each element (e.g. `href`, `src`); none by default.
    #[serde(default)]
    attributes: Vec<String>,
    /// Include each element's outer HTML.
    #[serde(default)]
    include_html: bool,
    /// The most elements to return.
    #[serde(default = "default_max_results")]
    #[schemars(range(min = 1, max = 500))]
    max_results: usize,
}

fn default_max_results() -> usize {
    50
}

/// One matching element.
#[derive(Debug, Serialize)]
pub(crate) struct Element {
    /// Its tag name.
    tag: String,
    /// Its text, whitespace collapsed.
    text: String,
    /// The attributes asked for that it has.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    attributes: BTreeMap<String, String>,
    /// Its outer HTML, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    html: Option<String>,
}

/// What `web_extract` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The page's URL, after redirects.
    url: String,
    /// How many elements match.
    total_matches: usize,
    /// The elements returned, in document order.
    matches: Vec<Element>,
    /// Fewer elements are returned than match (max_results or the size cap).
    truncated: bool,
}

/// The `web_extract` tool.
#[derive(Debug)]
pub(crate) struct WebExtract {
    /// The family's shared state.
    web: Arc<Web>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl WebExtract {
    /// The tool, its spec built from the settings.
    pub(crate) fn new(web: &Arc<Web>) -> Result<Self, Error> {
        let description = "Fetch a web page and return the elements matching a CSS selector: \
             each one's tag, text and the attributes you name (href, src...), optionally its \
             HTML. Returns total_matches and the first max_results matches in document order. \
             Use it for tables, lists of links and other structured parts of a page.";
        let spec = ToolSpec::builder("web_extract", description)
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

impl TypedTool for WebExtract {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, _ctx: &ToolContext) -> Result<Output, ToolError> {
        // Checked before anything is fetched.
        selector(&args.selector)?;
        let page = self
            .web
            .get(&args.url, "text/html,application/xhtml+xml", TIMEOUT)
            .await?;
        let url = page.url.to_string();
        let html = page.body.text();
        let budget = self.web.text_cap();
        blocking("web_extract", move || extract(&html, url, &args, budget)).await
    }
}

/// `text` parsed as a selector.
fn selector(text: &str) -> Result<Selector, ToolError> {
    Selector::parse(text).map_err(|error| ToolError::InvalidArguments {
        violations: vec![Violation::new(
            "/selector",
            "format",
            format!("`{text}` is not a valid CSS selector ({error}); fix its syntax"),
        )],
    })
}

/// The matches of `args.selector` in `html`, within `budget` bytes of text.
fn extract(html: &str, url: String, args: &Args, budget: usize) -> Result<Output, ToolError> {
    let selector = selector(&args.selector)?;
    let document = Html::parse_document(html);
    let mut matches = Vec::new();
    let mut total_matches = 0;
    let mut used = 0;
    let mut truncated = false;
    for element in document.select(&selector) {
        total_matches += 1;
        if truncated || matches.len() >= args.max_results {
            truncated = true;
            continue;
        }
        let text = truncate_middle(
            collapse(&element.text().collect::<String>()),
            MAX_ELEMENT_TEXT,
        );
        let attributes: BTreeMap<String, String> = args
            .attributes
            .iter()
            .filter_map(|name| Some((name.clone(), element.attr(name)?.to_owned())))
            .collect();
        let html = args
            .include_html
            .then(|| truncate_middle(element.html(), MAX_ELEMENT_TEXT));
        let size = text.len()
            + html.as_ref().map_or(0, String::len)
            + attributes.values().map(String::len).sum::<usize>();
        if used + size > budget && !matches.is_empty() {
            truncated = true;
            continue;
        }
        used += size;
        matches.push(Element {
            tag: element.value().name().to_owned(),
            text,
            attributes,
            html,
        });
    }
    Ok(Output {
        url,
        total_matches,
        matches,
        truncated,
    })
}

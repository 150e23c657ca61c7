//! `rss_read`: the entries of an RSS or Atom feed: title, link, date, summary.

use std::sync::Arc;
use std::time::Duration;

use feed_rs::model::{Entry, Feed, FeedType};
use hermes_core::{ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use scraper::Html;
use serde::{Deserialize, Serialize};

use super::html::collapse;
use super::web::Web;
use crate::common::blocking::blocking;

/// How long a fetch may take.
const TIMEOUT: Duration = Duration::from_secs(30);
/// The most characters of a summary.
const MAX_SUMMARY_CHARS: usize = 500;

/// Arguments of `rss_read`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The absolute http:// or https:// URL of the RSS or Atom feed.
    #[schemars(url)]
    url: String,
    /// The most entries to return (the feed's first ones, usually the newest).
    #[serde(default = "default_max_entries")]
    #[schemars(range(min = 1, max = 200))]
    max_entries: usize,
}

fn default_max_entries() -> usize {
    20
}

/// One feed entry.
#[derive(Debug, Serialize)]
pub(crate) struct Item {
    /// Its title.
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    /// Its link.
    #[serde(skip_serializing_if = "Option::is_none")]
    link: Option<String>,
    /// When it was published (or else updated), RFC 3339.
    #[serde(skip_serializing_if = "Option::is_none")]
    published: Option<String>,
    /// Its summary as plain text, cut to 500 characters.
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<String>,
}

/// What `rss_read` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The feed's URL, after redirects.
    url: String,
    /// The feed's format: `rss2`, `atom`...
    format: &'static str,
    /// The feed's title.
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<String>,
    /// Entries in the feed.
    total_entries: usize,
    /// The entries returned.
    entries: Vec<Item>,
}

/// The `rss_read` tool.
#[derive(Debug)]
pub(crate) struct RssRead {
    /// The family's shared state.
    web: Arc<Web>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl RssRead {
    /// The tool, its spec built from the settings.
    pub(crate) fn new(web: &Arc<Web>) -> Result<Self, Error> {
        let description = "Read the entries of an RSS or Atom feed from its URL. Returns the \
             feed's title and format, total_entries, and its first max_entries entries, each \
             with title, link, published date (RFC 3339) and a plain-text summary of up to 500 \
             characters.";
        let spec = ToolSpec::builder("rss_read", description)
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

impl TypedTool for RssRead {
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
                "application/rss+xml,application/atom+xml,application/xml;q=0.9,*/*;q=0.5",
                TIMEOUT,
            )
            .await?;
        let url = page.url.to_string();
        let max_entries = args.max_entries.clamp(1, 200);
        blocking("rss_read", move || {
            let feed = feed_rs::parser::parse(page.body.bytes.as_slice()).map_err(|error| {
                ToolError::failed_with(
                    format!("`{url}` is not an RSS or Atom feed; check the URL (a page may link to its feed)"),
                    error,
                )
            })?;
            Ok(summarise(feed, url, max_entries))
        })
        .await
    }
}

/// `feed` for the model.
fn summarise(feed: Feed, url: String, max_entries: usize) -> Output {
    let format = match feed.feed_type {
        FeedType::Atom => "atom",
        FeedType::JSON => "json",
        FeedType::RSS0 => "rss0",
        FeedType::RSS1 => "rss1",
        FeedType::RSS2 => "rss2",
    };
    Output {
        url,
        format,
        title: feed.title.map(|title| collapse(&title.content)),
        total_entries: feed.entries.len(),
        entries: feed
            .entries
            .into_iter()
            .take(max_entries)
            .map(item)
            .collect(),
    }
}

/// One entry for the model.
fn item(entry: Entry) -> Item {
    let link = entry
        .links
        .iter()
        .find(|link| link.rel.as_deref().is_none_or(|rel| rel == "alternate"))
        .or_else(|| entry.links.first())
        .map(|link| link.href.clone());
    let summary = entry
        .summary
        .map(|text| text.content)
        .or_else(|| entry.content.and_then(|content| content.body))
        .map(|html| plain(&html))
        .filter(|text| !text.is_empty());
    Item {
        title: entry.title.map(|title| collapse(&title.content)),
        link,
        published: entry
            .published
            .or(entry.updated)
            .map(|date| date.to_rfc3339()),
        summary,
    }
}

/// `html` as plain text, cut to [`MAX_SUMMARY_CHARS`].
fn plain(html: &str) -> String {
    let text = collapse(
        &Html::parse_fragment(html)
            .root_element()
            .text()
            .collect::<String>(),
    );
    match text.char_indices().nth(MAX_SUMMARY_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

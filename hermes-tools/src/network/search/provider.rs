//! The [`Provider`] contract every search backend fulfils, and what passes through it.

use serde::Serialize;

/// How recent results must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DateRange {
    /// The last day.
    Day,
    /// The last week.
    Week,
    /// The last month.
    Month,
    /// The last year.
    Year,
}

impl DateRange {
    /// `day`, `week`, `month` or `year`: what SearXNG and Tavily call it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Day => "day",
            Self::Week => "week",
            Self::Month => "month",
            Self::Year => "year",
        }
    }
}

/// How strictly adult content is filtered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SafeSearch {
    /// No filtering.
    Off,
    /// The provider's default.
    Moderate,
    /// Strict filtering.
    Strict,
}

/// One search, as every provider receives it.
#[derive(Debug, Clone)]
pub(crate) struct Query {
    /// What to search for.
    pub(crate) text: String,
    /// The most results wanted.
    pub(crate) max_results: usize,
    /// How recent results must be, if it matters.
    pub(crate) date_range: Option<DateRange>,
    /// The filtering wanted.
    pub(crate) safe_search: SafeSearch,
}

/// One result.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Hit {
    /// The page's title.
    pub(crate) title: String,
    /// The page's URL.
    pub(crate) url: String,
    /// A short extract, plain text.
    pub(crate) snippet: String,
    /// The provider's relevance score, when it gives one (higher is better).
    pub(crate) score: Option<f64>,
}

/// What a provider found.
#[derive(Debug, Default)]
pub(crate) struct Answer {
    /// The results, best first.
    pub(crate) hits: Vec<Hit>,
    /// How many results the provider says exist, when it says.
    pub(crate) total: Option<u64>,
}

/// A search backend: how to ask it and how to read its answer. Sending, status checks,
/// body caps and error messages are the same for all, in [`super::run`].
pub(crate) trait Provider: Send + Sync + std::fmt::Debug {
    /// The provider's name, as `search_engine` takes it.
    fn name(&self) -> &'static str;

    /// The request for `query`.
    fn request(&self, client: &reqwest::Client, query: &Query) -> reqwest::RequestBuilder;

    /// The results in a successful response's `body`.
    ///
    /// # Errors
    ///
    /// What is wrong with a body that does not have the provider's documented shape.
    fn parse(&self, body: &[u8]) -> Result<Answer, String>;

    /// Secrets that must never appear in a message (API keys).
    fn secrets(&self) -> Vec<&str> {
        Vec::new()
    }
}

/// `text` with HTML tags and entities resolved to plain text, whitespace collapsed
/// (providers mark matches with `<strong>` and the like).
pub(crate) fn plain(text: &str) -> String {
    if !text.contains(['<', '&']) {
        return crate::network::html::collapse(text);
    }
    let fragment = scraper::Html::parse_fragment(text);
    crate::network::html::collapse(&fragment.root_element().text().collect::<String>())
}

/// `base` with `params` added to its query string.
pub(crate) fn with_query(base: &str, params: &[(&str, String)]) -> String {
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in params {
        query.append_pair(name, value);
    }
    let separator = if base.contains('?') { '&' } else { '?' };
    format!("{base}{separator}{}", query.finish())
}

//! `web_search`: a web search through SearXNG, Brave, Tavily or DuckDuckGo, each a
//! [`Provider`]; results as `[{title, url, snippet, score}]`.

mod brave;
mod duckduckgo;
mod provider;
mod searxng;
mod tavily;

use std::sync::Arc;
use std::time::{Duration, Instant};

use hermes_core::{Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use self::provider::{DateRange, Hit, Provider, Query, SafeSearch};
use super::config::SearchProvider;
use super::web::{Web, status_advice};
use crate::common::http;

/// How long a search may take.
const TIMEOUT: Duration = Duration::from_secs(30);
/// The most of an error body quoted in a message.
const MAX_ERROR_EXCERPT: usize = 300;

/// Arguments of `web_search`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// What to search for.
    #[schemars(length(min = 1, max = 400))]
    query: String,
    /// The most results to return.
    #[serde(default = "default_max_results")]
    #[schemars(range(min = 1, max = 20))]
    max_results: usize,
    /// The provider to ask (default: the one configured).
    search_engine: Option<Engine>,
    /// Only results from this recent period.
    date_range: Option<Range>,
    /// How strictly to filter adult content.
    #[serde(default)]
    safe_search: Safety,
}

fn default_max_results() -> usize {
    5
}

/// A provider, as the model names it.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Engine {
    /// A SearXNG instance.
    Searxng,
    /// The Brave Search API.
    Brave,
    /// The Tavily API.
    Tavily,
    /// DuckDuckGo.
    Duckduckgo,
}

/// A period, as the model names it.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Range {
    /// The last day.
    Day,
    /// The last week.
    Week,
    /// The last month.
    Month,
    /// The last year.
    Year,
}

/// A filtering level, as the model names it.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Safety {
    /// No filtering.
    Off,
    /// The provider's default.
    #[default]
    Moderate,
    /// Strict filtering.
    Strict,
}

/// What `web_search` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The query searched.
    query: String,
    /// The provider asked.
    provider: &'static str,
    /// The results, best first.
    results: Vec<Hit>,
    /// How many results the provider says exist (the number returned when it does not say).
    total_results: u64,
    /// Milliseconds the search took.
    query_time_ms: u64,
}

/// The `web_search` tool.
#[derive(Debug)]
pub(crate) struct WebSearch {
    /// The family's shared state.
    web: Arc<Web>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl WebSearch {
    /// The tool, its spec built from the settings.
    pub(crate) fn new(web: &Arc<Web>) -> Result<Self, Error> {
        let description = "Search the web (SearXNG, Brave, Tavily or DuckDuckGo) for pages \
             matching a query. Returns results (title, url, snippet and the provider's \
             relevance score when it gives one, else null), total_results and query_time_ms. \
             Optionally pick the search_engine, a date_range (day, week, month, year) and \
             safe_search. Fetch a result's url with web_fetch to read it.";
        let spec = ToolSpec::builder("web_search", description)
            .parameters_for::<Args>()
            .tag(super::FAMILY_TAG)
            .scope(Scope::Read)
            .permission("network:search")
            .timeout(TIMEOUT + Duration::from_secs(10))
            .max_result_bytes(super::result_cap(web))
            .build()?;
        Ok(Self {
            web: Arc::clone(web),
            spec,
        })
    }

    /// The provider for `engine`, or the configured default.
    fn provider(&self, engine: Option<Engine>) -> Result<Box<dyn Provider>, ToolError> {
        let config = self.web.config();
        let endpoint = |provider: SearchProvider| config.search_endpoints.get(&provider).cloned();
        let configured_searxng = endpoint(SearchProvider::SearXng);
        let configured = [
            (SearchProvider::SearXng, configured_searxng.is_some()),
            (SearchProvider::Brave, config.brave_api_key.is_some()),
            (SearchProvider::Tavily, config.tavily_api_key.is_some()),
        ];
        let searxng = configured_searxng.or_else(|| env("SEARXNG_URL"));
        let brave = config
            .brave_api_key
            .clone()
            .or_else(|| env("BRAVE_API_KEY"));
        let tavily = config
            .tavily_api_key
            .clone()
            .or_else(|| env("TAVILY_API_KEY"));
        let from_env = [
            (SearchProvider::SearXng, searxng.is_some()),
            (SearchProvider::Brave, brave.is_some()),
            (SearchProvider::Tavily, tavily.is_some()),
        ];
        let chosen = match engine {
            Some(Engine::Searxng) => SearchProvider::SearXng,
            Some(Engine::Brave) => SearchProvider::Brave,
            Some(Engine::Tavily) => SearchProvider::Tavily,
            Some(Engine::Duckduckgo) => SearchProvider::DuckDuckGo,
            // What the configuration sets comes before what the environment sets.
            None => configured
                .into_iter()
                .chain(from_env)
                .find_map(|(provider, set)| set.then_some(provider))
                .unwrap_or(SearchProvider::DuckDuckGo),
        };
        let missing = |what: &str| {
            ToolError::failed(format!(
                "{what} is not configured, so this search engine cannot be used; call again \
                 without search_engine to use the configured one"
            ))
        };
        Ok(match chosen {
            SearchProvider::SearXng => Box::new(searxng::SearXng {
                base: searxng.ok_or_else(|| missing("no SearXNG instance (SEARXNG_URL)"))?,
            }),
            SearchProvider::Brave => Box::new(brave::Brave {
                endpoint: endpoint(SearchProvider::Brave)
                    .unwrap_or_else(|| brave::ENDPOINT.to_owned()),
                key: brave.ok_or_else(|| missing("no Brave API key (BRAVE_API_KEY)"))?,
            }),
            SearchProvider::Tavily => Box::new(tavily::Tavily {
                endpoint: endpoint(SearchProvider::Tavily)
                    .unwrap_or_else(|| tavily::ENDPOINT.to_owned()),
                key: tavily.ok_or_else(|| missing("no Tavily API key (TAVILY_API_KEY)"))?,
            }),
            SearchProvider::DuckDuckGo => Box::new(duckduckgo::DuckDuckGo {
                endpoint: endpoint(SearchProvider::DuckDuckGo)
                    .unwrap_or_else(|| duckduckgo::ENDPOINT.to_owned()),
            }),
        })
    }
}

impl TypedTool for WebSearch {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, _ctx: &ToolContext) -> Result<Output, ToolError> {
        let provider = self.provider(args.search_engine)?;
        let query = Query {
            text: args.query.trim().to_owned(),
            max_results: args.max_results.clamp(1, 20),
            date_range: args.date_range.map(|range| match range {
                Range::Day => DateRange::Day,
                Range::Week => DateRange::Week,
                Range::Month => DateRange::Month,
                Range::Year => DateRange::Year,
            }),
            safe_search: match args.safe_search {
                Safety::Off => SafeSearch::Off,
                Safety::Moderate => SafeSearch::Moderate,
                Safety::Strict => SafeSearch::Strict,
            },
        };
        let client = self.web.trusted_client()?;
        let started = Instant::now();
        let mut hits = run(
            provider.as_ref(),
            &client,
            &query,
            self.web.config().max_body_bytes,
        )
        .await?;
        let total_results = hits.total.unwrap_or(hits.hits.len() as u64);
        hits.hits.truncate(query.max_results);
        Ok(Output {
            query: query.text,
            provider: provider.name(),
            results: hits.hits,
            total_results,
            query_time_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        })
    }
}

/// Ask `provider` for `query`: send, check the status, read and parse the body. Every
/// message is scrubbed of the provider's secrets.
async fn run(
    provider: &dyn Provider,
    client: &reqwest::Client,
    query: &Query,
    max_body: usize,
) -> Result<provider::Answer, ToolError> {
    let name = provider.name();
    let scrub = |text: String| scrub(text, &provider.secrets());
    let response = provider
        .request(client, query)
        .timeout(TIMEOUT)
        .send()
        .await
        .map_err(|error| {
            // The transport error's own text is left out: it could quote a URL.
            let described = http::request_failed(error, name, TIMEOUT);
            ToolError::failed(scrub(format!(
                "the {name} search failed: {}",
                failure_text(&described)
            )))
        })?;
    let status = response.status();
    let body = http::read_capped(response, max_body)
        .await
        .map_err(|_| ToolError::failed(format!("the {name} search broke off; try again")))?;
    if !status.is_success() {
        let mut excerpt: String = body.text().chars().take(MAX_ERROR_EXCERPT).collect();
        excerpt = excerpt.split_whitespace().collect::<Vec<_>>().join(" ");
        let advice = match status.as_u16() {
            401 | 403 => "the API key was refused; the operator must fix the configuration",
            other => status_advice(other),
        };
        return Err(ToolError::failed(scrub(format!(
            "the {name} search answered HTTP {status}: {excerpt}; {advice}"
        ))));
    }
    provider.parse(&body.bytes).map_err(|reason| {
        ToolError::failed(scrub(format!(
            "the {name} search returned a response of an unexpected shape ({reason}); try \
             another search_engine"
        )))
    })
}

/// The message of `error` (not its sources).
fn failure_text(error: &ToolError) -> String {
    match error {
        ToolError::Failed { message, .. } => message.clone(),
        other => other.to_string(),
    }
}

/// `text` with every secret replaced.
fn scrub(mut text: String, secrets: &[&str]) -> String {
    for secret in secrets.iter().filter(|secret| secret.len() >= 4) {
        text = text.replace(secret, "[redacted]");
    }
    text
}

/// A non-empty environment variable.
fn env(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

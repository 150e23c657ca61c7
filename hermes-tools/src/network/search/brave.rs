//! The Brave Search API (`/res/v1/web/search`, key in `X-Subscription-Token`).

use serde::Deserialize;

use super::provider::{Answer, DateRange, Hit, Provider, Query, SafeSearch, plain, with_query};

/// The public endpoint.
pub(crate) const ENDPOINT: &str = "https://api.search.brave.com/res/v1/web/search";

/// The Brave Search API.
#[derive(Debug)]
pub(crate) struct Brave {
    /// The endpoint.
    pub(crate) endpoint: String,
    /// The subscription key.
    pub(crate) key: String,
}

/// The response, as far as it is read.
#[derive(Debug, Deserialize)]
struct Response {
    #[serde(default)]
    web: Option<Web>,
}

/// Its web results.
#[derive(Debug, Deserialize)]
struct Web {
    #[serde(default)]
    results: Vec<Result>,
}

/// One result.
#[derive(Debug, Deserialize)]
struct Result {
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    description: String,
}

impl Provider for Brave {
    fn name(&self) -> &'static str {
        "brave"
    }

    fn request(&self, client: &reqwest::Client, query: &Query) -> reqwest::RequestBuilder {
        let safe = match query.safe_search {
            SafeSearch::Off => "off",
            SafeSearch::Moderate => "moderate",
            SafeSearch::Strict => "strict",
        };
        let mut params = vec![
            ("q", query.text.clone()),
            ("count", query.max_results.min(20).to_string()),
            ("safesearch", safe.to_owned()),
        ];
        if let Some(range) = query.date_range {
            let range = match range {
                DateRange::Day => "pd",
                DateRange::Week => "pw",
                DateRange::Month => "pm",
                DateRange::Year => "py",
            };
            params.push(("freshness", range.to_owned()));
        }
        client
            .get(with_query(&self.endpoint, &params))
            .header(reqwest::header::ACCEPT, "application/json")
            .header("X-Subscription-Token", &self.key)
    }

    fn parse(&self, body: &[u8]) -> std::result::Result<Answer, String> {
        let response: Response = serde_json::from_slice(body).map_err(|error| error.to_string())?;
        let hits = response
            .web
            .map(|web| web.results)
            .unwrap_or_default()
            .into_iter()
            .map(|result| Hit {
                title: plain(&result.title),
                url: result.url,
                snippet: plain(&result.description),
                score: None,
            })
            .collect();
        Ok(Answer { hits, total: None })
    }

    fn secrets(&self) -> Vec<&str> {
        vec![self.key.as_str()]
    }
}

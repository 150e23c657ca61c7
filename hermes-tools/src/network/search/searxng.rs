//! SearXNG's JSON API (`/search?format=json`; the instance must enable the JSON format).

use serde::Deserialize;

use super::provider::{Answer, Hit, Provider, Query, SafeSearch, plain, with_query};

/// A SearXNG instance.
#[derive(Debug)]
pub(crate) struct SearXng {
    /// The instance's base URL.
    pub(crate) base: String,
}

/// The response, as far as it is read.
#[derive(Debug, Deserialize)]
struct Response {
    #[serde(default)]
    results: Vec<Result>,
    #[serde(default)]
    number_of_results: Option<f64>,
}

/// One result.
#[derive(Debug, Deserialize)]
struct Result {
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    content: String,
    #[serde(default)]
    score: Option<f64>,
}

impl Provider for SearXng {
    fn name(&self) -> &'static str {
        "searxng"
    }

    fn request(&self, client: &reqwest::Client, query: &Query) -> reqwest::RequestBuilder {
        let safe = match query.safe_search {
            SafeSearch::Off => "0",
            SafeSearch::Moderate => "1",
            SafeSearch::Strict => "2",
        };
        let mut params = vec![
            ("q", query.text.clone()),
            ("format", "json".to_owned()),
            ("safesearch", safe.to_owned()),
            ("pageno", "1".to_owned()),
        ];
        if let Some(range) = query.date_range {
            params.push(("time_range", range.as_str().to_owned()));
        }
        let url = format!("{}/search", self.base.trim_end_matches('/'));
        client
            .get(with_query(&url, &params))
            .header(reqwest::header::ACCEPT, "application/json")
    }

    fn parse(&self, body: &[u8]) -> std::result::Result<Answer, String> {
        let response: Response = serde_json::from_slice(body).map_err(|error| error.to_string())?;
        let total = response
            .number_of_results
            .filter(|count| *count >= 1.0)
            .map(|count| count as u64);
        let hits = response
            .results
            .into_iter()
            .map(|result| Hit {
                title: plain(&result.title),
                url: result.url,
                snippet: plain(&result.content),
                score: result.score,
            })
            .collect();
        Ok(Answer { hits, total })
    }
}

//! The Tavily search API (`POST /search`, key as a bearer token).

use serde::Deserialize;
use serde_json::json;

use super::provider::{Answer, Hit, Provider, Query, plain};

/// The public endpoint.
pub(crate) const ENDPOINT: &str = "https://api.tavily.com/search";

/// The Tavily API.
#[derive(Debug)]
pub(crate) struct Tavily {
    /// The endpoint.
    pub(crate) endpoint: String,
    /// The API key.
    pub(crate) key: String,
}

/// The response, as far as it is read.
#[derive(Debug, Deserialize)]
struct Response {
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
    content: String,
    #[serde(default)]
    score: Option<f64>,
}

impl Provider for Tavily {
    fn name(&self) -> &'static str {
        "tavily"
    }

    fn request(&self, client: &reqwest::Client, query: &Query) -> reqwest::RequestBuilder {
        let mut body = json!({
            "query": query.text,
            "max_results": query.max_results.min(20),
            "search_depth": "basic",
        });
        if let Some(range) = query.date_range {
            body["time_range"] = json!(range.as_str());
        }
        client
            .post(&self.endpoint)
            .bearer_auth(&self.key)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string())
    }

    fn parse(&self, body: &[u8]) -> std::result::Result<Answer, String> {
        let response: Response = serde_json::from_slice(body).map_err(|error| error.to_string())?;
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
        Ok(Answer { hits, total: None })
    }

    fn secrets(&self) -> Vec<&str> {
        vec![self.key.as_str()]
    }
}

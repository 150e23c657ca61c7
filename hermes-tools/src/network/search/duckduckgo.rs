//! DuckDuckGo's HTML results page (`html.duckduckgo.com/html/`), read with CSS
//! selectors: no key, no JSON API.

use reqwest::Url;
use scraper::{Html, Selector};

use super::provider::{Answer, DateRange, Hit, Provider, Query, SafeSearch, plain, with_query};

/// The public endpoint.
pub(crate) const ENDPOINT: &str = "https://html.duckduckgo.com/html/";

/// DuckDuckGo's HTML page.
#[derive(Debug)]
pub(crate) struct DuckDuckGo {
    /// The endpoint.
    pub(crate) endpoint: String,
}

impl Provider for DuckDuckGo {
    fn name(&self) -> &'static str {
        "duckduckgo"
    }

    fn request(&self, client: &reqwest::Client, query: &Query) -> reqwest::RequestBuilder {
        let safe = match query.safe_search {
            SafeSearch::Off => "-2",
            SafeSearch::Moderate => "-1",
            SafeSearch::Strict => "1",
        };
        let mut params = vec![("q", query.text.clone()), ("kp", safe.to_owned())];
        if let Some(range) = query.date_range {
            let range = match range {
                DateRange::Day => "d",
                DateRange::Week => "w",
                DateRange::Month => "m",
                DateRange::Year => "y",
            };
            params.push(("df", range.to_owned()));
        }
        client
            .get(with_query(&self.endpoint, &params))
            .header(reqwest::header::ACCEPT, "text/html")
    }

    fn parse(&self, body: &[u8]) -> Result<Answer, String> {
        let page = Html::parse_document(&String::from_utf8_lossy(body));
        let selector = |text: &str| Selector::parse(text).map_err(|error| error.to_string());
        let result = selector(".result")?;
        let link = selector("a.result__a")?;
        let snippet = selector(".result__snippet")?;
        let mut hits = Vec::new();
        for block in page.select(&result) {
            if block.value().classes().any(|class| class == "result--ad") {
                continue;
            }
            let Some(anchor) = block.select(&link).next() else {
                continue;
            };
            let Some(url) = anchor.attr("href").and_then(target) else {
                continue;
            };
            hits.push(Hit {
                title: plain(&anchor.text().collect::<String>()),
                url,
                snippet: block
                    .select(&snippet)
                    .next()
                    .map(|element| plain(&element.text().collect::<String>()))
                    .unwrap_or_default(),
                score: None,
            });
        }
        Ok(Answer { hits, total: None })
    }
}

/// The page a result link leads to: DuckDuckGo wraps it as `//duckduckgo.com/l/?uddg=…`.
fn target(href: &str) -> Option<String> {
    let absolute = if href.starts_with("//") {
        format!("https:{href}")
    } else {
        href.to_owned()
    };
    let url = Url::parse(&absolute).ok()?;
    if url.path() == "/l/" {
        if let Some((_, target)) = url.query_pairs().find(|(name, _)| name == "uddg") {
            return Some(target.into_owned());
        }
    }
    matches!(url.scheme(), "http" | "https").then(|| url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapped_links_are_unwrapped() {
        assert_eq!(
            target("//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&rut=x")
                .as_deref(),
            Some("https://example.com/a?b=1")
        );
        assert_eq!(
            target("https://example.org/").as_deref(),
            Some("https://example.org/")
        );
        assert_eq!(target("javascript:alert(1)"), None);
    }
}

//! Pages as readable text: the main content found (`main`, `article`, the body), page
//! furniture dropped (navigation, scripts, styles, forms), then Markdown (htmd) or
//! plain text; plus the title and the links.

use hermes_core::ToolError;
use reqwest::Url;
use scraper::{ElementRef, Html, Node, Selector};
use serde::Serialize;

/// Elements that are never content.
const FURNITURE: &[&str] = &[
    "script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "svg",
    "iframe", "button", "select", "dialog",
];

/// Where the main content is looked for, best first.
const MAIN_CANDIDATES: &[&str] = &["main", "article", "[role=main]", "#content", "body"];

/// Elements after which plain text breaks the line.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "li",
    "ul",
    "ol",
    "br",
    "tr",
    "table",
    "pre",
    "blockquote",
    "dl",
    "dt",
    "dd",
    "hr",
    "figure",
];

/// Elements after which plain text puts a space (table cells).
const CELLS: &[&str] = &["td", "th"];

/// How to render the content.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Format {
    /// Markdown: headings, lists, links and emphasis kept.
    Markdown,
    /// Plain text, one block per line.
    Text,
}

/// A link on a page.
#[derive(Debug, Serialize)]
pub(crate) struct Link {
    /// Its text.
    pub(crate) text: String,
    /// Its absolute URL.
    pub(crate) url: String,
}

/// A page made readable.
#[derive(Debug)]
pub(crate) struct Readable {
    /// The `<title>`.
    pub(crate) title: Option<String>,
    /// The main content, rendered.
    pub(crate) content: String,
    /// The http(s) links of the main content, each once, in order, at most the cap.
    pub(crate) links: Vec<Link>,
    /// How many distinct links there were in all.
    pub(crate) total_links: usize,
}

/// `html` (found at `base`) made readable; at most `max_links` links kept.
///
/// # Errors
///
/// A failure when the Markdown conversion fails.
pub(crate) fn readable(
    html: &str,
    base: &Url,
    format: Format,
    max_links: usize,
) -> Result<Readable, ToolError> {
    let mut document = Html::parse_document(html);
    let title = first_text(&document, "title");
    drop_furniture(&mut document);
    let main = MAIN_CANDIDATES
        .iter()
        .filter_map(|candidate| Selector::parse(candidate).ok())
        .find_map(|selector| document.select(&selector).next());
    let Some(main) = main else {
        return Ok(Readable {
            title,
            content: String::new(),
            links: Vec::new(),
            total_links: 0,
        });
    };
    let content = match format {
        Format::Markdown => htmd::convert(&main.html())
            .map_err(|error| ToolError::failed_with("the page could not be converted", error))?,
        Format::Text => plain_text(main),
    };
    let (links, total_links) = links(main, base, max_links);
    Ok(Readable {
        title,
        content: tidy(&content),
        links,
        total_links,
    })
}

/// The whitespace-normalised text of the first element matching `selector`.
pub(crate) fn first_text(document: &Html, selector: &str) -> Option<String> {
    let selector = Selector::parse(selector).ok()?;
    let element = document.select(&selector).next()?;
    let text = collapse(&element.text().collect::<String>());
    (!text.is_empty()).then_some(text)
}

/// `text` with every run of whitespace made one space, trimmed.
pub(crate) fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Remove the elements that are never content.
fn drop_furniture(document: &mut Html) {
    let Ok(selector) = Selector::parse(&FURNITURE.join(",")) else {
        return;
    };
    let ids: Vec<_> = document
        .select(&selector)
        .map(|element| element.id())
        .collect();
    for id in ids {
        if let Some(mut node) = document.tree.get_mut(id) {
            node.detach();
        }
    }
}

/// The text of `element`, blocks on their own lines.
fn plain_text(element: ElementRef<'_>) -> String {
    let mut out = String::new();
    push_text(element, &mut out);
    out
}

fn push_text(element: ElementRef<'_>, out: &mut String) {
    let name = element.value().name();
    let preformatted = name == "pre";
    for child in element.children() {
        match child.value() {
            Node::Text(text) if preformatted => out.push_str(text),
            Node::Text(text) => {
                let starts_spaced = text.starts_with(char::is_whitespace);
                let words = collapse(text);
                if words.is_empty() {
                    if starts_spaced && !out.is_empty() && !out.ends_with([' ', '\n']) {
                        out.push(' ');
                    }
                    continue;
                }
                if starts_spaced && !out.is_empty() && !out.ends_with([' ', '\n']) {
                    out.push(' ');
                }
                out.push_str(&words);
                if text.ends_with(char::is_whitespace) {
                    out.push(' ');
                }
            }
            Node::Element(_) => {
                if let Some(child) = ElementRef::wrap(child) {
                    push_text(child, out);
                }
            }
            _ => {}
        }
    }
    if BLOCKS.contains(&name) && !out.ends_with('\n') {
        out.push('\n');
    } else if CELLS.contains(&name) && !out.is_empty() && !out.ends_with([' ', '\n']) {
        out.push(' ');
    }
}

/// Lines trimmed at the end, at most one blank line in a row, no blank edges.
fn tidy(text: &str) -> String {
    let mut out = String::new();
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
    }
    out
}

/// The http(s) links under `element`, resolved against `base`, each once: at most
/// `max` of them, and how many there were.
fn links(element: ElementRef<'_>, base: &Url, max: usize) -> (Vec<Link>, usize) {
    let Ok(selector) = Selector::parse("a[href]") else {
        return (Vec::new(), 0);
    };
    let mut seen = std::collections::HashSet::new();
    let mut kept = Vec::new();
    for anchor in element.select(&selector) {
        let Some(url) = anchor
            .attr("href")
            .and_then(|href| base.join(href.trim()).ok())
            .filter(|url| matches!(url.scheme(), "http" | "https"))
        else {
            continue;
        };
        let url = url.to_string();
        if !seen.insert(url.clone()) {
            continue;
        }
        if kept.len() < max {
            kept.push(Link {
                text: collapse(&anchor.text().collect::<String>()),
                url,
            });
        }
    }
    (kept, seen.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<html><head><title> The  Title </title><style>p{}</style></head>
        <body><nav><a href="/home">Home</a></nav>
        <main><h1>Heading</h1><p>First <b>bold</b> words.</p>
        <script>alert(1)</script><p>See <a href="/doc#x">the docs</a>.</p>
        <ul><li>one</li><li>two</li></ul></main>
        <footer>Footer text</footer></body></html>"#;

    fn base() -> Url {
        Url::parse("http://example.test/dir/page").unwrap()
    }

    #[test]
    fn markdown_keeps_the_main_content_only() {
        let page = readable(PAGE, &base(), Format::Markdown, 10).unwrap();
        assert_eq!(page.title.as_deref(), Some("The Title"));
        assert!(page.content.contains("# Heading"), "{}", page.content);
        assert!(page.content.contains("**bold**"), "{}", page.content);
        assert!(!page.content.contains("alert"), "{}", page.content);
        assert!(!page.content.contains("Footer"), "{}", page.content);
        assert!(!page.content.contains("Home"), "{}", page.content);
        assert_eq!(page.links.len(), 1);
        assert_eq!(page.links[0].url, "http://example.test/doc#x");
        assert_eq!(page.links[0].text, "the docs");
    }

    #[test]
    fn text_puts_blocks_on_lines() {
        let page = readable(PAGE, &base(), Format::Text, 10).unwrap();
        assert_eq!(
            page.content,
            "Heading\nFirst bold words.\nSee the docs.\none\ntwo"
        );
    }

    #[test]
    fn links_are_capped_and_counted() {
        let html = r#"<body><a href="a">a</a><a href="b">b</a><a href="a">again</a>
            <a href="mailto:x@y">mail</a><a href="c">c</a></body>"#;
        let page = readable(html, &base(), Format::Text, 2).unwrap();
        assert_eq!(page.links.len(), 2);
        assert_eq!(page.total_links, 3);
    }
}

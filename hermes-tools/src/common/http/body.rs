//! Response bodies read up to a cap, so a huge or endless response costs no more than
//! the cap.

/// The start of a response body.
#[derive(Debug)]
pub(crate) struct Body {
    /// The bytes read, at most the cap.
    pub(crate) bytes: Vec<u8>,
    /// The body went on past the cap.
    pub(crate) truncated: bool,
}

impl Body {
    /// The bytes as text, invalid UTF-8 replaced.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// Read `response`'s body, stopping after `cap` bytes.
///
/// # Errors
///
/// `reqwest`'s error when the connection fails mid-body or the request times out.
pub(crate) async fn read_capped(
    mut response: reqwest::Response,
    cap: usize,
) -> Result<Body, reqwest::Error> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = cap - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            return Ok(Body {
                bytes,
                truncated: true,
            });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(Body {
        bytes,
        truncated: false,
    })
}

/// Whether a `Content-Type` value names JSON (`application/json`, `…+json`).
pub(crate) fn is_json(content_type: &str) -> bool {
    let essence = essence(content_type);
    essence == "application/json" || essence.ends_with("+json")
}

/// A `Content-Type` value without its parameters, lower case.
pub(crate) fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_content_types_are_recognised() {
        assert!(is_json("application/json"));
        assert!(is_json("Application/JSON; charset=utf-8"));
        assert!(is_json("application/problem+json"));
        assert!(!is_json("text/html"));
        assert!(!is_json("application/jsonp"));
    }
}

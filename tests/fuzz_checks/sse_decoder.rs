//! The SSE decoder of the streaming backends: a body decodes to the same events whether
//! it arrives in one chunk or cut anywhere (inside a line, between `\r` and `\n`,
//! inside a UTF-8 sequence), and nothing panics.
//!
//! Input: `[count, position.., body..]` (see [`Split`]).

use futures_util::{StreamExt, stream};
use hermes_llm::__fuzz::{SseEvent, sse_events};

use super::input::Split;

/// Check one input.
pub(crate) fn check(data: &[u8]) {
    let split = Split::read(data);
    let whole = decode(vec![split.body.to_vec()]);
    let pieces: Vec<Vec<u8>> = split
        .byte_pieces()
        .into_iter()
        .map(<[u8]>::to_vec)
        .collect();
    let piecewise = decode(pieces.clone());
    assert_eq!(
        piecewise, whole,
        "the events changed when the body came in pieces {pieces:?}"
    );
    assert!(whole.iter().all(Result::is_ok), "{whole:?}");
}

/// The events of a response whose body arrives as `chunks`.
fn decode(chunks: Vec<Vec<u8>>) -> Vec<Result<SseEvent, String>> {
    let body = reqwest::Body::wrap_stream(stream::iter(
        chunks.into_iter().map(Ok::<_, std::io::Error>),
    ));
    let response = reqwest::Response::from(http::Response::new(body));
    super::runtime().block_on(sse_events(response).collect())
}

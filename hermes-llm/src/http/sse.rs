//! Server-sent events: lines split anywhere across reads, `\n` / `\r\n` / `\r` line
//! ends, `:` comments (keep-alives), multi-line `data`, `event` names.

use futures_util::{Stream, StreamExt, stream};
use hermes_core::LlmError;

/// One event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, if any.
    pub(crate) event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub(crate) data: String,
}

/// The longest event read: far above any answer's chunk, and a bound on what a server
/// that never ends a line can cost.
const MAX_EVENT_BYTES: usize = 16 << 20;

/// Turns bytes into events.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    line: Vec<u8>,
    after_cr: bool,
    event: Option<String>,
    data: Option<String>,
    /// An event outgrew [`MAX_EVENT_BYTES`]: nothing more is read.
    too_long: bool,
}

impl Decoder {
    pub(crate) fn push(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        for &byte in bytes {
            if self.too_long {
                return;
            }
            if self.after_cr {
                self.after_cr = false;
                if byte == b'\n' {
                    continue;
                }
            }
            match byte {
                b'\n' => self.end_line(out),
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(out);
                }
                other => {
                    self.line.push(other);
                    let pending = self.line.len() + self.data.as_ref().map_or(0, String::len);
                    self.too_long = pending > MAX_EVENT_BYTES;
                }
            }
        }
    }

    /// Whether an event outgrew the bound (the stream must end with an error).
    pub(crate) fn too_long(&self) -> bool {
        self.too_long
    }

    /// The body ended: a last event without its blank line still counts.
    pub(crate) fn finish(&mut self, out: &mut Vec<SseEvent>) {
        if !self.line.is_empty() {
            self.end_line(out);
        }
        self.dispatch(out);
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) {
        let line = String::from_utf8_lossy(&std::mem::take(&mut self.line)).into_owned();
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = line
            .split_once(':')
            .map_or((line.as_str(), ""), |(f, v)| (f, v));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "data" => {
                let data = self.data.get_or_insert_with(String::new);
                if !data.is_empty() {
                    data.push('\n');
                }
                data.push_str(value);
            }
            "event" => self.event = Some(value.to_owned()),
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if let Some(data) = self.data.take() {
            out.push(SseEvent {
                event: self.event.take(),
                data,
            });
        } else {
            self.event = None;
        }
    }
}

/// The events of a response body, then `None`. A transport error mid-body is an item.
pub(crate) fn events(
    response: reqwest::Response,
) -> impl Stream<Item = Result<SseEvent, LlmError>> + Send {
    let bytes = response.bytes_stream().boxed();
    stream::unfold(
        (
            bytes,
            Decoder::default(),
            std::collections::VecDeque::new(),
            false,
        ),
        |(mut bytes, mut decoder, mut ready, mut ended)| async move {
            loop {
                if let Some(event) = ready.pop_front() {
                    return Some((Ok(event), (bytes, decoder, ready, ended)));
                }
                if ended {
                    return None;
                }
                // The events before it first, then the refusal, then the end.
                if decoder.too_long() {
                    ended = true;
                    let error = LlmError::InvalidResponse {
                        message: format!(
                            "a streamed event is longer than {} MiB; refused",
                            MAX_EVENT_BYTES >> 20
                        ),
                    };
                    return Some((Err(error), (bytes, decoder, ready, ended)));
                }
                let mut out = Vec::new();
                match bytes.next().await {
                    Some(Ok(chunk)) => decoder.push(&chunk, &mut out),
                    Some(Err(error)) => {
                        ended = true;
                        let error = LlmError::Transport {
                            message: "the connection broke during the streamed answer".to_owned(),
                            source: Some(Box::new(error)),
                        };
                        return Some((Err(error), (bytes, decoder, ready, ended)));
                    }
                    None => {
                        ended = true;
                        decoder.finish(&mut out);
                    }
                }
                ready.extend(out);
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(pieces: &[&str]) -> Vec<SseEvent> {
        let mut decoder = Decoder::default();
        let mut out = Vec::new();
        for piece in pieces {
            decoder.push(piece.as_bytes(), &mut out);
        }
        decoder.finish(&mut out);
        out
    }

    fn data(events: &[SseEvent]) -> Vec<&str> {
        events.iter().map(|event| event.data.as_str()).collect()
    }

    #[test]
    fn lines_split_anywhere() {
        let whole =
            "data: {\"a\":1}\n\n: keep-alive\n\ndata: {\"b\":\ndata: 2}\n\ndata: [DONE]\n\n";
        let expected = vec!["{\"a\":1}", "{\"b\":\n2}", "[DONE]"];
        assert_eq!(data(&decode(&[whole])), expected);
        let chars: Vec<String> = whole.chars().map(String::from).collect();
        let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(data(&decode(&pieces)), expected);
    }

    #[test]
    fn an_endless_line_stops_at_the_bound() {
        let mut decoder = Decoder::default();
        let mut out = Vec::new();
        decoder.push(b"data: ", &mut out);
        let block = vec![b'x'; 1 << 20];
        for _ in 0..17 {
            decoder.push(&block, &mut out);
        }
        assert!(decoder.too_long());
        assert!(
            decoder.line.len() <= MAX_EVENT_BYTES + 1,
            "{}",
            decoder.line.len()
        );
        assert!(out.is_empty());
    }

    #[test]
    fn line_ends_and_events() {
        let events = decode(&[
            "event: message_start\r\ndata: x\r",
            "\n\r\ndata: y\rdata: z\r\r",
            "data: last",
        ]);
        assert_eq!(data(&events), vec!["x", "y\nz", "last"]);
        assert_eq!(events[0].event.as_deref(), Some("message_start"));
        assert_eq!(events[1].event, None);
    }
}

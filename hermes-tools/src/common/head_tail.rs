//! A collector that keeps a stream's head and tail without ever holding more than the
//! cap: how subprocess output is bounded while it streams.

use std::collections::VecDeque;

/// Keeps the first two thirds and the last third of `max` bytes of a stream.
#[derive(Debug)]
pub(crate) struct HeadTail {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    head_max: usize,
    tail_max: usize,
    total: usize,
}

impl HeadTail {
    pub(crate) fn new(max: usize) -> Self {
        let head_max = max * 2 / 3;
        Self {
            head: Vec::with_capacity(head_max.min(8192)),
            tail: VecDeque::new(),
            head_max,
            tail_max: max - head_max,
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len();
        let room = self.head_max - self.head.len();
        if room > 0 {
            let take = room.min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
        }
        if bytes.len() >= self.tail_max {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.tail_max..]);
            return;
        }
        let overflow = (self.tail.len() + bytes.len()).saturating_sub(self.tail_max);
        self.tail.drain(..overflow);
        self.tail.extend(bytes);
    }

    /// Whether bytes were dropped.
    pub(crate) fn was_cut(&self) -> bool {
        self.total > self.head.len() + self.tail.len()
    }

    /// The text (invalid UTF-8 replaced), with a marker where bytes were dropped.
    pub(crate) fn into_text(self) -> String {
        let head = String::from_utf8_lossy(&self.head);
        let tail: Vec<u8> = self.tail.into_iter().collect();
        let tail = String::from_utf8_lossy(&tail);
        let kept = self.head.len() + tail.len();
        if self.total <= kept {
            return format!("{head}{tail}");
        }
        format!(
            "{head}\n[... {} of {} bytes cut by hermes ...]\n{tail}",
            self.total - self.head.len() - tail.len(),
            self.total
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_streams_are_whole() {
        let mut out = HeadTail::new(100);
        out.push(b"hello ");
        out.push(b"world");
        assert!(!out.was_cut());
        assert_eq!(out.into_text(), "hello world");
    }

    #[test]
    fn long_streams_keep_head_and_tail_in_any_chunking() {
        let data: Vec<u8> = (0..10_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        for chunk in [1, 7, 100, 4096, 10_000] {
            let mut out = HeadTail::new(300);
            for piece in data.chunks(chunk) {
                out.push(piece);
            }
            assert!(out.was_cut());
            let text = out.into_text();
            let expected_head = String::from_utf8_lossy(&data[..200]);
            let expected_tail = String::from_utf8_lossy(&data[10_000 - 100..]);
            assert!(text.starts_with(&*expected_head), "chunk {chunk}");
            assert!(text.ends_with(&*expected_tail), "chunk {chunk}");
            assert!(
                text.contains("[... 9700 of 10000 bytes cut"),
                "chunk {chunk}: {text}"
            );
        }
    }
}

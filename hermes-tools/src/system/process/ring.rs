//! [`OutputRing`]: the unread output of one stream of a background process, bounded to
//! its latest bytes, with a count of what was dropped to stay in bound.

use std::collections::VecDeque;

/// The bytes of a stream not read yet: at most `cap`, the latest kept.
#[derive(Debug)]
pub(crate) struct OutputRing {
    bytes: VecDeque<u8>,
    cap: usize,
    /// Bytes dropped since the last read, to keep within `cap`.
    dropped: u64,
}

/// What one read of a ring gives.
#[derive(Debug, Default)]
pub(crate) struct Drained {
    /// The text (invalid UTF-8 replaced).
    pub(crate) text: String,
    /// Bytes that came since the previous read but were dropped before this one.
    pub(crate) dropped: u64,
}

impl OutputRing {
    /// An empty ring of at most `cap` bytes (at least one).
    pub(crate) fn new(cap: usize) -> Self {
        Self {
            bytes: VecDeque::new(),
            cap: cap.max(1),
            dropped: 0,
        }
    }

    /// Add bytes, dropping the oldest unread ones past the cap.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        let chunk = if chunk.len() > self.cap {
            self.dropped += (self.bytes.len() + chunk.len() - self.cap) as u64;
            self.bytes.clear();
            &chunk[chunk.len() - self.cap..]
        } else {
            let overflow = (self.bytes.len() + chunk.len()).saturating_sub(self.cap);
            self.bytes.drain(..overflow);
            self.dropped += overflow as u64;
            chunk
        };
        self.bytes.extend(chunk);
    }

    /// Whether bytes wait to be read.
    pub(crate) fn has_unread(&self) -> bool {
        !self.bytes.is_empty()
    }

    /// Take everything unread. While the stream may still grow (`partial`), a character
    /// cut at the end stays for the next read, so reads never split one.
    pub(crate) fn drain(&mut self, partial: bool) -> Drained {
        let mut bytes: Vec<u8> = self.bytes.drain(..).collect();
        if partial {
            let keep = incomplete_tail(&bytes);
            self.bytes.extend(bytes.drain(bytes.len() - keep..));
        }
        // After a drop the first bytes may be the rest of a cut character.
        let start = if self.dropped > 0 {
            bytes
                .iter()
                .take(3)
                .take_while(|byte| is_continuation(**byte))
                .count()
        } else {
            0
        };
        let dropped = std::mem::take(&mut self.dropped) + start as u64;
        Drained {
            text: String::from_utf8_lossy(&bytes[start..]).into_owned(),
            dropped,
        }
    }
}

fn is_continuation(byte: u8) -> bool {
    byte & 0b1100_0000 == 0b1000_0000
}

/// How many bytes at the end of `bytes` are the start of a UTF-8 character that is not
/// complete yet (0 to 3).
fn incomplete_tail(bytes: &[u8]) -> usize {
    let from = bytes.len().saturating_sub(3);
    for (at, byte) in bytes.iter().enumerate().skip(from).rev() {
        if is_continuation(*byte) {
            continue;
        }
        let needed = match byte.leading_ones() {
            2 => 2,
            3 => 3,
            4 => 4,
            _ => return 0,
        };
        let present = bytes.len() - at;
        return if present < needed { present } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_incremental() {
        let mut ring = OutputRing::new(100);
        ring.push(b"one\n");
        assert_eq!(ring.drain(true).text, "one\n");
        assert_eq!(ring.drain(true).text, "");
        ring.push(b"two\n");
        let read = ring.drain(true);
        assert_eq!((read.text.as_str(), read.dropped), ("two\n", 0));
        assert!(!ring.has_unread());
    }

    #[test]
    fn the_latest_bytes_are_kept_in_any_chunking() {
        let data: Vec<u8> = (0..1000u32).map(|i| b'a' + (i % 26) as u8).collect();
        for chunk in [1, 7, 64, 100, 1000] {
            let mut ring = OutputRing::new(64);
            for piece in data.chunks(chunk) {
                ring.push(piece);
            }
            let read = ring.drain(true);
            assert_eq!(read.text.as_bytes(), &data[1000 - 64..], "chunk {chunk}");
            assert_eq!(read.dropped, 1000 - 64, "chunk {chunk}");
            assert_eq!(ring.drain(true).dropped, 0);
        }
    }

    #[test]
    fn characters_are_never_split_between_reads() {
        let mut ring = OutputRing::new(100);
        let text = "héllo ✓";
        let bytes = text.as_bytes();
        ring.push(&bytes[..bytes.len() - 1]);
        let first = ring.drain(true).text;
        ring.push(&bytes[bytes.len() - 1..]);
        let second = ring.drain(true).text;
        assert_eq!(format!("{first}{second}"), text);
        assert_eq!(first, "héllo ");
    }

    #[test]
    fn a_cut_character_at_the_front_is_dropped_whole() {
        let mut ring = OutputRing::new(4);
        ring.push("aé✓".as_bytes());
        let read = ring.drain(false);
        assert_eq!(read.text, "✓");
        assert_eq!(read.dropped, 3);
    }
}

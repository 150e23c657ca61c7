//! [`MaskingWriter`]: logs with PII and secrets masked before they are written.

use std::io::{self, Write};

use hermes_core::redact::Redactor;
use tracing_subscriber::fmt::MakeWriter;

/// Wraps a `tracing-subscriber` writer so every formatted log line is masked
/// ([`hermes_core::redact`]) before it reaches the terminal or the file.
///
/// The fmt layer formats each event into one writer and drops it; this writer keeps
/// the event's text and writes it, masked, on drop. Field values (`user = "ada@..."`)
/// and messages are masked alike.
///
/// ```
/// use hermes_telemetry::logs::MaskingWriter;
///
/// let subscriber = tracing_subscriber::fmt()
///     .with_writer(MaskingWriter::new(std::io::stderr))
///     .finish();
/// tracing::subscriber::with_default(subscriber, || {
///     tracing::warn!(user = "ada@example.com", "token sk-live-0123456789abcdefghij refused");
///     // stderr: ... token [API_KEY] refused user="[EMAIL]"
/// });
/// ```
#[derive(Debug, Clone)]
pub struct MaskingWriter<M> {
    inner: M,
    redactor: Redactor,
}

impl<M> MaskingWriter<M> {
    /// Mask what `inner` would write, with the default redactor.
    pub fn new(inner: M) -> Self {
        Self {
            inner,
            redactor: Redactor::new(),
        }
    }

    /// Mask with this redactor instead.
    #[must_use]
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }
}

impl<'a, M> MakeWriter<'a> for MaskingWriter<M>
where
    M: MakeWriter<'a>,
{
    type Writer = MaskedEvent<'a, M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        MaskedEvent {
            inner: self.inner.make_writer(),
            redactor: &self.redactor,
            text: Vec::new(),
        }
    }
}

/// One event's text, written masked when dropped.
#[derive(Debug)]
pub struct MaskedEvent<'a, W: Write> {
    inner: W,
    redactor: &'a Redactor,
    text: Vec<u8>,
}

impl<W: Write> MaskedEvent<'_, W> {
    fn emit(&mut self) -> io::Result<()> {
        if self.text.is_empty() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&self.text);
        let masked = self.redactor.mask(&text);
        self.inner.write_all(masked.as_bytes())?;
        self.text.clear();
        self.inner.flush()
    }
}

impl<W: Write> Write for MaskedEvent<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.text.extend_from_slice(buf);
        Ok(buf.len())
    }

    /// Nothing yet: the text is masked whole, when the event is done, so that a flush
    /// in the middle cannot split an email or a key in two unmasked halves.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<W: Write> Drop for MaskedEvent<'_, W> {
    fn drop(&mut self) {
        // A log line that cannot be written has nowhere else to go.
        let _ = self.emit();
    }
}

//! Logs are masked before they are written.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

use common::Buffer;
use hermes_telemetry::logs::MaskingWriter;

#[test]
fn pii_in_messages_and_fields_is_masked_and_ordinary_numbers_are_not() {
    let buffer = Buffer::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(MaskingWriter::new(buffer.clone()))
        .with_ansi(false)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        tracing::warn!(
            user = "ada@example.com",
            phone = "13812345678",
            "card 4111111111111111 refused"
        );
        tracing::info!(
            at = 1_764_482_462_123_u64,
            order = 20_261_130_000_123_u64,
            "key sk-proj-abcdefghijklmnop0123 rotated"
        );
    });
    let text = buffer.text();
    assert_eq!(text.lines().count(), 2, "{text}");
    for secret in [
        "ada@example.com",
        "13812345678",
        "4111111111111111",
        "sk-proj-abcdefghijklmnop0123",
    ] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
    assert!(text.contains("[EMAIL]"), "{text}");
    assert!(
        text.contains("1764482462123"),
        "a timestamp was masked: {text}"
    );
    assert!(
        text.contains("20261130000123"),
        "an order number was masked: {text}"
    );
}

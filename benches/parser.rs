//! The Hermes `<tool_call>` parser's throughput: 1 MiB of text without calls, and text
//! with 100 calls, parsed whole and fed in 1-byte, 7-byte and 4 KiB chunks (as a
//! stream arrives). The group's baseline is a plain byte scan for `<` over the same
//! text: the floor any parser must touch every byte for.
//!
//! Chunking must not change the order of growth: the 1-byte case feeds a million
//! chunks and should stay within a constant factor of the whole-text case.
//!
//! `cargo bench --bench parser && scripts/bench-ratios`; figures in BENCHMARKS.md.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use hermes::llm::hermes::parser::{HermesParser, ParserOptions, parse};

const MIB: usize = 1 << 20;

/// Prose of about `size` bytes: words, punctuation, line breaks, a few `<` that open
/// no tag, no tool call.
fn prose(size: usize) -> String {
    const WORDS: &[&str] = &[
        "the",
        "model",
        "answers",
        "with",
        "plain",
        "text,",
        "numbers",
        "like",
        "3 < 4,",
        "and",
        "markup",
        "such",
        "as",
        "<b>bold</b>",
        "that",
        "is",
        "not",
        "a",
        "call.\n",
    ];
    let mut text = String::with_capacity(size + 32);
    let mut i = 0;
    while text.len() < size {
        text.push_str(WORDS[i % WORDS.len()]);
        text.push(' ');
        i += 1;
    }
    text.truncate(size);
    text
}

/// 100 calls between stretches of prose, about 1 MiB in all.
fn with_calls() -> String {
    let mut text = String::with_capacity(MIB + 4096);
    let filler = prose(MIB / 100 - 80);
    for i in 0..100 {
        text.push_str(&filler);
        text.push_str(&format!(
            "<tool_call>\n{{\"name\": \"add\", \"arguments\": {{\"a\": {i}, \"b\": 3}}}}\n</tool_call>\n"
        ));
    }
    text
}

fn chunked(text: &str, size: usize) -> usize {
    let mut parser = HermesParser::new(ParserOptions::new());
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        black_box(parser.push(&text[start..end]));
        start = end;
    }
    parser.finish().1.calls.len()
}

fn bench(c: &mut Criterion, group_name: &str, text: &str, calls: usize) {
    let mut group = c.benchmark_group(group_name);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(20);
    assert_eq!(parse(text, ParserOptions::new()).calls.len(), calls);
    for size in [1, 7, 4096] {
        assert_eq!(chunked(text, size), calls, "chunks of {size}");
    }
    group.bench_function("baseline", |b| {
        b.iter(|| black_box(text).bytes().filter(|&b| b == b'<').count())
    });
    group.bench_function("whole", |b| {
        b.iter(|| parse(black_box(text), ParserOptions::new()).calls.len())
    });
    for (name, size) in [("chunks_1", 1), ("chunks_7", 7), ("chunks_4k", 4096)] {
        group.bench_function(name, |b| b.iter(|| chunked(black_box(text), size)));
    }
    group.finish();
}

fn bench_parser(c: &mut Criterion) {
    bench(c, "parser_no_calls", &prose(MIB), 0);
    bench(c, "parser_100_calls", &with_calls(), 100);
}

criterion_group!(benches, bench_parser);
criterion_main!(benches);

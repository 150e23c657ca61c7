//! `hermes parse`: what a model's raw output holds.

use std::io::{Read, Write};

use hermes_llm::hermes::parser::{HermesParser, ParserOptions};

use crate::cli::ParseArgs;
use crate::{Status, UsageError};

pub(crate) fn parse(
    args: &ParseArgs,
    input: &mut dyn Read,
    out: &mut dyn Write,
) -> anyhow::Result<Status> {
    let mut text = String::new();
    input
        .read_to_string(&mut text)
        .map_err(|error| UsageError(format!("stdin is not UTF-8 text: {error}")))?;
    let options = ParserOptions::new()
        .lenient(args.lenient)
        .think_open(args.think_open);
    let mut parser = HermesParser::new(options);
    match args.chunk_size {
        // Whole characters at a time: a chunk never splits a UTF-8 character.
        Some(size) => {
            let chars: Vec<char> = text.chars().collect();
            for piece in chars.chunks(usize::try_from(size).unwrap_or(usize::MAX)) {
                parser.push(&piece.iter().collect::<String>());
            }
        }
        None => {
            parser.push(&text);
        }
    }
    let (_, outcome) = parser.finish();
    serde_json::to_writer(&mut *out, &outcome)?;
    writeln!(out)?;
    Ok(Status::Success)
}

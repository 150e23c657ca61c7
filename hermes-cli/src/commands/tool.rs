//! `hermes tool list | schema | call`.

use std::io::Write;

use hermes_core::{Dispatcher, Registry, RunContext, Tool, ToolCall};
use serde::Serialize;

use crate::cli::{CallArgs, ListArgs, SchemaArgs};
use crate::{Status, UsageError};

/// One row of `tool list --json`.
#[derive(Debug, Serialize)]
struct Listing<'a> {
    name: &'a str,
    scope: &'a str,
    description: &'a str,
    tags: &'a [String],
    permissions: &'a [String],
    timeout_ms: u128,
    max_result_bytes: usize,
    /// `builtin`, or the file the tool was registered from.
    source: String,
}

/// Where a tool came from: `builtin`, or its source (a YAML file's path).
fn source(registry: &Registry, name: &str) -> String {
    registry
        .source_of(name)
        .unwrap_or_else(|| "builtin".to_owned())
}

pub(crate) fn list(
    registry: &Registry,
    args: &ListArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Status> {
    let tools = registry.list();
    if args.json {
        let rows: Vec<Listing<'_>> = tools
            .iter()
            .map(|tool| {
                let spec = tool.spec();
                Listing {
                    name: spec.name(),
                    scope: spec.scope().as_str(),
                    description: spec.description(),
                    tags: spec.tags(),
                    permissions: spec.permissions(),
                    timeout_ms: spec.timeout().as_millis(),
                    max_result_bytes: spec.max_result_bytes(),
                    source: source(registry, spec.name()),
                }
            })
            .collect();
        serde_json::to_writer_pretty(&mut *out, &rows)?;
        writeln!(out)?;
        return Ok(Status::Success);
    }
    let width = tools
        .iter()
        .map(|tool| tool.spec().name().len())
        .max()
        .unwrap_or(4)
        .max(4);
    // The file name is enough in the table; --json has the whole path.
    let sources: Vec<String> = tools
        .iter()
        .map(|tool| {
            let source = source(registry, tool.spec().name());
            std::path::Path::new(&source)
                .file_name()
                .map_or(source.clone(), |name| name.to_string_lossy().into_owned())
        })
        .collect();
    let source_width = sources.iter().map(String::len).max().unwrap_or(6).max(6);
    writeln!(
        out,
        "{:<width$}  {:<9}  {:<source_width$}  DESCRIPTION",
        "NAME", "SCOPE", "SOURCE"
    )?;
    for (tool, source) in tools.iter().zip(&sources) {
        let spec = tool.spec();
        let summary = spec.description().lines().next().unwrap_or_default();
        writeln!(
            out,
            "{:<width$}  {:<9}  {source:<source_width$}  {summary}",
            spec.name(),
            spec.scope().as_str()
        )?;
    }
    Ok(Status::Success)
}

pub(crate) fn schema(
    registry: &Registry,
    args: &SchemaArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Status> {
    let tool = find(registry, &args.name)?;
    serde_json::to_writer_pretty(&mut *out, &tool.spec().schema())?;
    writeln!(out)?;
    Ok(Status::Success)
}

/// Repairs the gateway made go to `err`, one line each; the content goes to `out`.
pub(crate) async fn call(
    registry: Registry,
    args: &CallArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<Status> {
    let (approver, engine) = super::permissions::gate(&args.policy)?;
    let mut dispatcher = Dispatcher::builder(registry).approver_arc(approver);
    if let Some(engine) = engine {
        dispatcher = dispatcher.policy(engine.clone()).idempotency_store(engine);
    }
    let dispatcher = dispatcher.build()?;
    let call = ToolCall::new("cli_call", args.name.as_str(), args.args.as_str());
    let run = RunContext::new().with_session(args.session.as_str());
    let report = dispatcher.dispatch(&call, &run).await;
    for repair in &report.repairs {
        writeln!(err, "hermes: repaired {repair}")?;
    }
    writeln!(out, "{}", report.message.content)?;
    Ok(if report.is_success() {
        Status::Success
    } else {
        Status::No
    })
}

pub(crate) fn find(
    registry: &Registry,
    name: &str,
) -> Result<std::sync::Arc<dyn Tool>, UsageError> {
    registry.get(name).ok_or_else(|| {
        UsageError(format!(
            "no tool named `{name}` is registered; run `hermes tool list` to see the tools"
        ))
    })
}

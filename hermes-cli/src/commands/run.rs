//! `hermes run`: an agent with the registered tools against a model server.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use hermes_core::{Agent, AgentEvent, LlmBackend, Registry, RunStatus, ToolChoice};
use hermes_llm::{AnthropicBackend, HermesBackend, OpenAiBackend, Settings};
use serde_json::{Value, json};

use crate::cli::{Backend, RunArgs};
use crate::{Status, UsageError};

pub(crate) async fn run(
    registry: Registry,
    args: &RunArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Status> {
    let backend = backend(args)?;
    // MCP servers' tools join the registry before --tools picks from it; the servers
    // stop when the run ends.
    let _mcp = super::mcp::connect(&registry, args.mcp.as_deref()).await?;
    // YAML tools are reloaded while the run goes on (not with --tools, which fixes the set).
    let _watchers = if args.tools.is_empty() {
        crate::tools::watch(&registry)
    } else {
        Vec::new()
    };
    let registry = if args.tools.is_empty() {
        registry
    } else {
        crate::tools::only(&registry, &args.tools).map_err(UsageError)?
    };
    let mut builder = Agent::builder()
        .backend_arc(backend)
        .registry(registry.clone())
        .max_rounds(args.max_rounds)
        .tool_choice(tool_choice(&args.tool_choice, &registry)?)
        .then_tool_choice(tool_choice(&args.then_tool_choice, &registry)?);
    if let Some(seconds) = args.timeout {
        let timeout = Duration::try_from_secs_f64(seconds).map_err(|_| {
            UsageError(format!(
                "--timeout {seconds}: give a number of seconds above zero"
            ))
        })?;
        builder = builder.timeout(timeout);
    }
    if let Some(telemetry) = super::telemetry::collector(args.no_telemetry) {
        builder = builder.observer(telemetry);
    }
    if let Some(path) = &args.audit {
        builder = builder.observer(super::telemetry::audit(path)?);
    }
    if let Some(user) = &args.user {
        builder = builder.user_id(user.as_str());
    }
    let (approver, engine) = super::permissions::gate(&args.policy)?;
    builder = builder.approver_arc(approver);
    if let Some(engine) = engine {
        builder = builder.policy(engine.clone()).idempotency_store(engine);
    }
    let agent = builder
        .build()
        .map_err(|error| UsageError(error.to_string()))?;
    let mut run = agent.stream(args.prompt.as_str());
    if !args.json {
        while let Some(event) = run.next().await {
            print_event(&event, out)?;
        }
    }
    let outcome = run.outcome().await;
    if args.json {
        let document = json!({
            "trace_id": outcome.trace_id,
            "status": outcome.status,
            "answer": outcome.answer,
            "events": outcome.events,
            "usage": outcome.usage,
        });
        serde_json::to_writer(&mut *out, &document)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "answer: {}",
            outcome.answer.as_deref().unwrap_or("(none)")
        )?;
        writeln!(
            out,
            "status: {} after {} round(s), {} tokens, trace {}",
            outcome.status, outcome.rounds, outcome.usage.total_tokens, outcome.trace_id
        )?;
        if let Some(error) = &outcome.error {
            writeln!(out, "error: {error}")?;
        }
    }
    Ok(if outcome.status == RunStatus::Completed {
        Status::Success
    } else {
        Status::No
    })
}

fn print_event(event: &AgentEvent, out: &mut dyn Write) -> std::io::Result<()> {
    let value = serde_json::to_value(event).unwrap_or(Value::Null);
    let field = |name: &str| {
        value
            .get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match value.get("type").and_then(Value::as_str) {
        Some("llm_response") => {
            let text = field("content");
            if !text.trim().is_empty() {
                writeln!(out, "model: {}", text.trim())?;
            }
            for call in value
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                writeln!(
                    out,
                    "call: {}({}) [{}]",
                    call.pointer("/function/name")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    call.pointer("/function/arguments")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    call.get("id").and_then(Value::as_str).unwrap_or_default(),
                )?;
            }
        }
        Some("tool_call_finished") => {
            writeln!(
                out,
                "result: {} [{}] {}: {}",
                field("name"),
                field("tool_call_id"),
                field("outcome"),
                field("preview")
            )?;
        }
        Some("approval_requested") => writeln!(out, "approval: {}", field("prompt"))?,
        _ => {}
    }
    Ok(())
}

fn tool_choice(text: &str, registry: &Registry) -> Result<ToolChoice, UsageError> {
    Ok(match text {
        "auto" => ToolChoice::Auto,
        "none" => ToolChoice::None,
        "required" => ToolChoice::Required,
        name if registry.contains(name) => ToolChoice::Function(name.to_owned()),
        other => {
            return Err(UsageError(format!(
                "tool choice `{other}` is not auto, none, required or a registered tool ({})",
                registry.names().join(", ")
            )));
        }
    })
}

fn backend(args: &RunArgs) -> Result<Arc<dyn LlmBackend>, UsageError> {
    let settings = Settings::from_env();
    let key_from = |default: &[&str]| -> Result<Option<String>, UsageError> {
        match &args.api_key_env {
            Some(name) => std::env::var(name)
                .map(Some)
                .map_err(|_| UsageError(format!("--api-key-env {name}: that variable is not set"))),
            None => Ok(default.iter().find_map(|name| std::env::var(name).ok())),
        }
    };
    let model = args
        .model
        .clone()
        .or(settings.model.clone())
        .ok_or_else(|| UsageError("no model: pass --model or set HERMES_MODEL".to_owned()))?;
    let config = |error: hermes_llm::Error| UsageError(error.to_string());
    Ok(match args.backend {
        Backend::Openai => {
            let base_url = args
                .base_url
                .clone()
                .or(settings.base_url)
                .unwrap_or_else(|| hermes_llm::OPENAI_BASE_URL.to_owned());
            let mut builder = OpenAiBackend::builder().base_url(base_url).model(model);
            if let Some(key) = key_from(&["HERMES_API_KEY", "OPENAI_API_KEY"])? {
                builder = builder.api_key(key);
            }
            if let Some(temperature) = args.temperature {
                builder = builder.temperature(temperature);
            }
            Arc::new(builder.build().map_err(config)?)
        }
        Backend::Hermes => {
            let base_url = args.base_url.clone().or(settings.base_url).ok_or_else(|| {
                UsageError("the hermes backend needs --base-url (or HERMES_BASE_URL)".to_owned())
            })?;
            let mut builder = HermesBackend::builder()
                .base_url(base_url)
                .model(model)
                .grammar(args.grammar);
            if let Some(key) = key_from(&["HERMES_API_KEY", "OPENAI_API_KEY"])? {
                builder = builder.api_key(key);
            }
            if let Some(temperature) = args.temperature {
                builder = builder.temperature(temperature);
            }
            Arc::new(builder.build().map_err(config)?)
        }
        Backend::Anthropic => {
            let base_url = args
                .base_url
                .clone()
                .unwrap_or_else(|| hermes_llm::ANTHROPIC_BASE_URL.to_owned());
            let mut builder = AnthropicBackend::builder().base_url(base_url).model(model);
            if let Some(key) = key_from(&["ANTHROPIC_API_KEY"])? {
                builder = builder.api_key(key);
            }
            if let Some(temperature) = args.temperature {
                builder = builder.temperature(temperature);
            }
            Arc::new(builder.build().map_err(config)?)
        }
    })
}

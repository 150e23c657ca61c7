//! The loop of one run.

use std::collections::HashSet;
use std::future::pending;

use futures_util::StreamExt;
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::{Agent, AgentOutcome, RunStatus};
use crate::content_check::{Stage, Verdict};
use crate::observe::LlmCallRecord;
use crate::{
    AgentEvent, ChatRequest, ChatResponse, EventSink, LlmError, Message, RunContext, ToolError,
    ToolErrorKind, Usage,
};

/// What a run has built so far; lives outside the loop's future so a timeout or a
/// cancellation that drops the loop keeps it.
struct RunState {
    messages: Vec<Message>,
    usage: Usage,
    rounds: u32,
    answer: Option<String>,
    error: Option<String>,
}

impl Agent {
    pub(super) async fn execute(
        &self,
        input: String,
        trace_id: String,
        cancellation: CancellationToken,
        sink: EventSink,
    ) -> AgentOutcome {
        let inner = &self.inner;
        // A child, so stopping our calls on timeout leaves the caller's token alone.
        let token = cancellation.child_token();
        let mut run = RunContext::new()
            .with_trace_id(trace_id.as_str())
            .with_session(&*inner.session_id)
            .with_cancellation(token.clone())
            .with_events(sink.clone());
        if let Some(user) = &inner.user_id {
            run = run.with_user(&**user);
        }
        let deadline = inner.timeout.map(|timeout| Instant::now() + timeout);
        let mut state = RunState {
            messages: vec![
                Message::system(inner.system_prompt.clone()),
                Message::user(input),
            ],
            usage: Usage::default(),
            rounds: 0,
            answer: None,
            error: None,
        };
        let span = tracing::info_span!(
            "invoke_agent",
            trace_id = trace_id.as_str(),
            session_id = %inner.session_id,
            "gen_ai.operation.name" = "invoke_agent",
        );
        let status = async {
            tokio::select! {
                biased;
                () = token.cancelled() => RunStatus::Cancelled,
                () = sleep_until_some(deadline) => RunStatus::Timeout,
                status = self.rounds(&mut state, &run, deadline) => status,
            }
        }
        .instrument(span)
        .await;
        if matches!(status, RunStatus::Cancelled | RunStatus::Timeout) {
            token.cancel();
            close_open_calls(&mut state.messages);
        }
        tracing::info!(trace_id = trace_id.as_str(), %status, rounds = state.rounds, "agent run finished");
        sink.emit(AgentEvent::Finished {
            status,
            rounds: state.rounds,
        });
        AgentOutcome {
            trace_id,
            status,
            answer: state.answer,
            messages: state.messages,
            usage: state.usage,
            rounds: state.rounds,
            events: sink.events(),
            error: state.error,
        }
    }

    /// Rounds until an answer, the limit, or a backend failure. Dropped mid-way on
    /// timeout or cancellation; `state` keeps what was done.
    async fn rounds(
        &self,
        state: &mut RunState,
        run: &RunContext,
        deadline: Option<Instant>,
    ) -> RunStatus {
        let inner = &self.inner;
        if let Some(blocked) = self.audit_input(state) {
            return blocked;
        }
        let mut strikes = 0;
        for round in 1..=inner.max_rounds {
            state.rounds = round;
            run.emit(|| AgentEvent::RoundStarted { round });
            let span =
                tracing::info_span!("round", trace_id = run.trace_id(), round = i64::from(round));
            let llm_span = tracing::info_span!(
                parent: &span,
                "chat",
                "otel.kind" = "client",
                "gen_ai.operation.name" = "chat",
                "gen_ai.usage.input_tokens" = tracing::field::Empty,
                "gen_ai.usage.output_tokens" = tracing::field::Empty,
                "error.type" = tracing::field::Empty,
            );
            let tools = inner.dispatcher.registry().schemas();
            let tool_choice = if round == 1 {
                &inner.tool_choice
            } else {
                &inner.then_tool_choice
            };
            let sent = inner.window.select(&state.messages);
            let request = ChatRequest::new(&sent, &tools)
                .with_tool_choice(tool_choice)
                .with_deadline(deadline);
            let started = std::time::Instant::now();
            let answer = inner
                .backend
                .complete(request)
                .instrument(llm_span.clone())
                .await;
            self.observe_llm(run, round, started.elapsed(), &answer, &llm_span);
            let mut response = match answer {
                Ok(response) => response,
                Err(error) => {
                    tracing::warn!(trace_id = run.trace_id(), %error, "backend failed");
                    state.error = Some(error.to_string());
                    return RunStatus::Failed;
                }
            };
            if let Some(usage) = response.usage {
                state.usage += usage;
            }
            super::call_ids::make_unique(&mut response.message.tool_calls);
            run.emit(|| AgentEvent::LlmResponse {
                round,
                content: response.message.content.clone(),
                tool_calls: response.message.tool_calls.clone(),
                usage: response.usage,
                finish_reason: response.finish_reason.clone(),
            });
            let calls = response.message.tool_calls.clone();
            let content = response.message.content.clone();
            if let Some(text) = &content {
                if let Some(blocked) = self.check_text(Stage::Output, text, state) {
                    return blocked;
                }
            }
            state.messages.push(Message::Assistant(response.message));
            if calls.is_empty() {
                state.answer = content;
                return RunStatus::Completed;
            }
            // Results land in the transcript one by one, in call order, so a run cut
            // short keeps every result that was already in.
            let mut reports = std::pin::pin!(inner.dispatcher.dispatch_stream(&calls, run));
            let mut unusable = true;
            while let Some(report) = reports.next().instrument(span.clone()).await {
                unusable &= report.error.as_ref().is_some_and(is_unusable);
                state.messages.push(report.into_message());
            }
            strikes = if unusable { strikes + 1 } else { 0 };
            if inner.strike_limit > 0 && strikes >= inner.strike_limit {
                let reason = format!(
                    "{strikes} rounds in a row in which every tool call named an unknown tool \
                     or sent arguments that could not be read"
                );
                tracing::warn!(trace_id = run.trace_id(), %reason, "strike limit reached");
                state.error = Some(reason);
                return RunStatus::Failed;
            }
        }
        RunStatus::MaxRounds
    }
}

/// A call the model could not have meant to run as sent: an unknown tool, or
/// arguments that are not JSON or were cut off.
fn is_unusable(error: &ToolError) -> bool {
    matches!(
        error.kind(),
        ToolErrorKind::NotFound | ToolErrorKind::BadJson | ToolErrorKind::Truncated
    )
}

async fn sleep_until_some(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => sleep_until(deadline).await,
        None => pending().await,
    }
}

impl Agent {
    /// Record one model call on its span and with the dispatcher's observers.
    fn observe_llm(
        &self,
        run: &RunContext,
        round: u32,
        duration: std::time::Duration,
        answer: &Result<ChatResponse, LlmError>,
        span: &tracing::Span,
    ) {
        let usage = answer.as_ref().ok().and_then(|response| response.usage);
        if let Some(usage) = usage {
            // As i64: OpenTelemetry bridges export unsigned integers as text.
            let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
            span.record("gen_ai.usage.input_tokens", count(usage.prompt_tokens));
            span.record("gen_ai.usage.output_tokens", count(usage.completion_tokens));
        }
        if let Err(error) = answer {
            span.record("error.type", error.kind());
        }
        let observers = self.inner.dispatcher.observers();
        if observers.is_empty() {
            return;
        }
        let tools: Vec<&str> = answer.as_ref().map_or_else(
            |_| Vec::new(),
            |response| {
                response
                    .message
                    .tool_calls
                    .iter()
                    .map(|call| call.name())
                    .collect()
            },
        );
        observers.llm_call(&LlmCallRecord {
            at: std::time::SystemTime::now(),
            origin: run.origin(),
            round,
            duration,
            usage,
            tools: &tools,
            error: answer.as_ref().err().map(LlmError::kind),
        });
    }

    /// Check the user's input; `Some(Blocked)` to end the run.
    fn audit_input(&self, state: &mut RunState) -> Option<RunStatus> {
        self.inner.content_check.as_ref()?;
        let input = state
            .messages
            .iter()
            .rev()
            .find_map(|message| match message {
                Message::User { content } => Some(content.clone()),
                _ => None,
            })?;
        self.check_text(Stage::Input, &input, state)
    }

    /// Run the content check on `text`; `Some(Blocked)`, with the reason recorded, when
    /// it blocks.
    fn check_text(&self, stage: Stage, text: &str, state: &mut RunState) -> Option<RunStatus> {
        let check = self.inner.content_check.as_ref()?;
        match check.check(stage, text) {
            Verdict::Block { reason } => {
                tracing::warn!(%stage, %reason, "content check blocked the run");
                state.error = Some(format!("blocked by the content check ({stage}): {reason}"));
                Some(RunStatus::Blocked)
            }
            _ => None,
        }
    }
}

/// Answer every call of the last assistant message that has no tool message yet, so
/// the transcript stays valid to send to a server again.
fn close_open_calls(messages: &mut Vec<Message>) {
    let Some(at) = messages
        .iter()
        .rposition(|message| matches!(message, Message::Assistant(_)))
    else {
        return;
    };
    let answered: HashSet<&str> = messages[at + 1..]
        .iter()
        .filter_map(|message| match message {
            Message::Tool(tool) => Some(tool.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    let missing: Vec<Message> = messages[at]
        .calls()
        .iter()
        .filter(|call| !answered.contains(call.id.as_str()))
        .map(|call| {
            let error = ToolError::Cancelled {
                tool: call.name().to_owned(),
            };
            Message::tool(call.id.clone(), call.name(), error.to_content())
        })
        .collect();
    messages.extend(missing);
}

/// The outcome of a run whose task died (a panic in a backend, say).
pub(super) fn crashed(trace_id: String, why: &str) -> AgentOutcome {
    AgentOutcome {
        trace_id,
        status: RunStatus::Failed,
        answer: None,
        messages: Vec::new(),
        usage: Usage::default(),
        rounds: 0,
        events: Vec::new(),
        error: Some(format!("the run's task ended abnormally: {why}")),
    }
}

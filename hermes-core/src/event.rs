//! What happens during a run, as data: [`AgentEvent`]s, collected by an [`EventSink`].

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use tokio::sync::mpsc::UnboundedSender;

use crate::dispatch::RepairKind;
use crate::redact::Redactor;
use crate::{FinishReason, RunStatus, ToolCall, ToolErrorKind, Usage};

/// One step of a run. Serialized with a `type` tag in snake case
/// (`{"type": "tool_call_finished", ...}`), one JSON object per event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AgentEvent {
    /// A round (one model call and its tool calls) began.
    #[non_exhaustive]
    RoundStarted {
        /// 1-based round number.
        round: u32,
    },
    /// The model answered.
    #[non_exhaustive]
    LlmResponse {
        /// The round.
        round: u32,
        /// The text, if any.
        content: Option<String>,
        /// The tool calls, if any.
        tool_calls: Vec<ToolCall>,
        /// Token counts, when the backend reported them.
        usage: Option<Usage>,
        /// Why the model stopped.
        finish_reason: Option<FinishReason>,
    },
    /// The gateway took a call.
    #[non_exhaustive]
    ToolCallStarted {
        /// The call's id.
        tool_call_id: String,
        /// The tool named by the model.
        name: String,
    },
    /// The gateway repaired something in a call (see `Repairs`).
    #[non_exhaustive]
    ToolCallRepaired {
        /// The call's id.
        tool_call_id: String,
        /// The tool (after a name repair, the repaired name).
        name: String,
        /// What kind of repair.
        kind: RepairKind,
        /// What changed.
        detail: String,
    },
    /// A call needs a human's approval; the approver was asked.
    #[non_exhaustive]
    ApprovalRequested {
        /// The call's id.
        tool_call_id: String,
        /// The tool.
        name: String,
        /// What was asked.
        prompt: String,
    },
    /// A running tool reported progress ([`ToolContext::progress`](crate::ToolContext::progress)).
    #[non_exhaustive]
    ToolProgress {
        /// The call's id.
        tool_call_id: String,
        /// What is happening, in words.
        message: String,
        /// Units done so far (bytes, files...), when counted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        done: Option<u64>,
        /// Units in all, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        total: Option<u64>,
    },
    /// A call finished, successfully or not.
    #[non_exhaustive]
    ToolCallFinished {
        /// The call's id.
        tool_call_id: String,
        /// The tool named by the model.
        name: String,
        /// Wall time in the gateway, in milliseconds on the wire.
        #[serde(rename = "duration_ms", with = "millis")]
        duration: Duration,
        /// `ok`, or the error kind.
        outcome: CallOutcome,
        /// Whether the call succeeded (`outcome` is `ok`).
        success: bool,
        /// True when an idempotent repeat returned the first result without running.
        replayed: bool,
        /// The start of the result sent to the model (at most 500 bytes).
        preview: String,
    },
    /// A source of tools (a YAML file...) was loaded again and its tools swapped in.
    /// Calls in flight finish on the tools they started with.
    #[non_exhaustive]
    ToolsReloaded {
        /// The source, e.g. the file's path.
        source: String,
        /// Tools that are new, sorted.
        added: Vec<String>,
        /// Tools whose definition changed, sorted.
        changed: Vec<String>,
        /// Tools no longer offered, sorted.
        removed: Vec<String>,
    },
    /// A source of tools changed but could not be loaded; its previous tools keep serving.
    #[non_exhaustive]
    ToolsReloadFailed {
        /// The source, e.g. the file's path.
        source: String,
        /// Why, with file, line and column where known.
        error: String,
    },
    /// The run ended.
    #[non_exhaustive]
    Finished {
        /// How it ended.
        status: RunStatus,
        /// Rounds run.
        rounds: u32,
    },
}

impl AgentEvent {
    /// A [`ToolsReloaded`](Self::ToolsReloaded) event, for sources of tools outside
    /// this crate (hermes-tools' YAML files).
    pub fn tools_reloaded(
        source: impl Into<String>,
        added: Vec<String>,
        changed: Vec<String>,
        removed: Vec<String>,
    ) -> Self {
        Self::ToolsReloaded {
            source: source.into(),
            added,
            changed,
            removed,
        }
    }

    /// A [`ToolsReloadFailed`](Self::ToolsReloadFailed) event.
    pub fn tools_reload_failed(source: impl Into<String>, error: impl Into<String>) -> Self {
        Self::ToolsReloadFailed {
            source: source.into(),
            error: error.into(),
        }
    }
}

impl fmt::Display for AgentEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::RoundStarted { round } => write!(f, "round {round} started"),
            Self::LlmResponse {
                round,
                content,
                tool_calls,
                ..
            } => {
                write!(f, "round {round}: model answered")?;
                for call in tool_calls {
                    write!(
                        f,
                        "\n  call {} {}({})",
                        call.id,
                        call.name(),
                        call.arguments()
                    )?;
                }
                if let Some(text) = content {
                    write!(f, "\n  text: {text}")?;
                }
                Ok(())
            }
            Self::ToolCallStarted { tool_call_id, name } => {
                write!(f, "tool {name} [{tool_call_id}] started")
            }
            Self::ToolCallRepaired {
                tool_call_id,
                name,
                kind,
                detail,
            } => write!(
                f,
                "tool {name} [{tool_call_id}] repaired ({}): {detail}",
                kind.as_str()
            ),
            Self::ApprovalRequested {
                tool_call_id,
                name,
                prompt,
            } => write!(f, "tool {name} [{tool_call_id}] needs approval: {prompt}"),
            Self::ToolProgress {
                tool_call_id,
                message,
                done,
                total,
            } => {
                write!(f, "tool [{tool_call_id}] progress: {message}")?;
                match (done, total) {
                    (Some(done), Some(total)) => write!(f, " ({done}/{total})"),
                    (Some(done), None) => write!(f, " ({done})"),
                    _ => Ok(()),
                }
            }
            Self::ToolCallFinished {
                tool_call_id,
                name,
                duration,
                outcome,
                replayed,
                ..
            } => {
                let replayed = if *replayed { " (replayed)" } else { "" };
                write!(
                    f,
                    "tool {name} [{tool_call_id}] finished: {outcome} in {:.3} ms{replayed}",
                    duration.as_secs_f64() * 1000.0
                )
            }
            Self::ToolsReloaded {
                source,
                added,
                changed,
                removed,
            } => {
                write!(f, "tools reloaded from {source}:")?;
                for (label, names) in [("added", added), ("changed", changed), ("removed", removed)]
                {
                    if !names.is_empty() {
                        write!(f, " {label} {}", names.join(", "))?;
                    }
                }
                if added.is_empty() && changed.is_empty() && removed.is_empty() {
                    f.write_str(" no change")?;
                }
                Ok(())
            }
            Self::ToolsReloadFailed { source, error } => {
                write!(
                    f,
                    "tools from {source} not reloaded (previous set kept): {error}"
                )
            }
            Self::Finished { status, rounds } => {
                write!(f, "run finished: {status} after {rounds} round(s)")
            }
        }
    }
}

/// How one call ended: `ok`, or the [`ToolErrorKind`]'s wire name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallOutcome {
    /// The tool ran and returned a result.
    Success,
    /// The call failed.
    Failure(ToolErrorKind),
}

impl CallOutcome {
    /// `ok` or the error kind's wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Success => "ok",
            Self::Failure(kind) => kind.as_str(),
        }
    }
}

impl fmt::Display for CallOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CallOutcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for CallOutcome {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        if name == "ok" {
            return Ok(Self::Success);
        }
        ToolErrorKind::from_wire(&name)
            .map(Self::Failure)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown call outcome `{name}`")))
    }
}

mod millis {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64() * 1000.0)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let ms = f64::deserialize(d)?;
        Duration::try_from_secs_f64(ms / 1000.0).map_err(serde::de::Error::custom)
    }
}

/// `event` with its strings masked (through its JSON form, so every field is covered);
/// as it was if that round trip fails.
fn masked(event: AgentEvent, redactor: &Redactor) -> AgentEvent {
    let Ok(mut value) = serde_json::to_value(&event) else {
        return event;
    };
    redactor.mask_json(&mut value);
    serde_json::from_value(value).unwrap_or(event)
}

/// Where a run's events go: an in-memory log, and optionally a channel for live
/// consumers. Cheap to clone; clones share the log.
#[derive(Debug, Clone, Default)]
pub struct EventSink {
    log: Arc<Mutex<Vec<AgentEvent>>>,
    live: Option<UnboundedSender<AgentEvent>>,
    redactor: Option<Redactor>,
}

impl EventSink {
    /// A sink that only keeps a log.
    pub fn new() -> Self {
        Self::default()
    }

    /// A sink that keeps a log and also sends each event down `sender`.
    pub fn with_sender(sender: UnboundedSender<AgentEvent>) -> Self {
        Self {
            log: Arc::default(),
            live: Some(sender),
            redactor: None,
        }
    }

    /// Mask PII and secrets ([`crate::redact`]) in every event this sink records: the
    /// model's text, call arguments, result previews, error messages.
    ///
    /// ```
    /// use hermes_core::redact::Redactor;
    /// use hermes_core::{AgentEvent, EventSink};
    ///
    /// let sink = EventSink::new().with_redactor(Redactor::new());
    /// sink.emit(AgentEvent::tools_reload_failed("tools.yaml", "mail admin@example.com"));
    /// assert!(sink.events()[0].to_string().ends_with("mail [EMAIL]"));
    /// ```
    #[must_use]
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = Some(redactor);
        self
    }

    /// Record one event. A closed channel is ignored: the log still has it.
    pub fn emit(&self, event: AgentEvent) {
        let event = match &self.redactor {
            Some(redactor) => masked(event, redactor),
            None => event,
        };
        if let Some(live) = &self.live {
            // A receiver that went away only means nobody is watching live.
            let _ = live.send(event.clone());
        }
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event);
    }

    /// A copy of the events so far.
    pub fn events(&self) -> Vec<AgentEvent> {
        self.log
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Take the events out, leaving the log empty.
    pub fn take(&self) -> Vec<AgentEvent> {
        std::mem::take(&mut *self.log.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

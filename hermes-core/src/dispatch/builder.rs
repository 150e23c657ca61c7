//! [`DispatcherBuilder`]: the dispatcher's settings.

use std::path::PathBuf;
use std::sync::Arc;

use super::{
    Dispatcher, IdempotencyStore, MemoryIdempotencyStore, Repairs, ResultBudget, idempotency,
};
use crate::Error;
use crate::observe::Observer;
use crate::policy::{Approver, Policy};

/// Configures a [`Dispatcher`]; see [`Dispatcher::builder`].
#[derive(Debug)]
#[must_use]
pub struct DispatcherBuilder {
    dispatcher: Dispatcher,
}

impl DispatcherBuilder {
    pub(super) fn new(dispatcher: Dispatcher) -> Self {
        Self { dispatcher }
    }

    /// The permission policy (default: [`DefaultPolicy`](crate::DefaultPolicy)).
    pub fn policy(mut self, policy: impl Policy) -> Self {
        Arc::make_mut(&mut self.dispatcher.gate).policy = Arc::new(policy);
        self
    }

    /// A shared permission policy.
    pub fn policy_arc(mut self, policy: Arc<dyn Policy>) -> Self {
        Arc::make_mut(&mut self.dispatcher.gate).policy = policy;
        self
    }

    /// Who approves calls that need it (default: [`DenyAll`](crate::DenyAll)).
    pub fn approver(mut self, approver: impl Approver) -> Self {
        Arc::make_mut(&mut self.dispatcher.gate).approver = Arc::new(approver);
        self
    }

    /// A shared approver.
    pub fn approver_arc(mut self, approver: Arc<dyn Approver>) -> Self {
        Arc::make_mut(&mut self.dispatcher.gate).approver = approver;
        self
    }

    /// At most this many calls of one message at once (default 8).
    pub fn max_parallel_tools(mut self, max: usize) -> Self {
        self.dispatcher.max_parallel_tools = max;
        self
    }

    /// Remember at most this many `write` results, in memory (default 4096).
    pub fn idempotency_capacity(self, capacity: usize) -> Self {
        self.idempotency_store(MemoryIdempotencyStore::new(capacity))
    }

    /// Where `write` results are remembered (default: [`MemoryIdempotencyStore`]).
    pub fn idempotency_store(self, store: impl IdempotencyStore) -> Self {
        self.idempotency_store_arc(Arc::new(store))
    }

    /// A shared idempotency store.
    pub fn idempotency_store_arc(mut self, store: Arc<dyn IdempotencyStore>) -> Self {
        self.dispatcher.idempotency = Arc::new(idempotency::Idempotency::new(store));
        self
    }

    /// Which repairs to make (default: [`Repairs::all`]; [`Repairs::none`] makes the
    /// gateway strict).
    pub fn repairs(mut self, repairs: Repairs) -> Self {
        self.dispatcher.repairs = repairs;
        self
    }

    /// The limits on tool output (default: [`ResultBudget::default`]).
    pub fn result_budget(mut self, budget: ResultBudget) -> Self {
        self.dispatcher.budget = Arc::new(budget);
        self
    }

    /// Where results too long to send are saved: `<dir>/<session id>/`.
    pub fn scratch_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        Arc::make_mut(&mut self.dispatcher.budget).scratch_dir = dir.into();
        self
    }

    /// The tool tags that mark output as untrusted outside content, fenced before the
    /// model sees it (default: [`DEFAULT_UNTRUSTED_TAGS`](super::DEFAULT_UNTRUSTED_TAGS)). A tag matches exactly or as
    /// a prefix before `-`, `_` or `:`.
    pub fn untrusted_tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.dispatcher.untrusted_tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// Tell `observer` about every call ([`crate::observe`]): telemetry, an audit
    /// trail. Observers add up; each hears every call, in the order they were added.
    pub fn observer(self, observer: impl Observer) -> Self {
        self.observer_arc(Arc::new(observer))
    }

    /// A shared observer.
    pub fn observer_arc(mut self, observer: Arc<dyn Observer>) -> Self {
        self.dispatcher.observers.push(observer);
        self
    }

    /// Finish.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidSetting`] if `max_parallel_tools` is zero, or the result budget
    /// leaves no room (a preview of zero bytes, a spill threshold or turn budget below
    /// the preview).
    pub fn build(self) -> Result<Dispatcher, Error> {
        let invalid = |setting, reason: &'static str| {
            Err(Error::InvalidSetting {
                setting,
                reason: reason.into(),
            })
        };
        if self.dispatcher.max_parallel_tools == 0 {
            return invalid(
                "max_parallel_tools",
                "at least one call must be able to run",
            );
        }
        let budget = &self.dispatcher.budget;
        if budget.preview_bytes == 0 {
            return invalid("preview_bytes", "a spilled result needs a preview");
        }
        if budget.spill_bytes < budget.preview_bytes {
            return invalid("spill_bytes", "must be at least the preview size");
        }
        if budget.turn_bytes < budget.preview_bytes {
            return invalid("turn_bytes", "must be at least the preview size");
        }
        Ok(self.dispatcher)
    }
}

//! The [`PermissionEngine`]: four layers of rules over every call, and the session
//! state behind them. It implements hermes-core's [`Policy`] and [`IdempotencyStore`].

mod evaluate;
mod ruling;
mod session;

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use hermes_core::{Decision, IdempotencyStore, Judgement, Policy, ToolContext, ToolSpec};
use serde_json::Value;

pub use evaluate::BareValue;
pub use ruling::{Layer, Outcome, Ruling};

use crate::Profile;
use crate::path::{PathError, normalise_path};
use session::Sessions;

/// Default bound on sessions remembered at once.
pub const DEFAULT_MAX_SESSIONS: usize = 10_000;
/// Default bound on grants and on idempotent results per session.
pub const DEFAULT_SESSION_CAPACITY: usize = 1_024;

/// The permission engine. Cheap to clone: clones share the rules and the sessions.
///
/// A call is allowed only if every layer allows it: the **global** profile (the
/// engine's), the **session** profile (if one is set for the call's session, it can only
/// narrow), the **tool** rules of those profiles, and the **parameter** restrictions on
/// the values of the tool's path, command and URL parameters. Deny wins over allow at
/// every layer. Hardline commands are refused even when approvals are off.
///
/// ```
/// use hermes_core::{Access, ArgKind, ToolSpec};
/// use hermes_permissions::{Outcome, PermissionEngine, Profile, Restrictions};
/// use serde_json::json;
///
/// let profile = Profile::builder("writer")
///     .allow("file:*")
///     .restrict("file:write", Restrictions::builder().allowed_paths(["/workspace/**"]).build()?)
///     .build()?;
/// let engine = PermissionEngine::builder(profile).workspace("/workspace").build();
/// let spec = ToolSpec::builder("file_write", "Write a file.")
///     .parameters(json!({"type": "object", "properties": {"path": {"type": "string"}}}))
///     .arg_kind("path", ArgKind::Path(Access::Write))
///     .build()?;
///
/// let ruling = engine.evaluate(&spec, &json!({"path": "notes/a.md"}), "s1");
/// assert_eq!(ruling.decision, Outcome::Allow);
/// let ruling = engine.evaluate(&spec, &json!({"path": "/workspace/../etc/passwd"}), "s1");
/// assert_eq!(ruling.decision, Outcome::Deny);
/// assert_eq!(ruling.rule, "allowed_paths");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct PermissionEngine {
    inner: Arc<Inner>,
}

struct Inner {
    global: Arc<Profile>,
    workspace: PathBuf,
    session_capacity: usize,
    sessions: Mutex<Sessions>,
}

impl PermissionEngine {
    /// An engine with `global` as its profile, the process's working directory as the
    /// workspace, and the default bounds.
    pub fn new(global: impl Into<Arc<Profile>>) -> Self {
        Self::builder(global).build()
    }

    /// Configure an engine.
    pub fn builder(global: impl Into<Arc<Profile>>) -> PermissionEngineBuilder {
        PermissionEngineBuilder {
            global: global.into(),
            workspace: None,
            max_sessions: DEFAULT_MAX_SESSIONS,
            session_capacity: DEFAULT_SESSION_CAPACITY,
        }
    }

    /// The global profile.
    pub fn profile(&self) -> &Arc<Profile> {
        &self.inner.global
    }

    /// Narrow `session_id` with a second profile (the session layer).
    pub fn set_session_profile(&self, session_id: &str, profile: impl Into<Arc<Profile>>) {
        self.sessions().entry(session_id).profile = Some(profile.into());
    }

    /// The directory relative paths of `session_id` are resolved against.
    pub fn set_session_workspace(&self, session_id: &str, dir: impl Into<PathBuf>) {
        self.sessions().entry(session_id).workspace = Some(dir.into());
    }

    /// Forget everything about `session_id`: profile, workspace, grants, results.
    pub fn end_session(&self, session_id: &str) {
        self.sessions().remove(session_id);
    }

    /// The working directory of `session_id`.
    pub fn workspace(&self, session_id: &str) -> PathBuf {
        self.sessions()
            .get(session_id)
            .and_then(|session| session.workspace.clone())
            .unwrap_or_else(|| self.inner.workspace.clone())
    }

    /// Normalise a path argument the way the engine judges it. Tools must open this path,
    /// not the raw string.
    ///
    /// # Errors
    ///
    /// A [`PathError`] for input that cannot name a file safely.
    pub fn normalise_path(&self, session_id: &str, raw: &str) -> Result<PathBuf, PathError> {
        normalise_path(raw, &self.workspace(session_id))
    }

    /// Whether a human granted `class` for the rest of `session_id`.
    pub fn is_granted(&self, session_id: &str, class: &str) -> bool {
        self.sessions()
            .get(session_id)
            .is_some_and(|session| session.grants.get(class).is_some())
    }

    /// Judge one call of `spec` with `args` in `session_id`, with the rule that decided.
    pub fn evaluate(&self, spec: &ToolSpec, args: &Value, session_id: &str) -> Ruling {
        evaluate::call(self, spec, args, session_id)
    }

    /// Judge a bare permission, and a value used under it (a path, a command, a URL).
    pub fn check(&self, permission: &str, value: BareValue<'_>, session_id: &str) -> Ruling {
        evaluate::bare(self, permission, value, session_id)
    }

    fn sessions(&self) -> MutexGuard<'_, Sessions> {
        self.inner
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn session_profile(&self, session_id: &str) -> Option<Arc<Profile>> {
        self.sessions()
            .get(session_id)
            .and_then(|session| session.profile.clone())
    }
}

impl fmt::Debug for PermissionEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PermissionEngine")
            .field("profile", &self.inner.global.name())
            .field("workspace", &self.inner.workspace)
            .field("sessions", &self.sessions().len())
            .finish()
    }
}

impl Policy for PermissionEngine {
    fn check(&self, spec: &ToolSpec, args: &Value, ctx: &ToolContext) -> Decision {
        self.judge(spec, args, ctx).decision
    }

    /// The decision, with the rule named as `layer:rule` (`parameter:allowed_paths`).
    fn judge(&self, spec: &ToolSpec, args: &Value, ctx: &ToolContext) -> Judgement {
        let ruling = self.evaluate(spec, args, ctx.session_id());
        tracing::debug!(
            trace_id = ctx.trace_id(),
            tool = spec.name(),
            decision = %ruling.decision,
            layer = %ruling.layer,
            rule = %ruling.rule,
            "permission ruling"
        );
        let decision = match ruling.decision {
            Outcome::Allow => Decision::Allow,
            Outcome::Deny => Decision::deny(ruling.explain()),
            Outcome::NeedsApproval => match ruling.class.clone() {
                Some(class) => Decision::needs_approval_for(ruling.explain(), class),
                None => Decision::needs_approval(ruling.explain()),
            },
        };
        Judgement::new(decision).with_rule(format!("{}:{}", ruling.layer, ruling.rule))
    }

    fn grant(&self, session_id: &str, class: &str) {
        // Hardline rules never ask, so they can never be granted; `safe:` needs no grant.
        if class.starts_with("hardline") {
            return;
        }
        let capacity = self.inner.session_capacity;
        self.sessions()
            .entry(session_id)
            .grants
            .insert(class.to_owned(), (), capacity);
    }
}

/// `write` results live in the session's state, at most the session capacity of them.
impl IdempotencyStore for PermissionEngine {
    fn get(&self, session_id: &str, key: &str) -> Option<String> {
        self.sessions()
            .get(session_id)
            .and_then(|session| session.results.get(key).cloned())
    }

    fn put(&self, session_id: &str, key: String, content: String) {
        let capacity = self.inner.session_capacity;
        self.sessions()
            .entry(session_id)
            .results
            .insert(key, content, capacity);
    }
}

/// Configures a [`PermissionEngine`]; see [`PermissionEngine::builder`].
#[derive(Debug)]
#[must_use]
pub struct PermissionEngineBuilder {
    global: Arc<Profile>,
    workspace: Option<PathBuf>,
    max_sessions: usize,
    session_capacity: usize,
}

impl PermissionEngineBuilder {
    /// The default working directory for relative paths (default: the process's).
    pub fn workspace(mut self, dir: impl Into<PathBuf>) -> Self {
        self.workspace = Some(dir.into());
        self
    }

    /// Remember at most this many sessions (least recently used forgotten first).
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.max_sessions = max;
        self
    }

    /// Keep at most this many grants, and this many idempotent results, per session.
    pub fn session_capacity(mut self, capacity: usize) -> Self {
        self.session_capacity = capacity.max(1);
        self
    }

    /// Finish.
    pub fn build(self) -> PermissionEngine {
        let workspace = self
            .workspace
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| PathBuf::from("/"));
        PermissionEngine {
            inner: Arc::new(Inner {
                global: self.global,
                workspace,
                session_capacity: self.session_capacity,
                sessions: Mutex::new(Sessions::new(self.max_sessions)),
            }),
        }
    }
}

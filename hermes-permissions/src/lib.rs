//! hermes-permissions: the permission engine of
//! [hermes](https://github.com/hermes-rs/hermes), the boundary between what the model
//! asks for and what runs.
//!
//! It sits on hermes-core and implements its [`Policy`](hermes_core::Policy),
//! [`Approver`](hermes_core::Approver) and
//! [`IdempotencyStore`](hermes_core::IdempotencyStore) traits:
//!
//! - [`permission`]: `domain:action` permissions and `*` / `domain:*` patterns;
//! - [`ProfileSet`] / [`Profile`]: profiles in YAML (`allow`, `deny`, `restrictions`,
//!   `approval_required`, per-tool rules), errors with file, line and column;
//! - [`PermissionEngine`]: the global, session, tool and parameter layers, with the
//!   [`Ruling`] that says which rule decided; session grants and idempotency state;
//! - [`normalise_path`]: paths as the engine judges them (and tools must open them);
//! - [`command`]: the dangerous-command detector (`hardline` / `dangerous` / `safe`);
//! - [`approval`]: approvers: a closure, a channel to a UI, the terminal.
//!
//! ```
//! use hermes_permissions::{PermissionEngine, ProfileSet};
//!
//! let profiles = ProfileSet::from_yaml(r#"
//! profiles:
//!   readonly_research:
//!     allow: [file:read, network:fetch]
//!     restrictions:
//!       file:read: {allowed_paths: ["/workspace/**"]}
//! "#)?;
//! let engine = PermissionEngine::new(profiles.get("readonly_research")?);
//! // give `engine.clone()` to the agent as its policy (and idempotency store)
//! # Ok::<(), hermes_permissions::Error>(())
//! ```

pub mod approval;
pub mod command;
mod engine;
mod error;
mod path;
pub mod permission;
mod profile;
mod rules;

pub use approval::{Answer, ChannelApprover, FnApprover, PendingApproval, TerminalApprover};
pub use engine::{
    BareValue, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_CAPACITY, Layer, Outcome, PermissionEngine,
    PermissionEngineBuilder, Ruling,
};
pub use error::Error;
pub use path::{PathError, normalise_path};
pub use profile::{
    Profile, ProfileBuilder, ProfileSet, Restrictions, RestrictionsBuilder, ToolRule,
};
pub use rules::{HostGlobs, PathGlobs, url_host};

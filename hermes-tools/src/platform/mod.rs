//! The `platform` family: `git_status`, `git_log`, `git_diff`, `git_commit` (feature
//! `git`), `database_query` (`database`), `docker_inspect`, `docker_run` (`docker`) and
//! `redis_command` (`redis`). [`write_gate`] is the policy probe that decides whether
//! `database_query` and `redis_command` may write.

mod config;
#[cfg(feature = "database")]
mod database;
#[cfg(feature = "docker")]
mod docker;
#[cfg(feature = "git")]
mod git;
#[cfg(feature = "redis")]
mod redis;
#[cfg(any(feature = "database", feature = "redis"))]
mod write_gate;

use std::sync::Arc;

use hermes_core::{Error, Tool};

use crate::common::Shared;

pub use config::PlatformConfig;

/// The tag every tool of the family carries (the README's table reads it).
const FAMILY_TAG: &str = "family:platform";

/// Every tool of the family whose backend feature is on.
///
/// # Errors
///
/// An invalid spec: the specs are constants of this crate, so a bug the tests catch.
pub(crate) fn tools(shared: &Arc<Shared>) -> Result<Vec<Arc<dyn Tool>>, Error> {
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    #[cfg(feature = "git")]
    tools.extend(git::tools(shared)?);
    #[cfg(feature = "database")]
    tools.extend(database::tools(shared)?);
    #[cfg(feature = "docker")]
    tools.extend(docker::tools(shared)?);
    #[cfg(feature = "redis")]
    tools.extend(redis::tools(shared)?);
    let _ = shared;
    Ok(tools)
}

//! The docker tools, through the Docker Engine API (bollard), so podman's compatible
//! API serves as well: `docker_inspect` looks, `docker_run` runs a container to
//! completion (dangerous scope: a human approves each run). Both need `docker:run`:
//! reaching the engine at all is what that permission grants.

mod engine;
mod inspect;
mod logs;
mod raw;
mod run;

use std::sync::Arc;

use hermes_core::{Error, Tool};

use crate::common::Shared;
use engine::Engine;

/// Every docker tool, sharing one engine client.
pub(crate) fn tools(shared: &Arc<Shared>) -> Result<Vec<Arc<dyn Tool>>, Error> {
    let engine = Arc::new(Engine::new(
        shared.config.platform().docker().map(str::to_owned),
    ));
    Ok(vec![
        Arc::new(inspect::DockerInspect::new(shared, &engine)?),
        Arc::new(run::DockerRun::new(shared, &engine)?),
    ])
}

/// The result cap of a tool returning two streams of `max_output` bytes each, escaped
/// as JSON, plus room for the rest.
fn result_cap(max_output: usize) -> usize {
    (3 * max_output + 8 * 1024).min(256 * 1024)
}

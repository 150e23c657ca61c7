//! `docker_run`: run a container to completion, its exit code and output back, the
//! container removed afterwards (also when the call times out or is cancelled).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bollard::Docker;
use bollard::models::{ContainerCreateBody, HostConfig};
use bollard::query_parameters::{
    CreateContainerOptions, KillContainerOptions, RemoveContainerOptions, StartContainerOptions,
    WaitContainerOptions,
};
use futures_util::StreamExt as _;
use hermes_core::{ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::engine::{Engine, explain};
use super::logs::{self, Output};
use crate::common::Shared;

/// The tool's name.
const NAME: &str = "docker_run";
/// The longest run a call may ask for.
const MAX_TIMEOUT_SECS: u64 = 600;
/// The label every container this tool starts carries.
const LABEL: &str = "dev.hermes.tool";

/// The arguments of `docker_run`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DockerRunArgs {
    /// The image, present locally (this tool does not pull), e.g. `alpine:3.20`.
    #[schemars(length(min = 1, max = 256))]
    image: String,
    /// The command as an argument list, e.g. `["sh", "-c", "echo hi"]`; the image's
    /// default command when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 256))]
    command: Option<Vec<String>>,
    /// Environment variables for the container.
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// The working directory inside the container.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 1024))]
    workdir: Option<String>,
    /// How long the container may run, in seconds; it is killed after that.
    #[serde(default = "default_timeout")]
    #[schemars(range(min = 1, max = 600))]
    timeout_seconds: u64,
}

fn default_timeout() -> u64 {
    60
}

/// How a run ended.
#[derive(Debug, Serialize)]
pub(crate) struct RunResult {
    image: String,
    /// The container's name (it no longer exists).
    container: String,
    /// The exit code; `null` when the container was killed at the timeout.
    exit_code: Option<i64>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    timed_out: bool,
    duration_ms: u64,
    #[serde(flatten)]
    output: Output,
}

/// `docker_run`.
#[derive(Debug)]
pub(crate) struct DockerRun {
    spec: ToolSpec,
    engine: Arc<Engine>,
    max_output: usize,
    allow_network: bool,
}

impl DockerRun {
    pub(crate) fn new(shared: &Arc<Shared>, engine: &Arc<Engine>) -> Result<Self, Error> {
        let spec = ToolSpec::builder(
            NAME,
            "Run a container from a local image to completion, then remove it. Returns \
             {exit_code, stdout, stderr, timed_out, duration_ms, container}; it is killed \
             after timeout_seconds (exit_code null). No network unless \
             the application allows it. Needs docker:run and a human's approval.",
        )
        .parameters_for::<DockerRunArgs>()
        .scope(Scope::Dangerous)
        .permission("docker:run")
        .arg_kind("image", ArgKind::Resource)
        .timeout(Duration::from_secs(MAX_TIMEOUT_SECS + 60))
        .max_result_bytes(super::result_cap(shared.config.max_output_bytes))
        .tag(super::super::FAMILY_TAG)
        .build()?;
        Ok(Self {
            spec,
            engine: Arc::clone(engine),
            max_output: shared.config.max_output_bytes,
            allow_network: shared.config.allow_network,
        })
    }
}

/// Removes the container when dropped, so a cancelled call leaves nothing behind.
struct Cleanup {
    docker: Docker,
    id: String,
}

impl Cleanup {
    /// Remove the container now, and wait for it.
    async fn remove(mut self) {
        let id = std::mem::take(&mut self.id);
        remove(&self.docker, &id).await;
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if self.id.is_empty() {
            return;
        }
        let docker = self.docker.clone();
        let id = std::mem::take(&mut self.id);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { remove(&docker, &id).await });
        }
    }
}

/// Remove container `id`, running or not, with its anonymous volumes.
async fn remove(docker: &Docker, id: &str) {
    let options = RemoveContainerOptions {
        force: true,
        v: true,
        ..RemoveContainerOptions::default()
    };
    let _ = docker.remove_container(id, Some(options)).await;
}

/// A container name of this process's own.
fn container_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "hermes-run-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

impl TypedTool for DockerRun {
    type Args = DockerRunArgs;
    type Output = RunResult;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: DockerRunArgs, _ctx: &ToolContext) -> Result<RunResult, ToolError> {
        if let Some(bad) = args
            .env
            .keys()
            .find(|name| name.is_empty() || name.contains('='))
        {
            return Err(ToolError::failed(format!(
                "`{bad}` is not an environment variable name (no `=`, not empty)"
            )));
        }
        let (docker, address) = self.engine.client().await?;
        let image = args.image.clone();
        let body = ContainerCreateBody {
            image: Some(args.image.clone()),
            cmd: args.command.clone(),
            env: Some(
                args.env
                    .iter()
                    .map(|(name, value)| format!("{name}={value}"))
                    .collect(),
            ),
            working_dir: args.workdir.clone(),
            labels: Some([(LABEL.to_owned(), NAME.to_owned())].into()),
            tty: Some(false),
            host_config: Some(HostConfig {
                network_mode: (!self.allow_network).then(|| "none".to_owned()),
                ..HostConfig::default()
            }),
            ..ContainerCreateBody::default()
        };
        let name = container_name();
        let options = CreateContainerOptions {
            name: Some(name.clone()),
            ..CreateContainerOptions::default()
        };
        let created = docker
            .create_container(Some(options), body)
            .await
            .map_err(|error| {
                explain(
                    &address,
                    &format!(
                        "image `{image}` (this tool does not pull: it must be present locally)"
                    ),
                    &error,
                )
            })?;
        let cleanup = Cleanup {
            docker: docker.clone(),
            id: created.id.clone(),
        };
        let started = Instant::now();
        docker
            .start_container(&created.id, None::<StartContainerOptions>)
            .await
            .map_err(|error| explain(&address, &format!("container of `{image}`"), &error))?;
        let timeout = Duration::from_secs(args.timeout_seconds.min(MAX_TIMEOUT_SECS));
        let waited = tokio::time::timeout(timeout, wait(&docker, &created.id)).await;
        let (exit_code, timed_out) = match waited {
            Ok(code) => (
                Some(code.map_err(|error| explain(&address, "the run", &error))?),
                false,
            ),
            Err(_elapsed) => {
                let _ = docker
                    .kill_container(&created.id, None::<KillContainerOptions>)
                    .await;
                // Let the kill land so the output below is complete.
                let _ =
                    tokio::time::timeout(Duration::from_secs(10), wait(&docker, &created.id)).await;
                (None, true)
            }
        };
        let duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let output = logs::read(&docker, &created.id, None, self.max_output)
            .await
            .map_err(|error| explain(&address, "the container's output", &error))?;
        cleanup.remove().await;
        Ok(RunResult {
            image,
            container: name,
            exit_code,
            timed_out,
            duration_ms,
            output,
        })
    }
}

/// Wait for container `id` to stop; its exit code.
async fn wait(docker: &Docker, id: &str) -> Result<i64, bollard::errors::Error> {
    let options = WaitContainerOptions {
        condition: "not-running".to_owned(),
    };
    let mut stream = docker.wait_container(id, Some(options));
    match stream.next().await {
        Some(Ok(response)) => Ok(response.status_code),
        // bollard reports a non-zero exit as an error carrying the code.
        Some(Err(bollard::errors::Error::DockerContainerWaitError { code, .. })) => Ok(code),
        Some(Err(error)) => Err(error),
        None => Ok(-1),
    }
}

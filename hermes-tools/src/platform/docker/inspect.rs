//! `docker_inspect`: list containers or images, inspect one, or read a container's
//! latest output.

use std::sync::Arc;
use std::time::Duration;

use bollard::query_parameters::{
    InspectContainerOptions, ListContainersOptions, ListImagesOptions,
};
use hermes_core::{ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::engine::{Engine, explain};
use crate::common::Shared;

/// The tool's name.
const NAME: &str = "docker_inspect";
/// The most containers or images listed.
const MAX_LISTED: usize = 200;

/// What to look at.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Action {
    /// List containers (running ones; with `all`, stopped ones too).
    Containers,
    /// List local images.
    Images,
    /// Inspect the container `target`.
    Container,
    /// Inspect the image `target`.
    Image,
    /// The last `tail` lines of the container `target`'s output.
    Logs,
}

/// The arguments of `docker_inspect`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DockerInspectArgs {
    /// `containers`, `images`, `container`, `image` or `logs`.
    action: Action,
    /// The container or image (name or id) for `container`, `image` and `logs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 256))]
    target: Option<String>,
    /// With `containers`: stopped containers too.
    #[serde(default)]
    all: bool,
    /// With `logs`: how many of the last lines to read.
    #[serde(default = "default_tail")]
    #[schemars(range(min = 1, max = 5000))]
    tail: u32,
}

fn default_tail() -> u32 {
    100
}

/// `docker_inspect`.
#[derive(Debug)]
pub(crate) struct DockerInspect {
    spec: ToolSpec,
    engine: Arc<Engine>,
    max_output: usize,
}

impl DockerInspect {
    pub(crate) fn new(shared: &Arc<Shared>, engine: &Arc<Engine>) -> Result<Self, Error> {
        let spec = ToolSpec::builder(
            NAME,
            "List Docker (or podman) containers or images, inspect one, or read a \
             container's latest output. Inspecting returns state, exit code, command, env \
             names (never values), mounts and ports; logs return the last `tail` lines as \
             {stdout, stderr}.",
        )
        .parameters_for::<DockerInspectArgs>()
        .scope(Scope::Read)
        .permission("docker:run")
        .arg_kind("target", ArgKind::Resource)
        .timeout(Duration::from_secs(30))
        .max_result_bytes(super::result_cap(shared.config.max_output_bytes))
        .tag(super::super::FAMILY_TAG)
        .build()?;
        Ok(Self {
            spec,
            engine: Arc::clone(engine),
            max_output: shared.config.max_output_bytes,
        })
    }
}

/// The members `keys` of the object `value`, those present.
fn pick(value: &Value, keys: &[&str]) -> Value {
    let mut picked = Map::new();
    for key in keys {
        if let Some(found) = value.get(key).filter(|found| !found.is_null()) {
            picked.insert((*key).to_owned(), found.clone());
        }
    }
    Value::Object(picked)
}

/// Environment entries as their names only: values often hold secrets.
fn env_names(config: &Value) -> Value {
    config
        .get("Env")
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .filter_map(Value::as_str)
                .map(|entry| entry.split_once('=').map_or(entry, |(name, _)| name))
                .map(|name| Value::String(name.to_owned()))
                .collect()
        })
        .unwrap_or(Value::Array(Vec::new()))
}

fn list(items: Vec<Value>, keys: &[&str]) -> Value {
    let total = items.len();
    let listed: Vec<Value> = items
        .iter()
        .take(MAX_LISTED)
        .map(|item| pick(item, keys))
        .collect();
    json!({"count": total, "items": listed, "truncated": total > MAX_LISTED})
}

fn to_value(value: impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The containers, as JSON. Typed first (bollard); when the engine reports a state the
/// typed model does not know (podman's `stopped`), read as plain JSON instead.
async fn list_containers(
    docker: &bollard::Docker,
    address: &str,
    options: ListContainersOptions,
    fail: impl Fn(&str, bollard::errors::Error) -> ToolError,
) -> Result<Vec<Value>, ToolError> {
    let all = options.all;
    match docker.list_containers(Some(options)).await {
        Ok(containers) => Ok(containers.into_iter().map(to_value).collect()),
        Err(bollard::errors::Error::JsonDataError { .. }) if address.starts_with("unix://") => {
            let path = format!("/containers/json?all={}", u8::from(all));
            match super::raw::get_json(address, &path).await {
                Ok(Value::Array(items)) => Ok(items),
                Ok(other) => Err(ToolError::failed(format!(
                    "the Docker engine at {address} sent a container list that is not a list: {}",
                    hermes_core::tool::truncate_middle(other.to_string(), 300)
                ))),
                Err(message) => Err(ToolError::failed(format!(
                    "the Docker engine at {address} failed to list containers: {message}"
                ))),
            }
        }
        Err(error) => Err(fail("the container list", error)),
    }
}

impl TypedTool for DockerInspect {
    type Args = DockerInspectArgs;
    type Output = Value;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: DockerInspectArgs, _ctx: &ToolContext) -> Result<Value, ToolError> {
        let (docker, address) = self.engine.client().await?;
        let target = || {
            args.target.as_deref().ok_or_else(|| {
                ToolError::failed("give `target`: the container or image name or id")
            })
        };
        let fail = |what: &str, error: bollard::errors::Error| {
            if matches!(error, bollard::errors::Error::IOError { .. }) {
                self.engine.forget();
            }
            explain(&address, what, &error)
        };
        match args.action {
            Action::Containers => {
                let options = ListContainersOptions {
                    all: args.all,
                    ..ListContainersOptions::default()
                };
                let containers = list_containers(&docker, &address, options, fail).await?;
                Ok(list(
                    containers,
                    &[
                        "Id", "Names", "Image", "State", "Status", "Created", "Ports",
                    ],
                ))
            }
            Action::Images => {
                let images = docker
                    .list_images(Some(ListImagesOptions::default()))
                    .await
                    .map_err(|error| fail("the image list", error))?;
                Ok(list(
                    images.into_iter().map(to_value).collect(),
                    &["Id", "RepoTags", "Size", "Created"],
                ))
            }
            Action::Container => {
                let name = target()?;
                let inspected = docker
                    .inspect_container(name, None::<InspectContainerOptions>)
                    .await
                    .map_err(|error| fail(&format!("container `{name}`"), error))?;
                let value = to_value(inspected);
                let config = value.get("Config").cloned().unwrap_or(Value::Null);
                let mut picked = pick(&value, &["Id", "Name", "Image", "Created", "RestartCount"]);
                if let Value::Object(map) = &mut picked {
                    map.insert(
                        "State".to_owned(),
                        pick(
                            value.get("State").unwrap_or(&Value::Null),
                            &[
                                "Status",
                                "Running",
                                "ExitCode",
                                "Error",
                                "StartedAt",
                                "FinishedAt",
                                "OOMKilled",
                            ],
                        ),
                    );
                    map.insert(
                        "Config".to_owned(),
                        pick(
                            &config,
                            &["Image", "Cmd", "Entrypoint", "WorkingDir", "User", "Labels"],
                        ),
                    );
                    map.insert("EnvNames".to_owned(), env_names(&config));
                    let mounts = value.get("Mounts").cloned().unwrap_or(Value::Null);
                    map.insert("Mounts".to_owned(), mounts);
                    let ports = value
                        .pointer("/NetworkSettings/Ports")
                        .cloned()
                        .unwrap_or(Value::Null);
                    map.insert("Ports".to_owned(), ports);
                }
                Ok(picked)
            }
            Action::Image => {
                let name = target()?;
                let inspected = docker
                    .inspect_image(name)
                    .await
                    .map_err(|error| fail(&format!("image `{name}`"), error))?;
                let value = to_value(inspected);
                let config = value.get("Config").cloned().unwrap_or(Value::Null);
                let mut picked = pick(
                    &value,
                    &[
                        "Id",
                        "RepoTags",
                        "Created",
                        "Size",
                        "Architecture",
                        "Os",
                        "Author",
                    ],
                );
                if let Value::Object(map) = &mut picked {
                    map.insert(
                        "Config".to_owned(),
                        pick(
                            &config,
                            &[
                                "Cmd",
                                "Entrypoint",
                                "WorkingDir",
                                "User",
                                "Labels",
                                "ExposedPorts",
                            ],
                        ),
                    );
                    map.insert("EnvNames".to_owned(), env_names(&config));
                }
                Ok(picked)
            }
            Action::Logs => {
                let name = target()?;
                let output = super::logs::read(&docker, name, Some(args.tail), self.max_output)
                    .await
                    .map_err(|error| fail(&format!("container `{name}`"), error))?;
                Ok(json!({"container": name, "tail": args.tail, "output": output}))
            }
        }
    }
}

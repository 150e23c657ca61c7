//! Behaviour tests of `docker_inspect` and `docker_run`: every call goes through the
//! gateway. The no-engine and approval tests always run; the others need a Docker
//! Engine API with a local busybox image: `eval "$(scripts/services)"` starts podman's
//! and exports `HERMES_TEST_DOCKER_HOST` and `HERMES_TEST_DOCKER_IMAGE`. Without them
//! those tests skip loudly, unless `CI` is set: then they fail.
#![cfg(feature = "docker")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    missing_docs,
    unreachable_pub
)]

mod common;

#[path = "docker/engine.rs"]
mod engine;
#[path = "docker/inspect.rs"]
mod inspect;
#[path = "docker/podman_states.rs"]
mod podman_states;
#[path = "docker/run.rs"]
mod run;
#[path = "database/support.rs"]
mod support;

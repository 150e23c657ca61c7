//! `hermes mcp serve`: the registered tools, served over MCP.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use hermes_core::{
    ApproveAll, Approver, DenyAll, Dispatcher, EventSink, Registry, Scope, ToolSpec,
};
use hermes_mcp::client::{McpClients, McpConfig};
use hermes_mcp::server::{HTTP_PATH, McpServer};
use hermes_permissions::Profile;
use hermes_permissions::permission::{Permission, PermissionPattern};

use crate::cli::McpServeArgs;
use crate::{Status, UsageError};

/// Serve until the client closes stdin (stdio) or the process is stopped (HTTP).
/// `err` gets the `listening on` line; stdout is left to the protocol.
pub(crate) async fn serve(
    registry: Registry,
    args: &McpServeArgs,
    err: &mut dyn Write,
) -> anyhow::Result<Status> {
    let policy = &args.policy;
    // Nobody can answer an approval prompt over MCP: refuse, unless --yes.
    let approver: Arc<dyn Approver> = if policy.yes {
        Arc::new(ApproveAll)
    } else {
        Arc::new(DenyAll)
    };
    let engine = match (&policy.profiles, &policy.profile) {
        (Some(file), Some(name)) => Some(super::permissions::engine(file, name, None)?),
        _ => None,
    };
    let profile = engine.as_ref().map(|engine| Arc::clone(engine.profile()));
    let mut dispatcher = Dispatcher::builder(registry.clone()).approver_arc(approver);
    if let Some(engine) = engine {
        dispatcher = dispatcher.policy(engine.clone()).idempotency_store(engine);
    }
    let server = McpServer::new(dispatcher.build()?)
        .named("hermes", env!("CARGO_PKG_VERSION"))
        .expose(move |spec| exposed(spec, profile.as_deref()));
    // Registered YAML tools reload when their files change; clients are told.
    let _watchers = crate::tools::watch(&registry);
    match args.http {
        None => server.serve_stdio().await?,
        Some(port) => {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
                .await
                .map_err(|error| {
                    UsageError(format!("cannot listen on 127.0.0.1:{port}: {error}"))
                })?;
            writeln!(
                err,
                "listening on http://{}{HTTP_PATH}",
                listener.local_addr()?
            )?;
            err.flush()?;
            server.serve_http(listener).await?;
        }
    }
    Ok(Status::Success)
}

/// Connect to the MCP servers of `file`, else of `$HERMES_HOME/mcp.yaml` when it
/// exists, and register their tools in `registry`. Nothing to connect to is `None`.
pub(crate) async fn connect(
    registry: &Registry,
    file: Option<&Path>,
) -> anyhow::Result<Option<McpClients>> {
    let path = match file {
        Some(path) => path.to_owned(),
        None => match crate::home::mcp_config() {
            Some(path) if path.is_file() => path,
            _ => return Ok(None),
        },
    };
    let config = McpConfig::from_file(&path).map_err(|error| UsageError(error.to_string()))?;
    let clients = McpClients::start(&config, registry, &EventSink::new())
        .await
        .map_err(|error| UsageError(format!("{}: {error}", path.display())))?;
    Ok(Some(clients))
}

/// The permission of tools that run programs of the caller's choosing: over MCP they
/// are treated as dangerous, whatever their scope.
const RUNS_PROGRAMS: &str = "terminal:execute";

/// Whether `spec` needs an explicit allow to be served.
fn sensitive(spec: &ToolSpec) -> bool {
    spec.scope() == Scope::Dangerous || spec.permissions().iter().any(|p| p == RUNS_PROGRAMS)
}

/// Whether `spec` is served under `profile` (see `hermes mcp serve --help`).
fn exposed(spec: &ToolSpec, profile: Option<&Profile>) -> bool {
    let Some(profile) = profile else {
        return !sensitive(spec);
    };
    if profile.tool_rule(spec.name()).is_some_and(|rule| rule.deny) {
        return false;
    }
    let Ok(permissions) = spec
        .permissions()
        .iter()
        .map(|text| Permission::parse(text))
        .collect::<Result<Vec<_>, _>>()
    else {
        // A permission the engine cannot read is one it will not grant.
        return false;
    };
    let granted = |permission: &Permission| {
        profile.denying(permission).is_none() && profile.allowing(permission).is_some()
    };
    if !permissions.iter().all(granted) {
        return false;
    }
    if !sensitive(spec) {
        return true;
    }
    let named = |permission: &Permission| {
        profile
            .allowing(permission)
            .is_some_and(|pattern| !matches!(pattern, PermissionPattern::Any))
    };
    profile.tool_rule(spec.name()).is_some()
        || (!permissions.is_empty() && permissions.iter().all(named))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use hermes_permissions::ProfileSet;

    use super::*;

    fn spec(name: &str, scope: Scope, permissions: &[&str]) -> ToolSpec {
        ToolSpec::builder(name, "a tool")
            .scope(scope)
            .permissions(permissions.iter().copied())
            .build()
            .unwrap()
    }

    fn profile(yaml: &str) -> Arc<Profile> {
        ProfileSet::from_yaml(yaml).unwrap().get("p").unwrap()
    }

    #[test]
    fn without_a_profile_dangerous_tools_and_program_runners_are_hidden() {
        assert!(exposed(&spec("calc", Scope::Read, &[]), None));
        assert!(exposed(&spec("edit", Scope::Write, &["file:write"]), None));
        assert!(!exposed(
            &spec("terminal", Scope::Write, &["terminal:execute"]),
            None
        ));
        assert!(!exposed(
            &spec("docker_run", Scope::Dangerous, &["docker:run"]),
            None
        ));
    }

    #[test]
    fn a_profile_exposes_what_it_grants() {
        let p = profile(
            "profiles:\n  p:\n    allow: [\"file:read\", \"docker:*\"]\n    deny: [file:write]\n    tools:\n      file_search: {deny: true}\n",
        );
        assert!(exposed(&spec("calc", Scope::Read, &[]), Some(&p)));
        assert!(exposed(
            &spec("file_read", Scope::Read, &["file:read"]),
            Some(&p)
        ));
        assert!(!exposed(
            &spec("file_search", Scope::Read, &["file:read"]),
            Some(&p)
        ));
        assert!(!exposed(
            &spec("file_write", Scope::Write, &["file:write"]),
            Some(&p)
        ));
        assert!(!exposed(
            &spec("web_fetch", Scope::Read, &["network:fetch"]),
            Some(&p)
        ));
        assert!(exposed(
            &spec("docker_run", Scope::Dangerous, &["docker:run"]),
            Some(&p)
        ));
        assert!(!exposed(&spec("wipe", Scope::Dangerous, &[]), Some(&p)));
    }

    #[test]
    fn allow_everything_is_not_an_explicit_allow_but_a_tool_rule_is() {
        let p = profile(
            "profiles:\n  p:\n    allow: [\"*\"]\n    tools:\n      wipe: {approval_required: true}\n",
        );
        assert!(!exposed(
            &spec("terminal", Scope::Write, &["terminal:execute"]),
            Some(&p)
        ));
        assert!(exposed(
            &spec("file_read", Scope::Read, &["file:read"]),
            Some(&p)
        ));
        assert!(!exposed(
            &spec("docker_run", Scope::Dangerous, &["docker:run"]),
            Some(&p)
        ));
        let named = profile("profiles:\n  p:\n    allow: [\"terminal:execute\"]\n");
        assert!(exposed(
            &spec("terminal", Scope::Write, &["terminal:execute"]),
            Some(&named)
        ));
        assert!(exposed(&spec("wipe", Scope::Dangerous, &[]), Some(&p)));
    }
}

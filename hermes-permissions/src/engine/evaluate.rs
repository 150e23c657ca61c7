//! The four layers, in order. Each check returns early with the ruling that decides.

use std::sync::Arc;

use hermes_core::{Access, ArgKind, ToolSpec};
use serde_json::Value;

use super::{Layer, Outcome, PermissionEngine, Ruling};
use crate::command::{self, Verdict};
use crate::path::normalise_path;
use crate::permission::Permission;
use crate::profile::Refusal;
use crate::rules::url_host;
use crate::{Profile, Restrictions};

/// A value to judge with a bare permission ([`PermissionEngine::check`]).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum BareValue<'a> {
    /// Only the permission.
    None,
    /// A path (relative paths against the session's workspace).
    Path(&'a str),
    /// A shell command line.
    Command(&'a str),
    /// A URL.
    Url(&'a str),
    /// A host name.
    Host(&'a str),
}

/// The profiles in force for a session, outermost first.
struct Profiles {
    layers: Vec<(Layer, Arc<Profile>)>,
}

impl Profiles {
    fn of(engine: &PermissionEngine, session_id: &str) -> Self {
        let mut layers = vec![(Layer::Global, Arc::clone(engine.profile()))];
        if let Some(session) = engine.session_profile(session_id) {
            layers.push((Layer::Session, session));
        }
        Self { layers }
    }

    /// Deny wins; then every layer must allow.
    fn grant(&self, permission: &Permission) -> Result<Ruling, Box<Ruling>> {
        for (layer, profile) in &self.layers {
            if let Some(pattern) = profile.denying(permission) {
                return Err(Box::new(
                    Ruling::new(
                        Outcome::Deny,
                        *layer,
                        pattern.to_string(),
                        format!("`{permission}` is denied"),
                    )
                    .profile(profile.name())
                    .permission(permission),
                ));
            }
        }
        let mut allowed = None;
        for (layer, profile) in &self.layers {
            match profile.allowing(permission) {
                Some(pattern) => {
                    allowed = Some(
                        Ruling::new(
                            Outcome::Allow,
                            *layer,
                            pattern.to_string(),
                            format!("`{permission}` is allowed"),
                        )
                        .profile(profile.name())
                        .permission(permission),
                    );
                }
                None => {
                    return Err(Box::new(
                        Ruling::new(
                            Outcome::Deny,
                            *layer,
                            "not allowed",
                            format!(
                                "`{permission}` is not granted by profile `{}`",
                                profile.name()
                            ),
                        )
                        .profile(profile.name())
                        .permission(permission),
                    ));
                }
            }
        }
        Ok(allowed.unwrap_or_else(|| Ruling::new(Outcome::Allow, Layer::Global, "", "")))
    }

    /// Every restriction filed under `permission`, in the profiles and their rules for
    /// `tool`, with the layer and profile it comes from.
    fn restrictions<'a>(
        &'a self,
        permission: &'a Permission,
        tool: Option<&'a str>,
    ) -> impl Iterator<Item = (Layer, &'a str, &'a Restrictions)> + 'a {
        self.layers.iter().flat_map(move |(layer, profile)| {
            let own = profile
                .restrictions_for(permission)
                .map(move |(_, restrictions)| (*layer, profile.name(), restrictions));
            let tool_rules = tool
                .and_then(|tool| profile.tool_rule(tool))
                .into_iter()
                .flat_map(move |rule| {
                    rule.restrictions
                        .iter()
                        .filter(move |(pattern, _)| pattern.matches(permission))
                        .map(move |(_, restrictions)| (Layer::Tool, profile.name(), restrictions))
                });
            own.chain(tool_rules)
        })
    }
}

pub(super) fn call(
    engine: &PermissionEngine,
    spec: &ToolSpec,
    args: &Value,
    session_id: &str,
) -> Ruling {
    let profiles = Profiles::of(engine, session_id);
    let permissions = match required(spec) {
        Ok(permissions) => permissions,
        Err(message) => {
            return Ruling::new(Outcome::Deny, Layer::Tool, "malformed permission", message);
        }
    };
    // Global and session layers: every permission the tool needs.
    let mut allowed = Ruling::new(
        Outcome::Allow,
        Layer::Global,
        "no permission needed",
        format!("`{}` needs no permission", spec.name()),
    );
    for permission in &permissions {
        match profiles.grant(permission) {
            Ok(ruling) => allowed = ruling,
            Err(denied) => return *denied,
        }
    }
    // Tool layer.
    let mut approval: Option<Ruling> = None;
    for (_, profile) in &profiles.layers {
        if let Some(rule) = profile.tool_rule(spec.name()) {
            if rule.deny {
                return Ruling::new(
                    Outcome::Deny,
                    Layer::Tool,
                    format!("tools.{}.deny", spec.name()),
                    format!("`{}` is disabled", spec.name()),
                )
                .profile(profile.name());
            }
            if rule.approval_required && approval.is_none() {
                let class = format!("tool:{}", spec.name());
                approval = Some(
                    Ruling::new(
                        Outcome::NeedsApproval,
                        Layer::Tool,
                        format!("tools.{}.approval_required", spec.name()),
                        format!("`{}` needs approval", spec.name()),
                    )
                    .profile(profile.name())
                    .class(class),
                );
            }
        }
    }
    // Parameter layer.
    for (name, kind) in spec.arg_kinds() {
        for value in strings(args.get(name)) {
            match judge(
                engine,
                &profiles,
                Some(spec.name()),
                &permissions,
                *kind,
                value,
                session_id,
            ) {
                Ok(Some(ask)) if approval.is_none() => approval = Some(ask),
                Ok(_) => {}
                Err(denied) => return *denied,
            }
        }
    }
    // Approval required by permission.
    for (layer, profile) in &profiles.layers {
        for permission in &permissions {
            if let Some(pattern) = profile.requiring_approval(permission) {
                if approval.is_none() {
                    approval = Some(
                        Ruling::new(
                            Outcome::NeedsApproval,
                            *layer,
                            pattern.to_string(),
                            format!("`{permission}` needs approval"),
                        )
                        .profile(profile.name())
                        .permission(permission)
                        .class(format!("permission:{permission}:{}", spec.name())),
                    );
                }
            }
        }
    }
    match approval {
        Some(ask)
            if !ask
                .class
                .as_deref()
                .is_some_and(|class| engine.is_granted(session_id, class)) =>
        {
            ask
        }
        _ => allowed,
    }
}

pub(super) fn bare(
    engine: &PermissionEngine,
    permission: &str,
    value: BareValue<'_>,
    session_id: &str,
) -> Ruling {
    let profiles = Profiles::of(engine, session_id);
    let permission = match Permission::parse(permission) {
        Ok(permission) => permission,
        Err(message) => {
            return Ruling::new(
                Outcome::Deny,
                Layer::Global,
                "malformed permission",
                message,
            );
        }
    };
    let allowed = match profiles.grant(&permission) {
        Ok(ruling) => ruling,
        Err(denied) => return *denied,
    };
    let kind = match value {
        BareValue::None => return allowed,
        BareValue::Path(path) => (ArgKind::Path(access_of(&permission)), path),
        BareValue::Command(command) => (ArgKind::Command, command),
        BareValue::Url(url) => (ArgKind::Url, url),
        BareValue::Host(host) => (ArgKind::Host, host),
    };
    let permissions = [permission];
    match judge(
        engine,
        &profiles,
        None,
        &permissions,
        kind.0,
        kind.1,
        session_id,
    ) {
        Err(denied) => *denied,
        Ok(Some(ask))
            if !ask
                .class
                .as_deref()
                .is_some_and(|class| engine.is_granted(session_id, class)) =>
        {
            ask
        }
        Ok(_) => allowed,
    }
}

fn access_of(permission: &Permission) -> Access {
    match permission.action() {
        "write" => Access::Write,
        "delete" => Access::Delete,
        _ => Access::Read,
    }
}

/// Judge one value: `Err` denies, `Ok(Some)` asks for approval, `Ok(None)` lets it be.
fn judge(
    engine: &PermissionEngine,
    profiles: &Profiles,
    tool: Option<&str>,
    permissions: &[Permission],
    kind: ArgKind,
    value: &str,
    session_id: &str,
) -> Result<Option<Ruling>, Box<Ruling>> {
    let refused = |permission: &Permission, layer: Layer, profile: &str, refusal: &Refusal| {
        Ruling::new(
            Outcome::Deny,
            layer_of(layer),
            refusal.rule(),
            refusal.reason.clone(),
        )
        .profile(profile)
        .permission(permission)
    };
    match kind {
        ArgKind::Path(access) => {
            let permission = file_permission(access);
            let path = normalise_path(value, &engine.workspace(session_id)).map_err(|error| {
                Ruling::new(
                    Outcome::Deny,
                    Layer::Parameter,
                    "path",
                    format!("`{value}`: {error}"),
                )
                .permission(&permission)
            })?;
            for (layer, profile, restrictions) in profiles.restrictions(&permission, tool) {
                restrictions
                    .check_path(&path)
                    .map_err(|refusal| refused(&permission, layer, profile, &refusal))?;
            }
            Ok(None)
        }
        ArgKind::Command => {
            let permission = terminal_permission();
            let assessment = command::assess(value);
            if assessment.verdict == Verdict::Hardline {
                return Err(Box::new(
                    Ruling::new(
                        Outcome::Deny,
                        Layer::Parameter,
                        assessment.rule,
                        format!("refused: {}", assessment.reason),
                    )
                    .permission(&permission),
                ));
            }
            for (layer, profile, restrictions) in profiles.restrictions(&permission, tool) {
                restrictions
                    .check_command(value)
                    .map_err(|refusal| refused(&permission, layer, profile, &refusal))?;
            }
            if assessment.verdict == Verdict::Dangerous {
                return Ok(Some(
                    Ruling::new(
                        Outcome::NeedsApproval,
                        Layer::Parameter,
                        assessment.rule,
                        assessment.reason,
                    )
                    .permission(&permission)
                    .class(assessment.class),
                ));
            }
            Ok(None)
        }
        ArgKind::Url | ArgKind::Host => {
            let host = if kind == ArgKind::Url {
                url_host(value).map_err(|message| {
                    Ruling::new(Outcome::Deny, Layer::Parameter, "url", message)
                })?
            } else {
                value.trim().trim_end_matches('.').to_ascii_lowercase()
            };
            for permission in network_permissions(permissions) {
                for (layer, profile, restrictions) in profiles.restrictions(&permission, tool) {
                    restrictions
                        .check_host(&host)
                        .map_err(|refusal| refused(&permission, layer, profile, &refusal))?;
                }
            }
            Ok(None)
        }
        _ => Ok(None),
    }
}

/// Restrictions come from profile layers; a refusal by one of them is a parameter-layer
/// decision unless it came from a tool rule.
fn layer_of(layer: Layer) -> Layer {
    match layer {
        Layer::Tool => Layer::Tool,
        _ => Layer::Parameter,
    }
}

/// The permissions a call needs: those the tool declares, plus those its parameter
/// kinds imply (a `path:write` parameter needs `file:write`, a command needs
/// `terminal:execute`, a URL needs a `network` permission).
fn required(spec: &ToolSpec) -> Result<Vec<Permission>, String> {
    let mut permissions = crate::permission::parse_all(spec.permissions()).map_err(|message| {
        format!(
            "tool `{}` declares a malformed permission: {message}",
            spec.name()
        )
    })?;
    for (_, kind) in spec.arg_kinds() {
        let implied = match kind {
            ArgKind::Path(access) => file_permission(*access),
            ArgKind::Command => terminal_permission(),
            ArgKind::Url | ArgKind::Host if permissions.iter().any(|p| p.domain() == "network") => {
                continue;
            }
            ArgKind::Url | ArgKind::Host => network_fetch(),
            _ => continue,
        };
        if !permissions.contains(&implied) {
            permissions.push(implied);
        }
    }
    Ok(permissions)
}

fn network_permissions(permissions: &[Permission]) -> Vec<Permission> {
    let network: Vec<Permission> = permissions
        .iter()
        .filter(|p| p.domain() == "network")
        .cloned()
        .collect();
    if network.is_empty() {
        vec![network_fetch()]
    } else {
        network
    }
}

fn file_permission(access: Access) -> Permission {
    named("file", access.as_str())
}

fn terminal_permission() -> Permission {
    named("terminal", "execute")
}

fn network_fetch() -> Permission {
    named("network", "fetch")
}

fn named(domain: &str, action: &str) -> Permission {
    Permission::known(domain, action)
}

/// The string values of an argument: itself, or the strings of an array.
fn strings(value: Option<&Value>) -> Vec<&str> {
    match value {
        Some(Value::String(text)) => vec![text.as_str()],
        Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

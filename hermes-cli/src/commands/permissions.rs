//! `hermes permissions check-command | check`.

use std::io::Write;
use std::path::Path;

use std::sync::Arc;

use hermes_core::{ApproveAll, Approver, Registry};
use hermes_permissions::{
    BareValue, Outcome, PermissionEngine, ProfileSet, Ruling, TerminalApprover, command,
};
use serde::Serialize;

use crate::cli::{CheckArgs, CheckCommandArgs, PolicyArgs};
use crate::{Status, UsageError};

/// The JSON `check-command` prints.
#[derive(Debug, Serialize)]
struct CommandVerdict<'a> {
    verdict: &'a str,
    rule: &'a str,
    reason: &'a str,
}

/// The JSON `check` prints.
#[derive(Debug, Serialize)]
struct Decision<'a> {
    decision: &'a str,
    layer: &'a str,
    rule: &'a str,
    reason: &'a str,
}

pub(crate) fn check_command(
    args: &CheckCommandArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Status> {
    let assessment = command::assess(&args.command);
    let verdict = CommandVerdict {
        verdict: assessment.verdict.as_str(),
        rule: assessment.rule,
        reason: &assessment.reason,
    };
    serde_json::to_writer(&mut *out, &verdict)?;
    writeln!(out)?;
    Ok(Status::Success)
}

pub(crate) fn check(
    registry: &Registry,
    args: &CheckArgs,
    out: &mut dyn Write,
) -> anyhow::Result<Status> {
    let engine = engine(&args.profiles, &args.profile, args.cwd.as_deref())?;
    const SESSION: &str = "cli";
    let ruling = match (&args.tool, &args.permission) {
        (Some(name), _) => {
            let tool = super::tool::find(registry, name)?;
            let call_args: serde_json::Value = serde_json::from_str(&args.args)
                .map_err(|error| UsageError(format!("--args is not valid JSON: {error}")))?;
            engine.evaluate(tool.spec(), &call_args, SESSION)
        }
        (None, Some(permission)) => {
            let value = if let Some(path) = &args.path {
                BareValue::Path(path)
            } else if let Some(command) = &args.command {
                BareValue::Command(command)
            } else if let Some(url) = &args.url {
                BareValue::Url(url)
            } else {
                BareValue::None
            };
            engine.check(permission, value, SESSION)
        }
        (None, None) => return Err(UsageError("give --tool or --permission".to_owned()).into()),
    };
    print_ruling(&ruling, out)?;
    Ok(if ruling.decision == Outcome::Allow {
        Status::Success
    } else {
        Status::No
    })
}

fn print_ruling(ruling: &Ruling, out: &mut dyn Write) -> anyhow::Result<()> {
    let decision = Decision {
        decision: ruling.decision.as_str(),
        layer: ruling.layer.as_str(),
        rule: &ruling.rule,
        reason: &ruling.reason,
    };
    serde_json::to_writer(&mut *out, &decision)?;
    writeln!(out)?;
    Ok(())
}

/// The approver and, with `--profiles`, the permission engine the flags ask for.
pub(crate) fn gate(
    args: &PolicyArgs,
) -> Result<(Arc<dyn Approver>, Option<PermissionEngine>), UsageError> {
    let approver: Arc<dyn Approver> = if args.yes {
        Arc::new(ApproveAll)
    } else {
        Arc::new(TerminalApprover::new())
    };
    let engine = match (&args.profiles, &args.profile) {
        (Some(file), Some(name)) => Some(engine(file, name, None)?),
        _ => None,
    };
    Ok((approver, engine))
}

/// An engine for `name` in `file`, with `cwd` (or the current directory) as workspace.
pub(crate) fn engine(
    file: &Path,
    name: &str,
    cwd: Option<&Path>,
) -> Result<PermissionEngine, UsageError> {
    let profiles = ProfileSet::from_file(file).map_err(|error| UsageError(error.to_string()))?;
    let profile = profiles
        .get(name)
        .map_err(|error| UsageError(error.to_string()))?;
    let mut builder = PermissionEngine::builder(profile);
    if let Some(cwd) = cwd {
        let cwd = std::path::absolute(cwd)
            .map_err(|error| UsageError(format!("--cwd {}: {error}", cwd.display())))?;
        builder = builder.workspace(cwd);
    }
    Ok(builder.build())
}

//! Container and cluster tools: stopping or removing containers, images,
//! volumes and Kubernetes resources. Commands run inside a container
//! (`docker exec`, `kubectl exec`) are judged like local ones.

use super::super::opts::{operands, skip_options, subcommand};
use super::context::is_management_group;
use super::{CONTAINER_DESTROY, Ctx, Invocation};

/// Options of `docker exec` / `podman exec` that take a value.
const EXEC_VALUES: &str = "euw";
const EXEC_LONG_VALUES: &[&str] = &["env", "env-file", "user", "workdir", "detach-keys"];

/// `docker stop|kill|rm|rmi`, `docker system prune`, `docker volume rm`,
/// `docker compose down`, and the same for podman, nerdctl and the compose
/// front ends.
pub(crate) fn containers(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let args = inv.args();
    let Some((at, sub)) = subcommand(inv.program, args) else {
        return;
    };
    let rest = args.get(at + 1..).unwrap_or_default();
    if sub == "exec" {
        // `exec [options] CONTAINER COMMAND...`
        let container = skip_options(rest, 0, EXEC_VALUES, EXEC_LONG_VALUES);
        super::judge_embedded(ctx, rest.get(container + 1..).unwrap_or_default());
        return;
    }
    let compose = inv.program.ends_with("-compose");
    let action = if is_management_group(sub) {
        operands(rest).next().map(|w| w.text.as_str())
    } else {
        None
    };
    let destroys = matches!(
        (sub, action),
        ("stop" | "kill" | "rm" | "rmi", _)
            | ("system" | "builder", Some("prune"))
            | (
                "container",
                Some("rm" | "remove" | "stop" | "kill" | "prune")
            )
            | (
                "image" | "volume" | "network",
                Some("rm" | "remove" | "prune")
            )
            | ("compose", Some("down" | "rm" | "stop" | "kill"))
    ) || (compose && sub == "down");
    if destroys {
        ctx.hit(
            &CONTAINER_DESTROY,
            inv,
            format!(
                "`{}` stops or deletes containers, images or volumes",
                inv.snippet()
            ),
        );
    }
}

/// `kubectl delete`; `kubectl exec ... -- COMMAND` is judged as a command.
pub(crate) fn kubectl(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let args = inv.args();
    match subcommand(inv.program, args) {
        Some((at, "exec")) => {
            let rest = args.get(at + 1..).unwrap_or_default();
            if let Some(dashes) = rest.iter().position(|w| w.orig == "--") {
                super::judge_embedded(ctx, rest.get(dashes + 1..).unwrap_or_default());
            }
        }
        Some((_, "delete")) => ctx.hit(
            &CONTAINER_DESTROY,
            inv,
            format!("`{}` deletes Kubernetes resources", inv.snippet()),
        ),
        _ => {}
    }
}

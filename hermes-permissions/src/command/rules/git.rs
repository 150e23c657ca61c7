//! Git operations that throw work away or rewrite shared history.

use super::super::opts::{operands, subcommand};
use super::super::split::Word;
use super::{Ctx, Invocation};
use super::{
    GIT_BRANCH_DELETE, GIT_CLEAN, GIT_DISCARD, GIT_FORCE_PUSH, GIT_RESET_HARD, GIT_STASH_CLEAR,
};

/// Dispatch on the git subcommand.
pub(crate) fn git(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let args = inv.args();
    let Some((at, sub)) = subcommand("git", args) else {
        return;
    };
    let rest = args.get(at + 1..).unwrap_or_default();
    let found = match sub {
        "reset" if has(rest, "--hard") => {
            Some((&GIT_RESET_HARD, "discards every uncommitted change"))
        }
        "push" if is_force_push(rest) => Some((
            &GIT_FORCE_PUSH,
            "can overwrite commits other people already have",
        )),
        "clean" if has(rest, "--force") || short_flag(rest, 'f') => Some((
            &GIT_CLEAN,
            "deletes untracked files, which git cannot bring back",
        )),
        "branch" if is_force_delete(rest) => Some((
            &GIT_BRANCH_DELETE,
            "deletes a branch even when its commits are not merged anywhere",
        )),
        "checkout" if whole_tree(rest) => Some((
            &GIT_DISCARD,
            "discards every uncommitted change in the working tree",
        )),
        "restore" if whole_tree(rest) && touches_worktree(rest) => Some((
            &GIT_DISCARD,
            "discards every uncommitted change in the working tree",
        )),
        "stash" if operands(rest).next().is_some_and(|w| w.text == "clear") => {
            Some((&GIT_STASH_CLEAR, "deletes every stashed change for good"))
        }
        _ => None,
    };
    if let Some((rule, what)) = found {
        ctx.hit(rule, inv, format!("`{}` {what}", inv.snippet()));
    }
}

fn has(args: &[Word], option: &str) -> bool {
    args.iter().any(|w| w.text == option)
}

/// A short option letter in any single-dash cluster (case-sensitive).
fn short_flag(args: &[Word], flag: char) -> bool {
    args.iter().any(|w| {
        w.orig
            .strip_prefix('-')
            .is_some_and(|flags| !flags.starts_with('-') && flags.contains(flag))
    })
}

fn is_force_push(args: &[Word]) -> bool {
    args.iter().any(|w| {
        let t = w.text.as_str();
        matches!(t, "--force" | "--force-with-lease" | "--mirror")
            || t.starts_with("--force-with-lease=")
            || (t.starts_with('+') && t.len() > 1)
    }) || short_flag(args, 'f')
}

fn is_force_delete(args: &[Word]) -> bool {
    let delete = has(args, "--delete") || short_flag(args, 'd');
    let force = has(args, "--force") || short_flag(args, 'f');
    short_flag(args, 'D') || (delete && force)
}

/// A pathspec covering the whole working tree.
fn whole_tree(args: &[Word]) -> bool {
    operands(args).any(|w| matches!(w.text.as_str(), "." | "./" | ":/" | "*" | ":"))
}

/// `git restore` touches the working tree unless only `--staged` is given.
fn touches_worktree(args: &[Word]) -> bool {
    let staged = has(args, "--staged") || short_flag(args, 'S');
    let worktree = has(args, "--worktree") || short_flag(args, 'W');
    !staged || worktree
}

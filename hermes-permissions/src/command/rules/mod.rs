//! The rule table and the dispatch from a simple command to its matchers.
//!
//! Every rule has a stable id, `<verdict>.<name>`. Matchers live in the
//! sibling files, grouped by subject: [`files`] (deletion, disks,
//! permissions, protected writes), [`system`] (processes, power, services,
//! privilege), [`code`] (inline scripts and downloads run as code), [`sql`],
//! [`git`] and [`containers`].
//!
//! Within one simple command findings are offered in this order: pipeline
//! findings (`curl | sh`), the program's own rules, its redirections, the
//! script a wrapper hands to a shell, and finally the privilege wrapper. As
//! the first of equally severe findings wins, the most specific reason is
//! reported.

mod code;
mod containers;
mod context;
mod files;
mod git;
pub(crate) mod sql;
mod system;

pub(crate) use code::PipeState;
pub(crate) use context::{Ctx, Invocation};

use super::Verdict;
use super::engine::{Engine, MAX_DEPTH};
use super::split::{Parsed, Word};
use super::wrappers::peel;

/// A rule: stable id plus the verdict it carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rule {
    /// Stable identifier, `<verdict>.<name>`.
    pub(crate) id: &'static str,
    /// Verdict of a match.
    pub(crate) verdict: Verdict,
}

const fn hardline(id: &'static str) -> Rule {
    Rule {
        id,
        verdict: Verdict::Hardline,
    }
}

const fn dangerous(id: &'static str) -> Rule {
    Rule {
        id,
        verdict: Verdict::Dangerous,
    }
}

/// Recursive `rm` of `/`, the home directory or a top-level system directory.
pub(crate) const RM_ROOT: Rule = hardline("hardline.rm-root");
/// `rm --no-preserve-root`, whatever the target.
pub(crate) const RM_NO_PRESERVE_ROOT: Rule = hardline("hardline.rm-no-preserve-root");
/// Filesystem creation or wiping: `mkfs*`, `mke2fs`, `mkswap`, `wipefs`.
pub(crate) const MKFS: Rule = hardline("hardline.mkfs");
/// Raw writes onto a disk device: `dd of=`, redirection, `tee`, `cp`, `shred`.
pub(crate) const DISK_WRITE: Rule = hardline("hardline.disk-write");
/// A function that pipes itself into itself.
pub(crate) const FORK_BOMB: Rule = hardline("hardline.fork-bomb");
/// `kill` aimed at pid -1, i.e. every process.
pub(crate) const KILL_ALL: Rule = hardline("hardline.kill-all");
/// Power off, halt or reboot.
pub(crate) const SHUTDOWN: Rule = hardline("hardline.shutdown");

/// Any other recursive `rm`.
pub(crate) const RECURSIVE_DELETE: Rule = dangerous("dangerous.recursive-delete");
/// `find -delete` and `find -exec rm`.
pub(crate) const FIND_DELETE: Rule = dangerous("dangerous.find-delete");
/// `shred`.
pub(crate) const SHRED: Rule = dangerous("dangerous.shred");
/// `chmod` giving write access to everyone (777, a+rwx, o+w...).
pub(crate) const CHMOD_WORLD_WRITABLE: Rule = dangerous("dangerous.chmod-world-writable");
/// `chmod -R`.
pub(crate) const RECURSIVE_CHMOD: Rule = dangerous("dangerous.recursive-chmod");
/// `chown -R`, `chgrp -R`.
pub(crate) const RECURSIVE_CHOWN: Rule = dangerous("dangerous.recursive-chown");
/// SQL `DROP ...` and `ALTER TABLE ... DROP`.
pub(crate) const SQL_DROP: Rule = dangerous("dangerous.sql-drop");
/// SQL `TRUNCATE`.
pub(crate) const SQL_TRUNCATE: Rule = dangerous("dangerous.sql-truncate");
/// SQL `DELETE FROM` without `WHERE`.
pub(crate) const SQL_DELETE_ALL: Rule = dangerous("dangerous.sql-delete-all");
/// Writes under `/etc`.
pub(crate) const WRITE_ETC: Rule = dangerous("dangerous.write-etc");
/// Writes into a `.ssh` directory.
pub(crate) const WRITE_SSH: Rule = dangerous("dangerous.write-ssh");
/// Writes to shell startup files.
pub(crate) const WRITE_SHELL_RC: Rule = dangerous("dangerous.write-shell-rc");
/// Writes to credential files, private keys and `.env` files.
pub(crate) const WRITE_CREDENTIALS: Rule = dangerous("dangerous.write-credentials");
/// `systemctl stop|disable|mask|kill`, `service X stop`.
pub(crate) const SERVICE_STOP: Rule = dangerous("dangerous.service-stop");
/// `kill -9` / `-KILL` / `-s KILL`.
pub(crate) const FORCE_KILL: Rule = dangerous("dangerous.force-kill");
/// `killall`, `pkill`.
pub(crate) const KILL_BY_NAME: Rule = dangerous("dangerous.kill-by-name");
/// `sh -c` and friends, or a shell reading a script from a here-document.
pub(crate) const SHELL_C: Rule = dangerous("dangerous.shell-c");
/// `eval`.
pub(crate) const EVAL: Rule = dangerous("dangerous.eval");
/// `python -c`, `perl -e`, `ruby -e`, `node -e`, `php -r`...
pub(crate) const INLINE_CODE: Rule = dangerous("dangerous.inline-code");
/// Downloaded content executed by an interpreter.
pub(crate) const CURL_PIPE_SHELL: Rule = dangerous("dangerous.curl-pipe-shell");
/// `git reset --hard`.
pub(crate) const GIT_RESET_HARD: Rule = dangerous("dangerous.git-reset-hard");
/// `git push --force` and equivalents.
pub(crate) const GIT_FORCE_PUSH: Rule = dangerous("dangerous.git-force-push");
/// `git clean -f`.
pub(crate) const GIT_CLEAN: Rule = dangerous("dangerous.git-clean");
/// `git branch -D`.
pub(crate) const GIT_BRANCH_DELETE: Rule = dangerous("dangerous.git-branch-delete");
/// `git checkout -- .`, `git restore .`.
pub(crate) const GIT_DISCARD: Rule = dangerous("dangerous.git-discard");
/// `git stash clear`.
pub(crate) const GIT_STASH_CLEAR: Rule = dangerous("dangerous.git-stash-clear");
/// Stopping or removing containers, images, volumes or Kubernetes resources.
pub(crate) const CONTAINER_DESTROY: Rule = dangerous("dangerous.container-destroy");
/// `sudo`, `doas`, `pkexec`, `su`.
pub(crate) const PRIVILEGE: Rule = dangerous("dangerous.privilege-escalation");
/// `sudo -S`.
pub(crate) const SUDO_STDIN: Rule = dangerous("dangerous.sudo-stdin");
/// `crontab -r`.
pub(crate) const CRONTAB_REMOVE: Rule = dangerous("dangerous.crontab-remove");
/// `iptables -F`, `nft flush ruleset`.
pub(crate) const FIREWALL_FLUSH: Rule = dangerous("dangerous.firewall-flush");
/// `mv` of `/`, the home directory or a top-level system directory.
pub(crate) const MOVE_SYSTEM_DIR: Rule = dangerous("dangerous.move-system-dir");
/// Input over the size limit.
pub(crate) const TOO_LONG: Rule = dangerous("dangerous.too-long");
/// Nesting over the depth limit.
pub(crate) const TOO_DEEP: Rule = dangerous("dangerous.too-deep");

/// Every rule, for tests and documentation.
#[cfg(test)]
pub(crate) const ALL: &[Rule] = &[
    RM_ROOT,
    RM_NO_PRESERVE_ROOT,
    MKFS,
    DISK_WRITE,
    FORK_BOMB,
    KILL_ALL,
    SHUTDOWN,
    RECURSIVE_DELETE,
    FIND_DELETE,
    SHRED,
    CHMOD_WORLD_WRITABLE,
    RECURSIVE_CHMOD,
    RECURSIVE_CHOWN,
    SQL_DROP,
    SQL_TRUNCATE,
    SQL_DELETE_ALL,
    WRITE_ETC,
    WRITE_SSH,
    WRITE_SHELL_RC,
    WRITE_CREDENTIALS,
    SERVICE_STOP,
    FORCE_KILL,
    KILL_BY_NAME,
    SHELL_C,
    EVAL,
    INLINE_CODE,
    CURL_PIPE_SHELL,
    GIT_RESET_HARD,
    GIT_FORCE_PUSH,
    GIT_CLEAN,
    GIT_BRANCH_DELETE,
    GIT_DISCARD,
    GIT_STASH_CLEAR,
    CONTAINER_DESTROY,
    PRIVILEGE,
    SUDO_STDIN,
    CRONTAB_REMOVE,
    FIREWALL_FLUSH,
    MOVE_SYSTEM_DIR,
    TOO_LONG,
    TOO_DEEP,
];

/// Judge the simple command `parsed.commands[index]`.
pub(crate) fn judge_command(
    engine: &mut Engine,
    parsed: &Parsed,
    index: usize,
    pipes: &mut [PipeState],
) {
    let Some(cmd) = parsed.commands.get(index) else {
        return;
    };
    let peeled = peel(&cmd.words);
    let invocation = Invocation::new(peeled.rest, peeled.privilege);
    let mut ctx = Ctx {
        engine,
        parsed,
        cmd,
        nesting: 0,
    };
    if let Some(inv) = &invocation {
        if cmd.depth == 0 {
            ctx.engine.note_program(inv.program);
        }
        if let Some(pipe) = pipes.get_mut(cmd.pipeline) {
            code::pipeline(&mut ctx, inv, pipe);
        }
        judge_invocation(&mut ctx, inv);
    }
    files::redirects(&mut ctx, invocation.as_ref());
    if let Some(script) = &peeled.reparse {
        ctx.nested(script);
    }
    system::privilege(&mut ctx, &peeled, invocation.as_ref());
}

/// Judge a command given as words inside another one (`find -exec ...`).
pub(crate) fn judge_words(ctx: &mut Ctx<'_, '_>, words: &[Word]) {
    let peeled = peel(words);
    let invocation = Invocation::new(peeled.rest, peeled.privilege);
    if let Some(inv) = &invocation {
        judge_invocation(ctx, inv);
    }
    if let Some(script) = &peeled.reparse {
        ctx.nested(script);
    }
    system::privilege(ctx, &peeled, invocation.as_ref());
}

/// Judge a command embedded in the arguments of another one (`find -exec`,
/// `docker exec`), with a cap on how deep such embedding is followed.
pub(crate) fn judge_embedded(ctx: &mut Ctx<'_, '_>, words: &[Word]) {
    if ctx.nesting >= MAX_DEPTH {
        ctx.engine.too_deep();
        return;
    }
    ctx.nesting += 1;
    judge_words(ctx, words);
    ctx.nesting -= 1;
}

/// Run the matchers for the program of `inv`.
fn judge_invocation(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    match inv.program {
        "rm" => files::rm(ctx, inv),
        "find" => files::find(ctx, inv),
        "shred" => files::shred(ctx, inv),
        "dd" => files::dd(ctx, inv),
        "chmod" => files::chmod(ctx, inv),
        "chown" | "chgrp" => files::chown(ctx, inv),
        "cp" | "mv" | "install" | "ln" => files::copy_like(ctx, inv),
        "tee" | "sudoedit" => files::tee(ctx, inv),
        "sed" => files::sed(ctx, inv),
        "truncate" => files::truncate(ctx, inv),
        "kill" => system::kill(ctx, inv),
        "killall" | "killall5" | "pkill" => system::kill_by_name(ctx, inv),
        "shutdown" | "reboot" | "halt" | "poweroff" => system::shutdown(ctx, inv),
        "init" | "telinit" => system::init(ctx, inv),
        "systemctl" => system::systemctl(ctx, inv),
        "service" => system::service(ctx, inv),
        "crontab" => system::crontab(ctx, inv),
        "iptables" | "ip6tables" | "nft" => system::firewall(ctx, inv),
        "git" => git::git(ctx, inv),
        "docker" | "podman" | "nerdctl" | "docker-compose" | "podman-compose" => {
            containers::containers(ctx, inv);
        }
        "kubectl" => containers::kubectl(ctx, inv),
        "eval" => code::eval(ctx, inv),
        "source" | "." => code::source(ctx, inv),
        program if files::is_format_tool(program) => files::format(ctx, inv),
        program if code::is_shell(program) => code::shell(ctx, inv),
        program if code::is_inline_interpreter(program) => code::inline_code(ctx, inv),
        program if sql::is_client(program) => sql::client(ctx, inv),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn rule_ids_are_unique_and_prefixed_by_their_verdict() {
        let mut seen = HashSet::new();
        for rule in ALL {
            assert!(seen.insert(rule.id), "duplicate id {}", rule.id);
            assert!(
                rule.id.starts_with(&format!("{}.", rule.verdict)),
                "{}",
                rule.id
            );
        }
    }
}

//! Rules about files and disks: deletion, formatting, raw disk writes,
//! permissions, moving system directories and writes to protected files.

use super::super::opts;
use super::super::paths::{self, Protected};
use super::super::split::RedirectKind;
use super::super::wrappers::{basename, peel};
use super::context::snippet;
use super::{
    CHMOD_WORLD_WRITABLE, DISK_WRITE, FIND_DELETE, MKFS, MOVE_SYSTEM_DIR, RECURSIVE_CHMOD,
    RECURSIVE_CHOWN, RECURSIVE_DELETE, RM_NO_PRESERVE_ROOT, RM_ROOT, SHRED, WRITE_CREDENTIALS,
    WRITE_ETC, WRITE_SHELL_RC, WRITE_SSH,
};
use super::{Ctx, Invocation, Rule};

/// `rm`: recursive deletes, with the critical targets singled out.
pub(crate) fn rm(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let opts = opts::parse(inv.args(), "", &[]);
    let recursive = opts.has_short('r') || opts.has_short('R') || opts.has_long("recursive");
    let no_preserve_root = opts.has_long("no-preserve-root");
    if recursive {
        let critical = opts
            .positionals
            .iter()
            .find_map(|target| paths::critical_target(&target.text));
        if let Some(what) = critical {
            ctx.hit(&RM_ROOT, inv, format!("`{}` deletes {what}", inv.snippet()));
            return;
        }
    }
    if no_preserve_root {
        ctx.hit(
            &RM_NO_PRESERVE_ROOT,
            inv,
            format!(
                "`{}` turns off the safeguard that stops rm from deleting `/`",
                inv.snippet()
            ),
        );
    } else if recursive {
        ctx.hit(
            &RECURSIVE_DELETE,
            inv,
            format!(
                "`{}` deletes whole directory trees without a way back",
                inv.snippet()
            ),
        );
    }
}

/// `find -delete`, `find -exec rm`; commands run by `-exec` are judged too.
pub(crate) fn find(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let args = inv.args();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let t = word.text.as_str();
        if t == "-delete" {
            ctx.hit(
                &FIND_DELETE,
                inv,
                format!("`{}` deletes every file it matches", inv.snippet()),
            );
        } else if matches!(t, "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = i + 1;
            let mut end = start;
            while args
                .get(end)
                .is_some_and(|w| !matches!(w.text.as_str(), ";" | "+"))
            {
                end += 1;
            }
            let exec = args.get(start..end).unwrap_or_default();
            let runs_rm = peel(exec)
                .rest
                .first()
                .is_some_and(|w| basename(&w.text) == "rm");
            if runs_rm {
                ctx.hit(
                    &FIND_DELETE,
                    inv,
                    format!("`{}` runs rm on every file it matches", inv.snippet()),
                );
            }
            super::judge_embedded(ctx, exec);
            i = end;
        }
        i += 1;
    }
}

/// `shred`: dangerous on files, hardline on disks.
pub(crate) fn shred(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let opts = opts::parse(inv.args(), "nsu", &["iterations", "size", "random-source"]);
    for target in &opts.positionals {
        if paths::is_block_device(&target.text) {
            disk_write(ctx, &inv.key(), "`shred`", &target.text);
            return;
        }
    }
    ctx.hit(
        &SHRED,
        inv,
        format!(
            "`{}` overwrites files so they can never be recovered",
            inv.snippet()
        ),
    );
}

/// Programs that create or wipe filesystems.
pub(crate) fn is_format_tool(program: &str) -> bool {
    program == "mkfs"
        || program.starts_with("mkfs.")
        || matches!(program, "mke2fs" | "mkswap" | "wipefs")
}

/// `mkfs` and friends.
pub(crate) fn format(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let what = if inv.program == "wipefs" {
        "erases the filesystem signatures of a device"
    } else {
        "formats a device, erasing everything on it"
    };
    ctx.hit(&MKFS, inv, format!("`{}` {what}", inv.snippet()));
}

/// `dd of=...`.
pub(crate) fn dd(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let key = inv.key();
    for arg in inv.args() {
        if let Some(target) = arg.text.strip_prefix("of=") {
            check_write(ctx, &key, "`dd`", target);
        }
    }
}

/// `chmod`: world-writable modes and recursive changes.
pub(crate) fn chmod(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let opts = opts::parse(inv.args(), "", &["reference"]);
    if opts
        .positionals
        .first()
        .is_some_and(|mode| is_world_writable(&mode.text))
    {
        ctx.hit(
            &CHMOD_WORLD_WRITABLE,
            inv,
            format!(
                "`{}` lets every user on the machine modify the files",
                inv.snippet()
            ),
        );
    }
    if opts.has_short('R') || opts.has_long("recursive") {
        ctx.hit(
            &RECURSIVE_CHMOD,
            inv,
            format!(
                "`{}` changes permissions on a whole directory tree",
                inv.snippet()
            ),
        );
    }
}

/// `chown -R`, `chgrp -R`.
pub(crate) fn chown(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let opts = opts::parse(inv.args(), "", &["reference", "from"]);
    if opts.has_short('R') || opts.has_long("recursive") {
        ctx.hit(
            &RECURSIVE_CHOWN,
            inv,
            format!(
                "`{}` changes ownership of a whole directory tree",
                inv.snippet()
            ),
        );
    }
}

/// Whether a `chmod` mode grants write permission to everybody.
fn is_world_writable(mode: &str) -> bool {
    if !mode.is_empty() && mode.len() <= 4 && mode.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return mode
            .bytes()
            .last()
            .is_some_and(|others| (others - b'0') & 0o2 != 0);
    }
    mode.split(',').any(|clause| {
        let who_end = clause
            .find(|c: char| !matches!(c, 'u' | 'g' | 'o' | 'a'))
            .unwrap_or(clause.len());
        let (who, actions) = clause.split_at(who_end);
        if !who.contains(['o', 'a']) {
            return false;
        }
        // Actions are operators each followed by permission letters.
        let mut operator = None;
        actions.chars().any(|c| {
            if matches!(c, '+' | '-' | '=') {
                operator = Some(c);
            }
            c == 'w' && matches!(operator, Some('+' | '='))
        })
    })
}

/// `cp`, `mv`, `install`, `ln`: the destination, and `mv` of system dirs.
pub(crate) fn copy_like(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let (short_values, long_values): (&str, &[&str]) = if inv.program == "install" {
        (
            "tSmog",
            &["target-directory", "suffix", "mode", "owner", "group"],
        )
    } else {
        ("tS", &["target-directory", "suffix"])
    };
    let opts = opts::parse(inv.args(), short_values, long_values);
    let target_dir = opts
        .value('t')
        .or_else(|| opts.long_value("target-directory"))
        .map(str::to_owned);
    let positionals: Vec<&str> = opts.positionals.iter().map(|w| w.text.as_str()).collect();
    let (sources, targets): (&[&str], Vec<&str>) = match &target_dir {
        Some(dir) => (positionals.as_slice(), vec![dir.as_str()]),
        None if inv.program == "install" && (opts.has_short('d') || opts.has_long("directory")) => {
            (&[], positionals.clone())
        }
        None => match positionals.split_last() {
            Some((last, rest)) if !rest.is_empty() => (rest, vec![*last]),
            _ => (&[], Vec::new()),
        },
    };
    if inv.program == "mv"
        && let Some(dir) = sources.iter().find(|s| paths::is_system_dir(s))
    {
        ctx.hit(
            &MOVE_SYSTEM_DIR,
            inv,
            format!(
                "`{}` moves `{}`, which the system needs in place",
                inv.snippet(),
                snippet([*dir].into_iter())
            ),
        );
        return;
    }
    let key = inv.key();
    let actor = format!("`{}`", inv.program);
    for target in targets {
        check_write(ctx, &key, &actor, target);
    }
}

/// `tee` (and `sudoedit`) write to every operand.
pub(crate) fn tee(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let opts = opts::parse(inv.args(), "", &[]);
    let key = inv.key();
    let actor = format!("`{}`", inv.program);
    for target in &opts.positionals {
        check_write(ctx, &key, &actor, &target.text);
    }
}

/// `sed -i` edits its file operands in place.
pub(crate) fn sed(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let args = inv.args();
    let mut in_place = false;
    let mut script_given = false;
    let mut files = Vec::new();
    let mut only_operands = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let t = word.orig.as_str();
        if only_operands || t == "-" || !t.starts_with('-') {
            if script_given {
                files.push(word);
            } else {
                script_given = true;
            }
            continue;
        }
        if t == "--" {
            only_operands = true;
        } else if let Some(long) = t.strip_prefix("--") {
            if long == "in-place" || long.starts_with("in-place=") {
                in_place = true;
            } else if long == "expression" || long == "file" {
                script_given = true;
                i += 1;
            } else if long.starts_with("expression=") || long.starts_with("file=") {
                script_given = true;
            }
        } else {
            let flags = t.get(1..).unwrap_or_default();
            for (at, flag) in flags.char_indices() {
                match flag {
                    // `-i[SUFFIX]`: the rest of the cluster is the suffix.
                    'i' => {
                        in_place = true;
                        break;
                    }
                    'e' | 'f' | 'l' => {
                        if flag != 'l' {
                            script_given = true;
                        }
                        if flags.get(at + 1..).unwrap_or_default().is_empty() {
                            i += 1;
                        }
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    if in_place {
        let key = inv.key();
        for file in files {
            check_write(ctx, &key, "`sed -i`", &file.text);
        }
    }
}

/// Coreutils `truncate` (recognised by its options; without options the
/// word is left to the SQL rules).
pub(crate) fn truncate(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    if !inv.args().iter().any(|w| w.orig.starts_with('-')) {
        return;
    }
    let opts = opts::parse(inv.args(), "sr", &["size", "reference"]);
    let key = inv.key();
    for target in &opts.positionals {
        check_write(ctx, &key, "`truncate`", &target.text);
    }
}

/// Output redirections of the command.
pub(crate) fn redirects(ctx: &mut Ctx<'_, '_>, inv: Option<&Invocation<'_>>) {
    let cmd = ctx.cmd;
    if cmd.redirects.is_empty() {
        return;
    }
    let key = inv.map_or_else(|| "redirect".to_owned(), Invocation::key);
    for redirect in &cmd.redirects {
        let operator = match redirect.kind {
            RedirectKind::Write => ">",
            RedirectKind::Append => ">>",
            RedirectKind::ReadWrite => "<>",
            _ => continue,
        };
        check_write(
            ctx,
            &key,
            &format!("the redirection `{operator}`"),
            &redirect.target.text,
        );
    }
}

/// Report a write to `target` by `actor` if it is a disk or protected file.
fn check_write(ctx: &mut Ctx<'_, '_>, key: &str, actor: &str, target: &str) {
    if paths::is_block_device(target) {
        disk_write(ctx, key, actor, target);
        return;
    }
    let Some(kind) = paths::protected(target) else {
        return;
    };
    let rule: &Rule = match kind {
        Protected::SystemConfig => &WRITE_ETC,
        Protected::Ssh => &WRITE_SSH,
        Protected::ShellRc => &WRITE_SHELL_RC,
        Protected::Credentials => &WRITE_CREDENTIALS,
    };
    let shown = snippet([target].into_iter());
    ctx.report(
        rule,
        key,
        format!("{actor} writes to `{shown}`, {}", kind.describe()),
    );
}

fn disk_write(ctx: &mut Ctx<'_, '_>, key: &str, actor: &str, device: &str) {
    let shown = snippet([device].into_iter());
    ctx.report(
        &DISK_WRITE,
        key,
        format!(
            "{actor} writes straight onto the disk device `{shown}`, destroying the data on it"
        ),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_writable_modes() {
        for mode in [
            "777",
            "0777",
            "666",
            "1777",
            "a+rwx",
            "o+w",
            "ugo+rwx",
            "u=rwx,o=rwx",
            "a=rw",
            "go-x+w",
        ] {
            assert!(is_world_writable(mode), "{mode}");
        }
        for mode in [
            "755", "0644", "u+rwx", "+x", "o-w", "g+w", "a-w", "o+r", "x",
        ] {
            assert!(!is_world_writable(mode), "{mode}");
        }
    }
}

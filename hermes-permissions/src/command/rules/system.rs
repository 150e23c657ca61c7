//! Rules about the running system: signals, power, services, scheduled jobs,
//! firewall and privilege escalation.

use super::super::opts::{self, subcommand};
use super::super::wrappers::Peeled;
use super::{
    CRONTAB_REMOVE, FIREWALL_FLUSH, FORCE_KILL, KILL_ALL, KILL_BY_NAME, PRIVILEGE, SERVICE_STOP,
    SHUTDOWN, SUDO_STDIN,
};
use super::{Ctx, Invocation};

/// `kill`: pid -1 is every process; SIGKILL gives no chance to clean up.
pub(crate) fn kill(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let args = inv.args();
    let mut signal: Option<&str> = None;
    let mut targets: Vec<&str> = Vec::new();
    let mut only_operands = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let t = word.text.as_str();
        if only_operands || t == "-" || !t.starts_with('-') {
            targets.push(t);
            continue;
        }
        match t {
            "--" => only_operands = true,
            "-s" | "-n" | "--signal" => {
                signal = args.get(i).map(|w| w.text.as_str());
                i += 1;
            }
            "-l" | "--list" | "--table" => return,
            _ => {
                if let Some(value) = t.strip_prefix("--signal=") {
                    signal = Some(value);
                } else if signal.is_none() && targets.is_empty() {
                    // The first dashed word is the signal (`-9`, `-KILL`);
                    // later ones are negative pids (process groups).
                    signal = t.get(1..);
                } else {
                    targets.push(t);
                }
            }
        }
    }
    if targets.contains(&"-1") {
        ctx.hit(
            &KILL_ALL,
            inv,
            format!(
                "`{}` signals every process the user may signal, taking the session or system down",
                inv.snippet()
            ),
        );
    } else if signal.is_some_and(is_kill_signal) {
        ctx.hit(
            &FORCE_KILL,
            inv,
            format!(
                "`{}` kills processes with SIGKILL, leaving them no chance to clean up",
                inv.snippet()
            ),
        );
    }
}

fn is_kill_signal(signal: &str) -> bool {
    let name = signal.strip_prefix("sig").unwrap_or(signal);
    name == "9" || name == "kill"
}

/// `killall`, `pkill`.
pub(crate) fn kill_by_name(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    ctx.hit(
        &KILL_BY_NAME,
        inv,
        format!("`{}` kills every process whose name matches", inv.snippet()),
    );
}

/// `shutdown`, `reboot`, `halt`, `poweroff`.
pub(crate) fn shutdown(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    ctx.hit(
        &SHUTDOWN,
        inv,
        format!("`{}` powers off or restarts the machine", inv.snippet()),
    );
}

/// `init 0|6`, `telinit 0|6`.
pub(crate) fn init(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    if opts::operands(inv.args())
        .next()
        .is_some_and(|w| matches!(w.text.as_str(), "0" | "6"))
    {
        shutdown(ctx, inv);
    }
}

/// `systemctl`: power actions and stopping services.
pub(crate) fn systemctl(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    match subcommand(inv.program, inv.args()).map(|(_, sub)| sub) {
        Some("poweroff" | "reboot" | "halt" | "kexec") => shutdown(ctx, inv),
        Some("stop" | "disable" | "mask" | "kill") => ctx.hit(
            &SERVICE_STOP,
            inv,
            format!("`{}` stops or disables a system service", inv.snippet()),
        ),
        _ => {}
    }
}

/// `service NAME stop`.
pub(crate) fn service(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    if opts::operands(inv.args())
        .nth(1)
        .is_some_and(|w| w.text == "stop")
    {
        ctx.hit(
            &SERVICE_STOP,
            inv,
            format!("`{}` stops a system service", inv.snippet()),
        );
    }
}

/// `crontab -r`.
pub(crate) fn crontab(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    if opts::parse(inv.args(), "u", &[]).has_short('r') {
        ctx.hit(
            &CRONTAB_REMOVE,
            inv,
            format!(
                "`{}` deletes every scheduled job of the user without asking",
                inv.snippet()
            ),
        );
    }
}

/// `iptables -F`, `ip6tables --flush`, `nft flush ruleset`.
pub(crate) fn firewall(ctx: &mut Ctx<'_, '_>, inv: &Invocation<'_>) {
    let args = inv.args();
    let flush = if inv.program == "nft" {
        args.windows(2)
            .any(|pair| matches!(pair, [a, b] if a.text == "flush" && b.text == "ruleset"))
    } else {
        args.iter().any(|w| {
            let t = w.orig.as_str();
            t == "--flush"
                || t.strip_prefix('-').is_some_and(|flags| {
                    flags.chars().all(|c| c.is_ascii_alphabetic()) && flags.contains('F')
                })
        })
    };
    if flush {
        ctx.hit(
            &FIREWALL_FLUSH,
            inv,
            format!("`{}` removes every firewall rule", inv.snippet()),
        );
    }
}

/// The privilege wrapper itself: any use needs approval.
pub(crate) fn privilege(ctx: &mut Ctx<'_, '_>, peeled: &Peeled<'_>, inv: Option<&Invocation<'_>>) {
    let Some(wrapper) = peeled.privilege else {
        return;
    };
    let key = inv.map_or_else(|| wrapper.to_owned(), Invocation::key);
    if peeled.sudo_stdin {
        ctx.report(
            &SUDO_STDIN,
            &key,
            "`sudo -S` reads the password from standard input, where it can leak to logs and other processes".to_owned(),
        );
    }
    let reason = match inv {
        Some(inv) => format!(
            "`{wrapper}` runs `{}` with elevated privileges",
            inv.snippet()
        ),
        None => format!("`{wrapper}` escalates privileges"),
    };
    ctx.report(&PRIVILEGE, &key, reason);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kill_signals() {
        assert!(is_kill_signal("9"));
        assert!(is_kill_signal("kill"));
        assert!(is_kill_signal("sigkill"));
        assert!(!is_kill_signal("term"));
        assert!(!is_kill_signal("19"));
    }
}

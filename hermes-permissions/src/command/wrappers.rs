//! Peeling of wrappers at command position.
//!
//! `sudo -u root env FOO=1 nice -n 5 rm -rf /` runs `rm -rf /`: this module
//! skips leading assignments, shell keywords and wrapper programs (with
//! their own options) until it reaches the program that does the work.
//! Wrappers that hand a *string* to a shell (`su -c`, `env -S`, `watch`,
//! and `ssh` with a remote command) return that string for a recursive
//! assessment instead.

use super::opts::{option_width, skip_options};
use super::split::Word;

/// The command left after peeling, plus what the wrappers implied.
#[derive(Debug, Default)]
pub(crate) struct Peeled<'a> {
    /// Program and arguments of the wrapped command; empty when there is none.
    pub(crate) rest: &'a [Word],
    /// The first privilege wrapper seen (`sudo`, `doas`, `pkexec`, `su`).
    pub(crate) privilege: Option<&'static str>,
    /// `sudo -S`: the password is read from standard input.
    pub(crate) sudo_stdin: bool,
    /// A command line the wrapper passes to a shell, to be judged on its own.
    pub(crate) reparse: Option<String>,
}

/// Basename of a program path: `/usr/bin/rm` is `rm`.
pub(crate) fn basename(text: &str) -> &str {
    text.rsplit('/')
        .next()
        .filter(|b| !b.is_empty())
        .unwrap_or(text)
}

/// Short and long options of `sudo` that take a value. (`-h` is left out: on
/// its own it means `--help`.)
const SUDO_VALUES: &str = "CDgprRtTUu";
const SUDO_LONG_VALUES: &[&str] = &[
    "close-from",
    "chdir",
    "group",
    "prompt",
    "role",
    "type",
    "command-timeout",
    "other-user",
    "user",
    "chroot",
    "host",
];

/// Short options of `ssh` that take a value.
const SSH_VALUES: &str = "BbcDEeFIiJLlmOoPpQRSWw";

/// Strip assignments, keywords and wrappers from the front of `words`.
pub(crate) fn peel(words: &[Word]) -> Peeled<'_> {
    let mut peeled = Peeled::default();
    let mut i = 0;
    while let Some(word) = words.get(i) {
        if is_assignment(&word.text) || is_keyword(&word.text) {
            i += 1;
            continue;
        }
        let next = match basename(&word.text) {
            "sudo" => {
                peeled.privilege.get_or_insert("sudo");
                sudo_options(words, i + 1, &mut peeled)
            }
            "doas" => {
                peeled.privilege.get_or_insert("doas");
                skip_options(words, i + 1, "uC", &[])
            }
            "pkexec" => {
                peeled.privilege.get_or_insert("pkexec");
                skip_options(words, i + 1, "", &["user"])
            }
            "sudoedit" => {
                // Edits files as root; the file operands are judged as writes.
                peeled.privilege.get_or_insert("sudo");
                peeled.rest = words.get(i..).unwrap_or_default();
                return peeled;
            }
            "ssh" => {
                // The words after the host form a command line for the
                // remote shell. `ssh` itself stays the program.
                peeled.rest = words.get(i..).unwrap_or_default();
                let host = skip_options(words, i + 1, SSH_VALUES, &[]);
                let remote = words.get(host + 1..).unwrap_or_default();
                if !remote.is_empty() {
                    peeled.reparse = Some(join_orig(remote));
                }
                return peeled;
            }
            "su" => {
                peeled.privilege.get_or_insert("su");
                peeled.reparse = su_command(words, i + 1);
                return peeled;
            }
            "env" => match env_options(words, i + 1) {
                EnvNext::Command(next) => next,
                EnvNext::Split(text) => {
                    peeled.rest = words.get(i..).unwrap_or_default();
                    peeled.reparse = Some(text);
                    return peeled;
                }
            },
            "nohup" | "setsid" | "busybox" | "builtin" => skip_options(words, i + 1, "", &[]),
            "nice" => skip_options(words, i + 1, "n", &["adjustment"]),
            "ionice" => skip_options(
                words,
                i + 1,
                "cnpPu",
                &["class", "classdata", "pid", "pgid", "uid"],
            ),
            // After its options, `timeout` takes a duration, then the command.
            "timeout" => skip_options(words, i + 1, "sk", &["signal", "kill-after"]) + 1,
            "time" => skip_options(words, i + 1, "fo", &["format", "output"]),
            "command" => {
                if is_lookup(words, i + 1) {
                    return peeled;
                }
                skip_options(words, i + 1, "", &[])
            }
            "exec" => skip_options(words, i + 1, "a", &[]),
            "stdbuf" => skip_options(words, i + 1, "ioe", &["input", "output", "error"]),
            "xargs" => skip_options(
                words,
                i + 1,
                "aEdILnPs",
                &[
                    "arg-file",
                    "delimiter",
                    "max-lines",
                    "max-args",
                    "max-procs",
                    "max-chars",
                    "process-slot-var",
                ],
            ),
            "watch" => {
                // `watch` joins its arguments and runs them with `sh -c`.
                let start = skip_options(words, i + 1, "nq", &["interval", "equexit"]);
                let rest = words.get(start..).unwrap_or_default();
                if !rest.is_empty() {
                    peeled.reparse = Some(join_orig(rest));
                }
                peeled.rest = words.get(i..).unwrap_or_default();
                return peeled;
            }
            // `function name { ... }`: skip the keyword and the name.
            "function" => i + 2,
            // Loop and case headers run nothing by themselves.
            "for" | "case" | "select" => return peeled,
            _ => {
                peeled.rest = words.get(i..).unwrap_or_default();
                return peeled;
            }
        };
        i = next.max(i + 1);
    }
    peeled
}

/// Join words back into a command line, as `eval` and `watch` do.
pub(crate) fn join_orig(words: &[Word]) -> String {
    words
        .iter()
        .map(|w| w.orig.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `NAME=value`, `NAME+=value` or `NAME[i]=value`.
pub(crate) fn is_assignment(text: &str) -> bool {
    let Some((name, _)) = text.split_once('=') else {
        return false;
    };
    let name = name.strip_suffix('+').unwrap_or(name);
    let name = match name.split_once('[') {
        Some((base, index)) if index.ends_with(']') => base,
        Some(_) => return false,
        None => name,
    };
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Shell reserved words that may precede a command.
fn is_keyword(text: &str) -> bool {
    matches!(
        text,
        "!" | "{"
            | "}"
            | "if"
            | "then"
            | "else"
            | "elif"
            | "fi"
            | "do"
            | "done"
            | "while"
            | "until"
            | "esac"
            | "coproc"
    )
}

fn sudo_options(words: &[Word], start: usize, peeled: &mut Peeled<'_>) -> usize {
    let mut i = start;
    while let Some(word) = words.get(i) {
        let t = word.orig.as_str();
        if t == "--" {
            return i + 1;
        }
        if t == "--stdin" {
            peeled.sudo_stdin = true;
        }
        // `sudo -e` / `sudoedit` edits files and runs no command.
        if matches!(t, "-e" | "--edit") {
            return words.len();
        }
        if let Some(flags) = t.strip_prefix('-')
            && !flags.starts_with('-')
        {
            for flag in flags.chars() {
                if flag == 'S' {
                    peeled.sudo_stdin = true;
                }
                if SUDO_VALUES.contains(flag) {
                    break;
                }
            }
        }
        match option_width(words, i, SUDO_VALUES, SUDO_LONG_VALUES) {
            Some(width) => i += width,
            None => return i,
        }
    }
    i
}

/// The command string of `su -c CMD` / `su --command=CMD`, if any.
fn su_command(words: &[Word], start: usize) -> Option<String> {
    let mut i = start;
    while let Some(word) = words.get(i) {
        let t = word.orig.as_str();
        if let Some(command) = t.strip_prefix("--command=") {
            return Some(command.to_owned());
        }
        if t == "--command" {
            return words.get(i + 1).map(|w| w.orig.clone());
        }
        if let Some(flags) = t.strip_prefix('-')
            && !flags.starts_with('-')
            && let Some(at) = flags.find('c')
        {
            let attached = flags.get(at + 1..).unwrap_or_default();
            return if attached.is_empty() {
                words.get(i + 1).map(|w| w.orig.clone())
            } else {
                Some(attached.to_owned())
            };
        }
        let takes_value = matches!(
            t,
            "-s" | "--shell"
                | "-g"
                | "--group"
                | "-G"
                | "--supp-group"
                | "-w"
                | "--whitelist-environment"
        );
        i += if takes_value { 2 } else { 1 };
    }
    None
}

enum EnvNext {
    /// Index of the command after `env`'s options and assignments.
    Command(usize),
    /// `env -S 'string'`: the string (plus what follows) is the command.
    Split(String),
}

fn env_options(words: &[Word], start: usize) -> EnvNext {
    let mut i = start;
    while let Some(word) = words.get(i) {
        let t = word.orig.as_str();
        if t == "--" {
            return EnvNext::Command(i + 1);
        }
        // A lone `-` is an old spelling of `-i`.
        if t == "-" {
            i += 1;
            continue;
        }
        let split = if t == "-S" || t == "--split-string" {
            words.get(i + 1).map(|w| (w.orig.clone(), i + 2))
        } else if let Some(value) = t.strip_prefix("--split-string=") {
            Some((value.to_owned(), i + 1))
        } else {
            t.strip_prefix("-S").map(|value| (value.to_owned(), i + 1))
        };
        if let Some((mut text, after)) = split {
            for rest in words.get(after..).unwrap_or_default() {
                text.push(' ');
                text.push_str(&rest.orig);
            }
            return EnvNext::Split(text);
        }
        match option_width(words, i, "uC", &["unset", "chdir"]) {
            Some(width) => i += width,
            None => return EnvNext::Command(i),
        }
    }
    EnvNext::Command(i)
}

/// `command -v` / `command -V` only look a name up.
fn is_lookup(words: &[Word], start: usize) -> bool {
    words
        .get(start..)
        .unwrap_or_default()
        .iter()
        .take_while(|w| w.orig.starts_with('-') && w.orig != "--")
        .any(|w| w.orig.contains(['v', 'V']))
}

#[cfg(test)]
mod tests {
    use super::super::split::first_words;
    use super::*;

    fn peel_line(line: &str) -> (Vec<String>, Option<&'static str>, bool, Option<String>) {
        let words = first_words(line);
        let peeled = peel(&words);
        (
            peeled.rest.iter().map(|w| w.text.clone()).collect(),
            peeled.privilege,
            peeled.sudo_stdin,
            peeled.reparse,
        )
    }

    fn rest(line: &str) -> Vec<String> {
        peel_line(line).0
    }

    #[test]
    fn peels_common_wrappers() {
        assert_eq!(rest("FOO=1 BAR+=2 rm -rf /"), ["rm", "-rf", "/"]);
        assert_eq!(rest("sudo -u root -E rm x"), ["rm", "x"]);
        assert_eq!(rest("env -i -u HOME PATH=/bin rm x"), ["rm", "x"]);
        assert_eq!(rest("nohup nice -n 10 ionice -c3 rm x"), ["rm", "x"]);
        assert_eq!(rest("nice -5 rm x"), ["rm", "x"]);
        assert_eq!(rest("timeout -s KILL 10s rm x"), ["rm", "x"]);
        assert_eq!(rest("time -p command rm x"), ["rm", "x"]);
        assert_eq!(rest("exec -a name stdbuf -oL rm x"), ["rm", "x"]);
        assert_eq!(rest("xargs -0 -I {} -n1 rm {}"), ["rm", "{}"]);
        assert_eq!(rest("doas -u root /usr/bin/rm x"), ["/usr/bin/rm", "x"]);
        assert_eq!(rest("if then ! { rm x"), ["rm", "x"]);
        assert_eq!(rest("function f { rm x"), ["rm", "x"]);
    }

    #[test]
    fn lookups_and_headers_run_nothing() {
        assert!(rest("command -v rm").is_empty());
        assert!(rest("for f in a b").is_empty());
        assert!(rest("X=1").is_empty());
    }

    #[test]
    fn privilege_is_recorded() {
        assert_eq!(peel_line("sudo ls").1, Some("sudo"));
        assert!(peel_line("sudo -S ls").2);
        assert!(!peel_line("sudo -s").2);
        assert!(peel_line("sudo -kS ls").2);
        assert_eq!(peel_line("pkexec ls").1, Some("pkexec"));
    }

    #[test]
    fn shell_strings_are_returned() {
        assert_eq!(
            peel_line("su -c 'rm -rf /' root").3.as_deref(),
            Some("rm -rf /")
        );
        assert_eq!(peel_line("su - root -lc ls").3.as_deref(), Some("ls"));
        assert_eq!(
            peel_line("env -S 'rm -rf' /").3.as_deref(),
            Some("rm -rf /")
        );
        assert_eq!(peel_line("watch -n 1 df -h").3.as_deref(), Some("df -h"));
        assert_eq!(
            peel_line("ssh -p 22 -i key host rm -rf /").3.as_deref(),
            Some("rm -rf /")
        );
        assert_eq!(peel_line("ssh host").3, None);
        assert_eq!(rest("ssh host ls")[0], "ssh");
    }

    #[test]
    fn basenames() {
        assert_eq!(basename("/usr/bin/rm"), "rm");
        assert_eq!(basename("rm"), "rm");
        assert_eq!(basename("/"), "/");
        assert_eq!(basename("dir/"), "dir/");
    }
}

//! Option parsing shared by the wrapper peeler and the rules.
//!
//! Two styles are supported: GNU style ([`parse`]), where options may appear
//! anywhere before `--`, and POSIX style ([`skip_options`]), where the first
//! operand ends the options (used for wrappers, whose operand is a command).
//! Option letters are read from [`Word::orig`] because case matters
//! (`-R` and `-r` are different options for many tools).

use super::split::Word;

/// Options and operands of one command, GNU style.
#[derive(Debug, Default)]
pub(crate) struct Opts<'a> {
    /// Every short option letter seen, in order, case preserved.
    pub(crate) shorts: Vec<char>,
    /// Long options (lowercased, without `--`) with their value if any.
    pub(crate) longs: Vec<(String, Option<String>)>,
    /// Values of short options that take one (lowercased).
    pub(crate) values: Vec<(char, String)>,
    /// Operands.
    pub(crate) positionals: Vec<&'a Word>,
}

impl Opts<'_> {
    /// Whether the short option `flag` was given.
    pub(crate) fn has_short(&self, flag: char) -> bool {
        self.shorts.contains(&flag)
    }

    /// Whether the long option `--name` was given.
    pub(crate) fn has_long(&self, name: &str) -> bool {
        self.longs.iter().any(|(n, _)| n == name)
    }

    /// Value of the short option `flag`.
    pub(crate) fn value(&self, flag: char) -> Option<&str> {
        self.values
            .iter()
            .find(|(f, _)| *f == flag)
            .map(|(_, v)| v.as_str())
    }

    /// Value of the long option `--name`.
    pub(crate) fn long_value(&self, name: &str) -> Option<&str> {
        self.longs
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }
}

/// Parse `args` GNU style. `short_values` lists the short options taking a
/// value; `long_values` the long ones (without `--`).
pub(crate) fn parse<'a>(args: &'a [Word], short_values: &str, long_values: &[&str]) -> Opts<'a> {
    let mut opts = Opts::default();
    let mut only_operands = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let t = word.orig.as_str();
        if only_operands || t == "-" || !t.starts_with('-') {
            opts.positionals.push(word);
            continue;
        }
        if t == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, mut value) = match long.split_once('=') {
                Some((name, value)) => (name.to_lowercase(), Some(value.to_lowercase())),
                None => (long.to_lowercase(), None),
            };
            if value.is_none() && long_values.contains(&name.as_str()) {
                value = args.get(i).map(|w| w.text.clone());
                i += 1;
            }
            opts.longs.push((name, value));
            continue;
        }
        let flags = t.get(1..).unwrap_or_default();
        for (at, flag) in flags.char_indices() {
            opts.shorts.push(flag);
            if short_values.contains(flag) {
                let rest = flags.get(at + flag.len_utf8()..).unwrap_or_default();
                let value = if rest.is_empty() {
                    i += 1;
                    args.get(i - 1).map(|w| w.text.clone())
                } else {
                    Some(rest.to_lowercase())
                };
                if let Some(value) = value {
                    opts.values.push((flag, value));
                }
                break;
            }
        }
    }
    opts
}

/// How many words the option at `args[i]` occupies, or `None` when it is an
/// operand. `--` counts as a one-word option; callers stop after it.
pub(crate) fn option_width(
    args: &[Word],
    i: usize,
    short_values: &str,
    long_values: &[&str],
) -> Option<usize> {
    let t = args.get(i)?.orig.as_str();
    if t == "-" || !t.starts_with('-') {
        return None;
    }
    if let Some(long) = t.strip_prefix("--") {
        let takes_value =
            !long.contains('=') && long_values.iter().any(|v| v.eq_ignore_ascii_case(long));
        return Some(if takes_value { 2 } else { 1 });
    }
    let flags = t.get(1..).unwrap_or_default();
    for (at, flag) in flags.char_indices() {
        if short_values.contains(flag) {
            let attached = at + flag.len_utf8() < flags.len();
            return Some(if attached { 1 } else { 2 });
        }
    }
    Some(1)
}

/// Skip options POSIX style from `start`; returns the index of the first
/// operand (possibly `args.len()`).
pub(crate) fn skip_options(
    args: &[Word],
    start: usize,
    short_values: &str,
    long_values: &[&str],
) -> usize {
    let mut i = start;
    while let Some(word) = args.get(i) {
        if word.orig == "--" {
            return i + 1;
        }
        match option_width(args, i, short_values, long_values) {
            Some(width) => i += width,
            None => return i,
        }
    }
    i.min(args.len())
}

/// Operands of `args`, ignoring anything that looks like an option.
pub(crate) fn operands(args: &[Word]) -> impl Iterator<Item = &Word> {
    args.iter()
        .filter(|w| !w.orig.starts_with('-') || w.orig == "-")
}

/// Programs whose first operand is a subcommand worth naming in a class.
pub(crate) fn has_subcommands(program: &str) -> bool {
    matches!(
        program,
        "git"
            | "docker"
            | "podman"
            | "nerdctl"
            | "docker-compose"
            | "podman-compose"
            | "systemctl"
            | "kubectl"
            | "helm"
            | "apt"
            | "apt-get"
            | "dnf"
            | "yum"
            | "zypper"
            | "snap"
            | "brew"
            | "npm"
            | "pnpm"
            | "yarn"
            | "cargo"
            | "pip"
            | "pip3"
            | "gh"
            | "go"
            | "terraform"
            | "cockroach"
    )
}

/// Container CLIs whose subcommands come in groups (`docker system prune`).
pub(crate) fn is_container_cli(program: &str) -> bool {
    matches!(program, "docker" | "podman" | "nerdctl")
}

/// Global options that take a value, per program, so they are not mistaken
/// for the subcommand.
fn global_value_options(program: &str) -> &'static [&'static str] {
    match program {
        "git" => &[
            "-C",
            "-c",
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--super-prefix",
            "--config-env",
        ],
        "docker" | "podman" | "nerdctl" => &[
            "-H",
            "--host",
            "-c",
            "--context",
            "--config",
            "-l",
            "--log-level",
            "--tlscacert",
            "--tlscert",
            "--tlskey",
            "--url",
            "--connection",
            "--identity",
            "--root",
            "--runroot",
            "--storage-driver",
            "-n",
            "--namespace",
        ],
        "kubectl" | "helm" => &[
            "-n",
            "--namespace",
            "--context",
            "--cluster",
            "--user",
            "-s",
            "--server",
            "--kubeconfig",
            "--token",
            "--as",
            "--as-group",
            "--request-timeout",
        ],
        "systemctl" => &[
            "-H",
            "--host",
            "-M",
            "--machine",
            "-t",
            "--type",
            "-p",
            "--property",
            "-s",
            "--signal",
            "-n",
            "--lines",
            "-o",
            "--output",
            "--root",
            "--state",
            "--job-mode",
            "--kill-whom",
        ],
        "apt" | "apt-get" => &["-o", "-c", "-t"],
        _ => &[],
    }
}

/// Index and (lowercased) name of the subcommand of `program`.
pub(crate) fn subcommand<'a>(program: &str, args: &'a [Word]) -> Option<(usize, &'a str)> {
    let value_options = global_value_options(program);
    let mut i = 0;
    while let Some(word) = args.get(i) {
        let t = word.orig.as_str();
        if t == "--" {
            return args.get(i + 1).map(|w| (i + 1, w.text.as_str()));
        }
        if t.starts_with('-') && t.len() > 1 {
            i += if value_options.contains(&t) { 2 } else { 1 };
            continue;
        }
        return Some((i, word.text.as_str()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::split::parse as split;
    use super::*;

    fn args(line: &str) -> Vec<Word> {
        split(line, 0)
            .commands
            .into_iter()
            .next()
            .map(|c| c.words)
            .unwrap_or_default()
    }

    #[test]
    fn gnu_style_options() {
        let words = args("-Rf a -t dir --mode=0644 --suffix x b -- -c");
        let opts = parse(&words, "t", &["suffix"]);
        assert!(opts.has_short('R') && opts.has_short('f') && !opts.has_short('r'));
        assert_eq!(opts.value('t'), Some("dir"));
        assert_eq!(opts.long_value("mode"), Some("0644"));
        assert_eq!(opts.long_value("suffix"), Some("x"));
        let names: Vec<&str> = opts.positionals.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(names, ["a", "b", "-c"]);
    }

    #[test]
    fn attached_values() {
        let words = args("-tdir -oL");
        let opts = parse(&words, "to", &[]);
        assert_eq!(opts.value('t'), Some("dir"));
        assert_eq!(opts.value('o'), Some("l"));
    }

    #[test]
    fn posix_style_stops_at_first_operand() {
        let words = args("-u root -E cmd -x");
        assert_eq!(skip_options(&words, 0, "u", &[]), 3);
        let words = args("-- -x");
        assert_eq!(skip_options(&words, 0, "", &[]), 1);
        let words = args("-u");
        assert_eq!(skip_options(&words, 0, "u", &[]), 1);
    }

    #[test]
    fn finds_subcommands_after_global_options() {
        let words = args("-C repo -c a=b --no-pager push -f");
        assert_eq!(subcommand("git", &words), Some((5, "push")));
        let words = args("--context prod system prune");
        assert_eq!(subcommand("docker", &words), Some((2, "system")));
        assert_eq!(subcommand("git", &args("--version")), None);
    }
}

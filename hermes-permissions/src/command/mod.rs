//! Detection of dangerous shell commands.
//!
//! An agent proposes a command line; before it reaches a shell, [`assess`]
//! sorts it into one of three buckets:
//!
//! * [`Verdict::Hardline`]: never run it. Wiping `/` or the home directory,
//!   formatting or overwriting a disk, fork bombs, signalling every process,
//!   powering the machine off.
//! * [`Verdict::Dangerous`]: run it only once a human has said yes. Recursive
//!   deletes, force pushes, `curl | sh`, privilege escalation, writes to
//!   system or credential files, opaque inline code, and so on.
//! * [`Verdict::Safe`]: nothing on either list was recognised.
//!
//! # How a command line is judged
//!
//! 1. **Normalise** it ([`normalize`]): terminal escape sequences and
//!    invisible characters go, Unicode compatibility forms are folded
//!    (fullwidth `ｒｍ` becomes `rm`), escaping tricks such as `r\m`, `r''m`
//!    and `r""m` are undone and everything is lowercased.
//! 2. **Split** it the way a shell would: into simple commands at `;`, `&&`,
//!    `||`, `|`, `&` and newlines, following command substitutions
//!    (`$(...)`, backticks) and process substitutions (`<(...)`, `>(...)`),
//!    with quotes, escapes, redirections and here-documents understood.
//! 3. **Peel wrappers** at command position (`sudo`, `env`, `nohup`,
//!    `timeout`, `xargs`, ...) and leading `VAR=value` assignments, so the
//!    command that actually runs is the one being judged. Programs are matched
//!    by basename, so `/usr/bin/rm` is `rm`.
//! 4. **Match rules** against each simple command. Code handed to another
//!    shell (`bash -c '...'`, `eval`, `su -c`, `watch`) is judged recursively
//!    as well. The most severe finding wins; between equally severe findings,
//!    the one earliest in the command line wins.
//!
//! Words that are only data for the program receiving them stay data:
//! `echo "rm -rf /"` and `grep shutdown log.txt` are safe.
//!
//! # Limits
//!
//! The detector does a bounded amount of work for any input. Inputs over
//! 64 KiB are not parsed and are reported as dangerous
//! (`dangerous.too-long`). Nesting of substitutions and inline scripts is
//! followed eight levels deep; anything deeper is reported as dangerous
//! (`dangerous.too-deep`). It never panics.
//!
//! It is a safety net for honest mistakes and common obfuscations, not a
//! sandbox: a determined adversary can always build a command whose meaning
//! only appears at run time (for example by assembling the program name from
//! variables).

mod engine;
mod forkbomb;
mod normalize;
mod opts;
mod paths;
mod rules;
mod split;
mod wrappers;

use std::fmt;

/// How dangerous a shell command is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Must never run: the damage would be catastrophic or irreversible.
    Hardline,
    /// May run only after explicit human approval.
    Dangerous,
    /// Nothing dangerous was recognised.
    Safe,
}

impl Verdict {
    /// The verdict's lowercase name: `"hardline"`, `"dangerous"` or `"safe"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Hardline => "hardline",
            Self::Dangerous => "dangerous",
            Self::Safe => "safe",
        }
    }

    /// Numeric severity used to pick the worst finding.
    pub(crate) const fn severity(self) -> u8 {
        match self {
            Self::Safe => 0,
            Self::Dangerous => 1,
            Self::Hardline => 2,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The detector's answer for one command string.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Assessment {
    /// How dangerous the command line is, taken from its worst finding.
    pub verdict: Verdict,
    /// Stable rule id, e.g. "hardline.rm-root", "dangerous.recursive-delete", "dangerous.curl-pipe-shell"; "safe" when nothing matched.
    pub rule: &'static str,
    /// One sentence saying what was found and why it matters (lowercase start, no trailing period), e.g. "`rm -rf /` deletes the whole filesystem".
    pub reason: String,
    /// The command class a human approval for the session would cover: the rule id plus the program (and its subcommand for programs with subcommands: git, docker, podman, systemctl, kubectl, apt...), e.g. `dangerous.git-force-push:git push`. A line with several dangerous commands gets all their classes, sorted and joined by ` + `, so a grant covers exactly that combination. For safe commands: `safe:<program>`.
    ///
    /// A privilege wrapper is part of the program, so `sudo rm -r x` has the
    /// class `dangerous.recursive-delete:sudo rm`. The two "could not assess"
    /// rules (`dangerous.too-long`, `dangerous.too-deep`) name no program and
    /// their class is the bare rule id. A line without any program (empty,
    /// only comments or only assignments) has the class `safe:`.
    pub class: String,
}

/// Judge a shell command line. Never panics, whatever the input (empty, huge, binary junk, unbalanced quotes).
#[must_use]
pub fn assess(command: &str) -> Assessment {
    engine::assess(command)
}

/// The normalised form the rules see (exposed for tests and for the CLI): ANSI escape sequences removed, Unicode NFKC (fullwidth letters become ASCII), backslash escapes outside quotes removed (`r\m` -> `rm`), empty quote pairs removed (`r''m`, `r""m` -> `rm`), lowercased.
///
/// Details worth knowing:
///
/// * other invisible characters (control characters except tab and newline,
///   zero-width spaces, bidi controls, soft hyphens) are removed too;
/// * a backslash is kept when it escapes a character that means something to
///   the shell (`\;`, `\|`, `\$`, `\*`, `\ `, ...), so escaping cannot change
///   how the line splits; a backslash before a newline is a line
///   continuation and both characters are removed;
/// * text inside single or double quotes is left alone apart from case and
///   Unicode folding.
///
/// The function is idempotent for ordinary input.
#[must_use]
pub fn normalize(command: &str) -> String {
    normalize::normalize(command)
}

/// The simple commands of a line as the profile restrictions see them: per command,
/// its words lowercased with the program by basename, once as written (leading
/// assignments dropped) and, when wrappers such as `sudo`, `env` or `nohup` lead it,
/// once more as the wrapped command. So `denied_commands: [sudo]` and
/// `denied_commands: [rm -rf]` both catch `sudo rm -rf x`, and `allowed_commands`
/// must allow `sudo` as well as `rm`. Commands inside substitutions are included.
pub(crate) fn simple_commands(line: &str) -> Vec<Vec<String>> {
    let source = normalize::normalize_keep_case(line);
    let parsed = split::parse(&source, 0);
    let mut forms = Vec::new();
    for command in &parsed.commands {
        let written: Vec<&split::Word> = command
            .words
            .iter()
            .skip_while(|word| wrappers::is_assignment(&word.text))
            .collect();
        let peeled = wrappers::peel(&command.words).rest;
        for words in [written, peeled.iter().collect()] {
            let Some((program, args)) = words.split_first() else {
                continue;
            };
            let mut form = vec![wrappers::basename(&program.text).to_owned()];
            form.extend(args.iter().map(|word| word.text.clone()));
            if !forms.contains(&form) {
                forms.push(form);
            }
        }
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_class_of_a_line_names_every_dangerous_command() {
        let one = assess("git reset --hard HEAD~1");
        let both = assess("git reset --hard HEAD~1 && rm -r build");
        assert_eq!(both.verdict, Verdict::Dangerous);
        assert_ne!(one.class, both.class);
        assert!(
            both.class.contains(&one.class) && both.class.contains("recursive-delete"),
            "{}",
            both.class
        );
        assert_eq!(
            both.class,
            assess("rm -r build; git reset --hard HEAD~1").class
        );
    }

    #[test]
    fn simple_commands_written_and_unwrapped() {
        let forms = simple_commands("FOO=1 sudo /bin/RM -rf /tmp/x && echo $(whoami)");
        assert_eq!(
            forms,
            [
                vec!["sudo", "/bin/rm", "-rf", "/tmp/x"],
                vec!["rm", "-rf", "/tmp/x"],
                vec!["echo", "$(whoami)"],
                vec!["whoami"],
            ]
        );
    }

    #[test]
    fn verdict_names() {
        for (verdict, name) in [
            (Verdict::Hardline, "hardline"),
            (Verdict::Dangerous, "dangerous"),
            (Verdict::Safe, "safe"),
        ] {
            assert_eq!(verdict.as_str(), name);
            assert_eq!(verdict.to_string(), name);
            let json = serde_json::to_string(&verdict).unwrap();
            assert_eq!(json, format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<Verdict>(&json).unwrap(), verdict);
        }
        assert!(Verdict::Hardline.severity() > Verdict::Dangerous.severity());
        assert!(Verdict::Dangerous.severity() > Verdict::Safe.severity());
    }

    #[test]
    fn assessment_serializes_flat() {
        let got = assess("git push --force");
        let json = serde_json::to_value(&got).unwrap();
        assert_eq!(json["verdict"], "dangerous");
        assert_eq!(json["rule"], "dangerous.git-force-push");
        assert_eq!(json["class"], "dangerous.git-force-push:git push");
    }

    #[test]
    fn most_severe_wins_and_first_breaks_ties() {
        assert_eq!(assess("git push -f; rm -rf /").rule, "hardline.rm-root");
        assert_eq!(
            assess("git push -f; git reset --hard").rule,
            "dangerous.git-force-push"
        );
        assert_eq!(assess("kill -9 -1; rm -rf /").rule, "hardline.kill-all");
    }

    #[test]
    fn safe_class_names_the_first_program() {
        assert_eq!(assess("ls -la | grep x").class, "safe:ls");
        assert_eq!(assess("FOO=1 /usr/bin/env cat x").class, "safe:cat");
        assert_eq!(assess("").class, "safe:");
        assert_eq!(assess("").rule, "safe");
    }

    #[test]
    fn inline_scripts_are_judged_recursively() {
        assert_eq!(assess("bash -c 'ls'").rule, "dangerous.shell-c");
        assert_eq!(
            assess("bash -c 'rm -r x'").rule,
            "dangerous.recursive-delete"
        );
        assert_eq!(assess("bash -c 'rm -rf /'").verdict, Verdict::Hardline);
        assert_eq!(
            assess("sudo ls").class,
            "dangerous.privilege-escalation:sudo ls"
        );
        assert_eq!(
            assess("sudo rm -r x").class,
            "dangerous.recursive-delete:sudo rm"
        );
    }
}

//! What a matcher sees: the peeled invocation and the context around it.

use super::super::engine::{Engine, Finding};
use super::super::opts::{has_subcommands, is_container_cli, operands, subcommand};
use super::super::split::{Parsed, RedirectKind, SimpleCommand, Word};
use super::super::wrappers::basename;
use super::Rule;

/// Longest snippet quoted in a reason.
const SNIPPET_CHARS: usize = 60;
/// Longest part of a class key taken from user text.
const KEY_PART_CHARS: usize = 40;

/// A program with its arguments, after wrapper peeling.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Invocation<'a> {
    /// Basename of the program, lowercased.
    pub(crate) program: &'a str,
    /// The program word followed by its arguments.
    pub(crate) words: &'a [Word],
    /// Privilege wrapper around it, if any.
    pub(crate) privilege: Option<&'static str>,
}

impl<'a> Invocation<'a> {
    /// `None` when there are no words.
    pub(crate) fn new(words: &'a [Word], privilege: Option<&'static str>) -> Option<Self> {
        let first = words.first()?;
        Some(Self {
            program: basename(&first.text),
            words,
            privilege,
        })
    }

    /// Arguments after the program.
    pub(crate) fn args(&self) -> &'a [Word] {
        self.words.get(1..).unwrap_or_default()
    }

    /// The command quoted for a reason sentence, shortened if long.
    pub(crate) fn snippet(&self) -> String {
        snippet(self.words.iter().map(|w| w.text.as_str()))
    }

    /// The program, followed by its subcommand where it has one, prefixed by
    /// the privilege wrapper: `git push`, `docker system prune`, `sudo rm`.
    pub(crate) fn key(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        if let Some(wrapper) = self.privilege {
            parts.push(wrapper.to_owned());
        }
        parts.push(shorten(self.program));
        let args = self.args();
        if self.program == "service" {
            // `service NAME ACTION`: the action plays the subcommand's role.
            if let Some(action) = operands(args).nth(1) {
                parts.push(shorten(&action.text));
            }
        } else if has_subcommands(self.program)
            && let Some((at, sub)) = subcommand(self.program, args)
        {
            parts.push(shorten(sub));
            if is_container_cli(self.program) && is_management_group(sub) {
                let rest = args.get(at + 1..).unwrap_or_default();
                if let Some(action) = operands(rest).next() {
                    parts.push(shorten(&action.text));
                }
            }
        }
        parts.join(" ")
    }
}

/// Docker command groups that take a second-level action.
pub(crate) fn is_management_group(sub: &str) -> bool {
    matches!(
        sub,
        "system"
            | "container"
            | "image"
            | "volume"
            | "network"
            | "builder"
            | "buildx"
            | "compose"
            | "pod"
    )
}

fn shorten(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_whitespace() || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .take(KEY_PART_CHARS)
        .collect()
}

/// Quote some words for a reason sentence: backticks and control characters
/// are replaced and the result is cut at a fixed length.
pub(crate) fn snippet<'s>(parts: impl Iterator<Item = &'s str>) -> String {
    let mut out = String::new();
    let mut count = 0;
    for (n, part) in parts.enumerate() {
        if n > 0 {
            out.push(' ');
            count += 1;
        }
        for c in part.chars() {
            if count >= SNIPPET_CHARS {
                out.push_str("...");
                return out;
            }
            out.push(match c {
                '`' => '\'',
                c if c.is_control() => ' ',
                c => c,
            });
            count += 1;
        }
    }
    out
}

/// Everything a matcher needs besides the invocation.
pub(crate) struct Ctx<'e, 'p> {
    /// Collects findings and runs nested assessments.
    pub(crate) engine: &'e mut Engine,
    /// All commands of the text being judged (for substitution lookups).
    pub(crate) parsed: &'p Parsed,
    /// The simple command being judged.
    pub(crate) cmd: &'p SimpleCommand,
    /// How many `find -exec` levels deep the matcher is.
    pub(crate) nesting: usize,
}

impl<'p> Ctx<'_, 'p> {
    /// Offer a finding with an explicit class key.
    pub(crate) fn report(&mut self, rule: &Rule, key: &str, reason: String) {
        self.engine
            .offer(Finding::new(rule, reason, format!("{}:{key}", rule.id)));
    }

    /// Offer a finding classed by `inv`.
    pub(crate) fn hit(&mut self, rule: &Rule, inv: &Invocation<'_>, reason: String) {
        let key = inv.key();
        self.report(rule, &key, reason);
    }

    /// Judge a script handed to a shell, one level deeper.
    pub(crate) fn nested(&mut self, script: &str) {
        self.engine.assess_source(script, self.cmd.depth + 1);
    }

    /// Standard input of the command when it is given inline: the body of a
    /// here-document or the text of a here-string.
    pub(crate) fn stdin_text(&self) -> Option<String> {
        let cmd = self.cmd;
        cmd.heredoc.clone().or_else(|| {
            cmd.redirects
                .iter()
                .find(|r| r.kind == RedirectKind::HereString)
                .map(|r| r.target.orig.clone())
        })
    }

    /// The here-string word, if any (it may hold a substitution).
    pub(crate) fn here_string(&self) -> Option<&'p Word> {
        let cmd = self.cmd;
        cmd.redirects
            .iter()
            .find(|r| r.kind == RedirectKind::HereString)
            .map(|r| &r.target)
    }

    /// Commands produced by substitutions inside `word`.
    pub(crate) fn substituted(&self, word: &Word) -> &'p [SimpleCommand] {
        let parsed = self.parsed;
        word.subst
            .clone()
            .and_then(|range| parsed.commands.get(range))
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::split::first_words;
    use super::*;

    fn key(line: &str, privilege: Option<&'static str>) -> String {
        let words = first_words(line);
        Invocation::new(&words, privilege)
            .map(|i| i.key())
            .unwrap_or_default()
    }

    #[test]
    fn keys_name_program_and_subcommand() {
        assert_eq!(key("git -C x push -f", None), "git push");
        assert_eq!(
            key("/usr/bin/docker system prune -a", None),
            "docker system prune"
        );
        assert_eq!(key("docker rm x", None), "docker rm");
        assert_eq!(key("systemctl --user stop x", None), "systemctl stop");
        assert_eq!(key("service nginx stop", None), "service stop");
        assert_eq!(key("rm -rf x", Some("sudo")), "sudo rm");
        assert_eq!(
            key("apt-get -y install x", Some("sudo")),
            "sudo apt-get install"
        );
        assert_eq!(key("git", None), "git");
    }

    #[test]
    fn snippets_are_short_and_clean() {
        assert_eq!(snippet(["rm", "-rf", "/"].into_iter()), "rm -rf /");
        assert_eq!(snippet(["a`b\nc"].into_iter()), "a'b c");
        let long = "x".repeat(100);
        assert_eq!(
            snippet([long.as_str()].into_iter()).chars().count(),
            SNIPPET_CHARS + 3
        );
    }
}

//! `restrictions`: what values a permission may be used with.

use std::path::Path;

use crate::permission::PermissionPattern;
use crate::rules::{HostGlobs, PathGlobs};
use crate::{Error, command};

/// Limits on the values used under one permission: the paths a `file:*` permission may
/// touch, the hosts a `network:*` permission may contact, the commands
/// `terminal:execute` may run.
#[derive(Debug, Clone, Default)]
pub struct Restrictions {
    allowed_paths: Option<PathGlobs>,
    denied_paths: Option<PathGlobs>,
    allowed_hosts: Option<HostGlobs>,
    denied_hosts: Option<HostGlobs>,
    allowed_commands: Option<Vec<String>>,
    denied_commands: Vec<(String, Vec<String>)>,
}

/// Why a value is refused: the restriction key and the pattern (or the missing match).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// `allowed_paths`, `denied_paths`, ...
    pub(crate) key: &'static str,
    /// The pattern that matched, or the list that nothing matched.
    pub(crate) pattern: String,
    pub(crate) reason: String,
}

impl Refusal {
    /// The rule to name: the entry itself for a denied command (`sudo`), else the key.
    pub(crate) fn rule(&self) -> String {
        if self.key == "denied_commands" {
            self.pattern.clone()
        } else {
            self.key.to_owned()
        }
    }
}

impl Restrictions {
    /// Build restrictions in code.
    pub fn builder() -> RestrictionsBuilder {
        RestrictionsBuilder::default()
    }

    /// Whether these restrictions suit permissions matching `pattern` (paths for `file`,
    /// hosts for `network`, commands for `terminal`).
    pub(crate) fn check_applies_to(&self, pattern: &PermissionPattern) -> Result<(), String> {
        let Some(domain) = pattern.domain() else {
            return Ok(());
        };
        let wrong = |key: &str, belongs: &str| {
            Err(format!(
                "`{key}` applies to {belongs} permissions, not to `{pattern}`"
            ))
        };
        if (self.allowed_paths.is_some() || self.denied_paths.is_some()) && domain != "file" {
            return wrong(
                if self.allowed_paths.is_some() {
                    "allowed_paths"
                } else {
                    "denied_paths"
                },
                "`file:*`",
            );
        }
        if (self.allowed_hosts.is_some() || self.denied_hosts.is_some()) && domain != "network" {
            return wrong(
                if self.allowed_hosts.is_some() {
                    "allowed_hosts"
                } else {
                    "denied_hosts"
                },
                "`network:*`",
            );
        }
        if (self.allowed_commands.is_some() || !self.denied_commands.is_empty())
            && domain != "terminal"
        {
            return wrong(
                if self.allowed_commands.is_some() {
                    "allowed_commands"
                } else {
                    "denied_commands"
                },
                "`terminal:execute`",
            );
        }
        Ok(())
    }

    /// Judge a normalised path.
    pub(crate) fn check_path(&self, path: &Path) -> Result<(), Refusal> {
        if let Some(pattern) = self
            .denied_paths
            .as_ref()
            .and_then(|denied| denied.first_match(path))
        {
            return Err(Refusal {
                key: "denied_paths",
                pattern: pattern.to_owned(),
                reason: format!("`{}` matches the denied path `{pattern}`", path.display()),
            });
        }
        if let Some(allowed) = &self.allowed_paths {
            if allowed.first_match(path).is_none() {
                return Err(Refusal {
                    key: "allowed_paths",
                    pattern: allowed_list(allowed.is_empty()),
                    reason: format!("`{}` is outside the allowed paths", path.display()),
                });
            }
        }
        Ok(())
    }

    /// Judge a host.
    pub(crate) fn check_host(&self, host: &str) -> Result<(), Refusal> {
        if let Some(pattern) = self
            .denied_hosts
            .as_ref()
            .and_then(|denied| denied.first_match(host))
        {
            return Err(Refusal {
                key: "denied_hosts",
                pattern: pattern.to_owned(),
                reason: format!("host `{host}` matches the denied host `{pattern}`"),
            });
        }
        if let Some(allowed) = &self.allowed_hosts {
            if allowed.first_match(host).is_none() {
                return Err(Refusal {
                    key: "allowed_hosts",
                    pattern: "allowed_hosts".to_owned(),
                    reason: format!("host `{host}` is not among the allowed hosts"),
                });
            }
        }
        Ok(())
    }

    /// Judge a command line: every simple command in it must be allowed, none denied.
    pub(crate) fn check_command(&self, line: &str) -> Result<(), Refusal> {
        let commands = command::simple_commands(line);
        for (text, words) in &self.denied_commands {
            if commands
                .iter()
                .any(|command| command.starts_with(words.as_slice()))
            {
                return Err(Refusal {
                    key: "denied_commands",
                    pattern: text.clone(),
                    reason: format!("the command runs `{text}`, which is denied"),
                });
            }
        }
        if let Some(allowed) = &self.allowed_commands {
            for command in &commands {
                let Some(program) = command.first() else {
                    continue;
                };
                if !allowed.contains(program) {
                    return Err(Refusal {
                        key: "allowed_commands",
                        pattern: "allowed_commands".to_owned(),
                        reason: format!(
                            "`{program}` is not among the allowed commands ({})",
                            allowed.join(", ")
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}

fn allowed_list(empty: bool) -> String {
    if empty {
        "allowed_paths: []".to_owned()
    } else {
        "allowed_paths".to_owned()
    }
}

/// Builds [`Restrictions`]; see [`Restrictions::builder`].
#[derive(Debug, Default)]
#[must_use]
pub struct RestrictionsBuilder {
    restrictions: Restrictions,
    error: Option<String>,
}

impl RestrictionsBuilder {
    /// Paths must match one of these globs (absolute, `~/...` or `**/...`).
    pub fn allowed_paths<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, patterns: I) -> Self {
        match PathGlobs::new(patterns) {
            Ok(globs) => self.restrictions.allowed_paths = Some(globs),
            Err(error) => self.fail(error),
        }
        self
    }

    /// Paths must match none of these globs.
    pub fn denied_paths<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, patterns: I) -> Self {
        match PathGlobs::new(patterns) {
            Ok(globs) => self.restrictions.denied_paths = Some(globs),
            Err(error) => self.fail(error),
        }
        self
    }

    /// Hosts must match one of these globs (`*.example.com`).
    pub fn allowed_hosts<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, patterns: I) -> Self {
        match HostGlobs::new(patterns) {
            Ok(globs) => self.restrictions.allowed_hosts = Some(globs),
            Err(error) => self.fail(error),
        }
        self
    }

    /// Hosts must match none of these globs.
    pub fn denied_hosts<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, patterns: I) -> Self {
        match HostGlobs::new(patterns) {
            Ok(globs) => self.restrictions.denied_hosts = Some(globs),
            Err(error) => self.fail(error),
        }
        self
    }

    /// Every program run must be one of these (by name: `git`, `cargo`).
    pub fn allowed_commands<I: IntoIterator<Item = S>, S: AsRef<str>>(
        mut self,
        programs: I,
    ) -> Self {
        self.restrictions.allowed_commands = Some(
            programs
                .into_iter()
                .map(|program| command::normalize(program.as_ref()).trim().to_owned())
                .collect(),
        );
        self
    }

    /// No simple command may start with one of these word sequences (`rm -rf`, `sudo`,
    /// `git push --force`), after the same normalisation as the dangerous-command
    /// detector.
    pub fn denied_commands<I: IntoIterator<Item = S>, S: AsRef<str>>(
        mut self,
        prefixes: I,
    ) -> Self {
        for prefix in prefixes {
            let prefix = prefix.as_ref();
            if prefix.contains(['|', ';', '&', '`', '>', '<']) || prefix.contains("$(") {
                self.fail(format!(
                    "denied command `{prefix}` is not a single command: list words a command starts with, as `rm -rf`; pipelines such as `curl | sh` are already caught by the dangerous-command detector"
                ));
                continue;
            }
            let words: Vec<String> = command::simple_commands(prefix)
                .into_iter()
                .next()
                .unwrap_or_default();
            if words.is_empty() {
                self.fail(format!("denied command `{prefix}` has no words"));
            } else {
                self.restrictions
                    .denied_commands
                    .push((prefix.to_owned(), words));
            }
        }
        self
    }

    /// Finish.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidRule`] for the first invalid pattern.
    pub fn build(self) -> Result<Restrictions, Error> {
        self.finish().map_err(Error::InvalidRule)
    }

    /// Finish, with the error as text (the YAML loader adds its location).
    pub(crate) fn finish(self) -> Result<Restrictions, String> {
        match self.error {
            Some(error) => Err(error),
            None => Ok(self.restrictions),
        }
    }

    fn fail(&mut self, error: String) {
        self.error.get_or_insert(error);
    }
}

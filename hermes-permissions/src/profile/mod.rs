//! Profiles: which permissions are granted, denied or need approval, and the
//! restrictions on the values they touch. Loaded from YAML ([`ProfileSet`]) or built
//! in code ([`Profile::builder`]).

mod restrictions;
mod yaml;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

pub(crate) use restrictions::Refusal;
pub use restrictions::{Restrictions, RestrictionsBuilder};

use crate::Error;
use crate::permission::{Permission, PermissionPattern, check_known};

/// One named set of rules: the `allow`, `deny`, `approval_required`, `restrictions` and
/// `tools` of a profile file entry.
#[derive(Debug, Clone)]
pub struct Profile {
    name: String,
    description: Option<String>,
    allow: Vec<PermissionPattern>,
    deny: Vec<PermissionPattern>,
    approval: Vec<PermissionPattern>,
    restrictions: Vec<(PermissionPattern, Restrictions)>,
    tools: HashMap<String, ToolRule>,
}

/// Rules for one tool inside a profile (the tool layer): they can only narrow.
#[derive(Debug, Clone, Default)]
pub struct ToolRule {
    /// The tool may not run at all under this profile.
    pub deny: bool,
    /// Every call of the tool needs approval.
    pub approval_required: bool,
    /// Restrictions on the tool's parameter values, by permission.
    pub restrictions: Vec<(PermissionPattern, Restrictions)>,
}

impl Profile {
    /// Start a profile in code. Everything is denied until allowed.
    pub fn builder(name: impl Into<String>) -> ProfileBuilder {
        ProfileBuilder {
            profile: Self {
                name: name.into(),
                description: None,
                allow: Vec::new(),
                deny: Vec::new(),
                approval: Vec::new(),
                restrictions: Vec::new(),
                tools: HashMap::new(),
            },
            custom: Vec::new(),
            error: None,
        }
    }

    /// The profile's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its description, if it has one.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }

    /// The `deny` pattern that covers `permission`, if any.
    pub fn denying(&self, permission: &Permission) -> Option<&PermissionPattern> {
        self.deny.iter().find(|pattern| pattern.matches(permission))
    }

    /// The `allow` pattern that covers `permission`, if any.
    pub fn allowing(&self, permission: &Permission) -> Option<&PermissionPattern> {
        self.allow
            .iter()
            .find(|pattern| pattern.matches(permission))
    }

    /// The `approval_required` pattern that covers `permission`, if any.
    pub fn requiring_approval(&self, permission: &Permission) -> Option<&PermissionPattern> {
        self.approval
            .iter()
            .find(|pattern| pattern.matches(permission))
    }

    /// The restrictions that apply to `permission`, with the pattern they are filed under.
    pub fn restrictions_for<'a>(
        &'a self,
        permission: &'a Permission,
    ) -> impl Iterator<Item = (&'a PermissionPattern, &'a Restrictions)> + 'a {
        self.restrictions
            .iter()
            .filter(move |(pattern, _)| pattern.matches(permission))
            .map(|(pattern, restrictions)| (pattern, restrictions))
    }

    /// The tool layer's rule for `tool`, if the profile has one.
    pub fn tool_rule(&self, tool: &str) -> Option<&ToolRule> {
        self.tools.get(tool)
    }
}

/// Builds a [`Profile`] in code; see [`Profile::builder`].
#[derive(Debug)]
#[must_use]
pub struct ProfileBuilder {
    profile: Profile,
    custom: Vec<Permission>,
    error: Option<String>,
}

impl ProfileBuilder {
    /// A description.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.profile.description = Some(text.into());
        self
    }

    /// Declare a user-defined permission (`deploy:run`) so it may be named.
    pub fn custom_permission(mut self, permission: &str) -> Self {
        match Permission::parse(permission) {
            Ok(permission) => self.custom.push(permission),
            Err(error) => self.fail(error),
        }
        self
    }

    /// Grant `pattern` (`file:read`, `network:*`, `*`).
    pub fn allow(mut self, pattern: &str) -> Self {
        if let Some(pattern) = self.pattern(pattern) {
            self.profile.allow.push(pattern);
        }
        self
    }

    /// Refuse `pattern`, whatever else grants it.
    pub fn deny(mut self, pattern: &str) -> Self {
        if let Some(pattern) = self.pattern(pattern) {
            self.profile.deny.push(pattern);
        }
        self
    }

    /// Require approval for calls needing `pattern`.
    pub fn approval_required(mut self, pattern: &str) -> Self {
        if let Some(pattern) = self.pattern(pattern) {
            self.profile.approval.push(pattern);
        }
        self
    }

    /// Restrict the values used under `pattern`.
    pub fn restrict(mut self, pattern: &str, restrictions: Restrictions) -> Self {
        if let Some(parsed) = self.pattern(pattern) {
            if let Err(error) = restrictions.check_applies_to(&parsed) {
                self.fail(error);
            }
            self.profile.restrictions.push((parsed, restrictions));
        }
        self
    }

    /// A rule for one tool (the tool layer).
    pub fn tool(mut self, tool: impl Into<String>, rule: ToolRule) -> Self {
        self.profile.tools.insert(tool.into(), rule);
        self
    }

    /// Finish.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidRule`] for the first malformed or unknown permission, or a
    /// restriction filed under a permission it does not apply to.
    pub fn build(self) -> Result<Profile, Error> {
        match self.error {
            Some(error) => Err(Error::InvalidRule(error)),
            None => Ok(self.profile),
        }
    }

    fn pattern(&mut self, text: &str) -> Option<PermissionPattern> {
        let parsed = PermissionPattern::parse(text).and_then(|pattern| {
            check_known(&pattern, &self.custom)?;
            Ok(pattern)
        });
        match parsed {
            Ok(pattern) => Some(pattern),
            Err(error) => {
                self.fail(error);
                None
            }
        }
    }

    fn fail(&mut self, error: String) {
        self.error.get_or_insert(error);
    }
}

/// The profiles of one file, by name.
#[derive(Debug, Clone, Default)]
pub struct ProfileSet {
    profiles: BTreeMap<String, Arc<Profile>>,
}

impl ProfileSet {
    /// Load a profile file.
    ///
    /// # Errors
    ///
    /// [`Error::Read`] if it cannot be read; [`Error::Invalid`] with the file, line and
    /// column for YAML errors, unknown keys, unknown permissions and bad patterns.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?;
        yaml::parse(&text, path)
    }

    /// Load profiles from YAML text (errors name the file `<string>`).
    ///
    /// # Errors
    ///
    /// As [`ProfileSet::from_file`].
    pub fn from_yaml(text: &str) -> Result<Self, Error> {
        yaml::parse(text, Path::new("<string>"))
    }

    /// The profile named `name`.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownProfile`], listing the names there are.
    pub fn get(&self, name: &str) -> Result<Arc<Profile>, Error> {
        self.profiles
            .get(name)
            .cloned()
            .ok_or_else(|| Error::UnknownProfile {
                name: name.to_owned(),
                available: self.profiles.keys().cloned().collect::<Vec<_>>().join(", "),
            })
    }

    /// The profile names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.profiles.keys().map(String::as_str)
    }

    pub(crate) fn insert(&mut self, profile: Profile) {
        self.profiles
            .insert(profile.name.clone(), Arc::new(profile));
    }
}

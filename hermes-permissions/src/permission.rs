//! Permission names (`domain:action`) and the patterns that grant or deny them.

use std::fmt;

/// The permissions hermes knows, by domain. Other domains are user-defined and must be
/// declared (`custom_permissions` in a profile file), so a typo is not silently a new
/// domain.
pub const VOCABULARY: &[(&str, &[&str])] = &[
    ("file", &["read", "write", "delete"]),
    ("network", &["fetch", "search", "websocket"]),
    ("terminal", &["execute"]),
    ("process", &["manage"]),
    ("env", &["read", "write"]),
    ("external", &["api"]),
    ("database", &["read", "write"]),
    ("git", &["read", "write"]),
    ("docker", &["run"]),
    ("mcp", &["call"]),
];

/// A permission: `domain:action`, such as `file:write`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Permission {
    domain: String,
    action: String,
}

impl Permission {
    /// Parse `domain:action` (each of ASCII letters, digits, `_`, `-`).
    ///
    /// # Errors
    ///
    /// A message saying what is malformed.
    pub fn parse(text: &str) -> Result<Self, String> {
        let Some((domain, action)) = text.split_once(':') else {
            return Err(format!(
                "`{text}` is not a permission: write `domain:action`, as `file:read`"
            ));
        };
        for part in [domain, action] {
            if !is_word(part) {
                return Err(format!(
                    "`{text}` is not a permission: `{part}` must be letters, digits, `_` or `-`"
                ));
            }
        }
        Ok(Self {
            domain: domain.to_owned(),
            action: action.to_owned(),
        })
    }

    /// A permission from parts the crate knows are valid words.
    pub(crate) fn known(domain: &str, action: &str) -> Self {
        Self {
            domain: domain.to_owned(),
            action: action.to_owned(),
        }
    }

    /// The domain (`file`).
    pub fn domain(&self) -> &str {
        &self.domain
    }

    /// The action (`write`).
    pub fn action(&self) -> &str {
        &self.action
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.domain, self.action)
    }
}

/// What an `allow`, `deny` or `approval_required` entry matches: everything (`*`), a
/// whole domain (`file:*`), or one permission.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PermissionPattern {
    /// `*`
    Any,
    /// `domain:*`
    Domain(String),
    /// `domain:action`
    Exact(Permission),
}

impl PermissionPattern {
    /// Parse `*`, `domain:*` or `domain:action`.
    ///
    /// # Errors
    ///
    /// A message saying what is malformed.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text == "*" {
            return Ok(Self::Any);
        }
        if let Some(domain) = text.strip_suffix(":*") {
            if is_word(domain) {
                return Ok(Self::Domain(domain.to_owned()));
            }
        }
        Permission::parse(text).map(Self::Exact)
    }

    /// Whether the pattern covers `permission`.
    pub fn matches(&self, permission: &Permission) -> bool {
        match self {
            Self::Any => true,
            Self::Domain(domain) => *domain == permission.domain,
            Self::Exact(exact) => exact == permission,
        }
    }

    /// The domain it is about, if one.
    pub fn domain(&self) -> Option<&str> {
        match self {
            Self::Any => None,
            Self::Domain(domain) => Some(domain),
            Self::Exact(permission) => Some(permission.domain()),
        }
    }
}

impl fmt::Display for PermissionPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Any => f.write_str("*"),
            Self::Domain(domain) => write!(f, "{domain}:*"),
            Self::Exact(permission) => permission.fmt(f),
        }
    }
}

/// Check a pattern against the vocabulary and the declared custom permissions: an
/// unknown action in a known domain, or an undeclared domain, is an error with a
/// suggestion.
pub(crate) fn check_known(
    pattern: &PermissionPattern,
    custom: &[Permission],
) -> Result<(), String> {
    let (domain, action) = match pattern {
        PermissionPattern::Any => return Ok(()),
        PermissionPattern::Domain(domain) => (domain.as_str(), None),
        PermissionPattern::Exact(permission) => (permission.domain(), Some(permission.action())),
    };
    if let Some((_, actions)) = VOCABULARY.iter().find(|(known, _)| *known == domain) {
        return match action {
            Some(action) if !actions.contains(&action) => Err(format!(
                "unknown permission `{pattern}`: `{domain}` has {}",
                actions
                    .iter()
                    .map(|a| format!("`{domain}:{a}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            _ => Ok(()),
        };
    }
    let declared = custom.iter().any(|permission| {
        permission.domain() == domain && action.is_none_or(|action| permission.action() == action)
    });
    if declared {
        return Ok(());
    }
    let close = VOCABULARY
        .iter()
        .map(|(known, _)| *known)
        .find(|known| is_close(known, domain))
        .map(|known| format!(" (did you mean `{known}`?)"))
        .unwrap_or_default();
    Err(format!(
        "unknown permission `{pattern}`{close}: declare user-defined permissions under `custom_permissions`"
    ))
}

/// The permissions implied by a tool's declared `domain:action` strings, parsed.
///
/// # Errors
///
/// The first malformed one.
pub(crate) fn parse_all(texts: &[String]) -> Result<Vec<Permission>, String> {
    texts.iter().map(|text| Permission::parse(text)).collect()
}

fn is_word(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// One edit apart, or a prefix of at least three letters.
fn is_close(known: &str, typed: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (known.chars().collect(), typed.chars().collect());
    if a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut current = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            current[j + 1] = (previous[j] + usize::from(ca != cb))
                .min(previous[j + 1] + 1)
                .min(current[j] + 1);
        }
        previous = current;
    }
    previous[b.len()] <= 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perm(text: &str) -> Permission {
        Permission::parse(text).unwrap()
    }

    #[test]
    fn patterns_match() {
        let write = perm("file:write");
        assert!(PermissionPattern::parse("*").unwrap().matches(&write));
        assert!(PermissionPattern::parse("file:*").unwrap().matches(&write));
        assert!(
            PermissionPattern::parse("file:write")
                .unwrap()
                .matches(&write)
        );
        assert!(
            !PermissionPattern::parse("file:read")
                .unwrap()
                .matches(&write)
        );
        assert!(
            !PermissionPattern::parse("network:*")
                .unwrap()
                .matches(&write)
        );
    }

    #[test]
    fn malformed_names_are_refused() {
        for bad in ["file", "file:", ":read", "fi le:read", "file:read:x"] {
            assert!(Permission::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn unknown_names_are_reported_with_a_suggestion() {
        let check = |text: &str| {
            check_known(
                &PermissionPattern::parse(text).unwrap(),
                &[perm("deploy:run")],
            )
        };
        assert!(check("file:read").is_ok());
        assert!(check("file:*").is_ok());
        assert!(check("deploy:run").is_ok());
        assert!(check("deploy:*").is_ok());
        let err = check("file:raed").unwrap_err();
        assert!(err.contains("`file:read`"), "{err}");
        let err = check("netwrk:fetch").unwrap_err();
        assert!(err.contains("did you mean `network`"), "{err}");
        assert!(check("deploy:stop").is_err());
    }
}

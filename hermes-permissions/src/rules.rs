//! Compiled value rules: path globs, host globs, command prefixes. Built once per
//! profile; each match says which pattern matched, so a decision can name it.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

use crate::path::lexical;

/// A set of globs over absolute paths (`/workspace/**`, `**/.env`, `~/.ssh/**`).
#[derive(Debug, Clone)]
pub struct PathGlobs {
    patterns: Vec<String>,
    set: GlobSet,
}

impl PathGlobs {
    /// Compile `patterns`. A leading `~` is the home directory; a pattern must be absolute
    /// or start with `**`. The literal directory a pattern starts with is resolved through
    /// symbolic links (as the paths it is matched against are), and `dir/**` also matches
    /// `dir` itself.
    ///
    /// # Errors
    ///
    /// The first pattern that is relative or not a valid glob, with why.
    pub fn new<I, S>(patterns: I) -> Result<Self, String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let (patterns, set) = compile(patterns, false, |pattern| {
            let expanded = expand(pattern)?;
            Ok(forms(&expanded))
        })?;
        Ok(Self { patterns, set })
    }

    /// The first pattern matching `path`, if any.
    pub fn first_match(&self, path: &Path) -> Option<&str> {
        self.set
            .matches(path)
            .into_iter()
            .min()
            .and_then(|index| self.patterns.get(index))
            .map(String::as_str)
    }

    /// Whether no pattern was given.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

/// `~` expanded, relative patterns refused.
fn expand(pattern: &str) -> Result<String, String> {
    let expanded = if let Some(rest) = pattern.strip_prefix('~') {
        if !(rest.is_empty() || rest.starts_with('/')) {
            return Err(format!(
                "path pattern `{pattern}`: only `~` and `~/...` are understood"
            ));
        }
        let home = std::env::var("HOME")
            .map_err(|_| format!("path pattern `{pattern}` needs HOME to be set"))?;
        format!("{}{rest}", home.trim_end_matches('/'))
    } else {
        pattern.to_owned()
    };
    if expanded.starts_with('/') || expanded.starts_with("**") {
        Ok(expanded)
    } else {
        Err(format!(
            "path pattern `{pattern}` must be absolute (`/...`), start with `~/` or with `**/`"
        ))
    }
}

/// The pattern, with its literal leading directories resolved through links, plus the
/// directory itself for a `dir/**` pattern.
fn forms(pattern: &str) -> Vec<String> {
    let resolved = resolve_literal_prefix(pattern);
    let mut forms = vec![resolved.clone()];
    if let Some(dir) = resolved.strip_suffix("/**") {
        if !dir.is_empty() && !dir.ends_with("**") {
            forms.push(dir.to_owned());
        }
    }
    forms
}

fn resolve_literal_prefix(pattern: &str) -> String {
    if !pattern.starts_with('/') {
        return pattern.to_owned();
    }
    let is_meta = |part: &str| part.contains(['*', '?', '[', '{']);
    let parts: Vec<&str> = pattern.split('/').collect();
    let literal = parts.iter().take_while(|part| !is_meta(part)).count();
    let prefix: PathBuf = lexical(Path::new(&parts[..literal].join("/")));
    let Ok(real) = std::fs::canonicalize(&prefix) else {
        return pattern.to_owned();
    };
    let mut out = real.to_string_lossy().into_owned();
    for part in &parts[literal..] {
        if !out.ends_with('/') {
            out.push('/');
        }
        out.push_str(part);
    }
    out
}

/// Compile each pattern's forms into one set; the kept list maps each glob of the set
/// back to the pattern it came from.
fn compile<I, S>(
    patterns: I,
    case_insensitive: bool,
    forms_of: impl Fn(&str) -> Result<Vec<String>, String>,
) -> Result<(Vec<String>, GlobSet), String>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut kept = Vec::new();
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let pattern = pattern.as_ref();
        for form in forms_of(pattern)? {
            let glob = glob(&form, case_insensitive)
                .map_err(|error| format!("invalid pattern `{pattern}`: {error}"))?;
            builder.add(glob);
            kept.push(pattern.trim().to_owned());
        }
    }
    let set = builder.build().map_err(|error| error.to_string())?;
    Ok((kept, set))
}

fn glob(pattern: &str, case_insensitive: bool) -> Result<Glob, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .case_insensitive(case_insensitive)
        .backslash_escape(true)
        .build()
}

/// A set of globs over host names (`*.example.com`, `docs.rs`, `10.0.*`), case-insensitive.
#[derive(Debug, Clone)]
pub struct HostGlobs {
    patterns: Vec<String>,
    set: GlobSet,
}

impl HostGlobs {
    /// Compile `patterns`.
    ///
    /// # Errors
    ///
    /// The first invalid one.
    pub fn new<I, S>(patterns: I) -> Result<Self, String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let (patterns, set) = compile(patterns, true, |pattern| {
            let pattern = pattern.trim();
            if pattern.is_empty() || pattern.contains('/') {
                return Err(format!(
                    "host pattern `{pattern}` must be a host name, as `*.example.com`"
                ));
            }
            Ok(vec![pattern.to_owned()])
        })?;
        Ok(Self { patterns, set })
    }

    /// The first pattern matching `host`, if any.
    pub fn first_match(&self, host: &str) -> Option<&str> {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        self.set
            .matches(host.as_str())
            .into_iter()
            .min()
            .and_then(|index| self.patterns.get(index))
            .map(String::as_str)
    }
}

/// The host a URL argument would contact, lowercased; IPv6 without brackets.
///
/// # Errors
///
/// Why the URL has no usable host.
pub fn url_host(url: &str) -> Result<String, String> {
    let parsed =
        url::Url::parse(url.trim()).map_err(|error| format!("`{url}` is not a URL: {error}"))?;
    match parsed.host() {
        Some(url::Host::Domain(domain)) => Ok(domain.trim_end_matches('.').to_ascii_lowercase()),
        Some(url::Host::Ipv4(ip)) => Ok(ip.to_string()),
        Some(url::Host::Ipv6(ip)) => Ok(ip.to_string()),
        None => Err(format!("`{url}` has no host")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_globs_match_under_a_root_and_the_root_itself() {
        let globs = PathGlobs::new(["/nonexistent-ws/**", "**/.env"]).unwrap();
        assert_eq!(
            globs.first_match(Path::new("/nonexistent-ws/a/b.txt")),
            Some("/nonexistent-ws/**")
        );
        assert_eq!(
            globs.first_match(Path::new("/nonexistent-ws")),
            Some("/nonexistent-ws/**")
        );
        assert_eq!(
            globs.first_match(Path::new("/srv/app/.env")),
            Some("**/.env")
        );
        assert_eq!(globs.first_match(Path::new("/nonexistent-wsx/a")), None);
        assert_eq!(globs.first_match(Path::new("/etc/passwd")), None);
        assert!(PathGlobs::new(["relative/**"]).is_err());
    }

    #[test]
    fn single_star_does_not_cross_directories() {
        let globs = PathGlobs::new(["/data/*.csv"]).unwrap();
        assert!(globs.first_match(Path::new("/data/a.csv")).is_some());
        assert!(globs.first_match(Path::new("/data/x/a.csv")).is_none());
    }

    #[test]
    fn hosts() {
        let globs = HostGlobs::new(["*.wikipedia.org", "docs.rs"]).unwrap();
        assert_eq!(
            globs.first_match("EN.Wikipedia.org"),
            Some("*.wikipedia.org")
        );
        assert_eq!(globs.first_match("docs.rs."), Some("docs.rs"));
        assert_eq!(globs.first_match("evil.com"), None);
        assert_eq!(
            url_host("https://user:pw@Docs.RS:443/x?y").unwrap(),
            "docs.rs"
        );
        assert_eq!(
            url_host("http://allowed.com@evil.com/").unwrap(),
            "evil.com"
        );
        assert_eq!(url_host("http://[::1]:8080/").unwrap(), "::1");
        assert!(url_host("not a url").is_err());
        assert!(url_host("file:///etc/passwd").is_err());
    }
}

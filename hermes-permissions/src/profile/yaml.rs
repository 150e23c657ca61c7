//! The profile file format, and errors that say where in it something is wrong.
//!
//! ```yaml
//! custom_permissions: [deploy:run]        # optional: user-defined permissions
//! profiles:
//!   readonly_research:
//!     description: Read and search, nothing else.
//!     allow: [file:read, network:fetch, network:search]
//!     deny: [file:write, file:delete, terminal:execute]
//!     restrictions:
//!       file:read:
//!         allowed_paths: [/workspace/**]
//!         denied_paths: ["**/.env", "~/.ssh/**"]
//!     approval_required: []
//!     tools:                               # optional: the tool layer
//!       web_search: {approval_required: true}
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{Profile, ProfileSet, Restrictions, ToolRule};
use crate::Error;
use crate::permission::{Permission, PermissionPattern, check_known};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    custom_permissions: Vec<Spanned<String>>,
    profiles: BTreeMap<String, Spanned<RawProfile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    allow: Vec<Spanned<String>>,
    #[serde(default)]
    deny: Vec<Spanned<String>>,
    #[serde(default)]
    approval_required: Vec<Spanned<String>>,
    #[serde(default)]
    restrictions: BTreeMap<String, Spanned<RawRestrictions>>,
    #[serde(default)]
    tools: BTreeMap<String, Spanned<RawToolRule>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRestrictions {
    allowed_paths: Option<Vec<Spanned<String>>>,
    denied_paths: Option<Vec<Spanned<String>>>,
    allowed_hosts: Option<Vec<Spanned<String>>>,
    denied_hosts: Option<Vec<Spanned<String>>>,
    allowed_commands: Option<Vec<Spanned<String>>>,
    denied_commands: Option<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawToolRule {
    #[serde(default)]
    deny: bool,
    #[serde(default)]
    approval_required: bool,
    #[serde(default)]
    restrictions: BTreeMap<String, Spanned<RawRestrictions>>,
}

/// Where errors are reported.
struct Source<'a> {
    file: &'a Path,
}

impl Source<'_> {
    fn at<T>(&self, spanned: &Spanned<T>, key: Option<&str>, message: String) -> Error {
        Error::Invalid {
            file: self.file.to_path_buf(),
            line: spanned.referenced.line(),
            column: spanned.referenced.column(),
            key: key.map(str::to_owned),
            message,
        }
    }
}

pub(super) fn parse(text: &str, file: &Path) -> Result<ProfileSet, Error> {
    let raw: RawFile = serde_saphyr::from_str(text).map_err(|error| {
        let (line, column) = error
            .location()
            .map_or((0, 0), |at| (at.line(), at.column()));
        let message = first_line(&error.to_string());
        Error::Invalid {
            file: file.to_path_buf(),
            line,
            column,
            key: unknown_field(&message),
            message,
        }
    })?;
    let source = Source { file };
    let mut custom = Vec::new();
    for text in &raw.custom_permissions {
        let permission = Permission::parse(&text.value)
            .map_err(|message| source.at(text, Some("custom_permissions"), message))?;
        custom.push(permission);
    }
    let mut set = ProfileSet::default();
    for (name, raw_profile) in &raw.profiles {
        set.insert(profile(&source, name, raw_profile, &custom)?);
    }
    Ok(set)
}

fn profile(
    source: &Source<'_>,
    name: &str,
    raw: &Spanned<RawProfile>,
    custom: &[Permission],
) -> Result<Profile, Error> {
    let patterns = |key: &str, list: &[Spanned<String>]| -> Result<Vec<PermissionPattern>, Error> {
        list.iter()
            .map(|text| {
                PermissionPattern::parse(&text.value)
                    .and_then(|pattern| check_known(&pattern, custom).map(|()| pattern))
                    .map_err(|message| {
                        source.at(
                            text,
                            Some(key),
                            format!("profile `{name}`, `{key}`: {message}"),
                        )
                    })
            })
            .collect()
    };
    let body = &raw.value;
    let mut profile = Profile::builder(name).build()?;
    profile.description.clone_from(&body.description);
    profile.allow = patterns("allow", &body.allow)?;
    profile.deny = patterns("deny", &body.deny)?;
    profile.approval = patterns("approval_required", &body.approval_required)?;
    profile.restrictions = restrictions(source, name, &body.restrictions, custom)?;
    for (tool, rule) in &body.tools {
        let restrictions = restrictions(source, name, &rule.value.restrictions, custom)?;
        profile.tools.insert(
            tool.clone(),
            ToolRule {
                deny: rule.value.deny,
                approval_required: rule.value.approval_required,
                restrictions,
            },
        );
    }
    Ok(profile)
}

fn restrictions(
    source: &Source<'_>,
    profile: &str,
    raw: &BTreeMap<String, Spanned<RawRestrictions>>,
    custom: &[Permission],
) -> Result<Vec<(PermissionPattern, Restrictions)>, Error> {
    let mut compiled = Vec::new();
    for (key, spanned) in raw {
        let at = |message: String| {
            source.at(
                spanned,
                Some(key),
                format!("profile `{profile}`, restrictions of `{key}`: {message}"),
            )
        };
        let pattern = PermissionPattern::parse(key)
            .and_then(|pattern| check_known(&pattern, custom).map(|()| pattern))
            .map_err(at)?;
        let body = &spanned.value;
        let mut builder = Restrictions::builder();
        // Each list is compiled alone first, so an error points at its own pattern.
        let lists: [(&str, &Option<Vec<Spanned<String>>>); 6] = [
            ("allowed_paths", &body.allowed_paths),
            ("denied_paths", &body.denied_paths),
            ("allowed_hosts", &body.allowed_hosts),
            ("denied_hosts", &body.denied_hosts),
            ("allowed_commands", &body.allowed_commands),
            ("denied_commands", &body.denied_commands),
        ];
        for (list_key, list) in lists {
            let Some(list) = list else { continue };
            for item in list {
                let single = apply(
                    Restrictions::builder(),
                    list_key,
                    std::slice::from_ref(&item.value),
                );
                if let Err(message) = single.finish() {
                    return Err(source.at(
                        item,
                        Some(list_key),
                        format!("profile `{profile}`, `{key}`.{list_key}: {message}"),
                    ));
                }
            }
            let values: Vec<String> = list.iter().map(|item| item.value.clone()).collect();
            builder = apply(builder, list_key, &values);
        }
        let restrictions = builder.finish().map_err(at)?;
        restrictions.check_applies_to(&pattern).map_err(at)?;
        compiled.push((pattern, restrictions));
    }
    Ok(compiled)
}

fn apply(
    builder: super::RestrictionsBuilder,
    key: &str,
    values: &[String],
) -> super::RestrictionsBuilder {
    match key {
        "allowed_paths" => builder.allowed_paths(values),
        "denied_paths" => builder.denied_paths(values),
        "allowed_hosts" => builder.allowed_hosts(values),
        "denied_hosts" => builder.denied_hosts(values),
        "allowed_commands" => builder.allowed_commands(values),
        _ => builder.denied_commands(values),
    }
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or(message).trim().to_owned()
}

/// The key of an "unknown field `x`" message.
fn unknown_field(message: &str) -> Option<String> {
    let rest = message.split("unknown field `").nth(1)?;
    rest.split('`').next().map(str::to_owned)
}

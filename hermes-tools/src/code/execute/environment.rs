//! The environment a snippet sees: a clean one, not this process's (which may hold API
//! keys), with only what interpreters and toolchains need to be found, the session's
//! own variables, and where its scratch directory and the workspace are.

use std::collections::BTreeMap;
use std::path::Path;

/// The variables passed through from this process, when set.
const PASSED: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TERM",
    // toolchains and interpreters installed per user
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "CARGO_HOME",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "NODE_PATH",
    "NVM_DIR",
];

/// The environment of a snippet run in `scratch`: [`PASSED`] variables, then the
/// session's (`session`), then `TMPDIR` (the scratch directory) and
/// `HERMES_WORKSPACE` (the workspace root, readable from the snippet).
pub(super) fn snippet_env(
    session: BTreeMap<String, String>,
    scratch: &Path,
    workspace: &Path,
) -> BTreeMap<String, String> {
    let mut env: BTreeMap<String, String> = PASSED
        .iter()
        .filter_map(|name| Some(((*name).to_owned(), std::env::var(name).ok()?)))
        .collect();
    env.extend(session);
    env.insert("TMPDIR".to_owned(), scratch.to_string_lossy().into_owned());
    env.insert(
        "HERMES_WORKSPACE".to_owned(),
        workspace.to_string_lossy().into_owned(),
    );
    env.insert("PYTHONDONTWRITEBYTECODE".to_owned(), "1".to_owned());
    env
}

/// The words that run a command in exactly `env` (`env -i NAME=VALUE ...`); the
/// command follows them. Names that `env` would misread are left out.
pub(super) fn prefix(env: &BTreeMap<String, String>) -> Vec<String> {
    let mut words = vec!["env".to_owned(), "-i".to_owned()];
    words.extend(
        env.iter()
            .filter(|(name, _)| !name.is_empty() && !name.contains('=') && !name.contains('\0'))
            .filter(|(_, value)| !value.contains('\0'))
            .map(|(name, value)| format!("{name}={value}")),
    );
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_is_clean_but_complete() {
        let session = BTreeMap::from([("MY_VAR".to_owned(), "1".to_owned())]);
        let env = snippet_env(session, Path::new("/tmp/s"), Path::new("/w"));
        assert_eq!(env["MY_VAR"], "1");
        assert_eq!(env["TMPDIR"], "/tmp/s");
        assert_eq!(env["HERMES_WORKSPACE"], "/w");
        assert!(env.contains_key("PATH"));
        assert!(env.keys().all(|name| {
            PASSED.contains(&name.as_str())
                || [
                    "MY_VAR",
                    "TMPDIR",
                    "HERMES_WORKSPACE",
                    "PYTHONDONTWRITEBYTECODE",
                ]
                .contains(&name.as_str())
        }));
        let words = prefix(&BTreeMap::from([
            ("A".to_owned(), "x y".to_owned()),
            ("B=C".to_owned(), "no".to_owned()),
        ]));
        assert_eq!(words, ["env", "-i", "A=x y"]);
    }
}

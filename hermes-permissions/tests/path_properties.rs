//! Properties of path normalisation: it is idempotent, and nothing it lets through
//! lands outside the allowed root, however the path is built.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use hermes_permissions::{
    BareValue, Outcome, PermissionEngine, Profile, Restrictions, normalise_path,
};
use proptest::prelude::*;

/// One tree for every case: `root/ws` with links that escape and links that do not.
struct Tree {
    _dir: tempfile::TempDir,
    ws: PathBuf,
}

static TREE: LazyLock<Tree> = LazyLock::new(|| {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let ws = root.join("ws");
    std::fs::create_dir_all(ws.join("a/b")).unwrap();
    std::fs::create_dir_all(root.join("outside/x")).unwrap();
    symlink(root.join("outside"), ws.join("out")).unwrap();
    symlink(ws.join("a"), ws.join("in")).unwrap();
    symlink("../../outside", ws.join("a/up")).unwrap();
    symlink(root.join("outside/missing"), ws.join("dangling")).unwrap();
    Tree { _dir: dir, ws }
});

fn component() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_owned()),
        Just(".".to_owned()),
        Just("a".to_owned()),
        Just("b".to_owned()),
        Just("x".to_owned()),
        Just("out".to_owned()),
        Just("in".to_owned()),
        Just("up".to_owned()),
        Just("dangling".to_owned()),
        Just(String::new()),
        "[a-z%.\\\\]{1,4}",
    ]
}

fn raw_path() -> impl Strategy<Value = String> {
    (any::<bool>(), prop::collection::vec(component(), 0..8)).prop_map(|(absolute, parts)| {
        let joined = parts.join("/");
        if absolute {
            format!("{}/{joined}", TREE.ws.display())
        } else if joined.is_empty() {
            ".".to_owned()
        } else {
            joined
        }
    })
}

/// Where the path really lands: its deepest existing ancestor, resolved.
fn landing(path: &Path) -> PathBuf {
    let mut probe = path.to_path_buf();
    loop {
        if let Ok(real) = std::fs::canonicalize(&probe) {
            return real.join(path.strip_prefix(&probe).unwrap_or(Path::new("")));
        }
        if !probe.pop() {
            return path.to_path_buf();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn normalisation_is_idempotent(raw in raw_path()) {
        if let Ok(once) = normalise_path(&raw, &TREE.ws) {
            let twice = normalise_path(once.to_str().unwrap(), &TREE.ws).unwrap();
            prop_assert_eq!(once, twice);
        }
    }

    #[test]
    fn nothing_allowed_lands_outside_the_root(raw in raw_path()) {
        static ENGINE: LazyLock<PermissionEngine> = LazyLock::new(|| {
            let allowed = format!("{}/**", TREE.ws.display());
            let profile = Profile::builder("ws")
                .allow("file:*")
                .restrict("file:write", Restrictions::builder().allowed_paths([allowed]).build().unwrap())
                .build()
                .unwrap();
            PermissionEngine::builder(profile).workspace(&TREE.ws).build()
        });
        let ruling = ENGINE.check("file:write", BareValue::Path(&raw), "s");
        if ruling.decision == Outcome::Allow {
            let judged = normalise_path(&raw, &TREE.ws).unwrap();
            prop_assert!(judged.starts_with(&TREE.ws), "{raw} judged as {}", judged.display());
            let lands = landing(&judged);
            prop_assert!(lands.starts_with(&TREE.ws), "{raw} lands at {}", lands.display());
        }
    }
}

//! The path normaliser and the allowed-paths rules: nothing accepted as inside the
//! allowed root normalises, or lands once its links are followed, outside it. A
//! normalised path is absolute, holds no `.`, `..` or NUL, and normalises to itself.
//!
//! Input: `[mode, path..]`; bit 0 of `mode` puts the workspace's absolute path in front
//! of the path. The tree: `root/ws` (the workspace and the allowed root) with links
//! that escape it (`out`, `a/up`, `dangling`) and one that stays (`in`), next to
//! `root/outside` and `root/ws-twin` (a sibling whose name starts like the root's).

use std::os::unix::fs::symlink;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use hermes_permissions::{
    BareValue, Outcome, PathGlobs, PermissionEngine, Profile, Restrictions, normalise_path,
};

/// The tree, the engine allowing writes under `ws/**`, and that glob on its own.
struct Tree {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    engine: PermissionEngine,
    globs: PathGlobs,
}

static TREE: LazyLock<Tree> = LazyLock::new(|| {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let ws = root.join("ws");
    std::fs::create_dir_all(ws.join("a/b")).unwrap();
    std::fs::create_dir_all(root.join("outside/x")).unwrap();
    std::fs::create_dir_all(root.join("ws-twin")).unwrap();
    symlink(root.join("outside"), ws.join("out")).unwrap();
    symlink(ws.join("a"), ws.join("in")).unwrap();
    symlink("../../outside", ws.join("a/up")).unwrap();
    symlink(root.join("outside/missing"), ws.join("dangling")).unwrap();
    symlink("loop", ws.join("loop")).unwrap();
    let allowed = format!("{}/**", ws.display());
    let profile = Profile::builder("ws")
        .allow("file:*")
        .restrict(
            "file:write",
            Restrictions::builder()
                .allowed_paths([allowed.as_str()])
                .build()
                .unwrap(),
        )
        .build()
        .unwrap();
    let engine = PermissionEngine::builder(profile).workspace(&ws).build();
    let globs = PathGlobs::new([allowed]).unwrap();
    Tree {
        _dir: dir,
        ws,
        engine,
        globs,
    }
});

/// Check one input.
pub(crate) fn check(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let tree = &*TREE;
    let text = String::from_utf8_lossy(rest);
    let raw = if mode & 1 == 1 {
        format!("{}/{text}", tree.ws.display())
    } else {
        text.into_owned()
    };
    let normalised = normalise_path(&raw, &tree.ws);
    if let Ok(path) = &normalised {
        clean(&raw, path);
        let again = normalise_path(path.to_str().expect("UTF-8 in, UTF-8 out"), &tree.ws);
        assert_eq!(
            again.as_ref(),
            Ok(path),
            "{raw:?} is not normalised in one go"
        );
        if tree.globs.first_match(path).is_some() {
            inside(&raw, path, &tree.ws);
        }
    }
    let ruling = tree
        .engine
        .check("file:write", BareValue::Path(&raw), "fuzz");
    if ruling.decision == Outcome::Allow {
        let path = normalised
            .unwrap_or_else(|error| panic!("{raw:?} was allowed but does not normalise: {error}"));
        inside(&raw, &path, &tree.ws);
    }
}

/// Absolute, with no `.`, `..` or NUL.
fn clean(raw: &str, path: &Path) {
    assert!(path.is_absolute(), "{raw:?} normalised to {path:?}");
    assert!(
        path.components()
            .all(|part| matches!(part, Component::RootDir | Component::Normal(_))),
        "{raw:?} normalised to {path:?}"
    );
    assert!(
        !path.as_os_str().as_encoded_bytes().contains(&0),
        "{raw:?} normalised to {path:?}"
    );
}

/// `path`, and where it lands once every existing link is followed, are under `ws`.
fn inside(raw: &str, path: &Path, ws: &Path) {
    assert!(path.starts_with(ws), "{raw:?} accepted as {path:?}");
    let lands = landing(path);
    assert!(
        lands.starts_with(ws),
        "{raw:?} accepted as {path:?}, lands at {lands:?}"
    );
}

/// Where `path` really lands: its deepest existing ancestor, resolved, plus the rest.
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

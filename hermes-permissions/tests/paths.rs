//! The path corpus: traversal, symlink escapes, NUL bytes, look-alike separators,
//! encodings, absolute and relative forms, judged by a real engine over a real tree.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::os::unix::fs::symlink;
use std::path::Path;

use hermes_permissions::{BareValue, Outcome, PermissionEngine, Profile, Restrictions};

/// A workspace with files, a `.env`, an `.ssh`, and links inside and out.
struct Tree {
    _dir: tempfile::TempDir,
    root: String,
    ws: String,
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path())
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let ws = format!("{root}/ws");
    for d in ["ws/docs", "ws/src", "ws/tmp", "ws/.ssh", "outside"] {
        std::fs::create_dir_all(format!("{root}/{d}")).unwrap();
    }
    for f in [
        "ws/docs/readme.md",
        "ws/.env",
        "ws/.ssh/id_rsa",
        "outside/secret.txt",
        "ws/tmp/x",
    ] {
        std::fs::write(format!("{root}/{f}"), "x").unwrap();
    }
    symlink("/etc", format!("{ws}/link-to-etc")).unwrap();
    symlink(format!("{root}/outside"), format!("{ws}/link-to-outside")).unwrap();
    symlink(format!("{ws}/docs"), format!("{ws}/link-inside")).unwrap();
    symlink(format!("{root}/outside/new-file"), format!("{ws}/dangling")).unwrap();
    symlink("src/new.rs", format!("{ws}/dangling-in")).unwrap();
    symlink("loop2", format!("{ws}/loop1")).unwrap();
    symlink("loop1", format!("{ws}/loop2")).unwrap();
    Tree {
        _dir: dir,
        root,
        ws,
    }
}

fn engine(tree: &Tree) -> PermissionEngine {
    let inside = format!("{}/**", tree.ws);
    let files = |allowed: &str| {
        Restrictions::builder()
            .allowed_paths([allowed])
            .denied_paths(["**/.env", "**/.ssh/**", "~/.ssh/**"])
            .build()
            .unwrap()
    };
    let profile = Profile::builder("workspace_only")
        .allow("file:*")
        .restrict("file:read", files(&inside))
        .restrict("file:write", files(&inside))
        .restrict("file:delete", files(&format!("{}/tmp/**", tree.ws)))
        .build()
        .unwrap();
    PermissionEngine::builder(profile)
        .workspace(&tree.ws)
        .build()
}

#[test]
fn path_corpus() {
    let tree = tree();
    let engine = engine(&tree);
    let (root, ws) = (tree.root.as_str(), tree.ws.as_str());
    // (permission, raw path, allowed?)
    let cases: Vec<(&str, String, bool)> = vec![
        ("file:read", "docs/readme.md".into(), true),
        ("file:read", "./docs/readme.md".into(), true),
        ("file:read", "docs/../docs/readme.md".into(), true),
        ("file:read", format!("{ws}/docs/readme.md"), true),
        ("file:read", format!("{ws}/docs/./././readme.md"), true),
        ("file:read", format!("{ws}//docs//readme.md"), true),
        ("file:read", format!("{ws}/docs/readme.md/"), true),
        ("file:read", ws.to_owned(), true),
        ("file:read", format!("{ws}/"), true),
        ("file:read", "link-inside/readme.md".into(), true),
        ("file:read", format!("{ws}/../outside/secret.txt"), false),
        ("file:read", format!("{ws}/./../outside/secret.txt"), false),
        ("file:read", "../outside/secret.txt".into(), false),
        ("file:read", "../../../../../../etc/passwd".into(), false),
        ("file:read", "/etc/passwd".into(), false),
        ("file:read", "/workspace/../etc/passwd".into(), false),
        ("file:read", "/workspace/./../etc/shadow".into(), false),
        ("file:read", "link-to-etc/passwd".into(), false),
        ("file:read", "link-to-etc".into(), false),
        ("file:read", "link-to-outside/secret.txt".into(), false),
        (
            "file:read",
            format!("{ws}/link-inside/../../outside/secret.txt"),
            false,
        ),
        ("file:read", "link-inside/../.env".into(), false),
        ("file:read", "loop1".into(), false),
        ("file:read", ".env".into(), false),
        ("file:read", "docs/.env".into(), false),
        ("file:read", ".ssh/id_rsa".into(), false),
        ("file:read", "~/.ssh/id_rsa".into(), false),
        ("file:read", "docs/readme.md\0.txt".into(), false),
        ("file:read", String::new(), false),
        ("file:read", "docs\u{2215}readme.md".into(), false),
        ("file:read", "..\u{FF0F}outside".into(), false),
        (
            "file:read",
            "\u{FF0E}\u{FF0E}/outside/secret.txt".into(),
            false,
        ),
        ("file:read", "..\u{2044}..\u{2044}etc".into(), false),
        ("file:read", "%2e%2e/outside/secret.txt".into(), true),
        ("file:read", "..%2f..%2fetc%2fpasswd".into(), true),
        ("file:read", "docs/%2e%2e%2f%2e%2e%2fetc".into(), true),
        ("file:read", "docs\\..\\..\\outside".into(), true),
        ("file:read", format!("{root}/wsx/file"), false),
        ("file:read", format!("{ws}-evil/file"), false),
        ("file:read", "/proc/self/root/etc/passwd".into(), false),
        ("file:write", "src/new.rs".into(), true),
        ("file:write", "src/deep/new/file.rs".into(), true),
        ("file:write", "dangling".into(), false),
        ("file:write", "dangling-in".into(), true),
        ("file:write", "link-to-outside/new.txt".into(), false),
        ("file:write", "../ws/docs/readme.md".into(), true),
        ("file:delete", "tmp/x".into(), true),
        ("file:delete", "docs/readme.md".into(), false),
        ("file:delete", "tmp/../docs/readme.md".into(), false),
    ];
    assert!(cases.len() >= 40);
    let mut wrong = Vec::new();
    for (permission, raw, allowed) in &cases {
        let ruling = engine.check(permission, BareValue::Path(raw), "s");
        if (ruling.decision == Outcome::Allow) != *allowed {
            wrong.push(format!(
                "{permission} {raw:?}: expected {}, got {} ({})",
                if *allowed { "allow" } else { "deny" },
                ruling.decision,
                ruling.explain()
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases wrong:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

#[test]
fn denials_name_the_rule() {
    let tree = tree();
    let engine = engine(&tree);
    let ruling = engine.check("file:read", BareValue::Path(".env"), "s");
    assert_eq!(ruling.rule, "denied_paths");
    assert!(ruling.reason.contains("**/.env"), "{}", ruling.reason);
    let ruling = engine.check("file:read", BareValue::Path("link-to-etc/passwd"), "s");
    assert_eq!(ruling.rule, "allowed_paths");
    assert!(
        ruling.reason.contains("/etc/passwd"),
        "judged by its target: {}",
        ruling.reason
    );
    let ruling = engine.check("file:read", BareValue::Path("a\0b"), "s");
    assert!(ruling.reason.contains("NUL"), "{}", ruling.reason);
}

#[test]
fn tools_get_the_same_normalised_path() {
    let tree = tree();
    let engine = engine(&tree);
    let path = engine
        .normalise_path("s", "link-inside/../docs/./readme.md")
        .unwrap();
    assert_eq!(path, Path::new(&format!("{}/docs/readme.md", tree.ws)));
    engine.set_session_workspace("other", format!("{}/src", tree.ws));
    assert_eq!(
        engine.normalise_path("other", "main.rs").unwrap(),
        Path::new(&format!("{}/src/main.rs", tree.ws))
    );
}

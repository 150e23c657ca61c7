//! Repositories for the tests, made and read with the git CLI, and a bench whose
//! libgit2 sees no user-wide or system git config (so the machine's `~/.gitconfig`
//! cannot supply an author or change behaviour).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

use crate::common::Bench;

/// A bench for git tests, libgit2 isolated from the machine's git config.
pub fn bench() -> Bench {
    isolate();
    Bench::new()
}

/// Point libgit2's global, XDG and system config search paths at an empty directory,
/// once per test binary, before any test uses libgit2 (every test calls this first).
pub fn isolate() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let empty = std::env::temp_dir().join(format!("hermes-git-tests-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        for level in [
            git2::ConfigLevel::System,
            git2::ConfigLevel::XDG,
            git2::ConfigLevel::Global,
            git2::ConfigLevel::ProgramData,
        ] {
            // SAFETY: this runs once, before any test of this binary calls into libgit2
            // (every test starts with `bench()`, which waits for it), so no other thread
            // reads the search paths while they change.
            #[allow(unsafe_code)]
            unsafe {
                git2::opts::set_search_path(level, &empty).unwrap();
            }
        }
    });
}

/// Run git in `dir` with `args`, isolated from the machine's config; its stdout, which
/// must be a success.
pub fn git(dir: &Path, args: &[&str]) -> String {
    git_with(dir, args, &[])
}

/// [`git`] with extra environment variables.
pub fn git_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let output = command(dir, args)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Run git in `dir` with `args`, expecting it to fail (a merge with conflicts, say).
pub fn git_fails(dir: &Path, args: &[&str]) {
    let output = command(dir, args).output().unwrap();
    assert!(!output.status.success(), "git {args:?} succeeded");
}

/// A git command in `dir`, isolated from the machine's config and environment.
fn command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new("git");
    command
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    command
}

/// An empty repository at `dir` (created if missing) on branch `main`, no author set.
pub fn init_bare_identity(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["config", "commit.gpgsign", "false"]);
}

/// An empty repository at `dir` on branch `main`, with an author configured.
pub fn init(dir: &Path) {
    init_bare_identity(dir);
    git(dir, &["config", "user.name", "Ada Tester"]);
    git(dir, &["config", "user.email", "ada@example.com"]);
}

/// Write `content` to `relative` under `dir`, creating directories.
pub fn write(dir: &Path, relative: &str, content: &str) {
    let path: PathBuf = dir.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// Stage everything and commit it with `message`; the new commit's full id.
pub fn commit_all(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "--allow-empty", "-m", message]);
    head(dir)
}

/// The full id of HEAD.
pub fn head(dir: &Path) -> String {
    git(dir, &["rev-parse", "HEAD"]).trim().to_owned()
}

/// A repository at the bench's root with `a.txt` and `b.txt` committed ("initial").
pub fn with_two_files(bench: &Bench) -> PathBuf {
    let root = bench.root().to_path_buf();
    init(&root);
    write(&root, "a.txt", "alpha\n");
    write(&root, "b.txt", "beta\n");
    commit_all(&root, "initial");
    root
}

/// `git status --porcelain` of `dir`, lines sorted.
pub fn porcelain(dir: &Path) -> Vec<String> {
    let mut lines: Vec<String> = git(dir, &["status", "--porcelain"])
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    lines
}

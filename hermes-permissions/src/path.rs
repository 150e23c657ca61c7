//! Paths as the engine judges them, and as tools must then open them.
//!
//! [`normalise_path`] turns what the model sent into one absolute path without `.`,
//! `..` or symbolic links in its existing part, so a rule on `/workspace/**` sees where a
//! write really lands. A tool must open the returned path, not the string it was given.

use std::io;
use std::path::{Component, Path, PathBuf};

/// How many symbolic links one path may go through before it is refused (as Linux does).
const MAX_LINKS: usize = 40;

/// Characters that look like `/`, `\` or `.` but are not: refused, so no later decoding
/// step can turn them into separators.
const LOOK_ALIKES: &[char] = &[
    '\u{2215}', // division slash
    '\u{2044}', // fraction slash
    '\u{FF0F}', // fullwidth solidus
    '\u{29F8}', // big solidus
    '\u{27CB}', // mathematical rising diagonal
    '\u{FF3C}', // fullwidth reverse solidus
    '\u{29F5}', // reverse solidus operator
    '\u{29F9}', // big reverse solidus
    '\u{FE68}', // small reverse solidus
    '\u{2216}', // set minus
    '\u{27CD}', // mathematical falling diagonal
    '\u{FF0E}', // fullwidth full stop
    '\u{2024}', // one dot leader
];

/// Why a path cannot be judged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// Empty.
    #[error("the path is empty")]
    Empty,
    /// A NUL byte, which no file name may hold.
    #[error("the path contains a NUL byte")]
    Nul,
    /// A character that looks like a separator or a dot.
    #[error("the path contains `{0}` (U+{code:04X}), which looks like a path separator or a dot but is not one; write plain `/` and `.`", code = u32::from(*.0))]
    LookAlike(char),
    /// Too many symbolic links.
    #[error("the path goes through more than {MAX_LINKS} symbolic links")]
    TooManyLinks,
    /// `~` with no home directory known.
    #[error("the path starts with `~` but HOME is not set")]
    NoHome,
}

/// Normalise `raw` for judging and opening: refuse NUL bytes and look-alike separators;
/// expand a leading `~`; make it absolute against `cwd`; remove `.` and `..` lexically;
/// then resolve the symbolic links of its longest existing prefix (a link inside the
/// workspace that points outside is judged by its target; a dangling link by where it
/// would create the file). Percent-encodings are not decoded: `%2e%2e` is a file name.
///
/// `cwd` should be absolute; a relative one is taken relative to the process's.
///
/// # Errors
///
/// A [`PathError`] for input that cannot name a file safely.
pub fn normalise_path(raw: &str, cwd: &Path) -> Result<PathBuf, PathError> {
    if raw.is_empty() {
        return Err(PathError::Empty);
    }
    if raw.contains('\0') {
        return Err(PathError::Nul);
    }
    if let Some(c) = raw.chars().find(|c| LOOK_ALIKES.contains(c)) {
        return Err(PathError::LookAlike(c));
    }
    let expanded = expand_home(raw)?;
    let absolute = if expanded.is_absolute() {
        expanded
    } else {
        let base = if cwd.is_absolute() {
            cwd.to_path_buf()
        } else {
            std::env::current_dir()
                .unwrap_or_else(|_| PathBuf::from("/"))
                .join(cwd)
        };
        base.join(expanded)
    };
    let clean = lexical(&absolute);
    if let Some(real) = opened::real_path(&clean) {
        return Ok(real);
    }
    resolve(&clean, 0)
}

fn expand_home(raw: &str) -> Result<PathBuf, PathError> {
    let rest = match raw.strip_prefix('~') {
        Some("") => "",
        Some(rest) if rest.starts_with('/') => &rest[1..],
        _ => return Ok(PathBuf::from(raw)),
    };
    let home = std::env::var_os("HOME")
        .filter(|home| !home.is_empty())
        .ok_or(PathError::NoHome)?;
    Ok(PathBuf::from(home).join(rest))
}

/// Remove `.` and `..` without touching the filesystem; `..` stops at the root.
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => out.push(prefix.as_os_str()),
            Component::RootDir => out.push("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
        }
    }
    if out.as_os_str().is_empty() {
        out.push("/");
    }
    out
}

/// Resolve the links of the longest existing prefix of a lexically clean absolute path.
fn resolve(path: &Path, depth: usize) -> Result<PathBuf, PathError> {
    if depth > MAX_LINKS {
        return Err(PathError::TooManyLinks);
    }
    let components: Vec<Component<'_>> = path.components().collect();
    for split in (1..=components.len()).rev() {
        let prefix: PathBuf = components[..split].iter().collect();
        let Ok(metadata) = std::fs::symlink_metadata(&prefix) else {
            continue;
        };
        let rest: PathBuf = components[split..].iter().collect();
        if metadata.file_type().is_symlink() {
            match std::fs::canonicalize(&prefix) {
                Ok(real) => return Ok(join(&real, &rest)),
                // A dangling link (or a loop): follow it by hand to where it points.
                Err(error) if error.kind() == io::ErrorKind::NotFound => {
                    let Ok(target) = std::fs::read_link(&prefix) else {
                        return Ok(path.to_path_buf());
                    };
                    let parent = prefix.parent().unwrap_or_else(|| Path::new("/"));
                    let next = lexical(&join(&parent.join(target), &rest));
                    return resolve(&next, depth + 1);
                }
                Err(_) => return Err(PathError::TooManyLinks),
            }
        }
        // A real file or directory: its canonical form has no links either.
        return Ok(std::fs::canonicalize(&prefix)
            .map_or_else(|_| path.to_path_buf(), |real| join(&real, &rest)));
    }
    Ok(path.to_path_buf())
}

/// The fast way for a path that goes through no link: `openat2` says so for the whole
/// path at once.
#[cfg(target_os = "linux")]
mod opened {
    use std::path::{Path, PathBuf};

    use rustix::fs::{CWD, Mode, OFlags, ResolveFlags, openat2};
    use rustix::io::Errno;

    /// `path` itself when no component of it is a symbolic link: then the lexically
    /// clean absolute path is already the real one. Checked with `O_PATH` opens (no read
    /// permission needed, no side effect even on a FIFO or a device) under
    /// `RESOLVE_NO_SYMLINKS`, which fail with `ELOOP` at any link, dangling or not.
    ///
    /// An existing file costs two system calls (with the close) where walking it costs
    /// one or two per component. A file not created yet fails with `ENOENT`; its nearest
    /// existing ancestor is then opened the same way: if that one has no link, nothing
    /// below it exists to be one.
    ///
    /// `None` for a path through a link, another error, or a kernel older than 5.6:
    /// the caller walks it.
    pub(super) fn real_path(path: &Path) -> Option<PathBuf> {
        for candidate in path.ancestors() {
            let flags = OFlags::PATH | OFlags::CLOEXEC;
            match openat2(
                CWD,
                candidate,
                flags,
                Mode::empty(),
                ResolveFlags::NO_SYMLINKS,
            ) {
                Ok(_) => return Some(path.to_path_buf()),
                Err(Errno::NOENT) => {}
                Err(_) => return None,
            }
        }
        None
    }
}

/// Elsewhere every path is walked.
#[cfg(not(target_os = "linux"))]
mod opened {
    use std::path::{Path, PathBuf};

    pub(super) fn real_path(_path: &Path) -> Option<PathBuf> {
        None
    }
}

fn join(base: &Path, rest: &Path) -> PathBuf {
    if rest.as_os_str().is_empty() {
        base.to_path_buf()
    } else {
        base.join(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_normalisation() {
        let cases = [
            ("/a/b/../c", "/a/c"),
            ("/a/./b/.", "/a/b"),
            ("/../../etc", "/etc"),
            ("/a/b/../../..", "/"),
            ("//a//b/", "/a/b"),
        ];
        for (raw, want) in cases {
            assert_eq!(lexical(Path::new(raw)), Path::new(want), "{raw}");
        }
    }

    #[test]
    fn refuses_what_cannot_name_a_file() {
        let cwd = Path::new("/work");
        assert_eq!(normalise_path("", cwd), Err(PathError::Empty));
        assert_eq!(normalise_path("a\0b", cwd), Err(PathError::Nul));
        assert_eq!(
            normalise_path("..\u{2215}etc", cwd),
            Err(PathError::LookAlike('\u{2215}'))
        );
        assert_eq!(
            normalise_path("\u{FF0E}\u{FF0E}/etc", cwd),
            Err(PathError::LookAlike('\u{FF0E}'))
        );
    }

    /// The one-`open` way and the walk agree wherever the fast way answers.
    #[test]
    fn opening_and_walking_agree() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/file"), "x").unwrap();
        std::os::unix::fs::symlink(root.join("a/b"), root.join("link")).unwrap();
        std::os::unix::fs::symlink("b/file", root.join("a/rel")).unwrap();
        std::os::unix::fs::symlink("/", root.join("a/to_root")).unwrap();
        std::os::unix::fs::symlink("nowhere", root.join("a/dangling")).unwrap();
        for path in [
            "a/b/file",
            "link",
            "link/file",
            "a/rel",
            "a/to_root",
            "a/to_root/etc",
            "a/b",
            "a/missing/deeper",
            "link/missing",
            "a/dangling",
        ] {
            let path = root.join(path);
            let walked = resolve(&path, 0).unwrap();
            if let Some(opened) = opened::real_path(&path) {
                assert_eq!(opened, walked, "{}", path.display());
            }
        }
        // Only link-free existing paths take the fast way.
        #[cfg(target_os = "linux")]
        assert_eq!(
            opened::real_path(&root.join("a/b/file")),
            Some(root.join("a/b/file"))
        );
        for path in ["a/missing", "a/missing/deeper"] {
            assert_eq!(opened::real_path(&root.join(path)), Some(root.join(path)));
        }
        for path in [
            "link/file",
            "a/rel",
            "a/to_root/etc",
            "link/missing",
            "a/dangling",
        ] {
            assert_eq!(opened::real_path(&root.join(path)), None, "{path}");
        }
    }

    #[test]
    fn percent_encodings_stay_literal() {
        let path = normalise_path("/nonexistent-hermes/%2e%2e/%2fetc", Path::new("/")).unwrap();
        assert_eq!(path, Path::new("/nonexistent-hermes/%2e%2e/%2fetc"));
    }
}

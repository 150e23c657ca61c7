//! Archive entry names and link targets, checked: an entry must name a path inside the
//! destination, and a link must point inside it.

use std::path::PathBuf;

use hermes_core::ToolError;

/// The relative path an entry `name` extracts to: `None` for the destination itself
/// (`./`).
///
/// # Errors
///
/// For names that are absolute, climb with `..`, or hold NUL bytes: a refusal of the
/// whole archive.
pub(super) fn entry_path(name: &str) -> Result<Option<PathBuf>, ToolError> {
    if name.contains('\0') {
        return Err(hostile(name, "holds a NUL byte"));
    }
    if is_absolute(name) {
        return Err(hostile(name, "is an absolute path"));
    }
    let mut path = PathBuf::new();
    for part in name.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => return Err(hostile(name, "climbs out of the destination with `..`")),
            part => path.push(part),
        }
    }
    Ok((!path.as_os_str().is_empty()).then_some(path))
}

/// Whether a symbolic link at `entry` (relative to the destination) pointing to
/// `target` stays inside the destination, resolving `..` as it goes.
pub(super) fn link_stays_inside(entry: &std::path::Path, target: &str) -> bool {
    if target.is_empty() || target.contains('\0') || is_absolute(target) {
        return false;
    }
    let mut depth = entry.components().count().saturating_sub(1);
    for part in target.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." if depth == 0 => return false,
            ".." => depth -= 1,
            _ => depth += 1,
        }
    }
    true
}

/// `/x`, `\x` or `C:x`.
fn is_absolute(name: &str) -> bool {
    let bytes = name.as_bytes();
    name.starts_with(['/', '\\'])
        || (bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':')
}

/// The refusal of an archive with a dangerous entry.
pub(super) fn hostile(name: &str, why: &str) -> ToolError {
    ToolError::failed(format!(
        "the archive was refused: entry `{}` {why}, which could write outside the destination (a zip-slip attack?); nothing was extracted",
        name.escape_debug()
    ))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn names_stay_inside() {
        assert_eq!(
            entry_path("a/b.txt").unwrap(),
            Some(PathBuf::from("a/b.txt"))
        );
        assert_eq!(entry_path("./a//b/").unwrap(), Some(PathBuf::from("a/b")));
        assert_eq!(entry_path("./").unwrap(), None);
        for bad in [
            "../x",
            "a/../../x",
            "a/..",
            "/etc/passwd",
            "\\x",
            "C:/x",
            "a\\..\\..\\x",
            "a\0b",
        ] {
            assert!(entry_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn links_stay_inside() {
        assert!(link_stays_inside(Path::new("a/link"), "b"));
        assert!(link_stays_inside(Path::new("a/link"), "../b"));
        assert!(!link_stays_inside(Path::new("a/link"), "../../b"));
        assert!(!link_stays_inside(Path::new("link"), "../b"));
        assert!(!link_stays_inside(Path::new("link"), "/etc"));
        assert!(!link_stays_inside(Path::new("link"), ""));
    }
}

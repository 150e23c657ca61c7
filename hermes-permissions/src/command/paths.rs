//! Classification of path arguments: critical deletion targets, block
//! devices and files whose modification needs approval.
//!
//! Paths are compared lexically, after lowercasing (the input is already
//! lowercased): `~`, `$home` and `${home}` all mean the home directory,
//! repeated slashes and `.` segments are dropped, `..` is resolved, and a
//! final `*` segment means "everything in the directory", which for deletion
//! is as bad as the directory itself.

/// Top-level directories whose recursive deletion is never acceptable.
const SYSTEM_DIRS: &[&str] = &[
    "bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "opt", "proc", "root", "sbin",
    "srv", "sys", "usr", "var",
];

/// Prefixes of block devices holding disks and partitions.
const BLOCK_DEVICE_PREFIXES: &[&str] = &[
    "/dev/sd",
    "/dev/hd",
    "/dev/vd",
    "/dev/xvd",
    "/dev/nvme",
    "/dev/mmcblk",
    "/dev/disk",
    "/dev/rdisk",
    "/dev/mapper/",
];

/// Shell startup files.
const SHELL_RC_FILES: &[&str] = &[
    ".bashrc",
    ".zshrc",
    ".profile",
    ".bash_profile",
    ".zprofile",
    ".bash_login",
    ".zshenv",
    ".zlogin",
];

/// Private key file names.
const KEY_FILES: &[&str] = &["id_rsa", "id_ed25519", "id_ecdsa", "id_dsa"];

/// Where a path is anchored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    Root,
    Home,
    Relative,
}

/// A lexically cleaned path.
#[derive(Debug)]
struct Canonical {
    anchor: Anchor,
    segments: Vec<String>,
    /// `..` climbed above the home directory.
    above_home: bool,
}

impl Canonical {
    fn new(path: &str) -> Self {
        let path = path.trim();
        let (anchor, rest) = if let Some(rest) = strip_home(path) {
            (Anchor::Home, rest)
        } else if let Some(rest) = path.strip_prefix('/') {
            (Anchor::Root, rest)
        } else {
            (Anchor::Relative, path)
        };
        let mut segments: Vec<String> = Vec::new();
        let mut above_home = false;
        for segment in rest.split('/') {
            match segment {
                "" | "." => {}
                ".." => {
                    if segments.pop().is_none() {
                        match anchor {
                            Anchor::Home => above_home = true,
                            Anchor::Relative => segments.push("..".to_owned()),
                            Anchor::Root => {}
                        }
                    }
                }
                _ => segments.push(segment.to_owned()),
            }
        }
        if segments.last().is_some_and(|s| s == "*") {
            segments.pop();
        }
        Self {
            anchor,
            segments,
            above_home,
        }
    }

    fn absolute(&self) -> Option<String> {
        (self.anchor == Anchor::Root).then(|| format!("/{}", self.segments.join("/")))
    }

    fn ends_with(&self, tail: &[&str]) -> bool {
        self.segments.len() >= tail.len()
            && self
                .segments
                .iter()
                .rev()
                .zip(tail.iter().rev())
                .all(|(segment, want)| segment == want)
    }
}

fn strip_home(path: &str) -> Option<&str> {
    ["~", "$home", "${home}"].iter().find_map(|prefix| {
        path.strip_prefix(prefix)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// When deleting `path` recursively would wreck the system, a description of
/// what would be lost.
pub(crate) fn critical_target(path: &str) -> Option<String> {
    let canonical = Canonical::new(path);
    match canonical.anchor {
        Anchor::Root => match canonical.segments.as_slice() {
            [] => Some("the whole filesystem".to_owned()),
            [dir] if SYSTEM_DIRS.contains(&dir.as_str()) => {
                Some(format!("the system directory `/{dir}`"))
            }
            _ => None,
        },
        Anchor::Home if canonical.above_home => {
            Some("the directories above the home directory".to_owned())
        }
        Anchor::Home if canonical.segments.is_empty() => Some("the home directory".to_owned()),
        _ => None,
    }
}

/// `/`, the home directory or a top-level system directory.
pub(crate) fn is_system_dir(path: &str) -> bool {
    critical_target(path).is_some()
}

/// A disk or partition device node.
pub(crate) fn is_block_device(path: &str) -> bool {
    Canonical::new(path).absolute().is_some_and(|abs| {
        BLOCK_DEVICE_PREFIXES
            .iter()
            .any(|prefix| abs.starts_with(prefix))
    })
}

/// Kinds of files whose modification needs approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Protected {
    /// Anything under `/etc`.
    SystemConfig,
    /// Anything in a `.ssh` directory.
    Ssh,
    /// Shell startup files.
    ShellRc,
    /// Credential stores, private keys and `.env` files.
    Credentials,
}

impl Protected {
    /// How the reason sentence describes the file.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Self::SystemConfig => "system configuration",
            Self::Ssh => "SSH configuration and keys",
            Self::ShellRc => "a shell startup file that runs in every new shell",
            Self::Credentials => "a file holding credentials or secrets",
        }
    }
}

/// Whether writing to `path` touches a protected file, and which kind.
pub(crate) fn protected(path: &str) -> Option<Protected> {
    let canonical = Canonical::new(path);
    let segments = &canonical.segments;
    if canonical.anchor == Anchor::Root && segments.first().is_some_and(|s| s == "etc") {
        return Some(Protected::SystemConfig);
    }
    if segments.iter().any(|s| s == ".ssh") {
        return Some(Protected::Ssh);
    }
    let base = segments.last()?.as_str();
    if SHELL_RC_FILES.contains(&base) {
        return Some(Protected::ShellRc);
    }
    let credentials = KEY_FILES.contains(&base)
        || matches!(base, ".netrc" | ".git-credentials" | ".pgpass" | ".env")
        || base
            .strip_prefix(".env.")
            .and_then(|suffix| suffix.split('.').next())
            .is_some_and(|variant| !matches!(variant, "example" | "sample" | "template" | "dist"))
        || canonical.ends_with(&[".aws", "credentials"])
        || canonical.ends_with(&[".docker", "config.json"])
        || canonical.ends_with(&[".kube", "config"]);
    credentials.then_some(Protected::Credentials)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn critical_targets() {
        for path in [
            "/", "//", "/*", "/.", "/usr/..", "~", "~/", "~/*", "$home", "${home}/", "$home/*",
            "/usr", "/etc/", "/var/*", "/home", "~/..",
        ] {
            assert!(critical_target(path).is_some(), "{path}");
        }
        for path in [
            "/usr/local",
            "/tmp",
            "build",
            "~/projects",
            ".",
            "*",
            "/home/me",
            "$homedir",
            "~user",
        ] {
            assert!(critical_target(path).is_none(), "{path}");
        }
    }

    #[test]
    fn block_devices() {
        for path in [
            "/dev/sda",
            "/dev/sdb1",
            "/dev//nvme0n1",
            "/dev/mmcblk0p1",
            "/dev/disk2",
            "/dev/mapper/root",
        ] {
            assert!(is_block_device(path), "{path}");
        }
        for path in [
            "/dev/null",
            "/dev/stdout",
            "/dev/stderr",
            "/dev/tty",
            "dev/sda",
            "/tmp/dev/sda",
        ] {
            assert!(!is_block_device(path), "{path}");
        }
    }

    #[test]
    fn protected_files() {
        assert_eq!(protected("/etc/hosts"), Some(Protected::SystemConfig));
        assert_eq!(protected("/etc"), Some(Protected::SystemConfig));
        assert_eq!(protected("~/.ssh/authorized_keys"), Some(Protected::Ssh));
        assert_eq!(protected("/root/.ssh/config"), Some(Protected::Ssh));
        assert_eq!(protected("$home/.bashrc"), Some(Protected::ShellRc));
        assert_eq!(protected("~/.zprofile"), Some(Protected::ShellRc));
        assert_eq!(
            protected("~/.aws/credentials"),
            Some(Protected::Credentials)
        );
        assert_eq!(
            protected("/home/me/.kube/config"),
            Some(Protected::Credentials)
        );
        assert_eq!(
            protected("~/.docker/config.json"),
            Some(Protected::Credentials)
        );
        assert_eq!(protected("keys/id_ed25519"), Some(Protected::Credentials));
        assert_eq!(protected(".env"), Some(Protected::Credentials));
        assert_eq!(
            protected("app/.env.production"),
            Some(Protected::Credentials)
        );
        assert_eq!(protected(".env.example"), None);
        assert_eq!(protected(".env.example.bak"), None);
        assert_eq!(protected(".env.local.bak"), Some(Protected::Credentials));
        assert_eq!(protected("/tmp/etc/hosts"), None);
        assert_eq!(protected("notes.txt"), None);
        assert_eq!(protected("id_rsa.pub"), None);
    }
}

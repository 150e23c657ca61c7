//! Resource limits on a snippet's processes (CPU time, address space, file size, open
//! files), set with `prlimit` when it is installed, else with the shell's `ulimit`: no
//! unsafe code, and they hold inside the sandbox and without one.

use std::path::Path;

/// The limits of one command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Limits {
    /// CPU seconds, summed over threads.
    pub(super) cpu_seconds: u64,
    /// Address space, in bytes.
    pub(super) memory_bytes: u64,
    /// The largest file it may write, in bytes.
    pub(super) file_bytes: u64,
    /// Open file descriptors.
    pub(super) open_files: u64,
}

impl Limits {
    /// The limits of a command allowed `seconds` of wall time: a little more CPU time
    /// (the wall-clock timeout is the real bound; this one stops a runaway that forks
    /// away from it), 2 GiB of address space, 256 MiB files, 1024 descriptors.
    pub(super) fn for_seconds(seconds: u64) -> Self {
        Self {
            cpu_seconds: seconds.saturating_add(5),
            memory_bytes: 2 * 1024 * 1024 * 1024,
            file_bytes: 256 * 1024 * 1024,
            open_files: 1024,
        }
    }

    /// The words that run a command under these limits; the command follows them.
    pub(super) fn prefix(&self, prlimit: Option<&Path>) -> Vec<String> {
        match prlimit {
            Some(prlimit) => vec![
                prlimit.to_string_lossy().into_owned(),
                format!("--cpu={}", self.cpu_seconds),
                format!("--as={}", self.memory_bytes),
                format!("--fsize={}", self.file_bytes),
                format!("--nofile={}", self.open_files),
                "--core=0".to_owned(),
                "--".to_owned(),
            ],
            // `-t` (seconds) and `-v` (KiB) mean the same in every POSIX shell; `-f`
            // does not (512- or 1024-byte blocks), so it is left out here.
            None => vec![
                "sh".to_owned(),
                "-c".to_owned(),
                format!(
                    "ulimit -t {} 2>/dev/null; ulimit -v {} 2>/dev/null; ulimit -n {} 2>/dev/null; exec \"$@\"",
                    self.cpu_seconds,
                    self.memory_bytes / 1024,
                    self.open_files
                ),
                "sh".to_owned(),
            ],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_set_the_limits() {
        let limits = Limits::for_seconds(10);
        let prlimit = limits.prefix(Some(Path::new("/usr/bin/prlimit")));
        assert_eq!(prlimit[0], "/usr/bin/prlimit");
        assert!(prlimit.contains(&"--cpu=15".to_owned()));
        assert_eq!(prlimit.last().map(String::as_str), Some("--"));
        let shell = limits.prefix(None);
        assert!(shell[2].contains("ulimit -v 2097152"), "{}", shell[2]);
        assert_eq!(shell.last().map(String::as_str), Some("sh"));
    }
}

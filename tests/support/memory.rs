//! The process's resident memory, from `/proc/self/status` (Linux).

/// The peak (`VmHWM`) is process-wide, and a test binary's tests run side by side: a
/// test that measures it, or allocates much, holds this alone (`write`); other runs
/// may hold it shared (`read`).
pub static PEAK: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

/// A `kB` field of `/proc/self/status`, in bytes.
fn status_field(name: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kib| kib * 1024)
}

/// The peak resident set size so far (`VmHWM`), in bytes.
pub fn peak_rss() -> u64 {
    status_field("VmHWM")
}

/// The resident set size now (`VmRSS`), in bytes.
pub fn rss() -> u64 {
    status_field("VmRSS")
}

/// Reset the peak to the current size (`echo 5 > /proc/self/clear_refs`); false where
/// the kernel does not allow it, and then the peak counts from the process's start.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Bytes in MiB, for people.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

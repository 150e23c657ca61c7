//! Call timing: the CPU's counter read raw at the start and the end of a call, scaled
//! to a duration once, at the end.
//!
//! `quanta::Instant::now` scales every reading and finds its clock through a
//! thread-local: about 240 instructions, twice per call, more than the rest of the
//! gateway's bookkeeping. A raw read is one counter instruction.

use std::sync::OnceLock;
use std::time::Duration;

/// The process's clock, calibrated against the monotonic clock on first use.
fn clock() -> &'static quanta::Clock {
    static CLOCK: OnceLock<quanta::Clock> = OnceLock::new();
    CLOCK.get_or_init(quanta::Clock::new)
}

/// When a call started, as a raw counter reading.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Started(u64);

impl Started {
    /// Now.
    pub(crate) fn now() -> Self {
        Self(clock().raw())
    }

    /// The time since; zero if the counter went backwards (a migration between cores
    /// with unsynchronised counters).
    pub(crate) fn elapsed(self) -> Duration {
        let clock = clock();
        clock.delta(self.0, clock.raw())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_a_sleep() {
        let started = Started::now();
        std::thread::sleep(Duration::from_millis(20));
        let elapsed = started.elapsed();
        // A lower bound only: a sleep never returns early, but a busy machine can make
        // it as long as it likes.
        assert!(elapsed >= Duration::from_millis(15), "{elapsed:?}");
    }
}

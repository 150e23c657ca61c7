//! [`Bucket`]s: a period cut into equal slices, for charts over time.

use serde::{Deserialize, Serialize};

use crate::row::{LlmCallRow, ToolCallRow};

/// One slice of a period.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Bucket {
    /// Where the slice starts, in milliseconds since the Unix epoch.
    pub start_ms: i64,
    /// Tool calls that ended in it.
    pub calls: u64,
    /// Of those, the failed ones.
    pub errors: u64,
    /// Model calls that ended in it.
    pub llm_calls: u64,
    /// Their prompt and completion tokens.
    pub tokens: u64,
}

/// `buckets` slices (at least one) from `since_ms` to `until_ms`.
pub(crate) fn build(
    since_ms: i64,
    until_ms: i64,
    buckets: u32,
    tools: &[ToolCallRow],
    llm: &[LlmCallRow],
) -> Vec<Bucket> {
    let n = i64::from(buckets.max(1));
    let span = (until_ms - since_ms).max(1);
    // Ceiling division, so n slices always cover the span.
    let width = (span + n - 1) / n;
    let mut out: Vec<Bucket> = (0..n)
        .map(|i| Bucket {
            start_ms: since_ms + i * width,
            ..Bucket::default()
        })
        .collect();
    let slot = |at_ms: i64| -> Option<usize> {
        let offset = at_ms.checked_sub(since_ms).filter(|o| *o >= 0)?;
        usize::try_from((offset / width).min(n - 1)).ok()
    };
    for row in tools {
        if let Some(i) = slot(row.at_ms) {
            out[i].calls += 1;
            out[i].errors += u64::from(row.outcome != "ok");
        }
    }
    for row in llm {
        if let Some(i) = slot(row.at_ms) {
            out[i].llm_calls += 1;
            out[i].tokens += row.tokens();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(at_ms: i64, outcome: &str) -> ToolCallRow {
        ToolCallRow {
            at_ms,
            trace_id: String::new(),
            session_id: String::new(),
            user_id: None,
            tool: "t".into(),
            outcome: outcome.into(),
            duration_us: 1,
            replayed: false,
        }
    }

    #[test]
    fn calls_land_in_their_slice_and_the_last_instant_in_the_last() {
        let tools = [
            call(0, "ok"),
            call(99, "failed"),
            call(100, "ok"),
            call(1000, "ok"),
            call(-5, "ok"),
        ];
        let series = build(0, 1000, 10, &tools, &[]);
        assert_eq!(series.len(), 10);
        assert_eq!(series[0].calls, 2);
        assert_eq!(series[0].errors, 1);
        assert_eq!(series[1].calls, 1);
        assert_eq!(series[9].calls, 1);
        assert_eq!(series.iter().map(|b| b.calls).sum::<u64>(), 4);
        assert_eq!(series[3].start_ms, 300);
    }
}

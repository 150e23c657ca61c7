//! Commit times as RFC 3339, in the offset they were recorded with.

use crate::common::time::Civil;

/// `seconds` since the Unix epoch at `offset_minutes` east of UTC, as RFC 3339
/// (`2024-03-01T09:30:00+01:00`).
pub(super) fn rfc3339(seconds: i64, offset_minutes: i32) -> String {
    let local = Civil::from_unix(seconds.saturating_add(i64::from(offset_minutes) * 60));
    if offset_minutes == 0 {
        return local.rfc3339();
    }
    let sign = if offset_minutes < 0 { '-' } else { '+' };
    let minutes = offset_minutes.unsigned_abs();
    local.rfc3339_with(&format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_utc_and_offsets() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400, 0), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_709_281_800, 60), "2024-03-01T09:30:00+01:00");
        assert_eq!(rfc3339(1_709_281_800, -330), "2024-03-01T03:00:00-05:30");
        assert_eq!(rfc3339(-86_400, 0), "1969-12-31T00:00:00Z");
    }
}

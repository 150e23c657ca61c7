//! Commit times as RFC 3339, in the offset they were recorded with.

/// `seconds` since the Unix epoch at `offset_minutes` east of UTC, as RFC 3339
/// (`2024-03-01T09:30:00+01:00`).
pub(super) fn rfc3339(seconds: i64, offset_minutes: i32) -> String {
    let local = seconds.saturating_add(i64::from(offset_minutes) * 60);
    let days = local.div_euclid(86_400);
    let of_day = local.rem_euclid(86_400);
    let (year, month, day) = civil_date(days);
    let offset = if offset_minutes == 0 {
        "Z".to_owned()
    } else {
        let sign = if offset_minutes < 0 { '-' } else { '+' };
        let minutes = offset_minutes.unsigned_abs();
        format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60)
    };
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}{offset}",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's method: count
/// in 400-year eras of 146 097 days, years starting in March so leap days come last).
fn civil_date(days: i64) -> (i64, i64, i64) {
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
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

//! Times as the model reads them (RFC 3339) and as zip stores them (a civil date and
//! time), without a calendar dependency: file times, commit times.

#[cfg(feature = "file")]
use std::time::{SystemTime, UNIX_EPOCH};

/// A UTC date and time, to the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Civil {
    /// The year (proleptic Gregorian).
    pub(crate) year: i64,
    /// 1 to 12.
    pub(crate) month: u8,
    /// 1 to 31.
    pub(crate) day: u8,
    /// 0 to 23.
    pub(crate) hour: u8,
    /// 0 to 59.
    pub(crate) minute: u8,
    /// 0 to 59.
    pub(crate) second: u8,
}

impl Civil {
    /// The UTC date and time of `time` (times before 1970 count back from it).
    #[cfg(feature = "file")]
    pub(crate) fn of(time: SystemTime) -> Self {
        let seconds = match time.duration_since(UNIX_EPOCH) {
            Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
            Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
        };
        Self::from_unix(seconds)
    }

    /// The UTC date and time `seconds` after 1970-01-01T00:00:00Z.
    pub(crate) fn from_unix(seconds: i64) -> Self {
        let days = seconds.div_euclid(86_400);
        let of_day = seconds.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        // `of_day` is below 86 400, so each part fits a u8.
        let part = |value: i64| u8::try_from(value).unwrap_or(0);
        Self {
            year,
            month,
            day,
            hour: part(of_day / 3600),
            minute: part(of_day % 3600 / 60),
            second: part(of_day % 60),
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub(crate) fn rfc3339(self) -> String {
        self.rfc3339_with("Z")
    }

    /// `YYYY-MM-DDTHH:MM:SS` followed by `zone` (`Z`, `+01:00`).
    pub(crate) fn rfc3339_with(self, zone: &str) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{zone}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// Year, month and day of the `days`-th day after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, proleptic Gregorian calendar).
fn civil_from_days(days: i64) -> (i64, u8, u8) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    // Day is 1..=31 and month 1..=12 by construction.
    (
        year,
        u8::try_from(month).unwrap_or(1),
        u8::try_from(day).unwrap_or(1),
    )
}

/// `time` as RFC 3339 in UTC.
#[cfg(feature = "file")]
pub(crate) fn rfc3339(time: SystemTime) -> String {
    Civil::of(time).rfc3339()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(Civil::from_unix(0).rfc3339(), "1970-01-01T00:00:00Z");
        assert_eq!(
            Civil::from_unix(951_782_400).rfc3339(),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(
            Civil::from_unix(1_700_000_000).rfc3339(),
            "2023-11-14T22:13:20Z"
        );
        assert_eq!(Civil::from_unix(-1).rfc3339(), "1969-12-31T23:59:59Z");
    }
}

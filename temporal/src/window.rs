//! Turning local-date spans into [`TimeWindow`]s, and caller-given date ranges.

use chrono::NaiveDate;
use chrono_tz::Tz;

use super::calendar::DateSpan;
use super::{Grain, TimeWindow};
use crate::days::local_midnight;
use crate::{Error, Result};

/// The window of a local-date span: `start`/`end` are the UTC instants of local midnight
/// starting `span.start` and `span.end` in `tz` ([`local_midnight`], DST-safe).
pub(crate) fn build(span: DateSpan, tz: Tz, grain: Grain, fuzzy: bool) -> TimeWindow {
    TimeWindow {
        start: local_midnight(span.start, tz),
        end: local_midnight(span.end, tz),
        start_date: span.start,
        end_date: span.end,
        grain,
        fuzzy,
        part_of_day: None,
        spans: Vec::new(),
        matched: String::new(),
    }
}

/// The window of a closed range of local dates given by a caller (`from`/`to`, both
/// inclusive): `[from 00:00, to+1 00:00)` in `tz` (every window is a half-open interval of whole local days). Grain `day` when
/// `from == to`, else `range`; not fuzzy; no spans, empty `matched`.
///
/// Errors: [`Error::BadInput`] naming `from` when `from > to`, naming `to` when `to` is the
/// last date chrono can represent.
pub fn window_for_dates(from: NaiveDate, to: NaiveDate, tz: Tz) -> Result<TimeWindow> {
    if from > to {
        return Err(Error::bad("from", format!("{from} is after to ({to}); a range needs from <= to")));
    }
    let end = to.succ_opt().ok_or_else(|| Error::bad("to", format!("{to} has no following day")))?;
    let grain = if from == to { Grain::Day } else { Grain::Range };
    Ok(build(DateSpan { start: from, end, guessed: false }, tz, grain, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn closed_range_maps_to_half_open_local_midnights() {
        // Asia/Shanghai is UTC+8: 2026-03-01 00:00 local = 2026-02-28T16:00Z;
        // to = 03-07 → end = 03-08 00:00 local = 2026-03-07T16:00Z.
        let w = window_for_dates(d("2026-03-01"), d("2026-03-07"), chrono_tz::Asia::Shanghai).unwrap();
        assert_eq!(w.start, Utc.with_ymd_and_hms(2026, 2, 28, 16, 0, 0).unwrap());
        assert_eq!(w.end, Utc.with_ymd_and_hms(2026, 3, 7, 16, 0, 0).unwrap());
        assert_eq!((w.start_date, w.end_date), (d("2026-03-01"), d("2026-03-08")));
        assert_eq!(w.grain, Grain::Range);
    }

    #[test]
    fn one_day_range_is_a_day_and_dst_day_is_25_hours() {
        // America/Los_Angeles leaves DST on 2026-11-01: 00:00 PDT (UTC-7) = 07:00Z, and the next
        // midnight is 00:00 PST (UTC-8) = 2026-11-02T08:00Z: 25 hours.
        let w = window_for_dates(d("2026-11-01"), d("2026-11-01"), chrono_tz::America::Los_Angeles).unwrap();
        assert_eq!(w.grain, Grain::Day);
        assert_eq!(w.start, Utc.with_ymd_and_hms(2026, 11, 1, 7, 0, 0).unwrap());
        assert_eq!(w.end, Utc.with_ymd_and_hms(2026, 11, 2, 8, 0, 0).unwrap());
    }

    #[test]
    fn from_after_to_is_an_error_naming_from() {
        let e = window_for_dates(d("2026-03-08"), d("2026-03-07"), chrono_tz::UTC).unwrap_err();
        assert!(matches!(&e, Error::BadInput { field, .. } if *field == "from"), "{e}");
        let e = window_for_dates(NaiveDate::MAX, NaiveDate::MAX, chrono_tz::UTC).unwrap_err();
        assert!(matches!(&e, Error::BadInput { field, .. } if *field == "to"), "{e}");
    }
}

//! Calendar arithmetic on local dates: day, week, month, quarter, year and part-of-month spans,
//! all half-open `[start, end)`. Every function is checked: out of chrono's range → `None`,
//! never a panic.

use chrono::{Datelike, Days, Months, NaiveDate};

/// A half-open range of local dates `[start, end)`, `start < end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DateSpan {
    pub(crate) start: NaiveDate,
    pub(crate) end: NaiveDate,
    /// True when the text did not write the span's year, month or week and past-preference
    /// chose it (`周三`, `3月`, `中秋`, `21号`, `周末`): the expression may then be a habit or a
    /// yearly date rather than one occurrence (see `intent`).
    pub(crate) guessed: bool,
}

/// `d + n` days (n may be negative).
pub(crate) fn add_days(d: NaiveDate, n: i64) -> Option<NaiveDate> {
    if n >= 0 { d.checked_add_days(Days::new(n as u64)) } else { d.checked_sub_days(Days::new(n.unsigned_abs())) }
}

/// `d` shifted by `n` calendar months, the day clamped to the target month's length
/// (Mar 31 − 1 month = Feb 28/29). This is the `shift` of the rolling rows of docs/time-expressions.md.
pub(crate) fn shift_months(d: NaiveDate, n: i64) -> Option<NaiveDate> {
    let m = Months::new(u32::try_from(n.unsigned_abs()).ok()?);
    if n >= 0 { d.checked_add_months(m) } else { d.checked_sub_months(m) }
}

/// Year and month `n` months after (`n < 0`: before) `y`-`m`.
pub(crate) fn shift_ym(y: i32, m: u32, n: i64) -> Option<(i32, u32)> {
    let idx = i64::from(y) * 12 + i64::from(m) - 1 + n;
    Some((i32::try_from(idx.div_euclid(12)).ok()?, (idx.rem_euclid(12) + 1) as u32))
}

/// Which third of a month (月初/上旬 days 1–10, 月中/中旬 11–20, 月底/月末/下旬 21–end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Third {
    Early,
    Mid,
    Late,
}

/// Which part of a year: 年初 `[Jan 1, Mar 1)`, 年底/年末 `[Nov 1, Jan 1 next)`, 上半年
/// `[Jan 1, Jul 1)`, 下半年 `[Jul 1, Jan 1 next)` (docs/time-expressions.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum YearPart {
    Start,
    End,
    FirstHalf,
    SecondHalf,
}

impl DateSpan {
    /// `[start, end)` if non-empty.
    pub(crate) fn new(start: NaiveDate, end: NaiveDate) -> Option<Self> {
        (start < end).then_some(DateSpan { start, end, guessed: false })
    }

    /// `[d + a, d + b)` in days.
    pub(crate) fn offsets(d: NaiveDate, a: i64, b: i64) -> Option<Self> {
        Self::new(add_days(d, a)?, add_days(d, b)?)
    }

    /// The same span, marked as chosen by past-preference ([`DateSpan::guessed`]).
    pub(crate) fn guessed(self) -> Self {
        DateSpan { guessed: true, ..self }
    }

    /// The one local day `d`.
    pub(crate) fn day(d: NaiveDate) -> Option<Self> {
        Self::offsets(d, 0, 1)
    }

    /// The day `y-m-d`; `None` for impossible dates (Feb 30).
    pub(crate) fn ymd(y: i32, m: u32, d: u32) -> Option<Self> {
        Self::day(NaiveDate::from_ymd_opt(y, m, d)?)
    }

    /// The calendar month `y-m`.
    pub(crate) fn month(y: i32, m: u32) -> Option<Self> {
        let s = NaiveDate::from_ymd_opt(y, m, 1)?;
        Self::new(s, s.checked_add_months(Months::new(1))?)
    }

    /// `n` whole months starting with `y-m`.
    pub(crate) fn months(y: i32, m: u32, n: u32) -> Option<Self> {
        let s = NaiveDate::from_ymd_opt(y, m, 1)?;
        Self::new(s, s.checked_add_months(Months::new(n))?)
    }

    /// The calendar year `y`.
    pub(crate) fn year(y: i32) -> Option<Self> {
        Self::months(y, 1, 12)
    }

    /// Calendar quarter `q` (1..=4) of year `y`.
    pub(crate) fn quarter(y: i32, q: u32) -> Option<Self> {
        (1..=4).contains(&q).then(|| Self::months(y, q * 3 - 2, 3)).flatten()
    }

    /// A third of month `y-m`.
    pub(crate) fn third(y: i32, m: u32, part: Third) -> Option<Self> {
        let month = Self::month(y, m)?;
        let (a, b) = match part {
            Third::Early => (1, Some(11)),
            Third::Mid => (11, Some(21)),
            Third::Late => (21, None),
        };
        let start = NaiveDate::from_ymd_opt(y, m, a)?;
        let end = match b {
            Some(b) => NaiveDate::from_ymd_opt(y, m, b)?,
            None => month.end,
        };
        Self::new(start, end)
    }

    /// A part of year `y`.
    pub(crate) fn year_part(y: i32, part: YearPart) -> Option<Self> {
        match part {
            YearPart::Start => Self::months(y, 1, 2),
            YearPart::End => Self::months(y, 11, 2),
            YearPart::FirstHalf => Self::months(y, 1, 6),
            YearPart::SecondHalf => Self::months(y, 7, 6),
        }
    }
}

/// The date of weekday `wd` (0 = Monday … 6 = Sunday) in the week starting `mon`.
pub(crate) fn weekday_in(mon: NaiveDate, wd: u32) -> Option<NaiveDate> {
    add_days(mon, i64::from(wd))
}

/// The latest date with weekday `wd` (0 = Monday) on or before `today`.
pub(crate) fn latest_weekday(today: NaiveDate, wd: u32) -> Option<NaiveDate> {
    let back = (i64::from(today.weekday().num_days_from_monday()) - i64::from(wd)).rem_euclid(7);
    add_days(today, -back)
}

/// The calendar quarter (1..=4) holding `d`.
pub(crate) fn quarter_of(d: NaiveDate) -> u32 {
    (d.month() - 1) / 3 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn shift_clamps_to_month_length() {
        assert_eq!(shift_months(d("2026-03-31"), -1), Some(d("2026-02-28")));
        assert_eq!(shift_months(d("2028-02-29"), -12), Some(d("2027-02-28")));
        assert_eq!(shift_ym(2026, 1, -1), Some((2025, 12)));
        assert_eq!(shift_ym(2026, 12, 1), Some((2027, 1)));
    }

    #[test]
    fn thirds_of_february() {
        assert_eq!(DateSpan::third(2028, 2, Third::Late), DateSpan::new(d("2028-02-21"), d("2028-03-01")));
        assert_eq!(DateSpan::third(2026, 2, Third::Mid), DateSpan::new(d("2026-02-11"), d("2026-02-21")));
    }

    #[test]
    fn latest_weekday_includes_today() {
        // 2026-11-22 is a Sunday.
        assert_eq!(latest_weekday(d("2026-11-22"), 6), Some(d("2026-11-22")));
        assert_eq!(latest_weekday(d("2026-11-22"), 0), Some(d("2026-11-16")));
        assert_eq!(latest_weekday(d("2026-11-23"), 6), Some(d("2026-11-22")));
    }
}

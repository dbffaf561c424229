//! What a matcher reports, and the context it resolves dates in.
//!
//! A matcher is a function `(text, start index, context, out)` that pushes one [`Hit`] per way
//! the text at `start` can be read as a time expression (a day word with and without a
//! following part of day, a month with and without its day, …). The scanner then keeps the
//! longest hit that passes the word-boundary rules.

use chrono::{Datelike, NaiveDate};

use super::Grain;
use super::calendar::{DateSpan, add_days, latest_weekday, shift_months, shift_ym, weekday_in};
use super::part_of_day;
use super::text::Text;

/// How an expression begins, which decides the left word-boundary rule that applies to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Head {
    /// A Chinese word (`昨天`, `上周`, `最近`): checked against the left-compound lexicon.
    Word,
    /// A number (`3天前`, `3月`, `2025-03-05`, `第三季度`): must not follow another numeral.
    Numeric,
    /// A bare unit (`周三`, `周末`, `月底`, `上旬`, `年初`): must not follow a modifier or numeral
    /// that would have made it part of a longer, unparsed expression (`下周三`, `每周一`).
    Headless,
    /// An English word: must start at a word boundary and not follow `every`/`next`/….
    Latin,
}

/// What kind of thing an expression names; decides what a range's end may leave out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A calendar date (`3月5日`, `2025-03-05`, `March 5`): a range end may omit year and month.
    Date,
    /// A calendar month: a range end may omit the year.
    Month,
    /// A weekday (`周一`, `上周一`, `Monday`): a range end may be a bare weekday of that week.
    Weekday,
    /// Another calendar-anchored span (year, quarter, part of year/month): may omit the year.
    Calendar,
    /// Relative to today (`昨天`, `上周`, `最近3天`): a range end must be complete.
    Relative,
    /// A range `X到Y`.
    Range,
}

/// One reading of the text starting at the scan position.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hit {
    /// Char index just past the expression.
    pub(crate) end: usize,
    /// The window in local dates.
    pub(crate) span: DateSpan,
    pub(crate) grain: Grain,
    pub(crate) fuzzy: bool,
    /// Char span of a part of day (`晚上`, `evening`), if one was named.
    pub(crate) pod: Option<(usize, usize)>,
    pub(crate) head: Head,
    pub(crate) kind: Kind,
    /// True for a holiday name (`中秋`, `Christmas`): the name rules of `traps` apply.
    pub(crate) holiday: bool,
}

impl Hit {
    /// True for hits that may stand on either side of a range: not rolling, not fuzzy, not a
    /// range themselves (parts of months and years like 月底 or 上半年 may).
    pub(crate) fn rangeable(&self) -> bool {
        !self.fuzzy && self.grain != Grain::Rolling && self.kind != Kind::Range
    }
}

/// The start of a range, seen from its end.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prev {
    pub(crate) start: NaiveDate,
    pub(crate) kind: Kind,
    pub(crate) head: Head,
}

/// Dates the matchers resolve against.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx {
    /// The local date of `now` in `tz`.
    pub(crate) today: NaiveDate,
    /// Monday of today's ISO week.
    pub(crate) mon: NaiveDate,
    /// When matching the end of a range: its start. Forms that name no year (or no month, no
    /// week) then take it from there instead of from past-preference.
    pub(crate) after: Option<Prev>,
}

/// The unit of a count (`3天前`, `最近2周`, `5 months ago`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    Day,
    Week,
    Month,
    Year,
}

impl Unit {
    /// The grain of "N units ago".
    pub(crate) fn grain(self) -> Grain {
        match self {
            Unit::Day => Grain::Day,
            Unit::Week => Grain::Week,
            Unit::Month => Grain::Month,
            Unit::Year => Grain::Year,
        }
    }
}

/// How far back past-preference looks for a date that exists (Feb 29 may be 8 years back
/// across a non-leap century year).
const MAX_YEARS_BACK: i32 = 8;

impl Ctx {
    /// Context for a free-standing expression.
    pub(crate) fn new(today: NaiveDate) -> Self {
        let mon = crate::days::monday_of(today);
        Ctx { today, mon, after: None }
    }

    /// Context for the end of a range that starts with `x`.
    pub(crate) fn after(&self, x: &Hit) -> Self {
        Ctx { after: Some(Prev { start: x.span.start, kind: x.kind, head: x.head }), ..*self }
    }

    /// `today + n` days.
    pub(crate) fn day(&self, n: i64) -> Option<DateSpan> {
        DateSpan::day(add_days(self.today, n)?)
    }

    /// "N units ago" (`N天前` `[D-N, D-N+1)`; `N周前` the Monday-week holding D-7N;
    /// `N个月前` the calendar month N back; `N年前` the calendar year N back).
    pub(crate) fn ago(&self, unit: Unit, n: u32) -> Option<DateSpan> {
        let n = i64::from(n);
        match unit {
            Unit::Day => self.day(-n),
            Unit::Week => DateSpan::offsets(add_days(self.mon, -7 * n)?, 0, 7),
            Unit::Month => {
                let (y, m) = shift_ym(self.today.year(), self.today.month(), -n)?;
                DateSpan::month(y, m)
            }
            Unit::Year => DateSpan::year(self.today.year() - i32::try_from(n).ok()?),
        }
    }

    /// "The last N units", ending with today (`最近N天` `[D-(N-1), D+1)`; `最近N周`
    /// `[D-(7N-1), D+1)`; `最近N个月` `[shift(D, -N months)+1, D+1)`; `最近N年` likewise).
    pub(crate) fn last_n(&self, unit: Unit, n: u32) -> Option<DateSpan> {
        let n = i64::from(n);
        let start = match unit {
            Unit::Day => add_days(self.today, 1 - n)?,
            Unit::Week => add_days(self.today, 1 - 7 * n)?,
            Unit::Month => add_days(shift_months(self.today, -n)?, 1)?,
            Unit::Year => add_days(shift_months(self.today, -12 * n)?, 1)?,
        };
        DateSpan::new(start, add_days(self.today, 1)?)
    }

    /// Resolves a form that names no year (`3月5号`, `3月`, `Q3`, `年底`, `月底` of `M月`).
    /// Free-standing: past-preferring, the latest year whose span starts on or before today
    /// (so a question about "3月5号" in June means this year's, not next year's); years where the date does not exist (Feb 29) are skipped. As a range
    /// end after a date, month or calendar span: that span's year.
    pub(crate) fn yearless(&self, f: impl Fn(i32) -> Option<DateSpan>) -> Option<DateSpan> {
        match self.after {
            None => (0..=MAX_YEARS_BACK)
                .find_map(|back| f(self.today.year() - back).filter(|s| s.start <= self.today))
                .map(DateSpan::guessed),
            Some(p) if matches!(p.kind, Kind::Date | Kind::Month | Kind::Calendar) => f(p.start.year()),
            Some(_) => None,
        }
    }

    /// Resolves a form that names no month (`月底` bare; a range end `7日`). Free-standing (only
    /// when `free` allows): this month's span if it starts on or before today, else last
    /// month's (bare 月初/月中/月底). As a range end after a date or month: that month.
    pub(crate) fn monthless(&self, free: bool, f: impl Fn(i32, u32) -> Option<DateSpan>) -> Option<DateSpan> {
        match self.after {
            None if free => {
                let (y, m) = (self.today.year(), self.today.month());
                let (py, pm) = super::calendar::shift_ym(y, m, -1)?;
                f(y, m).filter(|s| s.start <= self.today).or_else(|| f(py, pm)).map(DateSpan::guessed)
            }
            Some(p) if matches!(p.kind, Kind::Date | Kind::Month) => f(p.start.year(), p.start.month()),
            _ => None,
        }
    }

    /// Resolves a bare weekday (`周三`, `on Wednesday`; 0 = Monday). Free-standing: the latest
    /// such day on or before today. As a range end after a weekday: that weekday's week.
    pub(crate) fn bare_weekday(&self, wd: u32) -> Option<DateSpan> {
        match self.after {
            None => DateSpan::day(latest_weekday(self.today, wd)?).map(DateSpan::guessed),
            Some(p) if p.kind == Kind::Weekday => DateSpan::day(weekday_in(crate::days::monday_of(p.start), wd)?),
            Some(_) => None,
        }
    }
}

/// Collects hits for one scan position.
pub(crate) struct Out<'a> {
    pub(crate) t: &'a Text,
    pub(crate) hits: Vec<Hit>,
}

impl<'a> Out<'a> {
    pub(crate) fn new(t: &'a Text) -> Self {
        Out { t, hits: Vec::new() }
    }

    /// Records a hit if the span resolved.
    pub(crate) fn push(&mut self, end: usize, span: Option<DateSpan>, grain: Grain, head: Head, kind: Kind) {
        if let Some(span) = span {
            self.hits.push(Hit { end, span, grain, fuzzy: false, pod: None, head, kind, holiday: false });
        }
    }

    /// Records a fuzzy hit (the rows whose window is an estimate: 这几天, 前几天, recently).
    pub(crate) fn push_fuzzy(&mut self, end: usize, span: Option<DateSpan>, grain: Grain, head: Head) {
        if let Some(span) = span {
            self.hits.push(Hit {
                end,
                span,
                grain,
                fuzzy: true,
                pod: None,
                head,
                kind: Kind::Relative,
                holiday: false,
            });
        }
    }

    /// Records a one-day hit, plus one variant per part of day that follows it
    /// (`前天` and `前天晚上`; `yesterday` and `yesterday evening`).
    pub(crate) fn push_day(&mut self, end: usize, span: Option<DateSpan>, head: Head, kind: Kind) {
        let Some(span) = span else { return };
        let base = Hit { end, span, grain: Grain::Day, fuzzy: false, pod: None, head, kind, holiday: false };
        for pod in part_of_day::after(self.t, end, head == Head::Latin) {
            self.hits.push(Hit { end: pod.1, pod: Some(pod), ..base.clone() });
        }
        self.hits.push(base);
    }

    /// Records a one-day hit whose text already names the part of day (`昨晚`, `last night`).
    pub(crate) fn push_day_with_pod(&mut self, end: usize, span: Option<DateSpan>, pod: (usize, usize), head: Head) {
        if let Some(span) = span {
            self.hits.push(Hit {
                end,
                span,
                grain: Grain::Day,
                fuzzy: false,
                pod: Some(pod),
                head,
                kind: Kind::Relative,
                holiday: false,
            });
        }
    }
}

//! Time expressions in queries → time windows, per spec/temporal.md.
//!
//! [`parse`] reads the first time expression in a query (`前天晚上我吃了什么`, `上个月底的读书笔记`,
//! `最近7天的开销`, `what did we decide last week`) and returns its window plus the query with the
//! expression removed. It is a pure function of `(text, now, tz)`: it never reads the clock,
//! does no I/O, and uses no date-parsing crate (chrono and chrono-tz only do the arithmetic).
//! Same input → byte-identical output.
//!
//! # Time zone and boundaries
//!
//! * `now` is a UTC instant; `tz` an IANA zone. **Today** is the local date of `now` in `tz`
//!   (2026-11-22T16:30:00Z is Monday 2026-11-23 00:30 in Asia/Shanghai, so there "today" is
//!   Monday). The parser never guesses a zone; callers pass the engine's configured `timezone`,
//!   the same zone that partitions the cold files by local date.
//! * A window is the half-open interval **`[start, end)`** of UTC instants, where `start` is
//!   local midnight (00:00 in `tz`) beginning `start_date` and `end` is local midnight beginning
//!   `end_date`. `end_date` is **exclusive**: a one-day window for D has `start_date = D`,
//!   `end_date = D+1`. An entry with timestamp `ts` is inside iff `start <= ts < end`. Local
//!   midnights come from [`days::local_midnight`], so a day across a DST change is 23
//!   or 25 hours long (and a day whose midnight does not exist starts at its first existing
//!   instant).
//! * A closed date range given by a caller (`from`/`to`, inclusive) maps to
//!   `[from 00:00, to+1 00:00)` ([`window_for_dates`]).
//! * Weeks start on Monday (ISO 8601). An expression without a year or week (`3月5号`, `周三`,
//!   `3月`, `Q3`, `月底`) means its latest occurrence whose start is on or before today.
//!
//! # What is understood
//!
//! Every row of the spec table, in simplified and traditional characters (週 個 兩 禮拜 昨日 …)
//! and in English: day words (今天 … 大前天, 明天 后天, 今晚 昨夜 前晚, 刚才), `N天前` `N周前`
//! `N个月前` `N年前`, week words (本周 上周 上上周) with weekdays and 周末, bare weekdays,
//! months (本月 上个月 上上个月 `M月` `YYYY年M月` `YYYY-MM`), years (今年 去年 前年 `YYYY年`),
//! dates (`M月D日/号`, `YYYY年M月D日`, `YYYY-MM-DD`, `YYYY/MM/DD`, `YYYY.MM.DD`), rolling windows
//! (最近N天/周/个月/年, 近N天, 过去N天, 这N天), parts of months (月初 月中 月底 月末 上旬 中旬
//! 下旬) and years (年初 年底 年末 上半年 下半年), quarters (Q1–Q4, 第一季度, 一季度), ranges
//! (`X到Y`, `X至Y`, `从X到Y`, `X~Y`, `X—Y`), and the fuzzy 这两天 这几天 前几天 最近 近来. Numbers
//! are Arabic (also full-width), Chinese (`两`, `十一`, `三百六十六`) or English words
//! (`one`…`twelve`); a count N must be in 1..=366; spaces may separate number, unit and time
//! word (`3 天前`, `最近 3 个月`). A part of day after a day (`前天晚上`, `yesterday evening`) is
//! part of the expression and reported in `part_of_day`; the window stays the whole day.
//!
//! And the spec's version-2 rows: holidays (`holiday`: 元旦 … 圣诞 and English names, the lunar
//! 除夕 春节 元宵 端午 七夕 中秋 重阳 and the solar terms 清明 冬至 from `lunar`, with a year in
//! front, a period after them or 前后), the same day back (去年的今天, 上个月的今天, 上周的今天,
//! this day last year), bare days of month (21号, the 21st), plans (下周 下周X 下个月 明年, next
//! week/month/year/Monday), "since X" (`since`: X以来 自从X 从X开始 从X起 X至今, since X),
//! 最近半年 / 近半个月, weeks of a month (上个月第一周, 本月第N周), `N周前的周X`, "the X before last",
//! and English colloquial forms (the other day, a couple of days ago, earlier this week/month/year).
//! An English preposition right before the expression (`from`, `on`, `in`, `at`, `over`, …) is
//! part of it, so it leaves `rest` with it.

//! # Which expression
//!
//! The **first** expression wins: the scan goes left to right, and at the first position where
//! any reading passes the word-boundary rules the **longest** such reading is taken (`上上周`
//! over `上周`, `上个月底` over `上个月`, `前天晚上` over `前天`). Later expressions in the same
//! query are ignored (`昨天和今天` → 昨天) and stay in `rest`.
//!
//! # What is not a window (宁窄勿误)
//!
//! When unsure the parser returns no window: time characters glued into a longer word
//! (`本周期`, `去年轻化`, `前天津`, `十周年`, `月饼`, `最近邻算法`; see the boundary rules in the
//! `glue` module), durations (`花了3天`, `两周时间`, `三个月的项目`: a count needs 前/ago or
//! 最近/past to anchor it), bare numbers and fractions (`3/5`, `5-1`), impossible dates
//! (`2月30日`), counts outside 1..=366, and boundaries (`3月前`, `昨天之前`, `这周三之前`: a
//! boundary after the longest reading stops every shorter one at that position). The families
//! of the spec's version-2 traps are tables in the `traps` module: titles and quotations
//! (《后天》), recurrence (每天, 每年春节, every Monday), names (陈明天, 周一帆, 五一路, the Monday
//! Club, Black Friday).

mod calendar;
pub mod days;
mod english;
mod english_dates;
mod glue;
mod hit;
mod holiday;
mod iso;
mod lunar;
mod numbers;
mod part_of_day;
mod precheck;
mod range;
mod scan;
mod since;
mod text;
mod traps;
mod window;
mod zh_calendar;
mod zh_relative;

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::Serialize;

pub use precheck::may_hold_time;
pub use window::window_for_dates;

/// What can go wrong in this crate: only a caller-given date range ([`window_for_dates`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A caller-given value is invalid; `field` names it (`from` or `to`), `reason` says why.
    #[error("bad {field}: {reason}")]
    BadInput {
        /// The argument that was wrong.
        field: &'static str,
        /// Why, in words.
        reason: String,
    },
}

impl Error {
    fn bad(field: &'static str, reason: impl Into<String>) -> Self {
        Error::BadInput { field, reason: reason.into() }
    }
}

/// This crate's result type.
pub type Result<T> = std::result::Result<T, Error>;

/// The size of thing an expression names (serialised lowercase: `"day"`, `"week"`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grain {
    /// One local day: `end_date = start_date + 1`.
    Day,
    /// One Monday-to-Sunday week: `start_date` is a Monday, 7 days.
    Week,
    /// One calendar month: from the 1st to the 1st of the next month.
    Month,
    /// One calendar quarter: Jan/Apr/Jul/Oct 1st, three months.
    Quarter,
    /// One calendar year: Jan 1 to Jan 1 of the next year.
    Year,
    /// The last N days/weeks/months/years, ending with today: `end_date = today + 1`.
    Rolling,
    /// Any other span of whole days (`X到Y`, 周末, 月底, 上半年, 前几天).
    Range,
}

/// The window of a time expression. Times are UTC instants, dates are local dates in the `tz`
/// given to [`parse`]; see the module docs for the boundary semantics. Serialised with
/// camelCase names (`startDate`, `endDate`, `partOfDay`); instants as RFC 3339, dates as
/// `YYYY-MM-DD`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimeWindow {
    /// Inclusive start: local midnight beginning `start_date`, as a UTC instant.
    pub start: DateTime<Utc>,
    /// Exclusive end: local midnight beginning `end_date`, as a UTC instant.
    pub end: DateTime<Utc>,
    /// First local date inside the window.
    pub start_date: NaiveDate,
    /// First local date after the window (exclusive).
    pub end_date: NaiveDate,
    pub grain: Grain,
    /// True for the spec's fuzzy rows (这两天 这几天 前几天 最近 近来, `recently`, …).
    pub fuzzy: bool,
    /// The part of day as written (`晚上`, `晚` of 昨晚, `evening`), if one was named.
    pub part_of_day: Option<String>,
    /// The matched spans as char offsets `[a, b)` into the query (Unicode code points). One span
    /// for every expression the parser reads today.
    pub spans: Vec<(usize, usize)>,
    /// The matched text as written (spans joined by a space if there are several).
    pub matched: String,
}

/// What [`parse`] found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParseResult {
    /// The window, or `None` for "no time intent".
    pub window: Option<TimeWindow>,
    /// The query without the matched span(s): the parts before and after are trimmed and joined
    /// by one space if there was whitespace at the gap, else directly (`前天晚上我吃了什么` →
    /// `我吃了什么`, `what did I do yesterday evening` → `what did I do`). Without a window,
    /// the text unchanged.
    pub rest: String,
}

/// Parses the first time expression in `text` (see the module docs) relative to `now` in `tz`.
/// Never fails and never panics: anything it cannot read is "no time intent", and so is every
/// query when the local date of `now` lies outside the years 1–9999.
pub fn parse(text: &str, now: DateTime<Utc>, tz: Tz) -> ParseResult {
    let t = text::Text::new(text);
    let found = local_today(now, tz).and_then(|today| scan::find(&t, today));
    let Some((start, hit)) = found else {
        return ParseResult { window: None, rest: text.to_string() };
    };
    let start = glue::with_preposition(&t, start);
    let hit = scan::Hit { end: glue::with_filler(&t, hit.end), ..hit };
    let mut w = window::build(hit.span, tz, hit.grain, hit.fuzzy);
    w.part_of_day = hit.pod.map(|(a, b)| t.slice(a, b));
    w.spans = vec![(start, hit.end)];
    w.matched = t.slice(start, hit.end);
    ParseResult { rest: t.without(start, hit.end), window: Some(w) }
}

/// The local date of `now` in `tz` (the local date of a UTC instant), computed with checked
/// arithmetic so that instants at chrono's limits cannot panic; `None` outside years 1–9999.
fn local_today(now: DateTime<Utc>, tz: Tz) -> Option<NaiveDate> {
    use chrono::{Datelike, Offset, TimeZone};
    let offset = tz.offset_from_utc_datetime(&now.naive_utc()).fix();
    let day = now.naive_utc().checked_add_offset(offset)?.date();
    (1..=9999).contains(&day.year()).then_some(day)
}

/// The README's examples, compiled and run as doc tests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

//! Time expressions in queries and notes → time windows (every expression understood:
//! docs/time-expressions.md in the memlayers repository).
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
//! Every row of the expression table, in simplified and traditional characters (週 個 兩 禮拜 昨日 …)
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
//! And further rows: holidays (`holiday`: 元旦 … 圣诞 and English names, the lunar
//! 除夕 春节 元宵 端午 七夕 中秋 重阳 and the solar terms 清明 冬至 from `lunar`, with a year in
//! front, a period after them or 前后), the same day back (去年的今天, 上个月的今天, 上周的今天,
//! this day last year), bare days of month (21号, the 21st), plans (下周 下周X 下个月 明年, next
//! week/month/year/Monday), "since X" (`since`: X以来 自从X 从X开始 从X起 X至今, since X),
//! 最近半年 / 近半个月, weeks of a month (上个月第一周, 本月第N周), `N周前的周X`, "the X before last",
//! and English colloquial forms (the other day, a couple of days ago, earlier this week/month/year).
//! An English preposition right before the expression (`from`, `on`, `in`, `at`, `over`, …) is
//! part of it, so it leaves `rest` with it.

//! Version 3 adds the weekday or weekend N months ago (`the Wednesday two months ago`,
//! `两个月前的周三`, `一个月前的那个周末`: that day of the Monday-week holding D shifted back N
//! months, the day clamped to the month's length, fuzzy ±3 days, as a month back does not name
//! a week), the same with weeks (`the Wednesday two weeks ago`, `三周前的那个周末`: exact, as
//! `N周前的周X`), and a part of day after N weeks or months ago (`two weeks ago in the evening`,
//! `两周前的晚上`: the window of N weeks/months ago, the part of day reported).
//!
//! # Which expression
//!
//! The scan goes left to right; at each position where any reading passes the word-boundary
//! rules the **longest** such reading is taken (`上上周` over `上周`, `上个月底` over `上个月`,
//! `前天晚上` over `前天`), and the scan resumes after it, so every expression of the text is
//! found ([`parse_all`] returns them all). [`parse`] then returns the **first** that names when
//! the thing asked about happened (next section); later ones stay in `rest`.
//!
//! **Unions.** Expressions joined by 和 及 与 跟 还有 以及 或 或者 、 / `and`, `or`
//! (`上周三和上周五`, `in January and March`, `春节和中秋`, `周一、周三还有周五`) are one
//! expression with several windows: an entry in any of them counts. [`ParseResult::windows`]
//! lists them in text order, each with its own span; [`ParseResult::window`] is their covering
//! window (grain `range`, one span over the whole union, connectors included), so a caller that
//! only reads `window` never loses an entry of the union. A member that leaves out what it
//! shares with the one before takes it from there, as a range end does (`上周三和周五`: last
//! week's Friday; `3月5号和8号`: March 8; `in January and March`: the same year); a member that
//! cannot is read on its own. At most six members.
//!
//! # Which expressions name when (version 3, 宁窄勿误)
//!
//! A window only where the expression scopes when the thing asked about happened; the rules
//! work on **clauses** (the text cut at `，,。.!！;；~` and line breaks, never inside an
//! expression such as `3月1日~7日` nor at a `.` between digits):
//!
//! * **Habits and typical times**: in a clause with a habit word (一般 通常 平时 平常 总是 经常
//!   常常 往往 每逢 习惯; usually always typically normally generally regularly often
//!   habitually), an expression whose year, month or week is not written (`周末通常`,
//!   `平时周一`, `周六早上一般`, `中秋一般怎么过`, `What do I usually do on Friday?`) is a
//!   typical time: no window. Written anchors keep theirs (`上周我总是加班到几点` → last week).
//!   一般 after 很/比较/挺 … or before 般/的/人 or the clause end is "so-so", not a habit word.
//!   English weekdays are habitual before a plural part of day (`Saturday mornings`) or after
//!   `a`, `any`, `usual` or a possessive (`on a Sunday`, `my Sunday rides`); plural weekdays
//!   (`on Saturdays`) are never read.
//! * **Yearly dates that are the content**: in a clause with 生日 纪念日 忌日 诞辰 出生 /
//!   birthday anniversary born, a date or month is what the birthday or anniversary is
//!   (`谁的生日在三月`, `结婚纪念日是不是5月20号`, `whose birthday is in March`): no window
//!   from an expression whose year, month or week is not written, that is written with numbers
//!   (`2019年3月5日`), or that is an English date or month. Relative words keep theirs
//!   (`去年生日收到了什么礼物` → last year, `上个月谁过生日了` → last month).
//! * **Asides** ([`parse`] only): a clause holds the question when it has 什么 哪 几 谁 多少 吗
//!   呢 怎么, what when where who which how, or `?`/`？` outside an expression (`几乎`, `哪怕`,
//!   `好几` do not ask). When some clause holds the question, only expressions in such clauses
//!   count: `早上好呀今天有点冷，话说我表姐的公司叫什么？` → none,
//!   `今天心情不错，我上周买的那本书叫什么？` → last week. A text with **no** question word (an
//!   entry's own text, a keyword query `上周 火锅`) counts as a whole, as before version 3: the
//!   engine parses entries' own text with the same function. [`parse_all`] never applies this
//!   rule: every clause of a note reports something.
//!
//! # What is not a window (宁窄勿误)
//!
//! When unsure the parser returns no window: time characters glued into a longer word
//! (`本周期`, `去年轻化`, `前天津`, `十周年`, `月饼`, `最近邻算法`; see the boundary rules in the
//! `glue` module), durations (`花了3天`, `两周时间`, `三个月的项目`: a count needs 前/ago or
//! 最近/past to anchor it), bare numbers and fractions (`3/5`, `5-1`), impossible dates
//! (`2月30日`), counts outside 1..=366, and boundaries (`3月前`, `昨天之前`, `这周三之前`: a
//! boundary after the longest reading stops every shorter one at that position). The families
//! of the other traps are tables in the `traps` module: titles and quotations
//! (《后天》), recurrence (每天, 每年春节, every Monday), names (陈明天, 周一帆, 五一路, the Monday
//! Club, Black Friday).

mod calendar;
pub mod days;
mod english;
mod english_dates;
mod glue;
mod hit;
mod holiday;
mod intent;
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
    /// True for the fuzzy rows (这两天 这几天 前几天 最近 近来, `recently`, …).
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
    /// The window, or `None` for "no time intent". For a union of expressions (`上周三和上周五`,
    /// `in January and March`) this is the **covering window**: from the earliest start to the
    /// latest end of [`ParseResult::windows`], grain `range`, fuzzy if any member is, the part of
    /// day only if every member names the same one, and one span over the whole union as written
    /// (connectors included). A gate on it alone never hides an entry of the union; gate on
    /// `windows` to leave out the days between.
    pub window: Option<TimeWindow>,
    /// Every window of the expression, in text order: one for a single expression (equal to
    /// `window`), one per member for a union, each with its own span and `matched`. Empty
    /// without a window. The time gate admits an entry inside **any** of them.
    pub windows: Vec<TimeWindow>,
    /// The query without the matched span(s): the parts before and after are trimmed and joined
    /// by one space if there was whitespace at the gap, else directly (`前天晚上我吃了什么` →
    /// `我吃了什么`, `what did I do yesterday evening` → `what did I do`). Without a window,
    /// the text unchanged.
    pub rest: String,
}

/// Parses the time expression of a question in `text` (see the module docs: the first one that
/// scopes when the thing asked about happened, with the members of a union) relative to `now`
/// in `tz`. Never fails and never panics: anything it cannot read is "no time intent", and so
/// is every query when the local date of `now` lies outside the years 1–9999.
pub fn parse(text: &str, now: DateTime<Utc>, tz: Tz) -> ParseResult {
    let t = text::Text::new(text);
    // Without a question, habit or yearly-date word anywhere, no rule can drop the first
    // expression: the scan stops after it.
    let max = if intent::may_drop(&t) { usize::MAX } else { 1 };
    let groups =
        local_today(now, tz).map(|today| intent::keep(&t, scan::all(&t, today, max), true)).unwrap_or_default();
    let Some(group) = groups.into_iter().next() else {
        return ParseResult { window: None, windows: Vec::new(), rest: text.to_string() };
    };
    let windows: Vec<TimeWindow> = group.iter().map(|f| member_window(&t, f, tz)).collect();
    let (a, b) = (group[0].start, group[group.len() - 1].end);
    let window = covering(&windows, tz, (a, b), t.slice(a, b));
    ParseResult { rest: t.without(a, b), window: Some(window), windows }
}

/// Every time expression in `text` that names when something happened, in text order, one
/// window each (a union gives one window per member), each with its one span (char offsets into
/// `text`) and `matched`: for the event windows of a note that names several
/// (`上周六去了杭州，下周三交报告` → last Saturday and next Wednesday).
///
/// The same grammar and rules as [`parse`] (traps, titles, recurrence, names, habits, yearly
/// dates that are the content), except the aside rule: a note's every clause reports something,
/// so no clause is skipped for not holding a question. Never fails; empty for "no time intent"
/// and outside the years 1–9999.
pub fn parse_all(text: &str, now: DateTime<Utc>, tz: Tz) -> Vec<TimeWindow> {
    let t = text::Text::new(text);
    let Some(today) = local_today(now, tz) else { return Vec::new() };
    intent::keep(&t, scan::all(&t, today, usize::MAX), false)
        .iter()
        .flatten()
        .map(|f| member_window(&t, f, tz))
        .collect()
}

/// The window of one expression found, with its span and text.
fn member_window(t: &text::Text, f: &scan::Found, tz: Tz) -> TimeWindow {
    let h = &f.hit;
    let mut w = window::build(h.span, tz, h.grain, h.fuzzy);
    w.part_of_day = h.pod.map(|(a, b)| t.slice(a, b));
    w.spans = vec![(f.start, f.end)];
    w.matched = t.slice(f.start, f.end);
    w
}

/// The covering window of a union's members (see [`ParseResult::window`]); the member itself
/// when there is one.
fn covering(ws: &[TimeWindow], tz: Tz, span: (usize, usize), matched: String) -> TimeWindow {
    if let [one] = ws {
        return one.clone();
    }
    let start = ws.iter().map(|w| w.start_date).min().unwrap_or_default();
    let end = ws.iter().map(|w| w.end_date).max().unwrap_or_default();
    let fuzzy = ws.iter().any(|w| w.fuzzy);
    let mut w = window::build(calendar::DateSpan { start, end, guessed: false }, tz, Grain::Range, fuzzy);
    let pod = ws.first().and_then(|w| w.part_of_day.clone());
    w.part_of_day = pod.filter(|p| ws.iter().all(|w| w.part_of_day.as_deref() == Some(p)));
    w.spans = vec![span];
    w.matched = matched;
    w
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

//! Extractive day / week / month summaries. Pure: entries and summary texts in, file text
//! out; no file I/O, no clock.
//!
//! Rules per dsh-memory-layers v1.2.1 (docs/plugin-compatibility.md, "Summaries"):
//! summaries only copy text from the layer below and cut it; nothing is generated.
//!
//! | period | sources (the caller picks, this module combines) | lines | budget |
//! |---|---|---|---|
//! | day | the day's cold entries | one per entry: `- [tag] first sentence` | 1500 |
//! | week | per day: its day summary, else its cold entries | one per tag: earliest … latest | 1000 |
//! | month | per full ISO week inside the month: its week summary, else per day: day summary, else cold | `约定`/`重要`/`翻唱` own lines; other tags `共 N 条` | 700 |
//!
//! * First sentence ([`first_sentence`]): leading spaces and sentence punctuation skipped,
//!   cut before the first `。！？!?；;`, line break, or `.` followed by whitespace or the end; the
//!   terminator is dropped; at most 40 code points (hard cut, no ellipsis).
//! * Day lines follow the entries' write instants. Week lines: one per tag in order of first
//!   appearance: `- [tag] first`, or `- [tag] first … last（N 条）` when the tag has N > 1
//!   entries (first = earliest entry's first sentence, last = latest's). Month lines: first
//!   the own lines of `约定`/`重要`/`翻唱` in time order (an own line taken from a week
//!   summary keeps its `first … last（N 条）` form), then `- [tag] 共 N 条` for every other
//!   tag, larger N first, ties by first appearance.
//! * Months and ISO weeks: a week summary is used for a month only when all seven days of its
//!   ISO week lie in that month (a straddling week's lines cannot be split by day); the other
//!   days of the month are read one by one ([`month_plan`]).
//! * Budget: lines are kept in order while the sum of their lengths (code points, without
//!   line breaks) stays within the budget; the first line that does not fit and all after it
//!   are omitted, and a note at the end says how many.
//! * `原 N 条` counts the original cold entries represented: a lower summary contributes the
//!   `原 N 条` of its own header (so entries its budget omitted are still counted), cold
//!   entries count one each. `保留 M 行` is the number of lines kept.
//! * Topics: the period's three most frequent tags (entry counts, `-` excluded, ties by first
//!   appearance) with every month they occur in, as `tag|YYYY-MM` ([`Summary::topics`]).
//!
//! File format (UTF-8, LF, final newline), e.g. a week:
//!
//! ```text
//! # 周摘要 2026-W43（2026-10-19 至 2026-10-25）
//!
//! - 来源：日摘要 2026-10-19；冷层 2026-10-21、2026-10-22
//! - 生成时间：2026-10-22T15:00:00.000Z
//! - 压缩比：原 6 条 → 保留 3 行
//!
//! ## 条目
//!
//! - [翻唱] 晴天初版 … 稻香初录（3 条）
//! - [计划] 看海
//! - [约定] 每周日复盘
//!
//! （已省略 2 行：超出周摘要预算 1000 字）
//! ```
//!
//! Titles: `# 日摘要 YYYY-MM-DD`, `# 周摘要 YYYY-Www（Monday 至 Sunday）`, `# 月摘要 YYYY-MM`.
//! Sources: day `冷层 cold/YYYY-MM/YYYY-MM-DD.md`; week and month the non-empty parts of
//! `周摘要 labels；日摘要 dates；冷层 dates` (each list joined by `、`), or `无` when there is
//! nothing. The generation time is the UTC instant given as `now`. A period without lines
//! has `（无条目）` under `## 条目`; the omission note appears only when lines were omitted.
//! The same inputs and `now` always give the same bytes. [`parse()`] reads these files back.

pub mod ops;

mod parse;
mod render;

pub use parse::{ParsedSummary, SummaryLine, parse};

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc, Weekday};
use serde::Serialize;

use crate::files::entry::Entry;
use crate::files::{cold_rel, iso_week_label, monday_of};
use crate::layers::hot::Topic;
use crate::{Error, Result};

/// Tags that keep their own lines in a month summary (docs/plugin-compatibility.md: "只有 约定 / 重要 / 翻唱 保留独立行").
pub const KEEP_TAGS: [&str; 3] = ["约定", "重要", "翻唱"];
/// Maximum length of a first sentence, code points (docs/plugin-compatibility.md: "首句（至多 40 字）").
pub const FIRST_SENTENCE_CHARS: usize = 40;
/// How many top tags go to the topics index (docs/plugin-compatibility.md: "最高频的 3 个 tag").
pub const TOP_TAGS: usize = 3;

/// A summary period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Period {
    /// One local date.
    Day,
    /// One ISO-8601 week, Monday to Sunday.
    Week,
    /// One calendar month.
    Month,
}

impl Period {
    /// Reads `day` / `week` / `month`; error field `period`.
    pub fn parse(s: &str) -> Result<Period> {
        match s {
            "day" => Ok(Period::Day),
            "week" => Ok(Period::Week),
            "month" => Ok(Period::Month),
            _ => Err(Error::bad("period", format!("{s:?} is not day, week or month"))),
        }
    }

    /// Line budget in code points (docs/plugin-compatibility.md: "日 1500 / 周 1000 / 月 700 字").
    pub fn budget(self) -> usize {
        match self {
            Period::Day => 1500,
            Period::Week => 1000,
            Period::Month => 700,
        }
    }

    /// The title word: `日摘要` / `周摘要` / `月摘要`.
    pub fn title(self) -> &'static str {
        match self {
            Period::Day => "日摘要",
            Period::Week => "周摘要",
            Period::Month => "月摘要",
        }
    }

    /// The label of the period holding `date`: `2026-10-21`, `2026-W43` or `2026-10`.
    pub fn label(self, date: NaiveDate) -> String {
        match self {
            Period::Day => date.format("%Y-%m-%d").to_string(),
            Period::Week => iso_week_label(date),
            Period::Month => date.format("%Y-%m").to_string(),
        }
    }

    /// The summary file of the period holding `date`, relative to the data root:
    /// `summaries/day/2026-10-21.md`, `summaries/week/2026-W43.md`, `summaries/month/2026-10.md`.
    pub fn rel_path(self, date: NaiveDate) -> String {
        let dir = match self {
            Period::Day => "day",
            Period::Week => "week",
            Period::Month => "month",
        };
        format!("summaries/{dir}/{}.md", self.label(date))
    }
}

/// A generated summary.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// The period.
    pub period: Period,
    /// Its label (`2026-10-21`, `2026-W43`, `2026-10`).
    pub label: String,
    /// The whole file text.
    pub text: String,
    /// `原 N 条`: original entries represented.
    pub original: usize,
    /// `保留 M 行`: lines kept.
    pub kept: usize,
    /// Lines omitted for the budget.
    pub omitted: usize,
    /// The period's top tags, most frequent first (at most 3).
    pub top_tags: Vec<String>,
    /// `tag|YYYY-MM` pairs to add to the hot topics index (see `hot::add_topics`).
    pub topics: Vec<Topic>,
}

/// What one day contributes to a week or month.
#[derive(Debug, Clone, PartialEq)]
pub enum DaySource {
    /// The day's summary file, parsed with [`parse()`].
    Summary(ParsedSummary),
    /// The day's cold entries (when it has no day summary).
    Cold(Vec<Entry>),
}

/// The first sentence of `text` (see the module docs), at most 40 code points.
pub fn first_sentence(text: &str) -> String {
    let is_term = |c: char| matches!(c, '。' | '！' | '？' | '!' | '?' | '；' | ';' | '\n' | '\r');
    let t = text.trim_start_matches(|c: char| c.is_whitespace() || is_term(c));
    let chars: Vec<char> = t.chars().collect();
    let mut end = chars.len();
    for (i, &c) in chars.iter().enumerate() {
        if is_term(c) || (c == '.' && chars.get(i + 1).is_none_or(|n| n.is_whitespace())) {
            end = i;
            break;
        }
    }
    let sentence: String = chars[..end].iter().collect();
    let sentence = sentence.trim_end();
    let pick = if sentence.is_empty() { text.trim() } else { sentence };
    pick.chars().take(FIRST_SENTENCE_CHARS).collect()
}

/// One extracted item: a tag with the first sentences of its earliest and latest entries
/// and how many entries it stands for.
#[derive(Debug, Clone, PartialEq)]
struct Unit {
    date: NaiveDate,
    tag: String,
    first: String,
    last: String,
    count: usize,
}

impl Unit {
    fn of_entry(date: NaiveDate, e: &Entry) -> Unit {
        let s = first_sentence(&e.content);
        Unit { date, tag: e.tag.clone(), first: s.clone(), last: s, count: 1 }
    }

    fn of_line(date: NaiveDate, l: &SummaryLine) -> Unit {
        Unit { date, tag: l.tag.clone(), first: l.first.clone(), last: l.last.clone(), count: l.count }
    }

    /// `- [tag] first`, or `- [tag] first … last（N 条）` for N > 1.
    fn line(&self) -> String {
        if self.count <= 1 {
            format!("- [{}] {}", self.tag, self.first)
        } else {
            format!("- [{}] {} … {}（{} 条）", self.tag, self.first, self.last, self.count)
        }
    }
}

/// Units of one day in time order, and the original entry count they represent.
fn day_units(date: NaiveDate, src: &DaySource) -> (Vec<Unit>, usize) {
    match src {
        DaySource::Cold(entries) => {
            let mut sorted: Vec<&Entry> = entries.iter().collect();
            sorted.sort_by_key(|e| e.ts);
            (sorted.iter().map(|e| Unit::of_entry(date, e)).collect(), entries.len())
        }
        DaySource::Summary(p) => {
            let units: Vec<Unit> = p.lines.iter().map(|l| Unit::of_line(date, l)).collect();
            let sum: usize = units.iter().map(|u| u.count).sum();
            (units, p.original.unwrap_or(sum))
        }
    }
}

/// The summary of one local date from its cold entries (in any order; sorted by write
/// instant). `now` is the generation time written in the header.
pub fn build_day(date: NaiveDate, entries: &[Entry], now: DateTime<Utc>) -> Summary {
    let (units, original) = day_units(date, &DaySource::Cold(entries.to_vec()));
    let lines = units.iter().map(Unit::line).collect();
    let source = format!("冷层 {}", cold_rel(date));
    finish(Period::Day, date, String::new(), source, lines, original, &units, now)
}

/// The seven dates of the ISO week holding `date`, Monday first.
pub fn week_days(date: NaiveDate) -> Vec<NaiveDate> {
    let monday = monday_of(date);
    (0..7).map(|i| monday + Duration::days(i)).collect()
}

/// Which sources a month summary reads: the ISO weeks lying entirely in the month (read from
/// their week summary when it exists, else their days go to `loose_days`), and the other days
/// of the month, read one by one.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MonthPlan {
    /// Labels of the full weeks, in order (`2026-W41`).
    pub full_weeks: Vec<String>,
    /// Days of the month outside the full weeks, in order (`YYYY-MM-DD`).
    pub loose_days: Vec<String>,
}

/// The [`MonthPlan`] of the month holding `date`.
pub fn month_plan(date: NaiveDate) -> MonthPlan {
    let mut plan = MonthPlan { full_weeks: Vec::new(), loose_days: Vec::new() };
    for d in month_days(date) {
        let week = week_days(d);
        if week.iter().all(|w| w.month() == d.month() && w.year() == d.year()) {
            if d.weekday() == Weekday::Mon {
                plan.full_weeks.push(iso_week_label(d));
            }
        } else {
            plan.loose_days.push(d.format("%Y-%m-%d").to_string());
        }
    }
    plan
}

fn month_days(date: NaiveDate) -> Vec<NaiveDate> {
    let first = date.with_day(1).expect("day 1 exists");
    first.iter_days().take_while(|d| d.month() == first.month()).collect()
}

/// Reads an ISO week label `YYYY-Www` back to its Monday; error field `field`.
pub fn week_monday(label: &str, field: &str) -> Result<NaiveDate> {
    let bad = || Error::bad(field, format!("{label:?} is not an ISO week label like 2026-W43"));
    let (y, w) = label.split_once("-W").ok_or_else(bad)?;
    let (y, w): (i32, u32) = (y.parse().map_err(|_| bad())?, w.parse().map_err(|_| bad())?);
    NaiveDate::from_isoywd_opt(y, w, Weekday::Mon).ok_or_else(bad)
}

fn check_days(days: &[(NaiveDate, DaySource)], allowed: impl Fn(NaiveDate) -> bool, what: &str) -> Result<()> {
    for (i, (d, _)) in days.iter().enumerate() {
        if !allowed(*d) {
            return Err(Error::bad("days", format!("{d} is not a day of {what}")));
        }
        if days[..i].iter().any(|(e, _)| e == d) {
            return Err(Error::bad("days", format!("{d} is given twice")));
        }
    }
    Ok(())
}

fn source_line(weeks: &[String], days: &[(NaiveDate, DaySource)]) -> String {
    let list = |pred: fn(&DaySource) -> bool| {
        let mut ds: Vec<NaiveDate> = days.iter().filter(|(_, s)| pred(s)).map(|(d, _)| *d).collect();
        ds.sort();
        ds.iter().map(|d| d.format("%Y-%m-%d").to_string()).collect::<Vec<_>>().join("、")
    };
    let mut parts = Vec::new();
    if !weeks.is_empty() {
        parts.push(format!("周摘要 {}", weeks.join("、")));
    }
    let summaries = list(|s| matches!(s, DaySource::Summary(_)));
    if !summaries.is_empty() {
        parts.push(format!("日摘要 {summaries}"));
    }
    let cold = list(|s| matches!(s, DaySource::Cold(_)));
    if !cold.is_empty() {
        parts.push(format!("冷层 {cold}"));
    }
    if parts.is_empty() { "无".to_string() } else { parts.join("；") }
}

/// The summary of the ISO week holding `date`, from the sources of its days (each day at most
/// once, all inside the week; days without anything are simply absent). Errors (field `days`)
/// for a day outside the week or given twice.
pub fn build_week(date: NaiveDate, days: &[(NaiveDate, DaySource)], now: DateTime<Utc>) -> Result<Summary> {
    let week = week_days(date);
    check_days(days, |d| week.contains(&d), &iso_week_label(date))?;
    let mut sorted: Vec<&(NaiveDate, DaySource)> = days.iter().collect();
    sorted.sort_by_key(|(d, _)| *d);
    let mut units = Vec::new();
    let mut original = 0;
    for (d, src) in sorted {
        let (u, n) = day_units(*d, src);
        units.extend(u);
        original += n;
    }
    let mut groups: Vec<Unit> = Vec::new();
    for u in &units {
        match groups.iter_mut().find(|g| g.tag == u.tag) {
            Some(g) => {
                g.last = u.last.clone();
                g.count += u.count;
            }
            None => groups.push(u.clone()),
        }
    }
    let lines = groups.iter().map(Unit::line).collect();
    let suffix = format!("（{} 至 {}）", week[0].format("%Y-%m-%d"), week[6].format("%Y-%m-%d"));
    Ok(finish(Period::Week, date, suffix, source_line(&[], days), lines, original, &units, now))
}

/// The summary of the month holding `date`, from the week summaries of its full ISO weeks
/// (`(label, parsed)`, see [`month_plan`]) and the sources of the other days. Errors: field
/// `weeks` for a label that is not a full week of the month or is given twice; field `days`
/// for a day outside the month, inside a given week, or given twice.
pub fn build_month(
    date: NaiveDate,
    weeks: &[(String, ParsedSummary)],
    days: &[(NaiveDate, DaySource)],
    now: DateTime<Utc>,
) -> Result<Summary> {
    let plan = month_plan(date);
    let mut week_mondays = Vec::new();
    for (i, (label, _)) in weeks.iter().enumerate() {
        let monday = week_monday(label, "weeks")?;
        if !plan.full_weeks.contains(&iso_week_label(monday)) {
            return Err(Error::bad(
                "weeks",
                format!("{label} is not a full ISO week of {}", Period::Month.label(date)),
            ));
        }
        if weeks[..i].iter().any(|(l, _)| l == label) {
            return Err(Error::bad("weeks", format!("{label} is given twice")));
        }
        week_mondays.push(monday);
    }
    let in_month = |d: NaiveDate| d.year() == date.year() && d.month() == date.month();
    let in_given_week = |d: NaiveDate| week_mondays.contains(&monday_of(d));
    check_days(
        days,
        |d| in_month(d) && !in_given_week(d),
        &format!("{} outside the given weeks", Period::Month.label(date)),
    )?;

    let mut dated: Vec<(NaiveDate, Vec<Unit>, usize)> = Vec::new();
    for ((_, p), monday) in weeks.iter().zip(&week_mondays) {
        let units: Vec<Unit> = p.lines.iter().map(|l| Unit::of_line(*monday, l)).collect();
        let sum = units.iter().map(|u| u.count).sum();
        dated.push((*monday, units, p.original.unwrap_or(sum)));
    }
    for (d, src) in days {
        let (u, n) = day_units(*d, src);
        dated.push((*d, u, n));
    }
    dated.sort_by_key(|(d, _, _)| *d);
    let original = dated.iter().map(|(_, _, n)| n).sum();
    let units: Vec<Unit> = dated.into_iter().flat_map(|(_, u, _)| u).collect();

    let mut lines: Vec<String> = units.iter().filter(|u| KEEP_TAGS.contains(&u.tag.as_str())).map(Unit::line).collect();
    let mut counts: Vec<(String, usize)> = Vec::new();
    for u in units.iter().filter(|u| !KEEP_TAGS.contains(&u.tag.as_str())) {
        match counts.iter_mut().find(|(t, _)| *t == u.tag) {
            Some((_, n)) => *n += u.count,
            None => counts.push((u.tag.clone(), u.count)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1)); // stable: ties keep first appearance
    lines.extend(counts.iter().map(|(t, n)| format!("- [{t}] 共 {n} 条")));
    let labels: Vec<String> = weeks.iter().map(|(l, _)| l.clone()).collect();
    Ok(finish(Period::Month, date, String::new(), source_line(&labels, days), lines, original, &units, now))
}

/// Tags the engine itself writes (layer moves, session log): bookkeeping, not topics.
pub const SYSTEM_TAGS: &[&str] = &["-", "hot-evict", "candidate-expired", "session"];

/// Top tags (by entry count, [`SYSTEM_TAGS`] excluded, ties by first appearance) and their
/// months.
fn top_tags(units: &[Unit]) -> (Vec<String>, Vec<Topic>) {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for u in units.iter().filter(|u| !SYSTEM_TAGS.contains(&u.tag.as_str())) {
        match counts.iter_mut().find(|(t, _)| *t == u.tag) {
            Some((_, n)) => *n += u.count,
            None => counts.push((u.tag.clone(), u.count)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    counts.truncate(TOP_TAGS);
    let tags: Vec<String> = counts.into_iter().map(|(t, _)| t).collect();
    let mut topics = Vec::new();
    for t in &tags {
        let mut months: Vec<String> =
            units.iter().filter(|u| &u.tag == t).map(|u| u.date.format("%Y-%m").to_string()).collect();
        months.sort();
        months.dedup();
        topics.extend(months.iter().filter_map(|m| Topic::new(t, m).ok()));
    }
    (tags, topics)
}

#[allow(clippy::too_many_arguments)]
fn finish(
    period: Period,
    date: NaiveDate,
    title_suffix: String,
    source: String,
    lines: Vec<String>,
    original: usize,
    units: &[Unit],
    now: DateTime<Utc>,
) -> Summary {
    let label = period.label(date);
    let (kept, omitted) = render::apply_budget(lines, period.budget());
    let text = render::render(period, &label, &title_suffix, &source, &kept, omitted, original, now);
    let (top_tags, topics) = top_tags(units);
    Summary { period, label, text, original, kept: kept.len(), omitted, top_tags, topics }
}

#[cfg(test)]
mod tests;

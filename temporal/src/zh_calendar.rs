//! Chinese calendar expressions (docs/time-expressions.md): years (`YYYY年`, 今年 去年 前年), months
//! (`M月`, `YYYY年M月`, 本月 上个月 上上个月, 今年M月 …), days (`M月D日/号`, `YYYY年M月D日`,
//! 上个月D号 …), parts of months (月初 月中 月底 月末 上旬 中旬 下旬) and of years (年初 年底 年末
//! 上半年 下半年), and quarters (Q1…Q4, 第一季度…, 一季度…, 本季度, 上季度).
//!
//! A form that names no year is past-preferring ([`Ctx::yearless`]); inside a range end it takes
//! the year of the range start.

use chrono::Datelike;

use super::Grain;
use super::calendar::{DateSpan, Third, YearPart, add_days, quarter_of, shift_months, shift_ym};
use super::hit::{Ctx, Head, Kind, Out};
use super::numbers::{bounded, digits, year4};
use super::text::Text;
use super::zh_relative::{SAME_DAY, weekday_after};
use super::{holiday, range};

/// Relative year words and their offset from this year.
/// 明年 is a plan (next year, looking forward).
const YEAR_WORDS: &[(&str, i32)] = &[("今年", 0), ("去年", -1), ("前年", -2), ("大前年", -3), ("明年", 1)];

/// Relative month words and their offset from this month.
const MONTH_WORDS: &[(&str, i64)] = &[
    ("本月", 0),
    ("这个月", 0),
    ("这月", 0),
    ("上个月", -1),
    ("上月", -1),
    ("上一个月", -1),
    ("上上个月", -2),
    ("上上月", -2),
    ("下个月", 1),
    ("下月", 1),
    ("下一个月", 1),
];

/// Suffixes naming a third of a month, after a month (`上个月底`, `3月上旬`) or bare.
const THIRDS: &[(&str, Third)] = &[
    ("初", Third::Early),
    ("中", Third::Mid),
    ("底", Third::Late),
    ("末", Third::Late),
    ("上旬", Third::Early),
    ("中旬", Third::Mid),
    ("下旬", Third::Late),
];

/// Suffixes naming a part of a year, after a year (`去年底`, `去年年底`, `2025年上半年`).
const YEAR_PARTS: &[(&str, YearPart)] = &[
    ("初", YearPart::Start),
    ("年初", YearPart::Start),
    ("底", YearPart::End),
    ("末", YearPart::End),
    ("年底", YearPart::End),
    ("年末", YearPart::End),
    ("上半年", YearPart::FirstHalf),
    ("下半年", YearPart::SecondHalf),
];

/// `YYYY年`, 今年 去年 前年 大前年, and what may follow them: nothing (the year), `M月…`, a part
/// of the year, a quarter.
pub(crate) fn years(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    let mut anchors = Vec::new();
    if let Some((y, j)) = year4(t, i)
        && let Some(k) = t.opt_spaces(j).and_then(|j| t.lit(j, "年"))
    {
        anchors.push((y, k, Head::Numeric));
    }
    for &(w, off) in YEAR_WORDS {
        if let Some(j) = t.lit(i, w) {
            anchors.push((cx.today.year() + off, j, Head::Word));
        }
    }
    for (y, j, head) in anchors {
        out.push(j, DateSpan::year(y), Grain::Year, head, Kind::Calendar);
        if head == Head::Numeric && t.has(j, "度") {
            out.push(j + 1, DateSpan::year(y), Grain::Year, head, Kind::Calendar);
        }
        // 去年3月, 去年的3月, 2025 年 3 月.
        let jm = t.lit(j, "的").or_else(|| t.opt_spaces(j)).unwrap_or(j);
        if let Some((m, k)) = bounded(t, jm, 1, 12)
            && let Some(e) = t.opt_spaces(k).and_then(|k| t.lit(k, "月"))
        {
            month_tail(out, cx, Some(y), m, e, head);
        }
        // 去年的今天 去年今天: [D-1y, D-1y+1), Feb 29 → Feb 28.
        let jd = t.lit(j, "的").unwrap_or(j);
        if let Some(e) = SAME_DAY.iter().find_map(|w| t.lit(jd, w)) {
            let span = shift_months(cx.today, 12 * i64::from(y - cx.today.year())).and_then(DateSpan::day);
            out.push_day(e, span, head, Kind::Relative);
        }
        holiday::after_year(out, y, j, head);
        for &(s, part) in YEAR_PARTS {
            if let Some(e) = t.lit(j, s) {
                out.push(e, DateSpan::year_part(y, part), Grain::Range, head, Kind::Calendar);
            }
        }
        if let Some((q, e)) = quarter_word(out, j) {
            out.push(e, DateSpan::quarter(y, q), Grain::Quarter, head, Kind::Calendar);
        }
    }
}

/// 本月 这个月 上个月 上上个月 … and bare `M月`, with what may follow a month.
pub(crate) fn months(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    for &(w, off) in MONTH_WORDS {
        if let Some(j) = t.lit(i, w)
            && let Some((y, m)) = shift_ym(cx.today.year(), cx.today.month(), off)
        {
            month_tail(out, cx, Some(y), m, j, Head::Word);
            // 上个月的今天: the same day of month, clamped to the month's length.
            let k = t.lit(j, "的").unwrap_or(j);
            if let Some(e) = SAME_DAY.iter().find_map(|w| t.lit(k, w)) {
                out.push_day(e, shift_months(cx.today, off).and_then(DateSpan::day), Head::Word, Kind::Relative);
            }
        }
    }
    if let Some((m, k)) = bounded(t, i, 1, 12)
        && let Some(e) = t.opt_spaces(k).and_then(|k| t.lit(k, "月"))
    {
        month_tail(out, cx, None, m, e, Head::Numeric);
    }
}

/// After a month ending at `j` (year `y`, or `None` when no year was named): the month itself
/// (optionally `份`), a day `D日`/`D号` (with an optional part of day), a third of the month, or
/// a day range `D-D日` (`10月1-7日`).
fn month_tail(out: &mut Out, cx: &Ctx, y: Option<i32>, m: u32, j: usize, head: Head) {
    let t = out.t;
    let resolve = |f: &dyn Fn(i32) -> Option<DateSpan>| match y {
        Some(y) => f(y),
        None => cx.yearless(f),
    };
    out.push(j, resolve(&|y| DateSpan::month(y, m)), Grain::Month, head, Kind::Month);
    if let Some(e) = t.lit(j, "份") {
        out.push(e, resolve(&|y| DateSpan::month(y, m)), Grain::Month, head, Kind::Month);
    }
    // 第N周 / 第N个星期 / 最后一周 of the month (the Monday-weeks in order, the first
    // holding the month's 1st).
    let jw = t.lit(j, "的").unwrap_or(j);
    if let Some((n, e)) = week_of_month(t, jw) {
        let span = resolve(&|y| {
            let month = DateSpan::month(y, m)?;
            let first = crate::days::monday_of(month.start);
            let start = match n {
                0 => crate::days::monday_of(month.end.pred_opt()?),
                n => add_days(first, 7 * (i64::from(n) - 1))?,
            };
            (start < month.end).then(|| DateSpan::offsets(start, 0, 7)).flatten()
        });
        out.push(e, span, Grain::Week, head, Kind::Calendar);
    }
    let jd = t.lit(j, "的").or_else(|| t.opt_spaces(j)).unwrap_or(j);
    if let Some((d, k)) = bounded(t, jd, 1, 31) {
        for e in ["日", "号"].into_iter().filter_map(|s| t.opt_spaces(k).and_then(|k| t.lit(k, s))) {
            out.push_day(e, resolve(&|y| DateSpan::ymd(y, m, d)), head, Kind::Date);
            // 12月2日（周三）, 12月2日 星期三: the weekday says which year's date is meant.
            if let Some((wd, e2)) = weekday_note(t, e) {
                let span = match y {
                    None if cx.after.is_none() => {
                        by_weekday(cx, m, d, wd).or_else(|| resolve(&|y| DateSpan::ymd(y, m, d)))
                    }
                    _ => resolve(&|y| DateSpan::ymd(y, m, d)),
                };
                out.push_day(e2, span, head, Kind::Date);
            }
        }
        if let Some(k2) = range::zh_connector(t, k)
            && let Some((d2, k3)) = bounded(t, k2, 1, 31)
        {
            for e in ["日", "号"].into_iter().filter_map(|s| t.lit(k3, s)) {
                let span = resolve(&|y| DateSpan::new(DateSpan::ymd(y, m, d)?.start, DateSpan::ymd(y, m, d2)?.end));
                out.push(e, span, Grain::Range, head, Kind::Range);
            }
        }
    }
    for &(s, part) in THIRDS {
        if let Some(e) = t.lit(j, s) {
            out.push(e, resolve(&|y| DateSpan::third(y, m, part)), Grain::Range, head, Kind::Calendar);
        }
    }
}

/// A weekday written after a date, `（周三）`, `(星期三)` or ` 周三` at `i`: (0 = Monday, end).
fn weekday_note(t: &Text, i: usize) -> Option<(u32, usize)> {
    let j = t.opt_spaces(i)?;
    match ["（", "("].iter().find_map(|p| t.lit(j, p)) {
        Some(k) => {
            let (wd, e) = weekday_after(t, t.opt_spaces(k)?)?;
            let e = t.opt_spaces(e)?;
            ["）", ")"].iter().find_map(|p| t.lit(e, p)).map(|e| (wd, e))
        }
        None => weekday_after(t, j),
    }
}

/// Month `m`, day `d` with no year, written with weekday `wd` (0 = Monday): the latest
/// occurrence on or before today when it falls on that weekday (past-preferring, as a date
/// alone), else the next one after today when that one does (a plan: `12月2日（周三）开会`
/// written on 2026-11-23 names Wednesday 2026-12-02, not Tuesday 2025-12-02); `None` when
/// neither does (the caller then reads the date alone).
fn by_weekday(cx: &Ctx, m: u32, d: u32, wd: u32) -> Option<DateSpan> {
    let on_wd = |s: &DateSpan| s.start.weekday().num_days_from_monday() == wd;
    let past = cx.yearless(|y| DateSpan::ymd(y, m, d)).filter(on_wd);
    past.or_else(|| {
        (cx.today.year()..=cx.today.year() + 1)
            .filter_map(|y| DateSpan::ymd(y, m, d))
            .find(|s| s.start > cx.today)
            .filter(on_wd)
    })
}

/// `第N周` `第N个星期` `第N个礼拜` (N = 1..=6) or `最后一周` at `i`: (N, 0 for the last, end).
fn week_of_month(t: &Text, i: usize) -> Option<(u32, usize)> {
    let units = ["周", "个星期", "星期", "个礼拜", "礼拜"];
    if let Some(j) = t.lit(i, "最后一").or_else(|| t.lit(i, "最后")) {
        return units.iter().find_map(|u| t.lit(j, u)).map(|e| (0, e));
    }
    let (n, k) = bounded(t, t.lit(i, "第")?, 1, 6)?;
    units.iter().find_map(|u| t.lit(k, u)).map(|e| (n, e))
}

/// Bare N号 / N日 (N = 1..=31): the latest day N on or before today; months without
/// day N are skipped (on Mar 1, `30号` is Jan 30). `N日` with a Chinese numeral needs N > 10.
pub(crate) fn bare_day(out: &mut Out, i: usize, cx: &Ctx) {
    if cx.after.is_some() {
        return;
    }
    let t = out.t;
    let Some((d, k)) = bounded(t, i, 1, 31) else { return };
    let Some(k) = t.opt_spaces(k) else { return };
    // With a Chinese numeral below 11, only 号: 一日 三日 十日 are also "one day", "three days",
    // "ten days" (一日三餐, 十日谈); 二十一日 is the 21st.
    let arabic = t.at(i).is_some_and(|c| c.is_ascii_digit());
    let units: &[&str] = if arabic || d > 10 { &["日", "号"] } else { &["号"] };
    for e in units.iter().filter_map(|s| t.lit(k, s)) {
        let span = (0..4).find_map(|back| {
            let (y, m) = shift_ym(cx.today.year(), cx.today.month(), -back)?;
            DateSpan::ymd(y, m, d).filter(|s| s.start <= cx.today)
        });
        out.push_day(e, span.map(DateSpan::guessed), Head::Numeric, Kind::Date);
    }
}

/// Bare 月初 月中 月底 月末 上旬 中旬 下旬 (this month's if it starts on or before today, else
/// last month's), bare 年初 年底 年末 上半年 下半年 (past-preferring year).
pub(crate) fn bare_parts(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    let month_thirds = [
        ("月初", Third::Early),
        ("月中", Third::Mid),
        ("月底", Third::Late),
        ("月末", Third::Late),
        ("上旬", Third::Early),
        ("中旬", Third::Mid),
        ("下旬", Third::Late),
    ];
    for (s, part) in month_thirds {
        if let Some(e) = t.lit(i, s) {
            let span = cx.monthless(true, |y, m| DateSpan::third(y, m, part));
            out.push(e, span, Grain::Range, Head::Headless, Kind::Calendar);
        }
    }
    for &(s, part) in YEAR_PARTS.iter().filter(|(s, _)| s.chars().count() >= 2) {
        if let Some(e) = t.lit(i, s) {
            out.push(e, cx.yearless(|y| DateSpan::year_part(y, part)), Grain::Range, Head::Headless, Kind::Calendar);
        }
    }
}

/// A quarter named at `i`: `Q1`…`Q4` (`q` after folding), `第一季度`, `一季度`, `第3季度`.
/// Returns (quarter, end).
fn quarter_word(out: &Out, i: usize) -> Option<(u32, usize)> {
    let t = out.t;
    if let Some(j) = t.lit(i, "q") {
        let (q, e) = digits(t, j, 1).filter(|&(q, _)| (1..=4).contains(&q))?;
        return Some((q, e));
    }
    let j = t.lit(i, "第").unwrap_or(i);
    let (q, k) = bounded(t, j, 1, 4)?;
    Some((q, t.lit(k, "季度")?))
}

/// Relative quarter words and their offset in quarters.
const QUARTER_WORDS: &[(&str, i64)] = &[
    ("本季度", 0),
    ("这个季度", 0),
    ("这季度", 0),
    ("本季", 0),
    ("上季度", -1),
    ("上个季度", -1),
    ("上一季度", -1),
    ("上季", -1),
];

/// Bare quarters (past-preferring year), `Q3 2025`, `2025Q3` / `2025 Q3`, 本季度, 上季度.
pub(crate) fn quarters(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    if let Some((q, e)) = quarter_word(out, i) {
        let head = if t.has(i, "q") { Head::Latin } else { Head::Numeric };
        out.push(e, cx.yearless(|y| DateSpan::quarter(y, q)), Grain::Quarter, head, Kind::Calendar);
        if head == Head::Latin
            && let Some((y, e2)) =
                t.spaces(e).and_then(|k| year4(t, k)).filter(|&(_, k)| t.at(k - 1).is_some_and(|c| c.is_ascii_digit()))
        {
            out.push(e2, DateSpan::quarter(y, q), Grain::Quarter, head, Kind::Calendar);
        }
    }
    if let Some((y, j)) = year4(t, i).filter(|&(_, j)| t.at(j - 1).is_some_and(|c| c.is_ascii_digit()))
        && let Some(k) = t.opt_spaces(j)
        && t.has(k, "q")
        && let Some((q, e)) = quarter_word(out, k)
    {
        out.push(e, DateSpan::quarter(y, q), Grain::Quarter, Head::Numeric, Kind::Calendar);
    }
    for &(w, off) in QUARTER_WORDS {
        if let Some(e) = t.lit(i, w) {
            let first = quarter_of(cx.today) * 3 - 2;
            let span = shift_ym(cx.today.year(), first, 3 * off).and_then(|(y, m)| DateSpan::months(y, m, 3));
            out.push(e, span, Grain::Quarter, Head::Word, Kind::Calendar);
        }
    }
}

/// Only as a range end after a date: a bare day of that date's month (`10月1日至7日`).
pub(crate) fn range_end_day(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    if cx.after.is_none() {
        return;
    }
    if let Some((d, k)) = bounded(t, i, 1, 31) {
        for e in ["日", "号"].into_iter().filter_map(|s| t.lit(k, s)) {
            out.push_day(e, cx.monthless(false, |y, m| DateSpan::ymd(y, m, d)), Head::Numeric, Kind::Date);
        }
    }
}

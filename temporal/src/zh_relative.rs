//! Chinese expressions relative to today (docs/time-expressions.md, today = D, `mon` = Monday of D's week):
//! day words (今天 昨天 前天 大前天 明天 后天, 今晚 昨晚 昨夜 前晚, 刚才), `N天前` / `N周前` /
//! `N个月前` / `N年前`, week words (本周 上周 上上周 and their weekdays and weekends), bare
//! weekdays and 周末, rolling windows (最近N天 …) and the fuzzy rows (这两天 这几天 前几天 最近 近来).

use chrono::Datelike;

use super::Grain;
use super::calendar::{DateSpan, add_days, shift_months};
use super::hit::{Ctx, Head, Kind, Out, Unit};
use super::numbers::{count, is_numeral};
use super::text::is_cjk;

/// Day words: (text, days from today, trailing chars that name the part of day).
const DAY_WORDS: &[(&str, i64, usize)] = &[
    ("大前天", -3, 0),
    ("前天", -2, 0),
    ("昨天", -1, 0),
    ("昨日", -1, 0),
    ("今天", 0, 0),
    ("今日", 0, 0),
    ("明天", 1, 0),
    ("明日", 1, 0),
    ("后天", 2, 0),
    ("大后天", 3, 0),
    ("今早", 0, 1),
    ("今早上", 0, 2),
    ("今晨", 0, 1),
    ("今晚", 0, 1),
    ("今晚上", 0, 2),
    ("今夜", 0, 1),
    ("昨晚", -1, 1),
    ("昨晚上", -1, 2),
    ("昨夜", -1, 1),
    ("昨夜里", -1, 2),
    ("前晚", -2, 1),
    ("明早", 1, 1),
    ("明晚", 1, 1),
];

/// 今天 昨天 … (with an optional part of day), 今晚 昨夜 …, 刚才 刚刚.
pub(crate) fn day_words(out: &mut Out, i: usize, cx: &Ctx) {
    for &(w, off, pod) in DAY_WORDS {
        if let Some(end) = out.t.lit(i, w) {
            if pod == 0 {
                out.push_day(end, cx.day(off), Head::Word, Kind::Relative);
            } else {
                out.push_day_with_pod(end, cx.day(off), (end - pod, end), Head::Word);
            }
        }
    }
    for w in ["刚才", "刚刚"] {
        if let Some(end) = out.t.lit(i, w) {
            out.push(end, cx.day(0), Grain::Day, Head::Word, Kind::Relative);
        }
    }
}

/// Units after a count in `N…前` and `最近N…`. Months need 个 (`3月前` is "before March").
const UNITS: &[(&str, Unit)] = &[
    ("天", Unit::Day),
    ("日", Unit::Day),
    ("周", Unit::Week),
    ("个星期", Unit::Week),
    ("星期", Unit::Week),
    ("个礼拜", Unit::Week),
    ("礼拜", Unit::Week),
    ("个月", Unit::Month),
    ("年", Unit::Year),
];

/// `N天前` `N日前` (day D-N), `N周前` `N个星期前` (the Monday-week holding D-7N), `N个月前`
/// (the calendar month N back), `N年前` (the calendar year N back); 前 may be 以前 / 之前.
/// Also `几天前` (fuzzy, like 前几天).
pub(crate) fn ago(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    let agos = |k: usize| ["前", "以前", "之前"].into_iter().filter_map(move |s| t.lit(k, s));
    if let Some(k) = t.lit(i, "几天") {
        for e in agos(k) {
            out.push_fuzzy(e, DateSpan::offsets(cx.today, -7, 0), Grain::Range, Head::Numeric);
        }
        return;
    }
    let Some((n, j)) = count(t, i) else { return };
    let Some(j) = t.opt_spaces(j) else { return };
    for &(u, unit) in UNITS {
        let Some(k) = t.lit(j, u).and_then(|k| t.opt_spaces(k)) else { continue };
        for e in agos(k) {
            // 一年前的今天, 三个月前的今天: the same day N units back (clamped like 去年的今天).
            if let Some(f) = SAME_DAY.iter().find_map(|w| t.lit(t.lit(e, "的").unwrap_or(e), w)) {
                let back = i64::from(n);
                let day = match unit {
                    Unit::Day => add_days(cx.today, -back),
                    Unit::Week => add_days(cx.today, -7 * back),
                    Unit::Month => shift_months(cx.today, -back),
                    Unit::Year => shift_months(cx.today, -12 * back),
                };
                out.push_day(f, day.and_then(DateSpan::day), Head::Numeric, Kind::Relative);
            }
            // 的, then an optional 那个 / 那: where a weekday or weekend of that week follows.
            let de = t.lit(e, "的").unwrap_or(e);
            let that = t.lit(de, "那个").or_else(|| t.lit(de, "那")).unwrap_or(de);
            match unit {
                Unit::Day => out.push_day(e, cx.ago(unit, n), Head::Numeric, Kind::Relative),
                Unit::Week => {
                    push_with_pod(out, e, cx.ago(unit, n), unit);
                    // 三周前的周二, 三周前的那个周末: that weekday (weekend) in the week of N周前.
                    if let Some(week) = cx.ago(unit, n) {
                        if let Some((wd, w_end)) = weekday_after(t, that) {
                            let span = DateSpan::offsets(week.start, i64::from(wd), i64::from(wd) + 1);
                            out.push_day(w_end, span, Head::Numeric, Kind::Weekday);
                        }
                        if let Some(w_end) = t.lit(that, "周末") {
                            let span = DateSpan::offsets(week.start, 5, 7);
                            out.push(w_end, span, Grain::Range, Head::Numeric, Kind::Relative);
                        }
                    }
                }
                Unit::Month => {
                    push_with_pod(out, e, cx.ago(unit, n), unit);
                    // 两个月前的周三, 一个月前的那个周末: the weekday (weekend) of the Monday-week
                    // holding shift(D, -N months), fuzzy ±3 days: a month back is not a week.
                    let mon = shift_months(cx.today, -i64::from(n)).map(crate::days::monday_of);
                    if let Some(mon) = mon {
                        if let Some((wd, w_end)) = weekday_after(t, that) {
                            let span = DateSpan::offsets(mon, i64::from(wd) - 3, i64::from(wd) + 4);
                            out.push_fuzzy(w_end, span, Grain::Range, Head::Numeric);
                        }
                        if let Some(w_end) = t.lit(that, "周末") {
                            out.push_fuzzy(w_end, DateSpan::offsets(mon, 2, 10), Grain::Range, Head::Numeric);
                        }
                    }
                }
                Unit::Year => out.push(e, cx.ago(unit, n), unit.grain(), Head::Numeric, Kind::Relative),
            }
        }
    }
}

/// The window of `N周前` / `N个月前` ending at `e`, and one reading per part of day after it
/// (`两周前的晚上`: the window of two weeks ago, part of day 晚上).
fn push_with_pod(out: &mut Out, e: usize, span: Option<DateSpan>, unit: Unit) {
    out.push(e, span, unit.grain(), Head::Numeric, Kind::Relative);
    for pod in super::part_of_day::after(out.t, e, false) {
        let n = out.hits.len();
        out.push(pod.1, span, unit.grain(), Head::Numeric, Kind::Relative);
        out.hits[n..].iter_mut().for_each(|h| h.pod = Some(pod));
    }
}

/// A weekday word at `i` (`周二`, `星期二`, `礼拜天`): (0 = Monday, end).
pub(crate) fn weekday_after(t: &super::text::Text, i: usize) -> Option<(u32, usize)> {
    ["周", "星期", "礼拜"].iter().find_map(|w| {
        let j = t.lit(i, w)?;
        Some((t.at(j).and_then(weekday_char)?, j + 1))
    })
}

/// Week words and how many weeks back they are.
const WEEK_WORDS: &[(&str, i64)] = &[
    ("本周", 0),
    ("这周", 0),
    ("这个周", 0),
    ("这一周", 0),
    ("本星期", 0),
    ("这星期", 0),
    ("这个星期", 0),
    ("这礼拜", 0),
    ("这个礼拜", 0),
    ("本礼拜", 0),
    ("上周", 1),
    ("上个周", 1),
    ("上一周", 1),
    ("上星期", 1),
    ("上个星期", 1),
    ("上一个星期", 1),
    ("上礼拜", 1),
    ("上个礼拜", 1),
    ("上上周", 2),
    ("上上个周", 2),
    ("上上星期", 2),
    ("上上个星期", 2),
    ("上上礼拜", 2),
    ("上上个礼拜", 2),
    ("下周", -1),
    ("下个周", -1),
    ("下一周", -1),
    ("下星期", -1),
    ("下个星期", -1),
    ("下一个星期", -1),
    ("下礼拜", -1),
    ("下个礼拜", -1),
];

/// Weekday index (0 = Monday) of the char after 周 / 星期 / 礼拜; 日 and 天 are Sunday.
pub(crate) fn weekday_char(c: char) -> Option<u32> {
    Some(match c {
        '一' => 0,
        '二' => 1,
        '三' => 2,
        '四' => 3,
        '五' => 4,
        '六' => 5,
        '日' | '天' => 6,
        _ => return None,
    })
}

/// 本周 这周 … `[mon, mon+7)`, 上周 … `[mon-7, mon)`, 上上周 … `[mon-14, mon-7)`; followed by a
/// weekday (上周三: that weekday of that week) or 末 (这周末 `[mon+5, mon+7)`, 上周末
/// `[mon-2, mon)`).
pub(crate) fn weeks(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    for &(w, back) in WEEK_WORDS {
        let Some(j) = t.lit(i, w) else { continue };
        let Some(mon) = add_days(cx.mon, -7 * back) else { continue };
        out.push(j, DateSpan::offsets(mon, 0, 7), Grain::Week, Head::Word, Kind::Relative);
        if let Some(wd) = t.at(j).and_then(weekday_char) {
            out.push_day(j + 1, DateSpan::offsets(mon, i64::from(wd), i64::from(wd) + 1), Head::Word, Kind::Weekday);
        }
        // 上周的周三, 上周的今天 / 上周今天 ([D-7, D-6)).
        let k = t.lit(j, "的").unwrap_or(j);
        if let Some((wd, e)) = weekday_after(t, k).filter(|_| k > j) {
            out.push_day(e, DateSpan::offsets(mon, i64::from(wd), i64::from(wd) + 1), Head::Word, Kind::Weekday);
        }
        if let Some(e) = SAME_DAY.iter().find_map(|w| t.lit(k, w)) {
            out.push_day(e, cx.day(-7 * back), Head::Word, Kind::Relative);
        }
        if t.has(j, "末") {
            out.push(j + 1, DateSpan::offsets(mon, 5, 7), Grain::Range, Head::Word, Kind::Relative);
        }
    }
}

/// "This very day" after a week, month or year word (上周的今天, 去年的今天).
pub(crate) const SAME_DAY: [&str; 4] = ["今天", "今日", "这一天", "这天"];

/// Bare 周X 星期X 礼拜X: the latest such weekday on or before today; bare 周末: the latest
/// Saturday–Sunday weekend starting on or before today, `[Sat, Mon)`.
pub(crate) fn bare_weekday(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    for w in ["周", "星期", "礼拜"] {
        if let Some(j) = t.lit(i, w)
            && let Some(wd) = t.at(j).and_then(weekday_char)
        {
            out.push_day(j + 1, cx.bare_weekday(wd), Head::Headless, Kind::Weekday);
        }
    }
    if let Some(j) = t.lit(i, "周末")
        && cx.after.is_none()
    {
        let from_mon = if cx.today.weekday().num_days_from_monday() >= 5 { 5 } else { -2 };
        let span = DateSpan::offsets(cx.mon, from_mon, from_mon + 2).map(DateSpan::guessed);
        out.push(j, span, Grain::Range, Head::Headless, Kind::Relative);
    }
}

/// Prefixes of rolling windows, and whether they take every unit (这 takes days only: 这3天).
const ROLLING: &[(&str, bool)] = &[("最近这", false), ("最近", true), ("近", true), ("过去", true), ("这", false)];

/// 最近N天 近N天 过去N天 这N天 `[D-(N-1), D+1)`; 最近N周 `[D-(7N-1), D+1)`; 最近N个月
/// `[shift(D, -N months)+1, D+1)`; 最近N年 likewise with years. Fuzzy: 这两天 这几天 这些天
/// `[D-2, D+1)`; 最近几天 近几天 过去几天 `[D-6, D+1)` (as 最近 alone).
pub(crate) fn rolling(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    for &(p, all_units) in ROLLING {
        let Some(j) = t.lit(i, p) else { continue };
        let these = p.ends_with('这');
        if let Some(e) = t.lit(j, "几天") {
            let back = if these { -2 } else { -6 };
            out.push_fuzzy(e, DateSpan::offsets(cx.today, back, 1), Grain::Rolling, Head::Word);
        }
        if these && let Some(e) = t.lit(j, "两天").or_else(|| t.lit(j, "些天")) {
            out.push_fuzzy(e, DateSpan::offsets(cx.today, -2, 1), Grain::Rolling, Head::Word);
            continue;
        }
        let Some(j) = t.opt_spaces(j) else { continue };
        {
            // 最近半年 近半年 过去半年 这半年: [shift(D, -6 months)+1, D+1); 最近半个月: [D-14, D+1).
            if let Some(e) = t.lit(j, "半年") {
                out.push(e, cx.last_n(Unit::Month, 6), Grain::Rolling, Head::Word, Kind::Relative);
            }
            if let Some(e) = t.lit(j, "半个月") {
                out.push(e, DateSpan::offsets(cx.today, -14, 1), Grain::Rolling, Head::Word, Kind::Relative);
            }
        }
        let Some((n, k)) = count(t, j) else { continue };
        let Some(k) = t.opt_spaces(k) else { continue };
        for &(u, unit) in UNITS {
            if let Some(e) = t.lit(k, u)
                && (all_units || unit == Unit::Day)
            {
                out.push(e, cx.last_n(unit, n), Grain::Rolling, Head::Word, Kind::Relative);
            }
        }
    }
}

/// How far back the "离…最近" (nearest to …) check looks, in chars.
const NEAR_LOOKBACK: usize = 8;

/// 前几天 前些天 前两天 `[D-7, D)`; 最近 近来 alone `[D-6, D+1)` — all fuzzy (这些天 is with the rolling forms).
/// 最近 is "recently" only when no count follows (最近一次 is "the most recent time") and no
/// 离/距 precedes it in the same clause (离公司最近的 is "nearest to the office").
pub(crate) fn fuzzy(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    // 前两天 (a couple of days ago) is read as 前几天, like "a couple of days ago".
    for w in ["前几天", "前些天", "前两天"] {
        if let Some(e) = t.lit(i, w) {
            out.push_fuzzy(e, DateSpan::offsets(cx.today, -7, 0), Grain::Range, Head::Word);
        }
    }
    if let Some(e) = t.lit(i, "近来") {
        out.push_fuzzy(e, DateSpan::offsets(cx.today, -6, 1), Grain::Rolling, Head::Word);
    }
    if let Some(e) = t.lit(i, "最近") {
        let counted = t.at(e).is_some_and(|c| is_numeral(c) || "几些个".contains(c));
        let near = (1..=NEAR_LOOKBACK.min(i))
            .map(|k| t.at(i - k).unwrap_or(' '))
            .take_while(|&c| is_cjk(c))
            .any(|c| c == '离' || c == '距');
        if !counted && !near {
            out.push_fuzzy(e, DateSpan::offsets(cx.today, -6, 1), Grain::Rolling, Head::Word);
        }
    }
}

//! Holidays: fixed-date holidays (元旦 … 圣诞, and their English
//! names), Chinese lunar holidays (除夕 春节 元宵 端午 七夕 中秋 重阳), solar terms (清明 冬至),
//! with a year in front (今年 去年 前年 明年 `YYYY年`, `Christmas 2025`), a holiday period after
//! them (假期 期间 长假 黄金周 …) or 前后 (fuzzy `[day-3, day+4)`).
//!
//! Every holiday is one row of [`HOLIDAYS`]: its names and how its day is found. The matcher
//! reads the table; adding a holiday is adding a row.
//!
//! Without a year a holiday is past-preferring: the latest occurrence whose window starts on or
//! before today (a question asks about the past).

use chrono::{Datelike, NaiveDate};

use super::Grain;
use super::calendar::{DateSpan, add_days, weekday_in};
use super::english::lead;
use super::hit::{Ctx, Head, Kind, Out};
use super::lunar::{self, Term};
use super::text::Text;

/// How a holiday's day is found in a Gregorian year.
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// Month and day.
    Fixed(u32, u32),
    /// Lunar month and day of the lunar year that begins in this Gregorian year.
    Lunar(u32, u32),
    /// The day before lunar new year (除夕).
    LunarEve,
    /// A solar term.
    Term(Term),
    /// The `n`-th weekday `wd` (0 = Monday) of a month: (month, n, wd).
    NthWeekday(u32, u32, u32),
}

/// A holiday period after the name (`国庆假期`): the window `[day+from, day+to)`, in days from
/// the holiday's day.
/// Spec: 国庆 `[Oct 1, Oct 8)`, 春节 `[除夕, 除夕+7)`, 五一 `[May 1, May 6)`, others the day.
#[derive(Debug, Clone, Copy)]
struct Period {
    from: i64,
    to: i64,
}

/// One holiday: Chinese names (simplified; traditional is folded), English names (lowercase,
/// words separated by one space), how its day is found, its period. A name in `suffix_only` is
/// a holiday only with a period word after it (`十一长假`, while `十一中` is a school).
struct Holiday {
    zh: &'static [&'static str],
    suffix_only: &'static [&'static str],
    en: &'static [&'static str],
    rule: Rule,
    period: Option<Period>,
}

/// The holidays. Fixed dates and lunar dates as in docs/time-expressions.md; 感恩节 / Thanksgiving (US,
/// fourth Thursday of November), 母亲节 (second Sunday of May) and 父亲节 (third Sunday of June),
/// as observed in China and the US, the Fourth of July (US Independence Day, July 4) and New
/// Year's Eve / 跨年夜 (December 31) are additions of the same shape. One row per holiday.
#[rustfmt::skip]
const HOLIDAYS: &[Holiday] = &[
    Holiday { zh: &["元旦"], suffix_only: &[], en: &["new year's day", "new years day"], rule: Rule::Fixed(1, 1), period: None },
    Holiday { zh: &["情人节"], suffix_only: &[], en: &["valentine's day", "valentines day", "valentine day"], rule: Rule::Fixed(2, 14), period: None },
    Holiday { zh: &["三八妇女节", "妇女节", "三八节"], suffix_only: &[], en: &["international women's day", "women's day"], rule: Rule::Fixed(3, 8), period: None },
    Holiday { zh: &["五一劳动节", "劳动节", "五一节", "五一"], suffix_only: &[], en: &["may day"], rule: Rule::Fixed(5, 1), period: Some(Period { from: 0, to: 5 }) },
    Holiday { zh: &["五四青年节", "青年节"], suffix_only: &[], en: &[], rule: Rule::Fixed(5, 4), period: None },
    Holiday { zh: &["六一儿童节", "儿童节", "六一"], suffix_only: &[], en: &[], rule: Rule::Fixed(6, 1), period: None },
    Holiday { zh: &["建党节"], suffix_only: &[], en: &[], rule: Rule::Fixed(7, 1), period: None },
    Holiday { zh: &["建军节"], suffix_only: &[], en: &[], rule: Rule::Fixed(8, 1), period: None },
    Holiday { zh: &["教师节"], suffix_only: &[], en: &[], rule: Rule::Fixed(9, 10), period: None },
    Holiday { zh: &["国庆节", "国庆"], suffix_only: &["十一"], en: &[], rule: Rule::Fixed(10, 1), period: Some(Period { from: 0, to: 7 }) },
    Holiday { zh: &[], suffix_only: &[], en: &["fourth of july", "4th of july", "independence day"], rule: Rule::Fixed(7, 4), period: None },
    Holiday { zh: &["万圣节"], suffix_only: &[], en: &["halloween"], rule: Rule::Fixed(10, 31), period: None },
    Holiday { zh: &["双十一", "双11", "光棍节"], suffix_only: &[], en: &["singles' day", "singles day"], rule: Rule::Fixed(11, 11), period: None },
    Holiday { zh: &["感恩节"], suffix_only: &[], en: &["thanksgiving day", "thanksgiving"], rule: Rule::NthWeekday(11, 4, 3), period: None },
    Holiday { zh: &["平安夜"], suffix_only: &[], en: &["christmas eve"], rule: Rule::Fixed(12, 24), period: None },
    Holiday { zh: &["圣诞节", "圣诞"], suffix_only: &[], en: &["christmas day", "christmas", "xmas"], rule: Rule::Fixed(12, 25), period: None },
    Holiday { zh: &["跨年夜"], suffix_only: &[], en: &["new year's eve", "new years eve"], rule: Rule::Fixed(12, 31), period: None },
    Holiday { zh: &["母亲节"], suffix_only: &[], en: &["mother's day", "mothers day"], rule: Rule::NthWeekday(5, 2, 6), period: None },
    Holiday { zh: &["父亲节"], suffix_only: &[], en: &["father's day", "fathers day"], rule: Rule::NthWeekday(6, 3, 6), period: None },
    Holiday { zh: &["除夕夜", "除夕", "大年三十", "年三十"], suffix_only: &[], en: &["chinese new year's eve", "lunar new year's eve"], rule: Rule::LunarEve, period: None },
    Holiday { zh: &["春节", "大年初一", "过年"], suffix_only: &[], en: &["chinese new year", "lunar new year", "spring festival"], rule: Rule::Lunar(1, 1), period: Some(Period { from: -1, to: 6 }) },
    Holiday { zh: &["元宵节", "元宵"], suffix_only: &[], en: &["lantern festival"], rule: Rule::Lunar(1, 15), period: None },
    Holiday { zh: &["端午节", "端午"], suffix_only: &[], en: &["dragon boat festival"], rule: Rule::Lunar(5, 5), period: None },
    Holiday { zh: &["七夕节", "七夕"], suffix_only: &[], en: &["qixi festival"], rule: Rule::Lunar(7, 7), period: None },
    Holiday { zh: &["中秋节", "中秋"], suffix_only: &[], en: &["mid-autumn festival", "mid autumn festival", "moon festival"], rule: Rule::Lunar(8, 15), period: None },
    Holiday { zh: &["重阳节", "重阳"], suffix_only: &[], en: &["double ninth festival"], rule: Rule::Lunar(9, 9), period: None },
    Holiday { zh: &["清明节", "清明"], suffix_only: &[], en: &["qingming festival", "tomb-sweeping day", "tomb sweeping day"], rule: Rule::Term(Term::Qingming), period: None },
    Holiday { zh: &["冬至"], suffix_only: &[], en: &["winter solstice"], rule: Rule::Term(Term::Dongzhi), period: None },
];

/// Period words after a holiday name (假期 期间 长假 黄金周; the rest are the same words
/// as people write them).
const PERIOD_WORDS: [&str; 9] = ["小长假", "长假", "黄金周", "假期", "期间", "放假", "假日", "那几天", "那段时间"];

/// After a holiday name: 前后 / 左右 (fuzzy `[day-3, day+4)`).
const AROUND_WORDS: [&str; 2] = ["前后", "左右"];

/// English period words: `the National Day holiday`, `the Christmas holidays`, `over Christmas break`.
const EN_PERIOD_WORDS: [&str; 5] = ["holidays", "holiday", "break", "vacation", "week"];

/// Every Chinese name of every holiday, with or without a period word required after it
/// (simplified: traditional text is folded before matching). The pre-check's anchors are read
/// from them ([`crate::precheck`]).
pub(crate) fn zh_names() -> impl Iterator<Item = &'static str> {
    HOLIDAYS.iter().flat_map(|h| h.zh.iter().chain(h.suffix_only.iter()).copied())
}

/// Chars that start a Chinese holiday name (the scanner's cheap first-char filter).
pub(crate) const ZH_FIRST: &str = "元情三妇五劳青六儿建教国十万双光感平圣除大年春端七中重清冬过母父跨";

impl Holiday {
    /// The holiday's day in Gregorian year `y`.
    fn day(&self, y: i32) -> Option<NaiveDate> {
        match self.rule {
            Rule::Fixed(m, d) => NaiveDate::from_ymd_opt(y, m, d),
            Rule::Lunar(m, d) => lunar::to_solar(y, m, d),
            Rule::LunarEve => add_days(lunar::new_year(y)?, -1),
            Rule::Term(term) => lunar::solar_term(y, term),
            Rule::NthWeekday(m, n, wd) => {
                let first = NaiveDate::from_ymd_opt(y, m, 1)?;
                let mon = add_days(first, -i64::from(first.weekday().num_days_from_monday()))?;
                let d = weekday_in(mon, wd)?;
                let d = if d < first { add_days(d, 7)? } else { d };
                add_days(d, 7 * i64::from(n - 1))
            }
        }
    }
}

/// What follows a holiday name: nothing (the day), a period word, or 前后.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tail {
    Day,
    Period,
    Around,
}

/// The window of `h` in year `y` with `tail`.
fn window(h: &Holiday, y: i32, tail: Tail) -> Option<DateSpan> {
    let d = h.day(y)?;
    match (tail, h.period) {
        (Tail::Day, _) | (Tail::Period, None) => DateSpan::day(d),
        (Tail::Period, Some(p)) => DateSpan::offsets(d, p.from, p.to),
        (Tail::Around, _) => DateSpan::offsets(d, -3, 4),
    }
}

/// Every reading of a holiday at `i`: (holiday, end, tail).
fn readings(t: &Text, i: usize) -> Vec<(&'static Holiday, usize, Tail)> {
    let mut v = Vec::new();
    if t.starts_any(i, ZH_FIRST) {
        for h in HOLIDAYS {
            for (name, suffix_only) in h.zh.iter().map(|n| (n, false)).chain(h.suffix_only.iter().map(|n| (n, true))) {
                let Some(e) = t.lit(i, name) else { continue };
                let e2 = t.lit(e, "的").unwrap_or(e);
                if !suffix_only {
                    v.push((h, e, Tail::Day));
                    v.extend(AROUND_WORDS.iter().filter_map(|w| t.lit(e, w)).map(|k| (h, k, Tail::Around)));
                }
                v.extend(
                    PERIOD_WORDS
                        .iter()
                        .filter_map(|w| t.lit(e, w).or_else(|| t.lit(e2, w)))
                        .map(|k| (h, k, Tail::Period)),
                );
            }
        }
    }
    if t.starts_ascii(i) {
        for h in HOLIDAYS {
            for name in h.en.iter().filter(|n| t.at(i) == n.chars().next()) {
                let words: Vec<&str> = name.split(' ').collect();
                let Some(e) = super::english::seq(t, i, &words) else { continue };
                v.push((h, e, Tail::Day));
                for w in EN_PERIOD_WORDS {
                    if let Some(k) = t.spaces(e).and_then(|k| t.word(k, w)) {
                        v.push((h, k, Tail::Period));
                    }
                }
            }
        }
    }
    v
}

/// The grain and fuzziness of a tail.
fn shape(tail: Tail, h: &Holiday) -> (Grain, bool, Kind) {
    match tail {
        Tail::Period if h.period.is_some() => (Grain::Range, false, Kind::Calendar),
        Tail::Day | Tail::Period => (Grain::Day, false, Kind::Date),
        Tail::Around => (Grain::Range, true, Kind::Calendar),
    }
}

fn push(out: &mut Out, end: usize, span: Option<DateSpan>, tail: Tail, h: &Holiday, head: Head) {
    let (grain, fuzzy, kind) = shape(tail, h);
    let n = out.hits.len();
    if fuzzy {
        out.push_fuzzy(end, span, grain, head);
    } else if grain == Grain::Day {
        out.push_day(end, span, head, kind);
    } else {
        out.push(end, span, grain, head, kind);
    }
    out.hits[n..].iter_mut().for_each(|x| x.holiday = true);
}

/// A holiday with no year (`中秋`, `国庆假期`, `春节前后`, `Christmas`): past-preferring. Also
/// English `last Christmas` (the latest that started before today), `this Christmas`,
/// `Christmas 2025` / `Christmas last year` and `last year's Christmas` / `this year's` /
/// `next year's`.
pub(crate) fn bare(out: &mut Out, i: usize, cx: &Ctx) {
    let t = out.t;
    let latin = t.starts_ascii(i);
    let head = if latin { Head::Latin } else { Head::Word };
    for (h, e, tail) in readings(t, i) {
        push(out, e, cx.yearless(|y| window(h, y, tail)), tail, h, head);
        if latin && let Some(k) = t.spaces(e) {
            if let Some((y, g)) = super::english_dates::year_at(t, k) {
                push(out, g, window(h, y, tail), tail, h, head);
            }
            for (w, off) in [("last", -1), ("this", 0)] {
                if let Some(g) = super::english::seq(t, k, &[w, "year"]) {
                    push(out, g, window(h, cx.today.year() + off, tail), tail, h, head);
                }
            }
        }
    }
    if t.starts_ascii(i) {
        for (w, strict) in [("last", true), ("this", false)] {
            let Some(j) = lead(t, i, w) else { continue };
            for (h, e, tail) in readings(t, j) {
                let span = if strict {
                    (1..=8).find_map(|back| window(h, cx.today.year() - back + 1, tail).filter(|s| s.start < cx.today))
                } else {
                    window(h, cx.today.year(), tail)
                };
                push(out, e, span, tail, h, Head::Latin);
            }
        }
        // `this year's Thanksgiving`, `last year's Christmas`, `next year's Halloween`: that
        // year's occurrence (as 今年感恩节, 去年圣诞).
        for (w, off) in [("last", -1), ("this", 0), ("next", 1)] {
            let Some(j) = lead(t, i, w) else { continue };
            for ys in ["year's", "year’s", "years"] {
                let Some(k) = t.lit(j, ys).and_then(|e| t.spaces(e)) else { continue };
                for (h, e, tail) in readings(t, k) {
                    push(out, e, window(h, cx.today.year() + off, tail), tail, h, Head::Latin);
                }
            }
        }
    }
}

/// A holiday after a year that ends at `j` (`去年中秋`, `2025年的春节假期`, `明年元旦`).
pub(crate) fn after_year(out: &mut Out, y: i32, j: usize, head: Head) {
    let t = out.t;
    let k = t.lit(j, "的").unwrap_or(j);
    for (h, e, tail) in readings(t, k) {
        push(out, e, window(h, y, tail), tail, h, head);
    }
}

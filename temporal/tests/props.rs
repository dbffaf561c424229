//! Property tests of `memlayers_temporal::parse`: determinism, well-formed windows whose length
//! matches their grain (half-open intervals of whole local days), spans that point at the matched
//! text, no panic on arbitrary Unicode and instants in 1970–2100, and long inputs.

use chrono::{DateTime, Datelike, Months, NaiveDate, Utc, Weekday};
use chrono_tz::Tz;
use memlayers_temporal::days::local_midnight;
use memlayers_temporal::{Grain, ParseResult, TimeWindow, parse, parse_all};
use proptest::prelude::*;

/// Zones with unusual rules: DST at midnight (Sao_Paulo history), 30-minute DST (Lord_Howe),
/// +14 and −11 offsets, half-hour offsets.
const ZONES: [Tz; 10] = [
    chrono_tz::UTC,
    chrono_tz::Asia::Shanghai,
    chrono_tz::America::Los_Angeles,
    chrono_tz::Europe::London,
    chrono_tz::Australia::Lord_Howe,
    chrono_tz::America::Sao_Paulo,
    chrono_tz::Asia::Kolkata,
    chrono_tz::Pacific::Kiritimati,
    chrono_tz::Pacific::Pago_Pago,
    chrono_tz::America::St_Johns,
];

/// Pieces that combine into time expressions, near-misses and noise (the expression
/// table of docs/time-expressions.md, then its further rows and traps).
const FRAGMENTS: &[&str] = &[
    "上",
    "上周",
    "这周",
    "本月",
    "上个月",
    "去年",
    "今年",
    "前年",
    "昨天",
    "今天",
    "前天",
    "大前天",
    "明天",
    "后天",
    "刚才",
    "最近",
    "近来",
    "过去",
    "这",
    "几天",
    "前几天",
    "两",
    "三",
    "十",
    "十二",
    "3",
    "7",
    "12",
    "2025",
    "2028",
    "年",
    "月",
    "日",
    "号",
    "天",
    "周",
    "星期",
    "礼拜",
    "个",
    "前",
    "底",
    "初",
    "中旬",
    "上半年",
    "季度",
    "第",
    "Q3",
    "到",
    "至",
    "~",
    "-",
    "/",
    "晚上",
    "的",
    "我",
    "期",
    "轻",
    " ",
    "last",
    "week",
    "days",
    "ago",
    "March",
    "on",
    "下",
    "下周",
    "明年",
    "中秋",
    "春节",
    "国庆",
    "除夕",
    "清明",
    "冬至",
    "五一",
    "假期",
    "前后",
    "以来",
    "自从",
    "从",
    "开始",
    "至今",
    "半年",
    "第一周",
    "的今天",
    "那天",
    "《",
    "》",
    "每",
    "陈",
    "路",
    "since",
    "next",
    "Christmas",
    "the",
    "21st",
    "before",
    "from",
    "和",
    "、",
    "and",
    "or",
    "，",
    "？",
    "什么",
    "一般",
    "usually",
    "生日",
    "周末",
    "周三",
    "个月前",
    "那个",
    "Wednesday",
    "months",
];

fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    // 1970-01-01 .. 2100-01-01.
    (0i64..4_102_444_800).prop_map(|s| DateTime::from_timestamp(s, 0).unwrap())
}

fn zone() -> impl Strategy<Value = Tz> {
    (0..ZONES.len()).prop_map(|i| ZONES[i])
}

fn phrase() -> impl Strategy<Value = String> {
    prop::collection::vec(0..FRAGMENTS.len(), 1..8).prop_map(|v| v.into_iter().map(|i| FRAGMENTS[i]).collect())
}

fn next_day(d: NaiveDate) -> NaiveDate {
    d.succ_opt().unwrap()
}

/// Checks a window against the frame (half-open, whole local days) and its grain; returns a description of the first
/// violation.
fn window_violation(w: &TimeWindow, text: &str, now: DateTime<Utc>, tz: Tz) -> Option<String> {
    let today = now.with_timezone(&tz).date_naive();
    if w.start_date >= w.end_date {
        return Some(format!("start_date {} >= end_date {}", w.start_date, w.end_date));
    }
    if w.start >= w.end {
        return Some(format!("start {} >= end {}", w.start, w.end));
    }
    if w.start != local_midnight(w.start_date, tz) || w.end != local_midnight(w.end_date, tz) {
        return Some("instants are not the local midnights of the dates".into());
    }
    let (s, e) = (w.start_date, w.end_date);
    let ok = match w.grain {
        Grain::Day => e == next_day(s),
        Grain::Week => s.weekday() == Weekday::Mon && (e - s).num_days() == 7,
        Grain::Month => s.day() == 1 && s.checked_add_months(Months::new(1)) == Some(e),
        Grain::Quarter => {
            s.day() == 1 && [1, 4, 7, 10].contains(&s.month()) && s.checked_add_months(Months::new(3)) == Some(e)
        }
        Grain::Year => (s.month(), s.day()) == (1, 1) && s.checked_add_months(Months::new(12)) == Some(e),
        Grain::Rolling => e == next_day(today),
        Grain::Range => true,
    };
    if !ok {
        return Some(format!("window [{s}, {e}) does not fit grain {:?} (today {today})", w.grain));
    }
    let chars: Vec<char> = text.chars().collect();
    if w.spans.len() != 1 {
        return Some(format!("expected one span, got {:?}", w.spans));
    }
    let (a, b) = w.spans[0];
    if !(a < b && b <= chars.len()) || chars[a..b].iter().collect::<String>() != w.matched {
        return Some(format!("span {:?} does not hold matched {:?}", w.spans[0], w.matched));
    }
    None
}

fn check(text: &str, now: DateTime<Utc>, tz: Tz) -> Result<ParseResult, TestCaseError> {
    let r = parse(text, now, tz);
    let again = parse(text, now, tz);
    prop_assert_eq!(&r, &again, "not deterministic");
    prop_assert_eq!(serde_json::to_string(&r).unwrap(), serde_json::to_string(&again).unwrap());
    match &r.window {
        None => {
            prop_assert_eq!(&r.rest, text, "no window but rest changed");
            prop_assert!(r.windows.is_empty(), "no window but windows {:?}", r.windows);
        }
        Some(w) => {
            if let Some(v) = window_violation(w, text, now, tz) {
                return Err(TestCaseError::fail(format!("{text:?} at {now} in {tz}: {v}")));
            }
            // Every member of a union is a well-formed window inside the covering one, in text
            // order; a single expression is its own only member.
            prop_assert!(!r.windows.is_empty());
            if r.windows.len() == 1 {
                prop_assert_eq!(&r.windows[0], w);
            }
            for m in &r.windows {
                if let Some(v) = window_violation(m, text, now, tz) {
                    return Err(TestCaseError::fail(format!("{text:?} at {now} in {tz}: member: {v}")));
                }
                prop_assert!(w.start <= m.start && m.end <= w.end, "member outside the covering window");
                prop_assert!(w.spans[0].0 <= m.spans[0].0 && m.spans[0].1 <= w.spans[0].1, "member span outside");
            }
            prop_assert!(r.windows.windows(2).all(|p| p[0].spans[0].1 <= p[1].spans[0].0), "members overlap");
            let removed = w.spans[0].1 - w.spans[0].0;
            prop_assert!(r.rest.chars().count() + removed <= text.chars().count() + 1, "rest too long: {:?}", r.rest);
        }
    }
    // parse_all: well-formed windows in text order that never overlap, and every window of
    // parse is one of them (parse only drops more: asides).
    let all = parse_all(text, now, tz);
    for m in &all {
        if let Some(v) = window_violation(m, text, now, tz) {
            return Err(TestCaseError::fail(format!("{text:?} at {now} in {tz}: parse_all: {v}")));
        }
    }
    prop_assert!(all.windows(2).all(|p| p[0].spans[0].1 <= p[1].spans[0].0), "parse_all windows overlap");
    for m in &r.windows {
        prop_assert!(all.contains(m), "parse window {:?} not in parse_all", m.matched);
    }
    Ok(r)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Composed phrases: many of them are windows, so the grain checks are exercised.
    #[test]
    fn composed_phrases_are_well_formed(text in phrase(), now in instant(), tz in zone()) {
        check(&text, now, tz)?;
    }

    /// Arbitrary Unicode never panics and obeys the same invariants.
    #[test]
    fn arbitrary_unicode_never_panics(text in any::<String>(), now in instant(), tz in zone()) {
        check(&text, now, tz)?;
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Long inputs of repeated near-misses and noise, with one expression at a random place: the
    /// expression is still found, at the right offset.
    #[test]
    fn long_inputs_find_the_expression(
        noise in prop::collection::vec(prop::sample::select(vec!["周期", "月饼", "3/5", "十周年", "x", " ", "的", "一"]), 500..3000),
        at in 0usize..3000,
        now in instant(),
    ) {
        let mut pieces: Vec<&str> = noise;
        let at = at.min(pieces.len());
        pieces.insert(at, "，上周，");
        let text: String = pieces.concat();
        let r = check(&text, now, chrono_tz::Asia::Shanghai)?;
        let w = r.window.expect("上周 is in the text");
        let offset = pieces[..at].iter().map(|p| p.chars().count()).sum::<usize>() + 1;
        prop_assert_eq!(w.spans[0], (offset, offset + 2));
        prop_assert_eq!(w.grain, Grain::Week);
    }
}

/// 100,000-char inputs of every character class the matchers start on: no panic, the right
/// answer (no window, or the expression at the end). The scan is linear by construction (see
/// `temporal::scan`); this checks behaviour, not time.
#[test]
#[ignore = "heavy: run by .ci/run"]
fn hundred_thousand_chars() {
    let now: DateTime<Utc> = "2026-11-22T02:00:00Z".parse().unwrap();
    let tz = chrono_tz::Asia::Shanghai;
    for unit in
        ["1", "一", "上", "周", "年", "月", "a ", " ", "last ", "十", "-", "q", "3/", "周期", "《", "\"", "每", "从"]
    {
        let body = unit.repeat(100_000 / unit.chars().count());
        let r = parse(&body, now, tz);
        assert!(r.window.is_none(), "{unit:?} repeated gave {:?}", r.window.map(|w| w.matched));
        let text = format!("{body}。昨天");
        let w = parse(&text, now, tz).window.expect("昨天 at the end");
        let n = text.chars().count();
        assert_eq!(
            (w.spans[0], w.start_date),
            ((n - 2, n), NaiveDate::from_ymd_opt(2026, 11, 21).unwrap()),
            "{unit:?}"
        );
    }
    // 最近 repeated: the first one is "recently" (followed by 最, not by a count).
    let w = parse(&"最近".repeat(50_000), now, tz).window.expect("最近");
    assert_eq!((w.spans[0], w.fuzzy), ((0, 2), true));
}

/// Extreme instants outside the tested years must not panic either.
#[test]
fn extreme_instants_do_not_panic() {
    let texts =
        ["今天", "明天", "去年", "最近366天", "366天前", "Q4", "下半年", "2025-03-05", "周日", "12月31日", "9999年底"];
    for now in [DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC] {
        for tz in [chrono_tz::Pacific::Kiritimati, chrono_tz::Pacific::Pago_Pago] {
            for text in texts {
                // Outside years 1–9999 there is no "today" to count from: no window, no panic.
                assert_eq!(parse(text, now, tz).window, None, "{text} at {now} in {tz}");
            }
        }
    }
    // 9999-12-31: relative forms still work; the day after reaches year 10000, still representable.
    let now: DateTime<Utc> = "9999-12-31T12:00:00Z".parse().unwrap();
    let w = parse("明天", now, chrono_tz::UTC).window.unwrap();
    assert_eq!(w.start_date, NaiveDate::from_ymd_opt(10000, 1, 1).unwrap());
    assert_eq!(
        parse("9999年底", now, chrono_tz::UTC).window.unwrap().end_date,
        NaiveDate::from_ymd_opt(10000, 1, 1).unwrap()
    );
}

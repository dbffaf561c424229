//! `may_hold_time` never says no to a text that `parse` or `parse_all` reads a window from
//! (the entries' event windows come from `parse_all`): every row of the
//! case table, composed phrases of time words (Chinese and English) and arbitrary Unicode, at
//! instants in 1970–2100 and several zones. And it does say no to plain text without time
//! words, so it saves parses.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use memlayers_temporal::{may_hold_time, parse, parse_all};

/// True when the parser reads any window from `text`: the first expression that names when
/// (`parse`) or any expression at all (`parse_all`, what event windows use).
fn has_window(text: &str, now: DateTime<Utc>, tz: Tz) -> bool {
    parse(text, now, tz).window.is_some() || !parse_all(text, now, tz).is_empty()
}
use proptest::prelude::*;

#[test]
fn every_row_of_the_case_table_with_a_window_passes() {
    let data = include_str!("data/cases.tsv");
    let mut checked = 0;
    for (k, line) in data.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let (Some(text), Some(now), Some(tz)) = (cols.first(), cols.get(1), cols.get(2)) else { continue };
        let now: DateTime<Utc> = now.parse().unwrap_or_else(|e| panic!("line {}: bad now: {e}", k + 1));
        let tz: Tz = tz.parse().unwrap_or_else(|e| panic!("line {}: bad tz: {e}", k + 1));
        if has_window(text, now, tz) {
            checked += 1;
            assert!(may_hold_time(text), "line {}: {text:?} has a window but fails the pre-check", k + 1);
        }
    }
    // The table holds 300+ window rows (its own test asserts it); all of them were checked.
    assert!(checked >= 300, "only {checked} rows with a window");
}

#[test]
fn plain_text_without_time_words_is_skipped() {
    // Entries of the kind an archive is full of, worked by hand: no digit, no English time word,
    // and no anchor (天日早晨晚夜刚周星礼年月旬季号近, or the last two chars of a holiday name
    // such as 元旦 中秋) beside a start char (今昨前大明后刚 本这上下 周星礼 最近过 月中年 第, a
    // holiday's first char, a numeral, 从自). 三 and 第 start expressions, but nothing anchors
    // one in the second text; 月 in the last is both.
    let plain = [
        "晚饭吃了火锅，味道不错",
        "读完《三体》第二部",
        "给猫咪买了猫粮",
        "fixed the flaky CI job",
        "Rust borrow checker complained about the iterator",
        "和妈妈打电话",
        "这个问题下次再讨论",
        "买了两盒月饼",
    ];
    let skipped: Vec<&str> = plain.iter().copied().filter(|t| !may_hold_time(t)).collect();
    assert_eq!(
        skipped,
        [
            "晚饭吃了火锅，味道不错",
            "读完《三体》第二部",
            "给猫咪买了猫粮",
            "fixed the flaky CI job",
            "Rust borrow checker complained about the iterator",
            "和妈妈打电话",
            "这个问题下次再讨论",
        ]
    );
}

/// Pieces of Chinese and English time expressions, near misses and filler.
const FRAGMENTS: &[&str] = &[
    "上周",
    "下周三",
    "昨天",
    "今晚",
    "前天晚上",
    "三天前",
    "两个月前的周三",
    "上个月底",
    "去年",
    "12月2号",
    "2026-05-10",
    "最近",
    "刚才",
    "中秋",
    "五一",
    "十一",
    "国庆假期",
    "除夕",
    "元旦",
    "圣诞",
    "七夕",
    "清明",
    "冬至",
    "端午",
    "國慶",
    "双十一",
    "六一",
    "三八节",
    "近来",
    "上旬",
    "第三季度",
    "二十一号",
    "兩個禮拜前",
    "这两天",
    "每周三",
    "本周期",
    "月饼",
    "周一帆",
    "从",
    "到",
    "以来",
    "《后天》",
    "的",
    "我",
    "交报告",
    " ",
    "，",
    "last month",
    "the other day",
    "a couple of days ago",
    "a few days ago",
    "recently",
    "lately",
    "just now",
    "tonight",
    "this morning",
    "yesterday evening",
    "tomorrow",
    "two weeks ago",
    "3 days ago",
    "the Wednesday before last",
    "on Monday",
    "last weekend",
    "in March",
    "March 5th",
    "early March",
    "mid-March",
    "the 21st",
    "on the 3rd",
    "Q3",
    "the first quarter",
    "the first half of 2025",
    "since",
    "from",
    "to",
    "Christmas Eve",
    "Christmas",
    "xmas",
    "Halloween",
    "Thanksgiving",
    "May Day",
    "mid-autumn festival",
    "Valentine's Day",
    "New Year's Day",
    "earlier this week",
    "the day before yesterday",
    "over the weekend",
    "this day last year",
    "I",
    "cleaned",
    "my",
    "sneakers",
    "the",
    "a",
    "May",
    "we",
    "may",
    "ask",
    "in",
    "2025",
    "5",
    "Jan",
    "sept",
    "ago",
    "back",
    "past",
    "next year",
];

/// Fragments joined by spaces (English needs them) or by nothing (Chinese reads through).
fn phrase() -> impl Strategy<Value = String> {
    (prop::collection::vec(0..FRAGMENTS.len(), 1..7), any::<bool>()).prop_map(|(v, spaced)| {
        v.into_iter().map(|i| FRAGMENTS[i]).collect::<Vec<_>>().join(if spaced { " " } else { "" })
    })
}

fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    (0i64..4_102_444_800).prop_map(|s| DateTime::from_timestamp(s, 0).unwrap())
}

fn zone() -> impl Strategy<Value = Tz> {
    prop::sample::select(vec![chrono_tz::UTC, chrono_tz::Asia::Shanghai, chrono_tz::America::Los_Angeles])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn a_phrase_with_a_window_always_passes(text in phrase(), now in instant(), tz in zone()) {
        if has_window(&text, now, tz) {
            prop_assert!(may_hold_time(&text), "{text:?} has a window but fails the pre-check");
        }
    }

    #[test]
    fn arbitrary_unicode_with_a_window_always_passes(text in any::<String>(), now in instant(), tz in zone()) {
        if has_window(&text, now, tz) {
            prop_assert!(may_hold_time(&text), "{text:?} has a window but fails the pre-check");
        }
    }
}

//! Time as a gate (docs/time-expressions.md). Expected answers are the hand-worked ones of examples/README.md
//! (now = 2026-11-29 20:00 Asia/Shanghai) and small archives written here.

use crate::common;

use common::*;
use memlayers::Memory;
use memlayers::query::retrieve::{RetrieveArgs, TimeRange, WindowSource};

const NOW: &str = "2026-11-29T12:00:00Z"; // Sunday 2026-11-29 20:00 in Shanghai

fn example() -> (tempfile::TempDir, Memory) {
    crate::common::example_at(NOW)
}

/// The answer's items inside the window: rule 5's fill-up appends the best matches outside it
/// (marked `in_window: Some(false)`, after every match inside); these tests check the window's
/// own answer, so the filled items are checked to come last and then dropped.
fn ask(m: &Memory, q: &str) -> memlayers::query::retrieve::RetrieveResult {
    let mut r =
        m.retrieve(&RetrieveArgs { query: q.into(), limit: Some(50), explain: true, ..Default::default() }).unwrap();
    if let Some(first_out) = r.items.iter().position(|i| i.in_window == Some(false)) {
        assert!(r.items[first_out..].iter().all(|i| i.in_window == Some(false)), "{q}: filled items last");
        r.items.truncate(first_out);
        r.returned = first_out;
    }
    r
}

fn dates_within(r: &memlayers::query::retrieve::RetrieveResult, from: &str, to: &str) {
    for i in &r.items {
        assert!(i.date.as_str() >= from && i.date.as_str() <= to, "{} {} outside {from}..{to}", i.date, i.content);
    }
}

#[test]
fn last_week_agreements_come_from_last_week_only() {
    let (_d, m) = example();
    let r = ask(&m, "上周 约定");
    let mut got: Vec<(String, String)> = r.items.iter().map(|i| (i.date.clone(), i.content.clone())).collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("2026-11-16".to_string(), "和阿雯约定：每周三晚上我不加班，固定接朵朵去上游泳课".to_string()),
            (
                "2026-11-18".to_string(),
                "和产品约定：结算迁移灰度从 12 月 1 日开始，每天放量 10%，有异常立刻回滚".to_string()
            ),
            (
                "2026-11-21".to_string(),
                "和阿杰约定：12 月 13 日（周日）下午在琴房合《晴天》，我负责人声和和声编排".to_string()
            ),
        ]
    );
    let ex = r.explain.unwrap();
    assert_eq!(ex.window_source, WindowSource::Parsed);
    let w = ex.window.unwrap();
    assert_eq!((w.start_date.to_string(), w.end_date.to_string()), ("2026-11-16".into(), "2026-11-23".into()));
    assert_eq!(w.start.to_rfc3339(), "2026-11-15T16:00:00+00:00");
    assert_eq!(ex.rest, "约定");
    // 22 entries recorded last week. Three older ones have event windows (docs/event-time.md)
    // that overlap it, 10-14 下个月 (November), 10-26 今年 (2026), 11-01 十一月 (November), but
    // a month or a year is longer than the week asked about: not admitted.
    assert_eq!(ex.candidates_in_window, Some(22));
    assert_eq!(ex.event_time.map(|e| e.admitted), Some(0));
    assert_eq!(ex.fts_query.as_deref(), Some("(\"约定\")"));
    // Without the gate, recall ranks all 11 约定 entries, and last week's are not on top.
    let plain = m.recall("约定", Some(50), None).unwrap();
    assert_eq!(plain.matched, 11);
}

#[test]
fn natural_language_rest_finds_the_dinner() {
    let (_d, m) = example();
    let r = ask(&m, "前天晚上我吃了什么");
    assert_eq!(r.items.len(), 1);
    assert_eq!(
        r.items[0].content,
        "晚饭吃了火锅，和阿雯、朵朵在楼下那家重庆火锅，点了毛肚、鸭血和虾滑，朵朵第一次吃微辣"
    );
    let ex = r.explain.unwrap();
    let w = ex.window.unwrap();
    assert_eq!(w.part_of_day.as_deref(), Some("晚上"));
    assert_eq!((w.start_date.to_string(), w.end_date.to_string()), ("2026-11-27".into(), "2026-11-28".into()));
    assert_eq!(ex.scored_text, "吃");
    assert_eq!(ex.strategy, "bm25-or");
}

#[test]
fn a_part_of_day_after_de_is_read_with_its_day() {
    // 前天的晚上 / 两天前的晚上 = 前天晚上 (2026-11-27, evening), and 吃 is what is scored:
    // the same dinner as natural_language_rest_finds_the_dinner. 昨天的晚饭 keeps 晚饭 (dinner)
    // as the text: the one-character part of day 晚 is not read after 的.
    let (_d, m) = example();
    for q in ["前天的晚上吃了什么", "两天前的晚上吃了什么"] {
        let r = ask(&m, q);
        let ex = r.explain.unwrap();
        let w = ex.window.unwrap();
        assert_eq!(w.part_of_day.as_deref(), Some("晚上"), "{q}");
        assert_eq!(w.start_date.to_string(), "2026-11-27", "{q}");
        assert_eq!(ex.scored_text, "吃", "{q}");
        assert!(r.items[0].content.starts_with("晚饭吃了火锅"), "{q}: {:?}", r.items);
    }
    let r = ask(&m, "昨天的晚饭");
    let ex = r.explain.unwrap();
    assert_eq!(ex.window.unwrap().part_of_day, None);
    assert_eq!(ex.scored_text, "晚饭");
}

#[test]
fn rolling_window_and_tag_match() {
    let (_d, m) = example();
    let r = ask(&m, "最近7天 开销");
    let mut yuan: Vec<&str> = r.items.iter().map(|i| i.ts.as_str()).collect();
    yuan.sort();
    assert_eq!(r.items.len(), 7);
    assert!(yuan[0].starts_with("2026-11-22T16:20"), "{yuan:?}"); // local 11-23 00:20 is inside, 11-22 23:40 is not
    dates_within(&r, "2026-11-23", "2026-11-29");
    assert!(r.items.iter().all(|i| i.tag == "开销"));
}

#[test]
fn late_october_reading_notes() {
    let (_d, m) = example();
    let r = ask(&m, "10月下旬 读书笔记");
    dates_within(&r, "2026-10-21", "2026-10-31");
    let notes: Vec<&str> = r.items.iter().filter(|i| i.content.contains("读书笔记")).map(|i| i.date.as_str()).collect();
    let mut notes = notes;
    notes.sort();
    assert_eq!(notes, ["2026-10-22", "2026-10-24", "2026-10-29"]);
    // Without the window 5 entries say 读书笔记.
    assert_eq!(m.recall("读书笔记", Some(50), None).unwrap().matched, 5);
}

#[test]
fn last_month_trip() {
    let (_d, m) = example();
    let r = ask(&m, "上个月 青岛");
    // October's five, and the review written on 11-01 about October (十月, 国庆: its event
    // windows) that tells of the Qingdao trip.
    assert_eq!(r.matched, 6);
    let (october, after): (Vec<_>, Vec<_>) = r.items.iter().partition(|i| i.date.as_str() <= "2026-10-31");
    assert_eq!(october.len(), 5);
    dates_within(
        &memlayers::query::retrieve::RetrieveResult { items: october.into_iter().cloned().collect(), ..r.clone() },
        "2026-10-01",
        "2026-10-31",
    );
    assert_eq!(after.len(), 1);
    assert!(after[0].content.starts_with("十月复盘"), "{}", after[0].content);
    assert_eq!(m.recall("青岛", Some(50), None).unwrap().matched, 8);
}

#[test]
fn window_only_query_lists_the_window_newest_first() {
    let (_d, m) = example();
    let r = ask(&m, "上周发生了什么");
    // Last week's 22 entries newest first; the 3 older ones whose event windows overlap it
    // (11-01 十一月, 10-26 今年, 10-14 下个月) name a month or a year, longer than the week:
    // not admitted.
    assert_eq!(r.matched, 22);
    assert_eq!(r.items.len(), 22);
    assert_eq!(r.items[0].content, "交了手机话费 58 元");
    assert_eq!(r.items[21].content, "和阿雯约定：每周三晚上我不加班，固定接朵朵去上游泳课");
    assert_eq!(r.explain.unwrap().strategy, "window-only");
}

#[test]
fn explicit_range_skips_parsing() {
    let (_d, m) = example();
    let from = chrono::NaiveDate::from_ymd_opt(2026, 10, 1).unwrap();
    let to = chrono::NaiveDate::from_ymd_opt(2026, 10, 31).unwrap();
    let r = m
        .retrieve(&RetrieveArgs {
            query: "青岛".into(),
            time_range: Some(TimeRange::Dates { from, to }),
            limit: Some(50),
            explain: true,
            ..Default::default()
        })
        .unwrap();
    // As last_month_trip: October's five and the 11-01 review about October.
    assert_eq!(r.matched, 6);
    let ex = r.explain.unwrap();
    assert_eq!(ex.window_source, WindowSource::Explicit);
    // "上周" in the text is not parsed when a range is given: it is just text.
    let r = m
        .retrieve(&RetrieveArgs {
            query: "上周".into(),
            time_range: Some(TimeRange::Dates { from, to }),
            explain: true,
            ..Default::default()
        })
        .unwrap();
    let ex = r.explain.unwrap();
    assert_eq!(ex.rest, "上周");
    assert_eq!(ex.window.unwrap().start_date, from);
    let bad = m.retrieve(&RetrieveArgs {
        query: "x".into(),
        time_range: Some(TimeRange::Dates { from: to, to: from }),
        ..Default::default()
    });
    assert!(matches!(bad, Err(memlayers::Error::BadInput { .. })));
}

#[test]
fn zero_hits_widen_once_then_return_empty() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-11/2026-11-20.md",
        "- [2026-11-20T11:00:00.000Z] [饮食] 晚饭吃了火锅\n- [2026-11-20T12:00:00.000Z] [-] 别的事\n",
    );
    let m = open_at(dir.path(), NOW);
    // 11月21日 has no entry; ±1 day reaches 11-20.
    let r = ask(&m, "11月21日 火锅");
    assert_eq!(r.items.len(), 1);
    // Said at the top level too, without explain: the CLI's and MCP's JSON carry it.
    assert_eq!(r.widened.as_ref().map(|w| w.by.as_str()), Some("±1 day"));
    let plain = m.retrieve(&RetrieveArgs { query: "11月21日 火锅".into(), ..Default::default() }).unwrap();
    let json = serde_json::to_value(&plain).unwrap();
    assert_eq!(json["widened"]["by"], "±1 day");
    assert_eq!(json["widened"]["startDate"], "2026-11-20");
    let exact = m.retrieve(&RetrieveArgs { query: "11月20日 火锅".into(), ..Default::default() }).unwrap();
    assert!(serde_json::to_value(&exact).unwrap().get("widened").is_none());
    let w = r.explain.unwrap().widened.unwrap();
    assert_eq!(
        (w.by.as_str(), w.start_date.to_string(), w.end_date.to_string()),
        ("±1 day", "2026-11-20".into(), "2026-11-23".into())
    );
    // 11月23日 ±1 day = 11-22..11-24: still nothing → empty, not an error.
    let r = ask(&m, "11月23日 火锅");
    assert!(r.items.is_empty());
    assert!(r.explain.unwrap().widened.is_some());
    // A month window widens by ±7 days: 12月 of 2025 (past-preferring) has nothing near.
    let r = ask(&m, "去年12月 火锅");
    assert_eq!(r.explain.unwrap().widened.unwrap().by, "±7 days");
}

#[test]
fn a_question_whose_words_match_nothing_gets_its_windows_entries_and_an_explicit_range_never_widens() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-11/2026-11-28.md",
        "- [2026-11-28T04:00:00.000Z] [-] Ate ramen at Ippudo with Sam\n- [2026-11-28T09:00:00.000Z] [-] 跑鞋到了\n",
    );
    put(dir.path(), "cold/2026-11/2026-11-20.md", "- [2026-11-20T04:00:00.000Z] [-] 跑鞋 下单\n");
    // NOW is Sunday 2026-11-29 in Shanghai: yesterday = 11-28, which holds two entries; "eat"
    // matches neither (Ate is another word) nor anything else: the window's entries, newest
    // first, marked inside, instead of an empty answer.
    let m = open_at(dir.path(), NOW);
    let r = ask(&m, "what did I eat yesterday");
    let got: Vec<(&str, Option<bool>)> = r.items.iter().map(|i| (i.content.as_str(), i.in_window)).collect();
    assert_eq!(got, [("跑鞋到了", Some(true)), ("Ate ramen at Ippudo with Sam", Some(true))]);
    assert_eq!(r.explain.unwrap().strategy, "window-only");
    // An explicit range is the caller's filter, used as is: 11-21 has no 跑鞋 and is not
    // widened to reach 11-20 or 11-22.
    let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 21).unwrap();
    let r = m
        .retrieve(&RetrieveArgs {
            query: "跑鞋".into(),
            time_range: Some(TimeRange::Dates { from: day, to: day }),
            explain: true,
            ..Default::default()
        })
        .unwrap();
    assert!(r.items.is_empty());
    assert!(r.widened.is_none());
}

#[test]
fn the_window_is_applied_inside_the_fts5_query() {
    let (_d, m) = example();
    let c = m.conn().unwrap();
    let sql = memlayers::query::search::ranked_sql(true, false);
    let mut st = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
    let plan: Vec<String> = st
        .query_map(rusqlite::params!["\"约定\"", 10, 1, 2], |r| r.get::<_, String>(3))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    // FTS5's plan string: M = MATCH, > and < = rowid bounds handed to FTS5's xFilter, so the
    // window restricts the doclist walk before bm25() scores anything.
    let fts = plan.iter().find(|l| l.contains("VIRTUAL TABLE INDEX")).unwrap();
    let idx = fts.rsplit(':').next().unwrap();
    assert!(idx.starts_with('M') && idx.contains('>') && idx.contains('<'), "{plan:?}");
    // Nothing else: the token counts come from `entry_lens`, one row per day (not one lookup
    // per candidate), and the entries' rows (entry_rows) are not read for the candidates.
    // The plan: the FTS5 walk as a co-routine whose matches the outer query only steps
    // through (fts5_aux: the counts are gathered, not returned), and no other table.
    assert_eq!(plan.len(), 3, "{plan:?}");
    assert!(plan.iter().all(|l| l.contains("VIRTUAL TABLE INDEX") || l.contains("subquery")), "{plan:?}");
    assert!(!plan.iter().any(|l| l.contains("docsize") || l.contains("entry_rows")), "{plan:?}");
    // FTS5 keeps no docsize table of its own (columnsize=0, migration V11).
    let docsize: i64 =
        c.query_row("SELECT count(*) FROM sqlite_schema WHERE name = 'entries_fts_docsize'", [], |r| r.get(0)).unwrap();
    assert_eq!(docsize, 0);
}

#[test]
fn recency_term_is_off_by_default() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-11/2026-11-28.md",
        "- [2026-11-28T01:00:00.000Z] [-] 周报 写完\n- [2026-11-28T02:00:00.000Z] [-] 别的\n",
    );
    let m = open_at(dir.path(), NOW);
    for q in ["本月 周报", "周报"] {
        let r = ask(&m, q);
        assert!(r.explain.unwrap().hits.iter().all(|h| h.recency == 0.0), "{q}");
    }
    // With recencyTauDays it acts only without a window: tests/it/ranking.rs.
}

/// A blank question has nothing to ask unless a range is given (then the window is the
/// question, listed newest first, as the benchmark's window-only calls do). Without one it is a
/// usage error naming `query`, as `recall ""` names `keyword` (it returned an empty result).
/// 2026-10-20 .. 2026-10-22 of the example archive: 4 + 0 + 5 entries (counted in the files).
#[test]
fn a_blank_question_needs_a_range_and_then_lists_the_window() {
    let (_d, m) = example();
    for q in ["", "  \t "] {
        let e = m.retrieve(&RetrieveArgs { query: q.into(), ..Default::default() }).unwrap_err();
        assert!(matches!(&e, memlayers::Error::BadInput { field, .. } if field == "query"), "{e:?}");
    }
    let from = chrono::NaiveDate::from_ymd_opt(2026, 10, 20).unwrap();
    let to = chrono::NaiveDate::from_ymd_opt(2026, 10, 22).unwrap();
    let r = m
        .retrieve(&RetrieveArgs {
            query: String::new(),
            time_range: Some(TimeRange::Dates { from, to }),
            limit: Some(50),
            ..Default::default()
        })
        .unwrap();
    // The 9 entries recorded 10-20 … 10-22, newest first. Three others have event windows
    // overlapping those days, 11-01 (十月), 10-26 (今年), 09-18 (下个月 = October), but each is
    // a month or a year, longer than the 3 days asked about: not admitted.
    assert_eq!(r.matched, 9);
    assert_eq!(r.items.len(), 9);
    assert!(r.items[0].content.starts_with("读书笔记：《长安的荔枝》前半本"), "{}", r.items[0].content);
    assert_eq!(r.items[8].content, "午饭点了黄焖鸡米饭");
}

/// Rule 5's fill-up: a window holding fewer matches than the limit is followed by the best
/// matches outside it, each marked, and counted by `explain`; a window without any match,
/// even widened, still answers with the matches elsewhere. Expected lists worked out from the
/// four entries below (now = Sunday 2026-11-29 in Shanghai: 上周五 = Friday 2026-11-20).
#[test]
fn a_window_with_few_matches_is_filled_from_outside_it_after_them() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-11/2026-11-20.md",
        "- [2026-11-20T02:00:00.000Z] [-] 给猫买了猫粮\n- [2026-11-20T03:00:00.000Z] [-] 今天下雨\n",
    );
    put(dir.path(), "cold/2026-11/2026-11-10.md", "- [2026-11-10T02:00:00.000Z] [-] 猫抓坏了沙发\n");
    put(dir.path(), "cold/2026-10/2026-10-01.md", "- [2026-10-01T02:00:00.000Z] [-] 邻居家的猫很吵\n");
    let m = open_at(dir.path(), NOW);
    let run = |q: &str, limit: i64| {
        m.retrieve(&RetrieveArgs { query: q.into(), limit: Some(limit), explain: true, ..Default::default() }).unwrap()
    };
    // One 猫 entry inside the window, first and marked inside; the other two 猫 entries after it,
    // marked outside (their order is the no-window ranking's, not checked here).
    let r = run("上周五 猫", 10);
    let got: Vec<(&str, Option<bool>)> = r.items.iter().map(|i| (i.content.as_str(), i.in_window)).collect();
    assert_eq!(got[0], ("给猫买了猫粮", Some(true)));
    let mut rest = got[1..].to_vec();
    rest.sort();
    assert_eq!(rest, [("猫抓坏了沙发", Some(false)), ("邻居家的猫很吵", Some(false))]);
    let ex = r.explain.unwrap();
    assert_eq!((ex.in_window, ex.filled, r.matched), (Some(1), Some(2), 1));
    // In JSON the mark is `inWindow`.
    let json = serde_json::to_value(&r.items[1]).unwrap();
    assert_eq!(json["inWindow"], serde_json::json!(false));
    // A limit the window's matches reach: nothing is filled.
    let r = run("上周五 猫", 1);
    assert_eq!(r.items.len(), 1);
    assert_eq!((r.items[0].content.as_str(), r.items[0].in_window), ("给猫买了猫粮", Some(true)));
    assert_eq!(r.explain.unwrap().filled, Some(0));
    // No 沙发 on 11-20, nor on 11-19 … 11-21 (widened once): the one match elsewhere answers.
    let r = run("上周五 沙发", 10);
    assert_eq!(r.widened.as_ref().map(|w| w.by.as_str()), Some("±1 day"));
    let got: Vec<(&str, Option<bool>)> = r.items.iter().map(|i| (i.content.as_str(), i.in_window)).collect();
    assert_eq!(got, [("猫抓坏了沙发", Some(false))]);
    let ex = r.explain.unwrap();
    assert_eq!((ex.in_window, ex.filled), (Some(0), Some(1)));
    // An explicit range is the caller's filter: its one 猫 entry and nothing filled from outside.
    let r = m
        .retrieve(&RetrieveArgs {
            query: "猫".into(),
            time_range: Some(TimeRange::Dates {
                from: chrono::NaiveDate::from_ymd_opt(2026, 11, 20).unwrap(),
                to: chrono::NaiveDate::from_ymd_opt(2026, 11, 20).unwrap(),
            }),
            explain: true,
            ..Default::default()
        })
        .unwrap();
    let got: Vec<(&str, Option<bool>)> = r.items.iter().map(|i| (i.content.as_str(), i.in_window)).collect();
    assert_eq!(got, [("给猫买了猫粮", Some(true))]);
    assert_eq!(r.explain.unwrap().filled, Some(0));
    // Without a window nothing is marked (and the field is absent from JSON).
    let r = run("沙发", 10);
    assert_eq!(r.items[0].in_window, None);
    assert!(serde_json::to_value(&r.items[0]).unwrap().get("inWindow").is_none());
}

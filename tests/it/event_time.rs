//! Record time and event time (docs/event-time.md): every entry gets the windows its own text
//! names, anchored at its own timestamp in the data root's zone (Asia/Shanghai here, UTC+8,
//! no DST), stored in `entry_events`; a question's window admits an entry whose record date is
//! in it or one of whose event windows overlaps it. Real SQLite, real day files; the expected
//! dates are worked out by hand from a calendar (2026-11-22 is a Sunday, so 2026-11-23 is a
//! Monday and its Monday-week runs 11-23 … 11-29).

use std::path::Path;

use memlayers::Memory;
use memlayers::layers::cold::WriteArgs;
use memlayers::query::retrieve::{RetrieveArgs, RetrieveResult};

use crate::common::*;

/// Retrieves `q` with explain (limit 10, the default), event windows on or off.
fn ask(m: &Memory, q: &str, record_time_only: bool) -> RetrieveResult {
    m.retrieve(&RetrieveArgs { query: q.into(), explain: true, record_time_only, ..Default::default() }).unwrap()
}

/// The contents of the items inside the window (the gate's answer), best first; the best
/// matches outside it that fill the rest of the list (`in_window == Some(false)`) are left out.
fn contents(r: &RetrieveResult) -> Vec<String> {
    r.items.iter().filter(|i| i.in_window != Some(false)).map(|i| i.content.clone()).collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Every stored event window as (record date, content, first date, end date exclusive), in
/// entry order, read through the documented view `entry_event_dates`.
fn event_rows(m: &Memory) -> Vec<(String, String, String, String)> {
    let c = m.conn().unwrap();
    let mut st = c
        .prepare(
            "SELECT e.day, e.content, v.start_date, v.end_date FROM entry_event_dates v JOIN entries e USING (id) \
             ORDER BY v.id, v.start_date",
        )
        .unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<rusqlite::Result<Vec<_>>>()
        .unwrap()
}

fn row(day: &str, content: &str, from: &str, to: &str) -> (String, String, String, String) {
    (day.into(), content.into(), from.into(), to.into())
}

fn write(m: &Memory, text: &str) {
    let w = m.write(&WriteArgs { text: text.into(), tag: None, important: false, source: None }).unwrap();
    assert!(w.added);
}

/// Deletes the index and its WAL companions: the next open rebuilds it from the day files.
fn delete_index(root: &Path) {
    for f in ["index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"] {
        let _ = std::fs::remove_file(root.join(f));
    }
}

#[test]
fn a_plan_written_on_monday_is_found_on_the_day_it_names() {
    let dir = tempfile::tempdir().unwrap();
    // Written through `write` on Monday 2026-11-23 10:00 (02:00Z): 下周三 = Wednesday of the
    // week after (Monday 11-30) = 2026-12-02.
    let m = open_at(dir.path(), "2026-11-23T02:00:00Z");
    write(&m, "下周三交报告");
    // Another report, written on its own day (11-10) with no time word: neither window
    // below holds it.
    put(dir.path(), "cold/2026-11/2026-11-10.md", "# 2026-11-10\n- [2026-11-10T02:00:00.000Z] [-] 写完了月度报告\n");
    drop(m);
    let m = open_at(dir.path(), "2026-11-23T07:00:00Z");
    assert_eq!(event_rows(&m), [row("2026-11-23", "下周三交报告", "2026-12-02", "2026-12-03")]);

    // Asked the same Monday: the window is 2026-12-02 (no entry is recorded there), the rest
    // 要做什么 is a question frame only, so the window's entries are listed: the plan, by its
    // event window.
    let r = ask(&m, "下周三要做什么", false);
    assert_eq!(contents(&r), ["下周三交报告"]);
    let ex = r.explain.unwrap();
    assert_eq!(ex.strategy, "window-only");
    let w = ex.window.unwrap();
    assert_eq!((w.start_date.to_string(), w.end_date.to_string()), ("2026-12-02".into(), "2026-12-03".into()));
    let et = ex.event_time.unwrap();
    assert_eq!((et.admitted, et.hits_by_record_date, et.hits_by_event_window), (1, 0, 1));
    assert_eq!(ex.widened, None);
    // Gated on record dates only, the window and its ±1-day widening hold nothing.
    let r = ask(&m, "下周三要做什么", true);
    assert_eq!(contents(&r), Vec::<String>::new());
    assert_eq!(r.explain.unwrap().event_time, None);
    drop(m);

    // Asked on Thursday 2026-12-03: 12月2号 is yesterday, 2026-12-02 (on or before today);
    // 报告 is scored. The plan matches by its event window; the 11-10 report is outside.
    let m = open_at(dir.path(), "2026-12-03T04:00:00Z");
    let r = ask(&m, "12月2号 报告", false);
    assert_eq!(contents(&r), ["下周三交报告"]);
    assert_eq!(r.matched, 1);
    let et = r.explain.unwrap().event_time.unwrap();
    assert_eq!((et.matched_by_record_date, et.matched_by_event_window), (0, 1));
    assert_eq!((et.hits_by_record_date, et.hits_by_event_window), (0, 1));
    let r = ask(&m, "12月2号 报告", true);
    assert_eq!(r.matched, 0);
}

#[test]
fn last_month_said_in_may_is_found_by_a_question_about_april() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-04/2026-04-15.md",
        "# 2026-04-15\n- [2026-04-15T02:00:00.000Z] [-] cleaned the bike chain\n",
    );
    // 2026-05-10: "last month" written in May names April 2026.
    put(
        dir.path(),
        "cold/2026-05/2026-05-10.md",
        "# 2026-05-10\n- [2026-05-10T04:00:00.000Z] [-] cleaned my white sneakers last month\n\
         - [2026-05-10T05:00:00.000Z] [-] visited grandma last month\n",
    );
    put(
        dir.path(),
        "cold/2026-05/2026-05-12.md",
        "# 2026-05-12\n- [2026-05-12T04:00:00.000Z] [-] cleaned the kitchen\n",
    );
    let m = open_at(dir.path(), "2026-05-20T04:00:00Z");
    assert_eq!(
        event_rows(&m),
        [
            row("2026-05-10", "cleaned my white sneakers last month", "2026-04-01", "2026-05-01"),
            row("2026-05-10", "visited grandma last month", "2026-04-01", "2026-05-01"),
        ]
    );
    // Asked on 2026-05-20: last month is April. "clean" (stemmed) matches the bike chain,
    // recorded in April, and the sneakers, recorded in May but about April; not the kitchen,
    // recorded in May about nothing. Grandma is admitted by her event window but does not
    // match.
    let r = ask(&m, "which shoes did I clean last month?", false);
    assert_eq!(sorted(contents(&r)), ["cleaned my white sneakers last month", "cleaned the bike chain"]);
    // The kitchen, outside the window, fills the list after them (marked outside).
    let last = r.items.last().unwrap();
    assert_eq!((last.content.as_str(), last.in_window), ("cleaned the kitchen", Some(false)));
    let ex = r.explain.unwrap();
    let w = ex.window.unwrap();
    assert_eq!((w.start_date.to_string(), w.end_date.to_string()), ("2026-04-01".into(), "2026-05-01".into()));
    let et = ex.event_time.unwrap();
    assert_eq!(et.admitted, 2);
    assert_eq!((et.matched_by_record_date, et.matched_by_event_window), (1, 1));
    assert_eq!((et.hits_by_record_date, et.hits_by_event_window), (1, 1));
    // Record time only: April's bike chain alone.
    assert_eq!(contents(&ask(&m, "which shoes did I clean last month?", true)), ["cleaned the bike chain"]);
}

#[test]
fn what_was_written_this_week_about_last_week_joins_last_weeks_entries() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-11/2026-11-18.md", "# 2026-11-18\n- [2026-11-18T02:00:00.000Z] [-] 定了年会节目\n");
    put(dir.path(), "cold/2026-11/2026-11-20.md", "# 2026-11-20\n- [2026-11-20T02:00:00.000Z] [-] 看了一场电影\n");
    put(
        dir.path(),
        "cold/2026-11/2026-11-25.md",
        "# 2026-11-25\n- [2026-11-25T02:00:00.000Z] [-] 上周和阿杰定了合练时间\n\
         - [2026-11-25T03:00:00.000Z] [-] 今天下雨\n",
    );
    // Thursday 2026-11-26: 上周 is 11-16 … 11-22.
    let m = open_at(dir.path(), "2026-11-26T04:00:00Z");
    assert_eq!(event_rows(&m), [row("2026-11-25", "上周和阿杰定了合练时间", "2026-11-16", "2026-11-23")]);
    // 我们定了什么 → 定 is scored (我们, 了, 什么 are stop words): both agreements.
    let r = ask(&m, "上周我们定了什么", false);
    assert_eq!(sorted(contents(&r)), ["上周和阿杰定了合练时间", "定了年会节目"]);
    let et = r.explain.unwrap().event_time.unwrap();
    assert_eq!((et.matched_by_record_date, et.matched_by_event_window), (1, 1));
    // The window alone: last week's two entries and the one written about it, newest first
    // by record time; 今天下雨 (11-25, about 11-25) is not in last week.
    let r = ask(&m, "上周", false);
    assert_eq!(contents(&r), ["上周和阿杰定了合练时间", "看了一场电影", "定了年会节目"]);
    let ex = r.explain.unwrap();
    assert_eq!(ex.candidates_in_window, Some(3));
    assert_eq!(r.matched, 3);
    assert_eq!(contents(&ask(&m, "上周", true)), ["看了一场电影", "定了年会节目"]);
}

#[test]
fn a_hand_edit_that_removes_or_adds_the_time_word_changes_the_event_window() {
    let dir = tempfile::tempdir().unwrap();
    let rel = "cold/2026-11/2026-11-23.md";
    put(dir.path(), rel, "# 2026-11-23\n- [2026-11-23T02:00:00.000Z] [-] 下周三交报告\n");
    let m = open_at(dir.path(), "2026-11-23T07:00:00Z");
    assert_eq!(event_rows(&m), [row("2026-11-23", "下周三交报告", "2026-12-02", "2026-12-03")]);
    assert_eq!(contents(&ask(&m, "下周三要做什么", false)), ["下周三交报告"]);

    // The time word removed by hand (same line otherwise): the next query re-mirrors the day.
    put(dir.path(), rel, "# 2026-11-23\n- [2026-11-23T02:00:00.000Z] [-] 交报告\n");
    assert_eq!(contents(&ask(&m, "下周三要做什么", false)), Vec::<String>::new());
    assert_eq!(event_rows(&m), []);

    // And put back with another day: 下周五 = Friday 2026-12-04.
    put(dir.path(), rel, "# 2026-11-23\n- [2026-11-23T02:00:00.000Z] [-] 下周五交报告\n");
    assert_eq!(contents(&ask(&m, "下周五要做什么", false)), ["下周五交报告"]);
    assert_eq!(event_rows(&m), [row("2026-11-23", "下周五交报告", "2026-12-04", "2026-12-05")]);

    // The day file deleted: its entries and their event windows go.
    std::fs::remove_file(dir.path().join(rel)).unwrap();
    m.sync().unwrap();
    assert_eq!(event_rows(&m), []);
}

#[test]
fn import_write_and_rebuild_give_the_same_event_rows() {
    let src = tempfile::tempdir().unwrap();
    // A dsh archive: Monday 11-23 and Thursday 11-26.
    put(
        src.path(),
        "cold/2026-11/2026-11-23.md",
        "# 2026-11-23\n- [2026-11-23T02:00:00.000Z] [工作] 下周三交报告\n\
         - [2026-11-23T03:00:00.000Z] [-] 本周期的指标还没出来\n\
         - [2026-11-23T04:00:00.000Z] [家庭] 买了两盒月饼\n\
         - [2026-11-23T05:00:00.000Z] [-] 每周三下午开例会\n\
         - [2026-11-23T06:00:00.000Z] [-] 晚饭吃了火锅\n",
    );
    put(
        src.path(),
        "cold/2026-11/2026-11-26.md",
        "# 2026-11-26\n- [2026-11-26T02:00:00.000Z] [-] 昨天开会，上周五的结论下周一再议\n\
         - [2026-11-26T03:00:00.000Z] [-] 今天很累\n",
    );
    let root = tempfile::tempdir().unwrap();
    // Friday 2026-11-27 10:00.
    let m = open_at(root.path(), "2026-11-27T02:00:00Z");
    m.import(src.path(), Some(memlayers::import::Format::Dsh), &mut |_, _| {}).unwrap();
    // Through `write` on Friday 11-27: 上个月 = October 2026.
    write(&m, "上个月的账单还没付");
    // By hand, appended to Thursday's file (the next query mirrors it): 明天 = Friday 11-27.
    let rel = root.path().join("cold/2026-11/2026-11-26.md");
    let mut text = std::fs::read_to_string(&rel).unwrap();
    text.push_str("- [2026-11-26T04:00:00.000Z] [-] 明天去体检\n");
    std::fs::write(&rel, text).unwrap();
    m.sync().unwrap();
    // By hand: 下周三 from Monday 11-23 = 12-02; 本周期, 月饼, 每周三 (a habit) and plain text:
    // none; Thursday 11-26: 昨天 = 11-25, 上周五 = Friday of 11-16's week = 11-20, 下周一 =
    // 11-30; 今天 is the record day itself (not stored); 明天 = 11-27.
    let want = [
        row("2026-11-23", "下周三交报告", "2026-12-02", "2026-12-03"),
        row("2026-11-26", "昨天开会，上周五的结论下周一再议", "2026-11-20", "2026-11-21"),
        row("2026-11-26", "昨天开会，上周五的结论下周一再议", "2026-11-25", "2026-11-26"),
        row("2026-11-26", "昨天开会，上周五的结论下周一再议", "2026-11-30", "2026-12-01"),
        row("2026-11-26", "明天去体检", "2026-11-27", "2026-11-28"),
        row("2026-11-27", "上个月的账单还没付", "2026-10-01", "2026-11-01"),
    ];
    assert_eq!(event_rows(&m), want);
    let raw = |m: &Memory| -> Vec<(i64, i64, i64)> {
        let c = m.conn().unwrap();
        let mut st = c.prepare("SELECT id, start_day, end_day FROM entry_events ORDER BY 1, 2, 3").unwrap();
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?))).unwrap().map(Result::unwrap).collect()
    };
    let before = raw(&m);
    drop(m);

    // Rebuilt from the files alone: the same rows, ids included.
    delete_index(root.path());
    let m = open_at(root.path(), "2026-11-27T02:00:00Z");
    assert_eq!(raw(&m), before);
    assert_eq!(event_rows(&m), want);
}

#[test]
fn an_index_without_event_windows_is_rebuilt_with_them() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-11/2026-11-23.md", "# 2026-11-23\n- [2026-11-23T02:00:00.000Z] [-] 下周三交报告\n");
    {
        let m = open_at(dir.path(), "2026-11-23T07:00:00Z");
        // Make it look like an index of the build before event windows: no rows, no version.
        m.conn()
            .unwrap()
            .execute_batch("DELETE FROM entry_events; DELETE FROM meta WHERE key = 'events_version';")
            .unwrap();
    }
    let m = open_at(dir.path(), "2026-11-23T07:00:00Z");
    assert_eq!(m.open_report().files_mirrored, 1);
    assert_eq!(event_rows(&m), [row("2026-11-23", "下周三交报告", "2026-12-02", "2026-12-03")]);
    let v: String =
        m.conn().unwrap().query_row("SELECT value FROM meta WHERE key = 'events_version'", [], |r| r.get(0)).unwrap();
    assert_eq!(v, memlayers::index::events::EVENTS_VERSION.to_string());
}

#[test]
fn the_overlap_query_walks_its_index() {
    let dir = tempfile::tempdir().unwrap();
    let m = open_at(dir.path(), "2026-11-23T07:00:00Z");
    let c = m.conn().unwrap();
    let plan: Vec<String> = c
        .prepare(&format!("EXPLAIN QUERY PLAN {}", memlayers::index::events::OVERLAP_IDS_SQL))
        .unwrap()
        .query_map([1i64, 2, 3, 4], |r| r.get::<_, String>(3))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    // SQLite's wording for a range seek on an index that holds every column the query reads:
    // the one seek by start day (windows no longer than the question's start after its start
    // minus its length).
    assert_eq!(
        plan,
        ["SEARCH entry_events USING COVERING INDEX entry_events_start (start_day>? AND start_day<?)"],
        "{plan:?}"
    );
    assert!(!plan.iter().any(|d| d.starts_with("SCAN")), "{plan:?}");
}

/// The import's pre-check (`memlayers::temporal::may_hold_time`, which skips the parse of an
/// entry that cannot name a time) never skips a text the parser reads a window from, on the
/// real texts this repository holds: every line of the evaluation archives (three public
/// daily-note collections) and of the bundled example archive (entry lines as their content,
/// at their own timestamp), every evaluation question at its own "now", and every line of the
/// evaluation conversations. A skipped text with a window would be an entry without its event
/// windows.
#[test]
fn the_precheck_passes_every_text_with_a_window_in_the_evaluation_data() {
    use chrono::{DateTime, Utc};
    use memlayers::files::entry::{LineKind, parse_line};
    use memlayers::temporal::{may_hold_time, parse, parse_all};
    let tz: chrono_tz::Tz = "Asia/Shanghai".parse().unwrap();
    let noon: DateTime<Utc> = "2026-11-29T04:00:00Z".parse().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts: Vec<(String, DateTime<Utc>, String)> = Vec::new();
    for dir in ["tests/data/eval/archives", "examples/archive/cold"] {
        for f in walkdir::WalkDir::new(root.join(dir)).into_iter().map(Result::unwrap) {
            if !f.file_type().is_file() {
                continue;
            }
            let body = std::fs::read_to_string(f.path()).unwrap();
            for (k, line) in body.lines().enumerate() {
                let at = format!("{}:{}", f.path().display(), k + 1);
                match parse_line(line) {
                    LineKind::Entry(e) => texts.push((e.content, e.ts, at)),
                    _ => texts.push((line.to_string(), noon, at)),
                }
            }
        }
    }
    let questions = std::fs::read_to_string(root.join("tests/data/eval/questions.tsv")).unwrap();
    for (k, line) in questions.lines().enumerate().filter(|(_, l)| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let now: DateTime<Utc> = DateTime::parse_from_rfc3339(cols[2]).unwrap().into();
        texts.push((cols[3].to_string(), now, format!("questions.tsv:{}", k + 1)));
    }
    let talks = std::fs::read_to_string(root.join("tests/data/eval/conversations.txt")).unwrap();
    for (k, line) in talks.lines().enumerate() {
        texts.push((line.to_string(), noon, format!("conversations.txt:{}", k + 1)));
    }
    let mut with_window = 0;
    for (text, now, at) in &texts {
        if parse(text, *now, tz).window.is_some() || !parse_all(text, *now, tz).is_empty() {
            with_window += 1;
            assert!(may_hold_time(text), "{at}: {text:?} has a window but fails the pre-check");
        }
    }
    // The data is full of dates: 1 618 of these texts have a window at this commit.
    assert!(with_window >= 1000, "only {with_window} texts with a window");
}

/// `check` parses every entry's text again and reports the entries whose stored event windows
/// differ from it (`eventsMismatch`, the count; `eventsMismatchIds`, the lowest ids): a window
/// changed by hand, one added to an entry whose text names no time, one stored for an id that
/// is no entry. The untouched index is clean.
#[test]
fn check_reports_entries_whose_stored_event_windows_differ_from_their_text() {
    let dir = tempfile::tempdir().unwrap();
    // Monday 2026-11-23 10:00 Shanghai: 下周三 = 2026-12-02 (first test above).
    let m = open_at(dir.path(), "2026-11-23T02:00:00Z");
    write(&m, "下周三交报告");
    write(&m, "午饭吃了牛肉面");
    write(&m, "明天去体检");
    assert_eq!(event_rows(&m).len(), 2, "{:?}", event_rows(&m));
    let rep = m.check().unwrap();
    assert!(rep.clean, "{rep:?}");
    assert_eq!((rep.events_mismatch, rep.events_mismatch_ids.clone()), (0, vec![]));
    let c = m.conn().unwrap();
    let id = |content: &str| -> i64 {
        c.query_row("SELECT id FROM entries WHERE content = ?1", [content], |r| r.get(0)).unwrap()
    };
    let (plan, lunch, checkup) = (id("下周三交报告"), id("午饭吃了牛肉面"), id("明天去体检"));
    // The plan's window one day longer; a window for the lunch, whose text names no time; a
    // window for an id past the day's last entry (no entry). 明天去体检 is left as it is.
    c.execute("UPDATE entry_events SET end_day = end_day + 1 WHERE id = ?1", [plan]).unwrap();
    c.execute(
        "INSERT INTO entry_events(id, start_day, end_day) SELECT ?1, start_day, end_day FROM entry_events WHERE id = ?2",
        [lunch, checkup],
    )
    .unwrap();
    c.execute("INSERT INTO entry_events(id, start_day, end_day) VALUES(?1 + 5, 1, 2)", [checkup]).unwrap();
    drop(c);
    let rep = m.check().unwrap();
    assert!(!rep.clean, "{rep:?}");
    assert_eq!((rep.events_mismatch, rep.events_mismatch_ids.clone()), (3, vec![plan, lunch, checkup + 5]));
    drop(m);
    // The command line reports the same, under the JSON names.
    let out = cli().args(["--data-root", dir.path().to_str().unwrap(), "--json", "check"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["eventsMismatch"], 3, "{v}");
    assert_eq!(v["eventsMismatchIds"], serde_json::json!([plan, lunch, checkup + 5]), "{v}");
    assert_eq!(v["clean"], false);
}

/// A per-call process (the CLI) checks, before a windowed question, the day files of the window
/// and of the `NEAR_DAYS` (31) + L days on either side of a window of L days, where a line
/// naming the window in relative words is written; a hand edit farther away reaches the gate at
/// the next check of every file (here an unwindowed query), never lost.
#[test]
fn a_per_call_windowed_question_checks_the_days_near_its_window() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    put(root, "cold/2026-11/2026-11-10.md", "# 2026-11-10\n- [2026-11-10T02:00:00.000Z] [-] 写完了月度报告\n");
    let run = |args: &[&str]| -> serde_json::Value {
        let o = cli()
            .args(["--json", "--data-root", root.to_str().unwrap(), "--tz", "Asia/Shanghai"])
            .args(["--now", "2026-12-03T04:00:00Z"])
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    // Asked on Thursday 2026-12-03: 12月2号 = 2026-12-02, a one-day window; 合练 is scored.
    let in_window = || -> Vec<String> {
        let v = run(&["retrieve", "12月2号 合练"]);
        let mut c: Vec<String> = v["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["inWindow"] != serde_json::json!(false))
            .map(|i| i["content"].as_str().unwrap().to_string())
            .collect();
        c.sort();
        c
    };
    assert_eq!(in_window(), Vec::<String>::new());
    // Written by hand on Monday 11-23, 9 days before the window (within 31 + 1): 下周三 =
    // 2026-12-02. The next windowed call sees it.
    put(root, "cold/2026-11/2026-11-23.md", "# 2026-11-23\n- [2026-11-23T02:00:00.000Z] [-] 下周三合练\n");
    assert_eq!(in_window(), ["下周三合练"]);
    // Written by hand on 2026-01-05, 331 days before: an absolute date naming 2026-12-02. A
    // windowed call does not check that file; an unwindowed one checks every file, and from
    // then on the gate admits it.
    put(root, "cold/2026-01/2026-01-05.md", "# 2026-01-05\n- [2026-01-05T02:00:00.000Z] [-] 2026年12月2日合练\n");
    assert_eq!(in_window(), ["下周三合练"]);
    let all = run(&["retrieve", "合练"]);
    assert_eq!(all["items"].as_array().unwrap().len(), 2);
    assert_eq!(in_window(), ["2026年12月2日合练", "下周三合练"]);
}

/// The demo's question "tidemark last month" (now = Sunday 2026-11-29 20:00 in Shanghai:
/// last month = October) on the bundled example archive: the answers inside the window are
/// October's tidemark entries and a note about October. The 11-08 release note that lists 'last week' and 上周 as
/// examples names no time of its own (quoted, or listed beside a quoted example), so it is
/// not admitted into October by the 上周 it mentions (10-26 … 11-01 from 11-08).
#[test]
fn the_demos_tidemark_question_answers_from_october() {
    let (_d, m) = example_at("2026-11-29T12:00:00Z");
    let r = ask(&m, "tidemark last month", false);
    let inside: Vec<&str> = r.items.iter().filter(|i| i.in_window == Some(true)).map(|i| i.date.as_str()).collect();
    // October's two tidemark lines (short, so BM25 ranks them first), then the 11-01 review
    // whose text is about October (十月复盘: admitted by its event window, a month inside the
    // month asked about).
    assert_eq!(inside, ["2026-10-25", "2026-10-11", "2026-11-01"]);
    assert!(r.items.iter().all(|i| !(i.in_window == Some(true) && i.content.contains("v0.2.0 released"))));
}

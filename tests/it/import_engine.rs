//! Import, write side (docs/import.md): archives imported into a data root become canonical cold files that
//! every query (time windows included) works on; imports are idempotent and incremental.
//! Figures were counted by hand in the source files (see tests/import_archives.rs for how).

use crate::common;

use std::path::{Path, PathBuf};

use memlayers::import::Format;
use memlayers::query::retrieve::RetrieveArgs;
use memlayers::{Config, Memory};

fn archives() -> Option<PathBuf> {
    let p = std::env::var_os("MEMLAYERS_ARCHIVES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/archives"));
    if p.is_dir() {
        Some(p)
    } else {
        crate::common::skipped(&format!("{} not found (set MEMLAYERS_ARCHIVES)", p.display()));
        None
    }
}

fn open(root: &Path, tz: chrono_tz::Tz, now: &str) -> Memory {
    Memory::open(root, Config { timezone: tz, ..Config::default() }).unwrap().with_now(common::at(now))
}

#[test]
fn chinese_archive_imports_once_and_answers_time_questions() {
    let Some(a) = archives() else { return };
    let src = tempfile::tempdir().unwrap();
    common::copy_tree(&a.join("MiracleWong__Daily-Writing-In-2022"), src.path());
    let root = tempfile::tempdir().unwrap();
    // 2022-06-15 20:00 in Shanghai: 上个月 = May 2022.
    let m = open(root.path(), chrono_tz::Asia::Shanghai, "2022-06-15T12:00:00Z");
    let first = m.import(src.path(), None, &mut |_, _| {}).unwrap();
    assert_eq!(first.format, Format::DailyNotes);
    assert_eq!((first.scan.days, first.scan.files_read), (230, 230));
    assert_eq!(first.entries_added, first.entries_found);
    let again = m.import(src.path(), None, &mut |_, _| {}).unwrap();
    assert_eq!((again.entries_added, again.entries_already_present), (0, first.entries_found));
    // 06-28 keeps its 3 entries (source lines 10, 12, 15), each traced to its line.
    let day = m.by_date("2022-06-28", "2022-06-28", None).unwrap();
    let mut lines: Vec<(String, String)> = day
        .items
        .iter()
        .map(|i| (i.source.as_ref().unwrap().conv.clone(), i.source.as_ref().unwrap().seq.clone()))
        .collect();
    lines.sort();
    assert_eq!(
        lines,
        [
            ("import:06/2022-06-28.md".into(), "10".into()),
            ("import:06/2022-06-28.md".into(), "12".into()),
            ("import:06/2022-06-28.md".into(), "15".into())
        ]
    );
    // 07-21 line 19 "22:30 准时睡觉" keeps its written time: 22:30 in Shanghai = 14:30Z.
    let r = m.by_date("2022-07-21", "2022-07-21", Some(50)).unwrap();
    assert_eq!(r.matched, 19);
    assert!(r.items.iter().any(|i| i.ts == "2022-07-21T14:30:00.000Z" && i.content.contains("准时睡觉")));
    // A time question: 阅读 last month → May 2022, the three days that mention it. Two January
    // days name the whole year 2022 in their text (01-06 "电子书2022年阅读计划开启", 01-08 a link
    // titled "今年过去多久了？"): a year is longer than the month asked about, so their event
    // windows do not admit them (docs/event-time.md, "Which event windows a question admits").
    let q = RetrieveArgs { query: "上个月 阅读".into(), limit: Some(50), ..Default::default() };
    let r = m.retrieve(&q).unwrap();
    // The window's own items (rule 5's fill-up appends matches of other months after them,
    // marked `in_window: Some(false)`).
    let inside = r.items.iter().take_while(|i| i.in_window == Some(true));
    let mut days: Vec<&str> = inside.map(|i| i.date.as_str()).collect();
    days.dedup();
    days.sort();
    days.dedup();
    assert_eq!(days, ["2022-05-07", "2022-05-09", "2022-05-16"]);
    let by_record = RetrieveArgs { record_time_only: true, ..q.clone() };
    let mut days: Vec<String> = m
        .retrieve(&by_record)
        .unwrap()
        .items
        .into_iter()
        .filter(|i| i.in_window == Some(true))
        .map(|i| i.date)
        .collect();
    days.sort();
    days.dedup();
    assert_eq!(days, ["2022-05-07", "2022-05-09", "2022-05-16"]);
    assert!(r.items.iter().skip_while(|i| i.in_window == Some(true)).all(|i| i.in_window == Some(false)));
    // Without the window, 阅读 is found in other months too (January has 5 files with it).
    let all = m.recall("阅读", Some(50), None).unwrap();
    assert!(all.items.iter().any(|i| i.date.starts_with("2022-01")));
    assert!(m.check().unwrap().clean);
}

#[test]
fn reimport_after_the_archive_grew_adds_only_the_new_days() {
    let Some(a) = archives() else { return };
    let full = a.join("MiracleWong__Daily-Writing-In-2022");
    let src = tempfile::tempdir().unwrap();
    common::copy_tree(&full, src.path());
    std::fs::remove_dir_all(src.path().join("11")).unwrap();
    let root = tempfile::tempdir().unwrap();
    let m = open(root.path(), chrono_tz::Asia::Shanghai, "2022-12-01T00:00:00Z");
    let before = m.import(src.path(), Some(Format::DailyNotes), &mut |_, _| {}).unwrap();
    // `ls 11 | wc -l` = 13 November files.
    assert_eq!(before.scan.days, 230 - 13);
    common::copy_tree(&full.join("11"), &src.path().join("11"));
    let after = m.import(src.path(), Some(Format::DailyNotes), &mut |_, _| {}).unwrap();
    assert_eq!(after.scan.days, 230);
    assert_eq!(after.entries_added, after.entries_found - before.entries_found);
    assert_eq!(after.days_changed, 13);
    let nov = m.by_date("2022-11-01", "2022-11-30", Some(200)).unwrap();
    assert_eq!(nov.matched as usize, after.entries_added);
}

#[test]
fn duplicate_day_files_feed_one_day_and_leftovers_are_skipped() {
    let Some(a) = archives() else { return };
    let src = tempfile::tempdir().unwrap();
    common::copy_tree(&a.join("flancian__garden"), src.path());
    let root = tempfile::tempdir().unwrap();
    let m = open(root.path(), chrono_tz::Europe::Zurich, "2025-12-01T00:00:00Z");
    let rep = m.import(src.path(), Some(Format::DailyNotes), &mut |_, _| {}).unwrap();
    // 2022-03-02: 1 entry from 2022-03-02.md + 6 from 2022_03_02.md (hand-counted).
    let day = m.by_date("2022-03-02", "2022-03-02", None).unwrap();
    assert_eq!(day.matched, 7);
    let files: std::collections::BTreeSet<String> =
        day.items.iter().map(|i| i.source.as_ref().unwrap().conv.clone()).collect();
    assert_eq!(files.len(), 2, "{files:?}");
    assert_eq!(rep.scan.skipped.len(), 10);
    assert_eq!(rep.scan.skipped_by_reason.values().sum::<usize>(), 10);
    // Only the data root was written; the source is untouched (compare one file).
    assert_eq!(
        std::fs::read(src.path().join("journal/2022_03_02.md")).unwrap(),
        std::fs::read(a.join("flancian__garden/journal/2022_03_02.md")).unwrap()
    );
}

#[test]
fn importing_into_itself_is_refused_for_daily_notes() {
    let root = tempfile::tempdir().unwrap();
    let m = open(root.path(), chrono_tz::UTC, "2026-01-01T00:00:00Z");
    std::fs::write(root.path().join("2026-01-01.md"), "- hello\n").unwrap();
    let err = m.import(root.path(), Some(Format::DailyNotes), &mut |_, _| {}).unwrap_err();
    assert!(matches!(err, memlayers::Error::BadInput { ref field, .. } if field == "path"), "{err}");
}

/// The rows of `entries` (every column) and, for some words, the FTS5 matches with their BM25
/// scores: what a query can see of an index.
fn index_snapshot(root: &Path) -> (Vec<String>, Vec<(i64, String)>) {
    let c = rusqlite::Connection::open(root.join("index.sqlite3")).unwrap();
    let rows = c
        .prepare("SELECT id, day, ts, tag, content, coalesce(source, ''), file, line FROM entries ORDER BY id")
        .unwrap()
        .query_map([], |r| {
            Ok(format!(
                "{}|{}|{}|{}|{}|{}|{}|{}",
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, i64>(7)?
            ))
        })
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let mut fts = Vec::new();
    for q in ["\"会议\"", "\"meet\"", "\"天气\"", "\"notes\"", "\"工作\""] {
        let mut st = c
            .prepare("SELECT rowid, printf('%.9f', bm25(entries_fts, 1.0, 2.0)) FROM entries_fts WHERE entries_fts MATCH ?1 ORDER BY rowid")
            .unwrap();
        let hits = st.query_map([q], |r| Ok((r.get::<_, i64>(0)?, format!("{q} {}", r.get::<_, String>(1)?)))).unwrap();
        fts.extend(hits.map(|h| h.unwrap()));
    }
    (rows, fts)
}

/// An import writes and mirrors in batches (the first of 8 days, then up to 256 days
/// or 32 768 entries), its entries segmented on the file thread. Whatever the batching, the
/// index must hold exactly what a rebuild from the written files holds.
#[test]
fn an_import_in_many_batches_indexes_what_a_rebuild_from_its_files_indexes() {
    let src = tempfile::tempdir().unwrap();
    // 40 days from 2026-03-01 (Asia/Shanghai), day k holding k + 1 entries: 820 in all.
    let start = chrono::NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
    for k in 0..40u32 {
        let day = start + chrono::Days::new(u64::from(k));
        let mut text = format!("# {day}\n");
        for i in 0..=k {
            // 09:00 local = 01:00 UTC, one minute apart.
            let (tag, body) = match i % 4 {
                0 => ("工作", format!("第{k}天的会议记录 {i}：讨论天气与排期")),
                1 => ("-", format!("meeting notes {k}/{i} about the release")),
                2 => ("Work", format!("天气很好，去公园散步 {i}")),
                _ => ("家庭", format!("和家人视频 {k} 〔src:conv-{k}#{i}〕")),
            };
            text.push_str(&format!("- [{day}T01:{:02}:00.000Z] [{tag}] {body}\n", i % 60));
        }
        common::put(src.path(), &format!("cold/{}/{day}.md", day.format("%Y-%m")), &text);
    }
    let root = tempfile::tempdir().unwrap();
    let m = open(root.path(), chrono_tz::Asia::Shanghai, "2026-04-15T12:00:00Z");
    let rep = m.import(src.path(), Some(Format::Dsh), &mut |_, _| {}).unwrap();
    assert_eq!((rep.entries_found, rep.entries_added, rep.days_changed), (820, 820, 40));
    drop(m);
    let imported = index_snapshot(root.path());
    assert_eq!(imported.0.len(), 820);
    // Every fourth entry of a day is a 会议 entry: days k hold ⌊k/4⌋ + 1 of them, 220 in all
    // (10 days each of 1, 2, …, 10: 4 × (1 + … + 10)).
    assert_eq!(imported.1.iter().filter(|(_, q)| q.starts_with("\"会议\"")).count(), 220);
    for f in ["index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"] {
        let _ = std::fs::remove_file(root.path().join(f));
    }
    let m = open(root.path(), chrono_tz::Asia::Shanghai, "2026-04-15T12:00:00Z");
    assert_eq!(m.open_report().entries_indexed, 820);
    drop(m);
    let rebuilt = index_snapshot(root.path());
    assert_eq!(imported.0, rebuilt.0);
    assert_eq!(imported.1, rebuilt.1);
}

/// An archive dated in another zone: entries whose instant falls on another local day in the
/// root's zone than their source day file keep that file's day and are reported as misdated,
/// the same after the import as after a rebuild from the written files (newcomer test: `check`
/// said `allRead: true` after the import, `false` with 7 lines after a rebuild).
#[test]
fn an_import_reports_misdated_entries_as_a_rebuild_does() {
    let src = tempfile::tempdir().unwrap();
    // 15:00Z on 03-01 is 23:00 on 03-01 in Shanghai, filed under 03-02 by the source (written
    // in UTC+1, say); 16:30Z is 00:30 on 03-02 in Shanghai: in place.
    common::put(
        src.path(),
        "cold/2026-03/2026-03-02.md",
        "# 2026-03-02\n- [2026-03-01T15:00:00.000Z] [工作] 深夜的会议纪要\n- [2026-03-01T16:30:00.000Z] [-] 凌晨的想法\n",
    );
    let root = tempfile::tempdir().unwrap();
    let m = open(root.path(), chrono_tz::Asia::Shanghai, "2026-03-05T12:00:00Z");
    let rep = m.import(src.path(), Some(Format::Dsh), &mut |_, _| {}).unwrap();
    assert_eq!(rep.entries_added, 2);
    let expected = "timestamp 2026-03-01T15:00:00.000Z is local date 2026-03-01 in Asia/Shanghai, not this file's \
                    date 2026-03-02; indexed under 2026-03-02";
    let reported = |m: &Memory| {
        let c = m.check().unwrap();
        let mal: Vec<(String, i64, String)> =
            c.malformed.iter().map(|x| (x.file.clone(), x.line, x.reason.clone())).collect();
        (c.all_read, mal)
    };
    // The written day file holds the entry lines only (the plugin's layout: no heading), so
    // the misdated entry is its line 1.
    let day = std::fs::read_to_string(root.path().join("cold/2026-03/2026-03-02.md")).unwrap();
    assert!(day.starts_with("- [2026-03-01T15:00:00.000Z] [工作] 深夜的会议纪要"), "{day}");
    let after_import = reported(&m);
    assert_eq!(after_import, (false, vec![("cold/2026-03/2026-03-02.md".to_string(), 1, expected.to_string())]));
    drop(m);
    for f in ["index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"] {
        let _ = std::fs::remove_file(root.path().join(f));
    }
    let m = open(root.path(), chrono_tz::Asia::Shanghai, "2026-03-05T12:00:00Z");
    assert_eq!(reported(&m), after_import);
}

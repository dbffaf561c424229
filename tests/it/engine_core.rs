//! The Markdown archive mirrored into SQLite — files, index, tools.

use crate::common;

use common::*;
use memlayers::files::entry::Source;
use memlayers::layers::cold::WriteArgs;

fn fixture_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("plugin"), dir.path());
    dir
}

#[test]
fn plugin_fixtures_are_read_and_never_rewritten() {
    let dir = fixture_root();
    let before: Vec<Vec<u8>> = ["2026-09/2026-09-15.md", "2026-10/2026-10-01.md", "2026-10/2026-10-21.md"]
        .iter()
        .map(|f| std::fs::read(dir.path().join("cold").join(f)).unwrap())
        .collect();
    let m = open_at(dir.path(), "2026-10-22T00:00:00Z");
    // 2 readable entries + 1 malformed in 09-15, 2 in 10-01, 5 in 10-21.
    let rep = m.check().unwrap();
    assert!(rep.clean, "{rep:?}");
    assert_eq!(rep.entries, 9);
    assert_eq!(rep.malformed.len(), 1);
    assert_eq!((rep.malformed[0].file.as_str(), rep.malformed[0].line), ("cold/2026-09/2026-09-15.md", 5));
    m.recall("翻唱", None, None).unwrap();
    m.by_date("2026-09-01", "2026-10-31", None).unwrap();
    let after: Vec<Vec<u8>> = ["2026-09/2026-09-15.md", "2026-10/2026-10-01.md", "2026-10/2026-10-21.md"]
        .iter()
        .map(|f| std::fs::read(dir.path().join("cold").join(f)).unwrap())
        .collect();
    assert_eq!(before, after);
    // Every entry line formats back to exactly the bytes it was read from.
    let text = String::from_utf8(before[2].clone()).unwrap();
    for line in text.lines() {
        let memlayers::files::entry::LineKind::Entry(e) = memlayers::files::entry::parse_line(line) else {
            panic!("{line}")
        };
        assert_eq!(memlayers::files::entry::format_line(&e), line);
    }
}

#[test]
fn source_markers_come_back_as_objects() {
    let dir = fixture_root();
    let m = open_at(dir.path(), "2026-10-22T00:00:00Z");
    let r = m.recall("约定", None, None).unwrap();
    assert_eq!(r.items.len(), 1);
    assert_eq!(
        r.items[0].source,
        Some(Source { conv: "group:42".into(), seq: "15".into(), msg_id: Some("msg-8812".into()) })
    );
    assert_eq!(r.items[0].date, "2026-10-21");
    assert_eq!(r.items[0].ts, "2026-10-21T09:30:12.345Z");
}

#[test]
fn write_goes_to_the_local_date_file_in_plugin_format() {
    let dir = tempfile::tempdir().unwrap();
    // 2026-04-11T19:53Z is 2026-04-12 03:53 in Asia/Shanghai: the file is named after the local date.
    let m = open_at(dir.path(), "2026-04-11T19:53:00Z");
    let r = m
        .write(&WriteArgs {
            text: "半夜 想到\n一个点子".into(),
            tag: Some("[灵感]".into()),
            source: Some(Source { conv: "private:1".into(), seq: "9".into(), msg_id: None }),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        (r.added, r.date.as_str(), r.ts.as_str(), r.tag.as_str()),
        (true, "2026-04-12", "2026-04-11T19:53:00.000Z", "灵感")
    );
    let file = std::fs::read_to_string(dir.path().join("cold/2026-04/2026-04-12.md")).unwrap();
    assert_eq!(file, "- [2026-04-11T19:53:00.000Z] [灵感] 半夜 想到 一个点子 〔src:private:1#9〕\n");
}

#[test]
fn duplicate_write_only_updates_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let m = open_at(dir.path(), "2026-10-21T03:10:00Z");
    let args = WriteArgs { text: "同一句话".into(), tag: Some("t".into()), ..Default::default() };
    assert!(m.write(&args).unwrap().added);
    let again = m.write(&args).unwrap();
    assert_eq!((again.added, again.source_updated), (false, false));
    let with_src =
        WriteArgs { source: Some(Source { conv: "c".into(), seq: "2".into(), msg_id: None }), ..args.clone() };
    let r = m.write(&with_src).unwrap();
    assert_eq!((r.added, r.source_updated), (false, true));
    let file = std::fs::read_to_string(dir.path().join("cold/2026-10/2026-10-21.md")).unwrap();
    assert_eq!(file, "- [2026-10-21T03:10:00.000Z] [t] 同一句话 〔src:c#2〕\n");
    // Same text under another tag is a different entry.
    assert!(m.write(&WriteArgs { tag: Some("u".into()), ..args }).unwrap().added);
}

#[test]
fn bad_write_input_names_the_field_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let m = open_at(dir.path(), "2026-10-21T03:10:00Z");
    for (args, field) in [
        (WriteArgs { text: "   ".into(), ..Default::default() }, "text"),
        (WriteArgs { text: "长".repeat(4001), ..Default::default() }, "text"),
        (WriteArgs { text: "ok".into(), tag: Some("x".repeat(65)), ..Default::default() }, "tag"),
        (
            WriteArgs {
                text: "ok".into(),
                source: Some(Source { conv: "a〕".into(), seq: "1".into(), msg_id: None }),
                ..Default::default()
            },
            "source.conv",
        ),
    ] {
        match m.write(&args) {
            Err(memlayers::Error::BadInput { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{other:?}"),
        }
    }
    assert!(!dir.path().join("cold").exists());
}

#[test]
fn chinese_and_mixed_queries_behave_as_a_user_expects() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-10/2026-10-21.md",
        "- [2026-10-21T01:00:00.000Z] [工作] 今天下午和同事讨论了数据库索引设计方案最后决定采用按天分区\n\
         - [2026-10-21T02:00:00.000Z] [工作] 这周的Token消耗明显上升\n\
         - [2026-10-21T03:00:00.000Z] [早报] 早报：无\n\
         - [2026-10-21T04:00:00.000Z] [-] 北京 上海 两地出差\n\
         - [2026-10-21T05:00:00.000Z] [饮食] 晚饭吃了火锅\n\
         - [2026-10-21T06:00:00.000Z] [-] 读了早期的报告\n",
    );
    let m = open_at(dir.path(), "2026-10-22T00:00:00Z");
    // A 4-char phrase inside a long unpunctuated run.
    assert_eq!(recall_contents(&m, "索引设计", None), ["今天下午和同事讨论了数据库索引设计方案最后决定采用按天分区"]);
    // Mixed Latin + CJK term inside a sentence, any case.
    assert_eq!(recall_contents(&m, "token消耗", None), ["这周的Token消耗明显上升"]);
    // 2-char query: 早报 (content and tag), not 早期…报告.
    assert_eq!(recall_contents(&m, "早报", None), ["早报：无"]);
    // 1-char queries: a run-final char and a run-initial char.
    assert_eq!(recall_contents(&m, "锅", None), ["晚饭吃了火锅"]);
    assert_eq!(recall_contents(&m, "火", None), ["晚饭吃了火锅"]);
    // Space-separated terms never match through a bigram spanning the space.
    assert!(recall_contents(&m, "京上", None).is_empty());
    assert_eq!(recall_contents(&m, "北京 上海", None), ["北京 上海 两地出差"]);
    let mut or = recall_contents(&m, "火锅 出差", Some("or"));
    or.sort();
    assert_eq!(or, ["北京 上海 两地出差", "晚饭吃了火锅"]);
    // Tags match too.
    assert_eq!(recall_contents(&m, "饮食", None), ["晚饭吃了火锅"]);
    // FTS5 syntax in user input is plain text.
    for hostile in ["\"", "NEAR(火锅", "火锅*", "-火锅", "tag:火锅", "^火锅", "火锅 AND", "OR"] {
        if let Err(e) = m.recall(hostile, None, None) {
            assert!(matches!(e, memlayers::Error::BadInput { .. }), "{hostile:?}: {e}");
        }
    }
    // `NEAR(火锅` is one term whose probes are "near"* and "火锅": nothing has both.
    assert!(recall_contents(&m, "NEAR(火锅", None).is_empty());
    assert_eq!(recall_contents(&m, "NEAR( 火锅", Some("or")), ["晚饭吃了火锅"]);
}

#[test]
fn recall_ranks_the_stronger_text_match_first_and_reports_totals() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-10/2026-10-21.md",
        "- [2026-10-21T01:00:00.000Z] [翻唱] 翻唱 翻唱 翻唱 今天全在练翻唱\n\
         - [2026-10-21T02:00:00.000Z] [-] 顺便听了一首翻唱\n\
         - [2026-10-21T03:00:00.000Z] [-] 无关的一条\n\
         - [2026-10-21T04:00:00.000Z] [-] 无关的第二条\n\
         - [2026-10-21T05:00:00.000Z] [-] 无关的第三条\n\
         - [2026-10-21T06:00:00.000Z] [-] 无关的第四条\n",
    );
    let m = open_at(dir.path(), "2026-10-22T00:00:00Z");
    let r = m.recall("翻唱", Some(5), None).unwrap();
    // BM25's IDF needs the term in fewer than half of the rows to be positive: 2 of 6 here.
    assert_eq!((r.matched, r.returned, r.scanned_files, r.scanned_entries), (2, 2, 1, 6));
    assert_eq!(r.items[0].content, "翻唱 翻唱 翻唱 今天全在练翻唱");
    assert_eq!(r.probes, ["\"翻唱\""]);
    assert!(r.items[0].score.unwrap() > r.items[1].score.unwrap());
}

#[test]
fn window_tools_and_their_errors() {
    let dir = fixture_root();
    let m = open_at(dir.path(), "2026-10-22T00:00:00Z"); // 2026-10-22 08:00 in Shanghai
    let r = m.recent(Some(2), None).unwrap();
    assert_eq!((r.from.as_deref(), r.to.as_deref(), r.returned), (Some("2026-10-21"), Some("2026-10-22"), 5));
    assert_eq!(r.items[0].ts, "2026-10-21T13:59:59.999Z");
    let r = m.by_date("2026-10-01", "2026-10-01", None).unwrap();
    assert_eq!(
        r.items.iter().map(|i| i.content.as_str()).collect::<Vec<_>>(),
        ["高铁票 2 张 共 156 元", "国庆去杭州，订了西湖边的民宿"]
    );
    let r = m.by_tag("读书", None).unwrap();
    assert_eq!(r.matched, 2);
    assert_eq!(m.by_tag("-", None).unwrap().items[0].content, "午饭吃了牛肉面");
    let field = |e: memlayers::Error| match e {
        memlayers::Error::BadInput { field, .. } => field,
        other => panic!("{other}"),
    };
    assert_eq!(field(m.by_date("2026-10-02", "2026-10-01", None).unwrap_err()), "from");
    assert_eq!(field(m.by_date("2026-02-30", "2026-10-01", None).unwrap_err()), "from");
    assert_eq!(field(m.by_date("2016-01-01", "2026-10-01", None).unwrap_err()), "to");
    assert_eq!(field(m.recent(Some(0), None).unwrap_err()), "days");
    assert_eq!(field(m.recent(None, Some(201)).unwrap_err()), "limit");
    assert_eq!(field(m.recall("x", Some(51), None).unwrap_err()), "limit");
    assert_eq!(field("xor".parse::<memlayers::Mode>().unwrap_err()), "mode");
    assert_eq!(field(m.recall("，。", None, None).unwrap_err()), "keyword");
    // 3660 days is the largest span accepted.
    assert!(m.by_date("2016-10-25", "2026-10-31", None).is_ok());
}

#[test]
fn deleting_the_index_rebuilds_identical_results() {
    let dir = fixture_root();
    let queries = |m: &memlayers::Memory| {
        let mut out = Vec::new();
        for kw in ["翻唱", "早报 sqlite", "token", "吃", "读书 融资", "杭州"] {
            for mode in ["and", "or"] {
                out.push(serde_json::to_string(&m.recall(kw, Some(50), Some(mode.parse().unwrap())).unwrap()).unwrap());
            }
        }
        out.push(serde_json::to_string(&m.by_date("2026-09-01", "2026-10-31", Some(200)).unwrap()).unwrap());
        out.push(serde_json::to_string(&m.by_tag("读书", None).unwrap()).unwrap());
        out
    };
    // Queries record usage hits (usage.json, flushed when the handle drops), which feed the
    // ranking: so compare two copies of the same state, one with its index and one without.
    queries(&open_at(dir.path(), "2026-10-21T00:00:00Z"));
    let copy = tempfile::tempdir().unwrap();
    copy_tree(dir.path(), copy.path());
    for f in ["index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"] {
        let _ = std::fs::remove_file(copy.path().join(f));
    }
    let first = queries(&open_at(dir.path(), "2026-10-22T00:00:00Z"));
    let second = queries(&open_at(copy.path(), "2026-10-22T00:00:00Z"));
    assert_eq!(first, second);
}

#[test]
fn hand_edits_are_seen_by_the_next_query() {
    let dir = fixture_root();
    let m = open_at(dir.path(), "2026-10-22T00:00:00Z");
    assert!(recall_contents(&m, "手工追加", None).is_empty());
    use std::io::Write;
    let p = dir.path().join("cold/2026-10/2026-10-21.md");
    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    writeln!(f, "- [2026-10-21T15:00:00.000Z] [-] 手工追加的一行").unwrap();
    drop(f);
    assert_eq!(recall_contents(&m, "手工追加", None), ["手工追加的一行"]);
    // Deleting a file drops its entries; a new file appears.
    std::fs::remove_file(&p).unwrap();
    assert!(recall_contents(&m, "手工追加", None).is_empty());
    put(dir.path(), "cold/2026-10/2026-10-25.md", "- [2026-10-25T01:00:00.000Z] [-] 新文件里的手工追加\n");
    assert_eq!(recall_contents(&m, "手工追加", None), ["新文件里的手工追加"]);
    assert!(m.check().unwrap().clean);
}

#[test]
fn window_queries_use_indexes_not_scans() {
    let dir = fixture_root();
    let m = open_at(dir.path(), "2026-10-22T00:00:00Z");
    let c = m.conn().unwrap();
    let mut st = c.prepare(&format!("EXPLAIN QUERY PLAN {}", memlayers::query::WINDOW_SQL)).unwrap();
    let w: String =
        st.query_map([1, 2], |r| r.get::<_, String>(3)).unwrap().map(Result::unwrap).collect::<Vec<_>>().join(" | ");
    assert!(w.contains("SEARCH r USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"), "{w}");
    assert!(!w.contains("TEMP B-TREE"), "a window listing walks the rowid backwards, no sort: {w}");
    let mut st = c.prepare(&format!("EXPLAIN QUERY PLAN {}", memlayers::query::TAG_SQL)).unwrap();
    let t: String = st
        .query_map(rusqlite::params!["x", 3], |r| r.get::<_, String>(3))
        .unwrap()
        .map(Result::unwrap)
        .collect::<Vec<_>>()
        .join(" | ");
    assert!(t.contains("SEARCH t USING INDEX sqlite_autoindex_tags_1 (key=?)"), "{t}");
    assert!(t.contains("SEARCH r USING INDEX entries_tag (tag_id=?)"), "{t}");
    assert!(!t.contains("TEMP B-TREE"), "by_tag must walk the index in ts order: {t}");
}

#[test]
fn tokenizer_version_change_forces_a_rebuild() {
    let dir = fixture_root();
    drop(open_at(dir.path(), "2026-10-22T00:00:00Z"));
    let c = rusqlite::Connection::open(dir.path().join("index.sqlite3")).unwrap();
    // Pretend an older segmenter built this index, and poison its FTS rows.
    c.execute("UPDATE meta SET value = '0' WHERE key = 'tokenizer_version'", []).unwrap();
    c.execute("INSERT INTO entries_fts(entries_fts) VALUES('delete-all')", []).unwrap();
    drop(c);
    let m = open_at(dir.path(), "2026-10-22T00:00:00Z");
    assert_eq!(m.open_report().files_mirrored, 3);
    assert_eq!(recall_contents(&m, "牛肉面", None), ["午饭吃了牛肉面"]);
}

#[test]
fn a_garbage_or_truncated_index_is_rebuilt_with_a_warning() {
    for garbage in [&b"this is not a database at all"[..], &[0u8; 0][..]] {
        let dir = fixture_root();
        drop(open_at(dir.path(), "2026-10-22T00:00:00Z"));
        for f in ["index.sqlite3-wal", "index.sqlite3-shm"] {
            let _ = std::fs::remove_file(dir.path().join(f));
        }
        let db = dir.path().join("index.sqlite3");
        if garbage.is_empty() {
            // Truncate to the first page: the header survives, the tables do not.
            let bytes = std::fs::read(&db).unwrap();
            std::fs::write(&db, &bytes[..4096.min(bytes.len())]).unwrap();
        } else {
            std::fs::write(&db, garbage).unwrap();
        }
        let m = open_at(dir.path(), "2026-10-22T00:00:00Z");
        assert_eq!(m.warnings().len(), 1, "{:?}", m.warnings());
        assert!(m.warnings()[0].contains("rebuilt from the files"));
        assert_eq!(recall_contents(&m, "牛肉面", None), ["午饭吃了牛肉面"]);
        assert!(m.check().unwrap().clean);
    }
}

#[test]
fn check_lists_files_that_do_not_follow_the_layout() {
    let dir = fixture_root();
    put(dir.path(), "cold/2026-11/2026-10-05.md", "- [2026-10-05T01:00:00.000Z] [-] 放错月份\n");
    put(dir.path(), "cold/2026-11/2026-11-31.md", "- [2026-11-30T01:00:00.000Z] [-] 不存在的日期\n");
    put(dir.path(), "cold/2026-11/notes.md", "随手记\n");
    put(dir.path(), "cold/2026-11-03.md", "- [2026-11-03T01:00:00.000Z] [-] 不在月份目录里\n");
    let m = open_at(dir.path(), "2026-11-29T00:00:00Z");
    let rep = m.check().unwrap();
    assert!(rep.clean, "ignored files do not make the index inconsistent: {rep:?}");
    assert_eq!(
        rep.ignored,
        ["cold/2026-11-03.md", "cold/2026-11/2026-10-05.md", "cold/2026-11/2026-11-31.md", "cold/2026-11/notes.md"]
    );
}

#[test]
fn write_refuses_a_day_path_that_is_not_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let month = dir.path().join("cold/2026-10");
    std::fs::create_dir_all(&month).unwrap();
    // A FIFO at today's path would block a read forever; a folder is not a day file either.
    let fifo = month.join("2026-10-21.md");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let m = open_at(dir.path(), "2026-10-21T03:10:00Z");
    let err = m.write(&WriteArgs { text: "x".into(), ..Default::default() }).unwrap_err();
    assert!(err.to_string().contains("not a regular file"), "{err}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "left as it was");
}

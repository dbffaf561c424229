//! The compact index of migration V8 (`entry_rows` + `tags` behind the `entries` view, the
//! by_tag index on instants, the body-first FTS5 table): an index made by the V7 schema is
//! rebuilt and answers as a new one, the view gives back every V7 column, and by_tag keeps
//! V7's order (case-insensitive key, newest instant first, equal instants newest id first).

use crate::common::{copy_tree, open_at, put};

use memlayers::query::retrieve::RetrieveArgs;
use rusqlite::Connection;

mod v7 {
    refinery::embed_migrations!("migrations");
}

const NOW: &str = "2026-11-29T12:00:00Z";

/// The V1 `entries` columns, in V1's order.
type V7Row = (i64, String, String, String, String, String, Option<String>, String, i64);

fn v7_rows(c: &Connection) -> Vec<V7Row> {
    let mut st =
        c.prepare("SELECT id, day, ts, tag, tag_key, content, source, file, line FROM entries ORDER BY id").unwrap();
    st.query_map([], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?))
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

/// Builds `root/index.sqlite3` with the migrations up to V7 and fills it the way memlayers'
/// V7 writer did (one `entries` row per entry line with every column stored, the FTS5 rows
/// in V3's column order, one `files` row per day file with its current stat and hash, the
/// tokenizer version): an index the V7 code would have found up to date. Returns the number
/// of day files.
fn build_v7_index(root: &std::path::Path) -> usize {
    use memlayers::files::entry::{LineKind, format_ts, parse_line};
    use memlayers::fts5::segment::{TOKENIZER_VERSION, segment};
    let mut c = Connection::open(root.join("index.sqlite3")).unwrap();
    c.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(())).unwrap();
    v7::migrations::runner().set_target(refinery::Target::Version(7)).run(&mut c).unwrap();
    c.pragma_update(None, "application_id", memlayers::index::stamp::APPLICATION_ID).unwrap();
    let tx = c.transaction().unwrap();
    let mut files = 0;
    let mut months: Vec<_> = std::fs::read_dir(root.join("cold")).unwrap().map(|e| e.unwrap().path()).collect();
    months.sort();
    for month in months {
        let mut days: Vec<_> = std::fs::read_dir(&month).unwrap().map(|e| e.unwrap().path()).collect();
        days.sort();
        for path in days {
            let bytes = std::fs::read(&path).unwrap();
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let day_s = path.file_stem().unwrap().to_string_lossy().into_owned();
            let day = chrono::NaiveDate::parse_from_str(&day_s, "%Y-%m-%d").unwrap();
            let base = memlayers::files::day_number(day) << 20;
            let mut n = 0i64;
            for (i, line) in String::from_utf8(bytes.clone()).unwrap().split('\n').enumerate() {
                if let LineKind::Entry(e) = parse_line(line) {
                    let source = e.source.as_ref().map(|s| s.marker_body());
                    tx.execute(
                        "INSERT INTO entries(id, day, ts, tag, tag_key, content, source, file, line) \
                         VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                        rusqlite::params![
                            base | n,
                            day_s,
                            format_ts(e.ts),
                            e.tag,
                            e.tag.to_lowercase(),
                            e.content,
                            source,
                            rel,
                            i as i64 + 1
                        ],
                    )
                    .unwrap();
                    tx.execute(
                        "INSERT INTO entries_fts(rowid, tag, body) VALUES(?1, ?2, ?3)",
                        rusqlite::params![base | n, segment(&e.tag), segment(&e.content)],
                    )
                    .unwrap();
                    n += 1;
                }
            }
            let meta = std::fs::metadata(&path).unwrap();
            let (size, mtime_ns, inode) = memlayers::files::identity::identity(&meta);
            let ctime_ns = memlayers::files::identity::ctime_ns(&meta);
            tx.execute(
                "INSERT INTO files(path, day, size, mtime_ns, inode, ctime_ns, hash, entries) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                rusqlite::params![rel, day_s, size, mtime_ns, inode, ctime_ns, memlayers::index::sync::sha1_hex(&bytes), n],
            )
            .unwrap();
            files += 1;
        }
    }
    tx.execute("INSERT INTO meta(key, value) VALUES('tokenizer_version', ?1)", [TOKENIZER_VERSION.to_string()])
        .unwrap();
    tx.commit().unwrap();
    files
}

#[test]
fn an_index_made_by_the_v7_schema_is_rebuilt_and_answers_as_a_new_one() {
    let archive = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/archive");
    let (old, new) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    copy_tree(&archive, old.path());
    copy_tree(&archive, new.path());
    let files = build_v7_index(old.path());
    let before = v7_rows(&Connection::open(old.path().join("index.sqlite3")).unwrap());
    assert!(before.len() > 100, "the example archive has {} entries", before.len());

    let m_old = open_at(old.path(), NOW);
    // V8 dropped the V7 rows and forgot the files: every day file was mirrored again.
    assert_eq!(m_old.open_report().files_mirrored, files);
    assert!(m_old.warnings().is_empty(), "{:?}", m_old.warnings());
    let c = m_old.conn().unwrap();
    let kind: String = c.query_row("SELECT type FROM sqlite_schema WHERE name = 'entries'", [], |r| r.get(0)).unwrap();
    assert_eq!(kind, "view");
    // V8, then V9 (fts_counts), V10 (layer_files.ctime_ns), V11 (entry_lens), V12 (no
    // usage_decay index), V13 (entry_events), V14 (its indexes by start day) and V15 (one of
    // them left), the newest.
    let version: i64 = c.query_row("SELECT max(version) FROM refinery_schema_history", [], |r| r.get(0)).unwrap();
    assert_eq!(version, 15);
    // V11: one entry_lens row per day file with entries, 2 bytes an entry; no FTS5 docsize.
    let (days, bytes): (i64, i64) =
        c.query_row("SELECT count(*), sum(length(lens)) FROM entry_lens", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    let with_entries: i64 = c.query_row("SELECT count(*) FROM files WHERE entries > 0", [], |r| r.get(0)).unwrap();
    assert_eq!((days, bytes), (with_entries, 2 * before.len() as i64));
    // The view gives back every column V7 stored, row for row.
    assert_eq!(v7_rows(&c), before);
    drop(c);

    // Same answers as an index built by this code from the same files (same calls in the
    // same order, so the usage hits each records are the same too).
    let m_new = open_at(new.path(), NOW);
    let mut answered = 0;
    for kw in ["翻唱", "约定", "锅", "rust", "周末 计划"] {
        let (a, b) = (m_old.recall(kw, Some(20), None).unwrap(), m_new.recall(kw, Some(20), None).unwrap());
        answered += a.items.len();
        assert_eq!(a.items, b.items, "recall {kw}");
        assert_eq!(a.matched, b.matched, "recall {kw}");
    }
    assert!(answered >= 5, "the keywords find entries of the example archive ({answered})");
    for tag in ["-", "计划", "饮食"] {
        let (a, b) = (m_old.by_tag(tag, Some(200)).unwrap(), m_new.by_tag(tag, Some(200)).unwrap());
        assert!(!a.items.is_empty(), "by_tag {tag}");
        assert_eq!((a.items, a.matched), (b.items, b.matched), "by_tag {tag}");
    }
    let (a, b) = (
        m_old.by_date("2026-10-01", "2026-10-31", Some(200)).unwrap(),
        m_new.by_date("2026-10-01", "2026-10-31", Some(200)).unwrap(),
    );
    assert_eq!(a.items, b.items);
    for q in ["上周 约定", "上个月 翻唱", "前天晚上我吃了什么"] {
        let args = RetrieveArgs { query: q.into(), limit: Some(20), ..Default::default() };
        let (a, b) = (m_old.retrieve(&args).unwrap(), m_new.retrieve(&args).unwrap());
        assert_eq!(a.items, b.items, "retrieve {q}");
    }
}

#[test]
fn the_usage_ledger_of_a_v7_index_survives_the_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-21.md", "# 2026-10-21\n\n- [2026-10-21T04:00:00.000Z] [饮食] 晚饭吃了火锅\n");
    build_v7_index(dir.path());
    let c = Connection::open(dir.path().join("index.sqlite3")).unwrap();
    c.execute(
        "INSERT INTO usage(key, hits, first_hit_at, last_hit_at, weight, last_decay_at, text) \
         VALUES('k1', 3, '2026-10-21T05:00:00.000Z', '2026-10-22T05:00:00.000Z', 68.0, NULL, '晚饭吃了火锅')",
        [],
    )
    .unwrap();
    drop(c);
    let m = open_at(dir.path(), NOW);
    assert_eq!(m.open_report().files_mirrored, 1);
    let c = m.conn().unwrap();
    let row: (i64, f64, String) = c
        .query_row("SELECT hits, weight, last_hit_at FROM usage WHERE key = 'k1'", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(row, (3, 68.0, "2026-10-22T05:00:00.000Z".to_string()));
}

/// Two day files whose tags differ only in case, with equal instants, an entry out of order
/// inside its file and entries whose instant lies on another day than their file.
fn tag_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-10/2026-10-20.md",
        "# 2026-10-20\n\n\
         - [2026-10-20T01:00:00.000Z] [Rust] a\n\
         - [2026-10-20T03:00:00.000Z] [rust] b\n\
         - [2026-10-20T02:00:00.000Z] [RUST] c\n\
         - [2026-10-20T03:00:00.000Z] [Rust] d\n\
         - [2026-10-22T05:00:00.000Z] [rust] e\n\
         - [2026-10-20T04:00:00.000Z] [Äpfel] f\n\
         - [2026-10-20T04:30:00.000Z] [-] u1\n",
    );
    put(
        dir.path(),
        "cold/2026-10/2026-10-21.md",
        "# 2026-10-21\n\n\
         - [2026-10-21T00:30:00.000Z] [rust] g\n\
         - [2026-10-21T03:00:00.000Z] [äpfel] h\n\
         - [2026-10-19T23:59:59.999Z] [Rust] i\n\
         - [2026-10-21T01:00:00.000Z] [-] u2\n",
    );
    dir
}

#[test]
fn by_tag_is_case_insensitive_newest_instant_first_equal_instants_newest_id_first() {
    let dir = tag_root();
    let m = open_at(dir.path(), NOW);
    let listed = |tag: &str| -> Vec<(String, String, String)> {
        m.by_tag(tag, Some(50)).unwrap().items.into_iter().map(|i| (i.content, i.tag, i.ts)).collect()
    };
    let row = |c: &str, t: &str, ts: &str| (c.to_string(), t.to_string(), ts.to_string());
    // Worked by hand: every rust spelling, by instant descending; b and d share 03:00, and d
    // (the later line of the same file, the larger id) comes first; each keeps its spelling.
    let rust = vec![
        row("e", "rust", "2026-10-22T05:00:00.000Z"),
        row("g", "rust", "2026-10-21T00:30:00.000Z"),
        row("d", "Rust", "2026-10-20T03:00:00.000Z"),
        row("b", "rust", "2026-10-20T03:00:00.000Z"),
        row("c", "RUST", "2026-10-20T02:00:00.000Z"),
        row("a", "Rust", "2026-10-20T01:00:00.000Z"),
        row("i", "Rust", "2026-10-19T23:59:59.999Z"),
    ];
    assert_eq!(listed("rust"), rust);
    assert_eq!(listed("RUST"), rust);
    assert_eq!(m.by_tag("Rust", Some(3)).unwrap().matched, 7);
    // Beyond ASCII: Ä and ä are one key.
    let apfel = vec![row("h", "äpfel", "2026-10-21T03:00:00.000Z"), row("f", "Äpfel", "2026-10-20T04:00:00.000Z")];
    assert_eq!(listed("ÄPFEL"), apfel);
    assert_eq!(
        listed("-"),
        vec![row("u2", "-", "2026-10-21T01:00:00.000Z"), row("u1", "-", "2026-10-20T04:30:00.000Z")]
    );
}

#[test]
fn the_entries_view_derives_day_file_line_key_and_instant() {
    let dir = tag_root();
    let m = open_at(dir.path(), NOW);
    let c = m.conn().unwrap();
    type Row = (String, String, String, String, String, i64, i64);
    let get = |content: &str| -> Row {
        c.query_row("SELECT day, ts, tag, tag_key, file, line, ts_ms FROM entries WHERE content = ?1", [content], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?))
        })
        .unwrap()
    };
    let s = |x: &str| x.to_string();
    // e: 5th entry, line 7 (heading and blank line above), two days after its file's date;
    // 2026-10-22T05:00:00Z is 1 792 645 200 000 ms after the Unix epoch.
    assert_eq!(
        get("e"),
        (
            s("2026-10-20"),
            s("2026-10-22T05:00:00.000Z"),
            s("rust"),
            s("rust"),
            s("cold/2026-10/2026-10-20.md"),
            7,
            1_792_645_200_000
        )
    );
    // i: a millisecond before its file's date in UTC: 1 792 454 399 999 ms.
    assert_eq!(
        get("i"),
        (
            s("2026-10-21"),
            s("2026-10-19T23:59:59.999Z"),
            s("Rust"),
            s("rust"),
            s("cold/2026-10/2026-10-21.md"),
            5,
            1_792_454_399_999
        )
    );
    assert_eq!(get("f").3, "äpfel");
    // One tags row per key; the spelling is stored in the entry row only when it differs from
    // the key's first spelling ("Rust", "Äpfel").
    let keys: i64 = c.query_row("SELECT count(*) FROM tags", [], |r| r.get(0)).unwrap();
    assert_eq!(keys, 3); // '-', 'rust', 'äpfel'
    let stored: Vec<Option<String>> = c
        .prepare("SELECT tag FROM entry_rows ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let o = |x: &str| Some(x.to_string());
    assert_eq!(
        stored,
        vec![None, o("rust"), o("RUST"), None, o("rust"), None, None, o("rust"), o("äpfel"), None, None]
    );
}

#[test]
fn the_exact_utc_filter_on_ts_ms_is_half_open_to_the_millisecond() {
    let dir = tag_root();
    let m = open_at(dir.path(), NOW);
    let c = m.conn().unwrap();
    let between = |a: &str, b: &str| -> Vec<String> {
        let sql = format!(
            "SELECT e.content FROM entries e WHERE e.id BETWEEN ?1 AND ?2{} ORDER BY e.id",
            memlayers::query::ts_filter_sql("e", 3, 4)
        );
        let mut st = c.prepare(&sql).unwrap();
        st.query_map(rusqlite::params![0i64, i64::MAX, a, b], |r| r.get(0)).unwrap().map(Result::unwrap).collect()
    };
    // [03:00, 04:00): b and d at 03:00 are in, f at 04:00 is out.
    assert_eq!(between("2026-10-20T03:00:00.000Z", "2026-10-20T04:00:00.000Z"), ["b", "d"]);
    // A millisecond on either side of i (2026-10-19T23:59:59.999Z).
    assert_eq!(between("2026-10-19T23:59:59.999Z", "2026-10-20T00:00:00.000Z"), ["i"]);
    assert!(between("2026-10-19T23:59:59.998Z", "2026-10-19T23:59:59.999Z").is_empty());
    assert_eq!(between("2026-10-19T23:59:59.998Z", "2026-10-20T01:00:00.001Z"), ["a", "i"]);
}

/// The token counts of one day in `entry_lens` (migration V11), decoded by hand: a
/// little-endian u16 per entry; `None` when the day has no row.
fn day_lens(m: &memlayers::Memory, day: &str) -> Option<Vec<u16>> {
    let c = m.conn().unwrap();
    let blob: Option<Vec<u8>> = c
        .query_row("SELECT lens FROM entry_lens WHERE day = CAST(julianday(?1) - 1721424.5 AS INTEGER)", [day], |r| {
            Ok(r.get_ref(0)?.as_blob()?.to_vec())
        })
        .ok();
    blob.map(|b| b.chunks_exact(2).map(|p| u16::from_le_bytes([p[0], p[1]])).collect())
}

/// Each entry's token count (tag and content, as FTS5 stores them) follows every write path:
/// a sync of a new file, an append through `write`, a hand edit, a deleted file. Counts by
/// hand from the segmenter's rules: `周报 写完` → 周报 报 写完 完 (4), the tag `-` none;
/// `ok 42 go` → 3 (words under 3 letters and digits get no stem), tag `工作` → 工作 作 (2);
/// `买一双跑鞋` → 4 bigrams + 鞋 (5), tag `计划` 2; `火锅 好吃!` → 火锅 锅 好吃 吃 (4).
#[test]
fn entry_lens_holds_each_entrys_token_count_through_every_write_path() {
    let dir = tempfile::tempdir().unwrap();
    let day = "cold/2026-11/2026-11-20.md";
    put(dir.path(), day, "- [2026-11-20T01:00:00.000Z] [-] 周报 写完\n- [2026-11-20T02:00:00.000Z] [工作] ok 42 go\n");
    let m = open_at(dir.path(), NOW);
    assert_eq!(day_lens(&m, "2026-11-20"), Some(vec![4, 5]));
    // An append through the library: NOW is 2026-11-29 20:00 in Shanghai.
    let w =
        memlayers::WriteArgs {
            text: "买一双跑鞋".into(), tag: Some("计划".into()), important: false, source: None
        };
    m.write(&w).unwrap();
    m.write(&memlayers::WriteArgs { text: "周报 写完".into(), tag: None, important: false, source: None }).unwrap();
    assert_eq!(day_lens(&m, "2026-11-29"), Some(vec![7, 4]));
    // A hand edit: the first entry removed, one added; seen by the next query.
    put(dir.path(), day, "- [2026-11-20T02:00:00.000Z] [工作] ok 42 go\n- [2026-11-20T03:00:00.000Z] [-] 火锅 好吃!\n");
    let r = m.retrieve(&RetrieveArgs { query: "火锅".into(), ..Default::default() }).unwrap();
    assert_eq!(r.items.len(), 1);
    assert_eq!(day_lens(&m, "2026-11-20"), Some(vec![5, 4]));
    // A deleted day file takes its row with it.
    std::fs::remove_file(dir.path().join(day)).unwrap();
    m.recall("火锅", None, None).unwrap();
    assert_eq!(day_lens(&m, "2026-11-20"), None);
    let chk = m.check().unwrap();
    assert!(chk.clean, "{chk:?}");
}

/// A day whose stored counts are missing or short (an index damaged by hand, say) still
/// scores every match exactly: the counts come from the entries' text then. `check` reports
/// the day. Two fresh roots from the example archive, one with its counts wiped, answer the
/// same windowed and unwindowed questions with the same ids and scores.
#[test]
fn matches_whose_token_count_is_not_stored_are_counted_from_their_text() {
    let fresh = || crate::common::example_at(NOW);
    let ((_a, kept), (_b, wiped)) = (fresh(), fresh());
    let c = wiped.conn().unwrap();
    let days: i64 = c.query_row("SELECT count(*) FROM entry_lens", [], |r| r.get(0)).unwrap();
    assert!(days > 20, "{days}");
    // Every other day's counts gone, the rest cut to one entry.
    c.execute_batch("DELETE FROM entry_lens WHERE day % 2 = 0; UPDATE entry_lens SET lens = substr(lens, 1, 2);")
        .unwrap();
    drop(c);
    for q in ["周报", "上个月的周报", "今年 吃", "project", "火锅"] {
        let ask = |m: &memlayers::Memory| {
            let r = m
                .retrieve(&RetrieveArgs { query: q.into(), limit: Some(20), explain: true, ..Default::default() })
                .unwrap();
            let bm25: Vec<f64> = r.explain.unwrap().hits.iter().map(|h| h.bm25).collect();
            (r.items.iter().map(|i| (i.id, i.score)).collect::<Vec<_>>(), bm25)
        };
        let want = ask(&kept);
        assert!(!want.0.is_empty(), "{q}");
        assert_eq!(ask(&wiped), want, "{q}");
    }
    let chk = wiped.check().unwrap();
    assert!(!chk.clean && chk.count_mismatch.len() as i64 >= days / 2, "{chk:?}");
}

/// Token counts changed by hand in the index are reported by `check` (`countMismatch`, the
/// day's file), whatever their form: a wrong value, the same bytes as TEXT, an INTEGER. Queries
/// still answer, with the BM25 of the untouched index where the value cannot be read (the
/// INTEGER: the day's entries are counted from their text).
#[test]
fn check_reports_token_counts_that_disagree_with_the_text() {
    let (_d, m) = crate::common::example_at(NOW);
    assert!(m.check().unwrap().clean);
    let bm25_of = |m: &memlayers::Memory| {
        // Limit 3, the window's matches: no match outside it fills the list (rule 5).
        let args = RetrieveArgs { query: "上周 约定".into(), limit: Some(3), explain: true, ..Default::default() };
        let mut v: Vec<(i64, String)> =
            m.retrieve(&args).unwrap().explain.unwrap().hits.iter().map(|h| (h.id, format!("{:.9}", h.bm25))).collect();
        v.sort();
        v
    };
    let before = bm25_of(&m);
    // Last week's three entries that say 约定 (2026-11-16, -18, -21: the demo, docs/time-expressions.md).
    assert_eq!(before.len(), 3, "{before:?}");
    let c = m.conn().unwrap();
    let day = "CAST(julianday('2026-11-16') - 1721424.5 AS INTEGER)";
    let n: i64 =
        c.query_row(&format!("SELECT length(lens) FROM entry_lens WHERE day = {day}"), [], |r| r.get(0)).unwrap();
    // The example archive's 2026-11-16.md holds 4 entries.
    assert_eq!(n, 8);
    let reported = |m: &memlayers::Memory| m.check().unwrap().count_mismatch;
    let want = vec!["cold/2026-11/2026-11-16.md".to_string()];
    // The first entry's count set to 1 (a sentence of Chinese text is more).
    c.execute(&format!("UPDATE entry_lens SET lens = X'0100' || substr(lens, 3) WHERE day = {day}"), []).unwrap();
    c.execute(&format!("UPDATE entry_lens SET lens = CAST(lens AS BLOB) WHERE day = {day}"), []).unwrap();
    assert_eq!(reported(&m), want);
    // Back to the right bytes, as TEXT.
    c.execute(&format!("DELETE FROM entry_lens WHERE day = {day}"), []).unwrap();
    drop(c);
    let (_d2, twin) = crate::common::example_at(NOW);
    let blob: Vec<u8> = twin
        .conn()
        .unwrap()
        .query_row(&format!("SELECT lens FROM entry_lens WHERE day = {day}"), [], |r| r.get(0))
        .unwrap();
    let c = m.conn().unwrap();
    c.execute(&format!("INSERT INTO entry_lens(day, lens) VALUES({day}, CAST(?1 AS TEXT))"), [&blob]).unwrap();
    assert_eq!(reported(&m), want);
    // TEXT is not read as counts (the bytes of 'AAAA…' would be 16 705 tokens each): the
    // day's entries are counted from their text, so the BM25 is the untouched index's.
    c.execute(&format!("UPDATE entry_lens SET lens = 'AAAAAAAA' WHERE day = {day}"), []).unwrap();
    assert_eq!(reported(&m), want);
    assert_eq!(bm25_of(&m), before);
    // An INTEGER: unreadable as counts too.
    c.execute(&format!("UPDATE entry_lens SET lens = 12 WHERE day = {day}"), []).unwrap();
    assert_eq!(reported(&m), want);
    assert_eq!(bm25_of(&m), before);
    // A row for a day without entries (2026-11-30: no file).
    c.execute(&format!("DELETE FROM entry_lens WHERE day = {day}"), []).unwrap();
    c.execute(&format!("INSERT INTO entry_lens(day, lens) VALUES({day}, ?1)"), [&blob]).unwrap();
    c.execute(
        "INSERT INTO entry_lens(day, lens) VALUES(CAST(julianday('2026-11-30') - 1721424.5 AS INTEGER), X'0500')",
        [],
    )
    .unwrap();
    drop(c);
    assert_eq!(reported(&m), vec!["cold/2026-11/2026-11-30.md".to_string()]);
}

//! Corrupt state and hand edits while running. Extends tests/engine_core.rs (garbage
//! text / first-page-only index, hand append / delete / new file) and tests/layers_usage.rs
//! (`{ oops` and `[1, 2` usage.json) without repeating them:
//!
//! * index: whole pages overwritten, a junk WAL, a foreign SQLite database, a directory in its
//!   place → detected, moved aside with a warning where it cannot be used, rebuilt from the
//!   files, every answer as before;
//! * usage.json in every broken shape → queries unaffected (weights 50), rebuilt silently;
//! * hot.md with broken or duplicated block markers → read as well as possible with warnings
//!   naming the lines, never rewritten by a read, nothing lost when the next hot_set writes it;
//! * a cold file with invalid UTF-8, NUL bytes, or binary junk → reported (check / sync /
//!   CLI), the rest of the archive and the rest of that file still work, the bad bytes kept;
//! * hand edits between two queries: edited in place (same size), truncated mid-line, renamed
//!   to another day, renamed away, a month folder renamed, edited with its mtime restored →
//!   the next query (or `sync --full` for the last) reflects it.

use crate::common;
use crate::rel;

use std::path::Path;

use common::*;
use memlayers::Memory;
use memlayers::layers::cold::WriteArgs;

const NOW: &str = "2026-10-22T00:00:00Z";

fn fixture_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("plugin"), dir.path());
    dir
}

/// Every answer a user could ask of the fixture, as JSON text.
fn answers(m: &Memory) -> Vec<String> {
    let mut out = Vec::new();
    for kw in ["翻唱", "早报 sqlite", "token", "吃", "读书 融资", "杭州"] {
        for mode in ["and", "or"] {
            let mut r = m.recall(kw, Some(50), Some(mode.parse().unwrap())).unwrap();
            // Scores depend on usage weights, which queries themselves change: compare items.
            r.items.iter_mut().for_each(|i| i.score = None);
            out.push(serde_json::to_string(&r.items).unwrap());
        }
    }
    out.push(serde_json::to_string(&m.by_date("2026-09-01", "2026-10-31", Some(200)).unwrap().items).unwrap());
    out.push(serde_json::to_string(&m.by_tag("读书", None).unwrap().items).unwrap());
    out
}

fn remove_wal(root: &Path) {
    for f in ["index.sqlite3-wal", "index.sqlite3-shm"] {
        let _ = std::fs::remove_file(root.join(f));
    }
}

/// Opens, records the answers, closes (checkpointing the WAL into the main file).
fn baseline(root: &Path) -> Vec<String> {
    let m = open_at(root, NOW);
    let a = answers(&m);
    drop(m);
    // A clean close leaves everything in index.sqlite3; drop the WAL files so the damage below
    // hits the only copy.
    let c = rusqlite::Connection::open(root.join("index.sqlite3")).unwrap();
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    drop(c);
    remove_wal(root);
    a
}

/// Overwrites `pages` random pages (never page 1, whose loss engine_core covers) with junk.
fn damage_pages(db: &Path, seed: u64, pages: usize) {
    let mut bytes = std::fs::read(db).unwrap();
    let n_pages = bytes.len() / 4096;
    assert!(n_pages > 8, "index has {n_pages} pages");
    let mut rng = rel::Rng::new(seed);
    for _ in 0..pages {
        let p = 1 + rng.below(n_pages as u64 - 1) as usize;
        for b in &mut bytes[p * 4096..(p + 1) * 4096] {
            *b = rng.below(256) as u8;
        }
    }
    std::fs::write(db, &bytes).unwrap();
}

fn is_corrupt(e: &memlayers::Error) -> bool {
    use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
    matches!(e, memlayers::Error::Sqlite(rusqlite::Error::SqliteFailure(f, _)) if matches!(f.code, DatabaseCorrupt | NotADatabase))
}

/// What holds for every damage today: no answer is ever silently wrong. Each query gives the
/// answer it gave before the damage, or an explicit corruption error; deleting the index (the
/// documented way out) brings every answer back. Damage the open-time check sees is rebuilt
/// at once, with a warning.
#[test]
fn an_index_with_overwritten_pages_never_gives_a_wrong_answer() {
    let (mut at_open, mut at_query, mut harmless) = (0, 0, 0);
    for seed in 1..=6u64 {
        for pages in [1usize, 3, 8] {
            let dir = fixture_root();
            let before = baseline(dir.path());
            damage_pages(&dir.path().join("index.sqlite3"), seed, pages);
            let ctx = format!("seed {seed}, {pages} pages");
            let started = std::time::Instant::now();
            let opened = Memory::open(dir.path(), config());
            // Not a speed figure: a hang bound. r2d2 retried a failing connection for its 30 s
            // connection timeout before the damage was seen (5 of these 18 opens took 30.0 s).
            let took = started.elapsed();
            assert!(took < std::time::Duration::from_secs(10), "{ctx}: open took {took:?}");
            let m = match opened {
                Ok(m) => m.with_now(at(NOW)),
                Err(e) => {
                    assert!(is_corrupt(&e), "{ctx}: {e}");
                    at_query += 1;
                    continue;
                }
            };
            if !m.warnings().is_empty() {
                assert!(m.warnings()[0].contains("rebuilt from the files"), "{ctx}: {:?}", m.warnings());
                assert_eq!(answers(&m), before, "{ctx}");
                assert!(m.check().unwrap().clean, "{ctx}");
                at_open += 1;
                continue;
            }
            let mut failed = false;
            // (keyword, its "and" answer's position in `answers`)
            for (kw, expected) in [("翻唱", &before[0]), ("吃", &before[6]), ("杭州", &before[10])] {
                match m.recall(kw, Some(50), Some(memlayers::Mode::And)) {
                    Ok(mut r) => {
                        r.items.iter_mut().for_each(|i| i.score = None);
                        assert_eq!(&serde_json::to_string(&r.items).unwrap(), expected, "{ctx}: silently wrong");
                    }
                    Err(e) => {
                        assert!(is_corrupt(&e), "{ctx}: {e}");
                        failed = true;
                    }
                }
            }
            if failed {
                // `check` names the damage (SQLite's quick_check) without changing anything.
                let rep = m.check().unwrap();
                assert!(!rep.clean && rep.integrity != "ok", "{ctx}: {rep:?}");
                at_query += 1
            } else {
                harmless += 1
            }
            drop(m);
            for f in ["index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"] {
                let _ = std::fs::remove_file(dir.path().join(f));
            }
            assert_eq!(answers(&open_at(dir.path(), NOW)), before, "{ctx}: after deleting the index");
        }
    }
    println!("overwritten index pages: {at_open} rebuilt at open, {at_query} reported as corrupt, {harmless} harmless");
    assert!(at_open > 0);
}

/// The promise of docs/reliability.md ("a corrupt index.sqlite3 is moved aside and rebuilt from the
/// files, with a warning") for damage deep in the file. Holds with `PRAGMA quick_check` at
/// open; the cheaper open check merged from the bench branch (a count of sqlite_schema) lets
/// such damage through to the queries, which then fail until the index is deleted by hand.
/// Ignored until the lead decides (quick_check at open, or rebuild when a query hits
/// SQLITE_CORRUPT); run with `cargo test --test corrupt_state -- --ignored`.
#[test]
#[ignore = "deep index damage is detected only by queries since the O(1) open check; see the doc comment"]
fn an_index_with_overwritten_pages_is_always_rebuilt() {
    for seed in 1..=6u64 {
        for pages in [1usize, 3, 8] {
            let dir = fixture_root();
            let before = baseline(dir.path());
            damage_pages(&dir.path().join("index.sqlite3"), seed, pages);
            let m = Memory::open(dir.path(), config()).unwrap_or_else(|e| panic!("seed {seed}, {pages}: {e}"));
            let m = m.with_now(at(NOW));
            assert_eq!(answers(&m), before, "seed {seed}, {pages} pages");
        }
    }
}

#[test]
fn a_junk_wal_is_ignored_and_nothing_is_lost() {
    let dir = fixture_root();
    let before = baseline(dir.path());
    // A WAL whose header and frames are junk (bad magic, bad checksums): SQLite ignores it.
    let mut rng = rel::Rng::new(7);
    let junk: Vec<u8> = (0..3 * 4096 + 100).map(|_| rng.below(256) as u8).collect();
    std::fs::write(dir.path().join("index.sqlite3-wal"), junk).unwrap();
    let m = open_at(dir.path(), NOW);
    assert_eq!(answers(&m), before);
    assert!(m.check().unwrap().clean);
}

#[test]
fn a_foreign_sqlite_database_or_a_directory_in_place_of_the_index_is_moved_aside() {
    let dir = fixture_root();
    let before = baseline(dir.path());
    // Another program's database under our name: its own `entries` table, no migrations.
    std::fs::remove_file(dir.path().join("index.sqlite3")).unwrap();
    {
        let c = rusqlite::Connection::open(dir.path().join("index.sqlite3")).unwrap();
        c.execute_batch("CREATE TABLE entries(x TEXT); INSERT INTO entries VALUES ('theirs');").unwrap();
    }
    let m = open_at(dir.path(), NOW);
    assert_eq!(m.warnings().len(), 1, "{:?}", m.warnings());
    assert_eq!(answers(&m), before);
    drop(m);
    // Their data is still there, aside.
    // (recognised as not memlayers' by its missing application_id stamp and history)
    let c = rusqlite::Connection::open(dir.path().join("index.sqlite3.foreign-0")).unwrap();
    let theirs: String = c.query_row("SELECT x FROM entries", [], |r| r.get(0)).unwrap();
    assert_eq!(theirs, "theirs");
    // A directory named index.sqlite3: moved aside with its content, and the index rebuilt.
    let dir2 = fixture_root();
    let _ = std::fs::remove_file(dir2.path().join("index.sqlite3"));
    std::fs::create_dir(dir2.path().join("index.sqlite3")).unwrap();
    std::fs::write(dir2.path().join("index.sqlite3/keep.txt"), "mine").unwrap();
    let m = Memory::open(dir2.path(), config()).unwrap();
    assert!(m.warnings().iter().any(|w| w.contains("folder")), "{:?}", m.warnings());
    assert_eq!(answers(&m.with_now(at(NOW))), before);
    assert_eq!(std::fs::read_to_string(dir2.path().join("index.sqlite3.foreign-0/keep.txt")).unwrap(), "mine");
}

#[test]
fn usage_json_in_any_broken_shape_is_rebuilt_silently_and_never_changes_answers() {
    let shapes: Vec<(&str, Vec<u8>)> = vec![
        ("empty file", vec![]),
        ("invalid UTF-8", b"{\"version\":1,\"entries\":{\"\xff\xfe\":{\"hits\":1}}}".to_vec()),
        ("NUL bytes", b"{\"version\":1,\0\0\0".to_vec()),
        ("wrong version", br#"{"version":2,"entries":{}}"#.to_vec()),
        ("entries is an array", br#"{"version":1,"entries":[1,2,3]}"#.to_vec()),
        ("top level is a string", br#""usage""#.to_vec()),
        ("truncated", br#"{"version":1,"entries":{"abc":{"hits":3,"weight":7"#.to_vec()),
        ("deeply nested", format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes()),
        ("binary junk", (0..4096u32).map(|i| (i * 37 % 256) as u8).collect()),
    ];
    for (what, bytes) in shapes {
        let dir = fixture_root();
        let before = baseline(dir.path());
        std::fs::write(dir.path().join("usage.json"), &bytes).unwrap();
        let m = open_at(dir.path(), NOW);
        assert!(m.warnings().is_empty(), "{what}: {:?}", m.warnings());
        assert_eq!(answers(&m), before, "{what}: answers changed");
        drop(m);
        // Rebuilt: valid version-1 JSON again, with the hits those queries recorded.
        let text = std::fs::read_to_string(dir.path().join("usage.json")).unwrap();
        let (ledger, status) = memlayers::layers::usage::Ledger::parse(Some(&text));
        assert_eq!(status, memlayers::layers::usage::LoadStatus::Ok, "{what}: {text}");
        assert!(!ledger.entries.is_empty(), "{what}: the hits were recorded");
    }
}

#[test]
fn usage_json_with_odd_values_is_read_field_by_field() {
    let dir = fixture_root();
    let k = memlayers::layers::usage::key("午饭吃了牛肉面");
    let text = format!(
        r#"{{"version":1,"entries":{{"{k}":{{"hits":"many","weight":1e308,"lastHitAt":"yesterday"}},"x":42,"y":{{"weight":-5}}}}}}"#
    );
    put(dir.path(), "usage.json", &text);
    let m = open_at(dir.path(), NOW);
    let r = m.recall("牛肉面", None, None).unwrap();
    assert_eq!(r.items[0].content, "午饭吃了牛肉面");
    let l = m.usage_records(&[k.clone(), "x".into(), "y".into()]).unwrap();
    // hits "many" → 0 (then +1 for this recall); weight clamped to 0–100; "x" (not an
    // object) dropped; y's weight clamped to 0.
    assert_eq!(l.get(&k).unwrap().hits, 1);
    assert!(l.get(&k).unwrap().weight <= 100.0);
    assert!(l.get("x").is_none());
    assert_eq!(l.get("y").unwrap().weight, 0.0);
}

const HOT_OK_BODY: &str = "我是谁：一个写代码的人\n\n长期约定：每周三不加班";

#[test]
fn hot_md_with_broken_or_duplicated_markers_is_read_with_warnings_and_never_destroyed() {
    let c1 = "- [2026-10-20T01:00:00.000Z] [计划] 周末想去看海";
    let c2 = "- [2026-10-21T01:00:00.000Z] [读书] 读完《置身事内》";
    let cases: Vec<(&str, String, usize)> = vec![
        ("candidates block never closed", format!("{HOT_OK_BODY}\n\n<!-- candidates:start -->\n{c1}\n{c2}\n"), 1),
        (
            "candidates block twice",
            format!(
                "{HOT_OK_BODY}\n\n<!-- candidates:start -->\n{c1}\n<!-- candidates:end -->\n\n<!-- candidates:start -->\n{c2}\n<!-- candidates:end -->\n"
            ),
            1,
        ),
        (
            "stray end markers",
            format!(
                "<!-- topics:end -->\n{HOT_OK_BODY}\n<!-- candidates:end -->\n\n<!-- candidates:start -->\n{c1}\n{c2}\n<!-- candidates:end -->\n"
            ),
            2,
        ),
        (
            "start marker repeated inside its block",
            format!(
                "{HOT_OK_BODY}\n\n<!-- candidates:start -->\n{c1}\n<!-- candidates:start -->\n{c2}\n<!-- candidates:end -->\n"
            ),
            1,
        ),
        (
            "topics opened inside candidates, odd spacing and case",
            format!(
                "{HOT_OK_BODY}\n\n<!--Candidates:Start-->\n{c1}\n{c2}\n<!--  TOPICS : start -->\n翻唱|2026-10\n<!-- topics:end -->\n"
            ),
            1,
        ),
        (
            "body text after the blocks, duplicated candidate, junk line in a block",
            format!(
                "<!-- candidates:start -->\n{c1}\n{c1}\n{c2}\n这行不是条目\n<!-- candidates:end -->\n\n{HOT_OK_BODY}\n"
            ),
            3,
        ),
    ];
    for (what, text, min_warnings) in cases {
        let dir = tempfile::tempdir().unwrap();
        put(dir.path(), "hot.md", &text);
        let m = open_at(dir.path(), NOW);
        let h = m.hot_get().unwrap();
        assert_eq!(h.content, HOT_OK_BODY, "{what}: body");
        let cands: Vec<(String, String)> = h.candidates.iter().map(|c| (c.tag.clone(), c.content.clone())).collect();
        assert_eq!(
            cands,
            [("计划".to_string(), "周末想去看海".to_string()), ("读书".to_string(), "读完《置身事内》".to_string())],
            "{what}: candidates"
        );
        assert!(h.warnings.len() >= min_warnings, "{what}: {:?}", h.warnings);
        assert!(h.warnings.iter().all(|w| !w.is_empty()), "{what}");
        // A read never rewrites the file.
        assert_eq!(std::fs::read_to_string(dir.path().join("hot.md")).unwrap(), text, "{what}: rewritten by a read");
        // The next write keeps every candidate and every unreadable block line.
        m.hot_set("新的正文").unwrap();
        let after = std::fs::read_to_string(dir.path().join("hot.md")).unwrap();
        assert!(after.contains(c1) && after.contains(c2), "{what}: {after}");
        if text.contains("这行不是条目") {
            assert!(after.contains("这行不是条目"), "{what}: {after}");
        }
        if text.contains("翻唱|2026-10") {
            assert!(after.contains("翻唱|2026-10"), "{what}: {after}");
        }
        let again = memlayers::layers::hot::parse(&after);
        assert!(
            again.warnings.iter().all(|w| w.contains("kept")),
            "{what}: written file needs repair: {:?}",
            again.warnings
        );
        // The old body was replaced on purpose; nothing else vanished.
        assert_eq!(again.body, "新的正文");
    }
}

#[test]
fn a_cold_file_with_invalid_utf8_nul_or_junk_is_reported_and_the_rest_still_works() {
    let dir = fixture_root();
    let bad = dir.path().join("cold/2026-10/2026-10-21.md");
    let mut bytes = std::fs::read(&bad).unwrap();
    // A Latin-1 byte inside the text of line 1, a NUL inside the text of line 5.
    let after = |b: &[u8], s: &str| b.windows(s.len()).position(|w| w == s.as_bytes()).unwrap() + s.len();
    let p = after(&bytes, "今日早报");
    bytes.insert(p, 0xE9);
    let p = after(&bytes, "Token消耗");
    bytes.insert(p, 0x00);
    std::fs::write(&bad, &bytes).unwrap();
    // A day file that is binary junk.
    let junk: Vec<u8> = (0..2048u32).map(|i| (i * 131 % 256) as u8).collect();
    std::fs::write(dir.path().join("cold/2026-10/2026-10-05.md"), &junk).unwrap();
    // The CLI: the sync that first mirrors the files lists the lines (exit 0), and `check`
    // lists them every time.
    let cli = |args: &[&str]| {
        let out = crate::common::cli()
            .arg("--data-root")
            .arg(dir.path())
            .args(["--tz", "Asia/Shanghai", "--json"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    for v in [cli(&["sync"]), cli(&["check"]), cli(&["check"])] {
        let listed: Vec<String> = v["malformed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| format!("{} {}", x["file"].as_str().unwrap(), x["reason"].as_str().unwrap()))
            .collect();
        for (file, what) in
            [("2026-10-21.md", "invalid UTF-8"), ("2026-10-21.md", "NUL"), ("2026-10-05.md", "invalid UTF-8")]
        {
            assert!(listed.iter().any(|l| l.contains(file) && l.contains(what)), "{file} {what}: {listed:?}");
        }
    }
    let m = open_at(dir.path(), NOW);
    let rep = m.check().unwrap();
    assert!(rep.clean, "{rep:?}");
    let reasons: Vec<(String, i64, String)> =
        rep.malformed.iter().map(|x| (x.file.clone(), x.line, x.reason.clone())).collect();
    let has = |file: &str, what: &str| reasons.iter().any(|(f, _, r)| f.ends_with(file) && r.contains(what));
    assert!(has("2026-10-21.md", "invalid UTF-8"), "{reasons:?}");
    assert!(has("2026-10-21.md", "NUL"), "{reasons:?}");
    assert!(has("2026-10-05.md", "invalid UTF-8"), "{reasons:?}");
    // The other files answer as always; the damaged file's readable lines too.
    assert_eq!(recall_contents(&m, "牛肉面", None), ["午饭吃了牛肉面"]);
    assert_eq!(m.by_date("2026-10-21", "2026-10-21", None).unwrap().returned, 5);
    // Writing into the damaged day keeps its bad bytes as they were.
    let m = m.with_now(at("2026-10-21T10:00:00Z"));
    m.write(&WriteArgs { text: "坏文件里追加的一条".into(), ..Default::default() }).unwrap();
    let now = std::fs::read(&bad).unwrap();
    assert!(now.starts_with(&bytes), "the damaged bytes must survive the write");
    assert!(now.ends_with("坏文件里追加的一条\n".as_bytes()));
    assert_eq!(std::fs::read(dir.path().join("cold/2026-10/2026-10-05.md")).unwrap(), junk);
    assert_eq!(recall_contents(&m, "追加的一条", None), ["坏文件里追加的一条"]);
}

#[test]
fn hand_edits_between_two_queries_are_reflected_by_the_next_one() {
    let dir = fixture_root();
    let m = open_at(dir.path(), NOW);
    let day = dir.path().join("cold/2026-10/2026-10-21.md");
    let original = std::fs::read_to_string(&day).unwrap();
    assert_eq!(recall_contents(&m, "牛肉面", None), ["午饭吃了牛肉面"]);

    // 1. Edited in place, same size: 牛肉面 → 羊肉面 (same byte length), no rename.
    let edited = original.replace("牛肉面", "羊肉面");
    assert_eq!(edited.len(), original.len());
    std::fs::OpenOptions::new()
        .write(true)
        .open(&day)
        .and_then(|mut f| {
            use std::io::Write;
            f.write_all(edited.as_bytes())
        })
        .unwrap();
    assert!(recall_contents(&m, "牛肉面", None).is_empty());
    assert_eq!(recall_contents(&m, "羊肉面", None), ["午饭吃了羊肉面"]);

    // 2. Truncated in the middle of a line: the entries before stay, the cut line is what
    //    is left of it, the ones after are gone.
    let cut = edited.find("羊肉面").unwrap() + "羊肉".len();
    std::fs::write(&day, &edited.as_bytes()[..cut]).unwrap();
    assert!(recall_contents(&m, "羊肉面", None).is_empty());
    assert_eq!(recall_contents(&m, "羊肉", None), ["午饭吃了羊肉"]);
    let n_before_cut = edited[..cut].lines().filter(|l| l.starts_with("- [")).count();
    assert_eq!(m.by_date("2026-10-21", "2026-10-21", None).unwrap().returned, n_before_cut);

    // 3. Renamed to another day: its entries move to that day.
    std::fs::write(&day, &original).unwrap();
    assert_eq!(m.by_date("2026-10-21", "2026-10-21", None).unwrap().returned, 5);
    let moved = dir.path().join("cold/2026-10/2026-10-23.md");
    std::fs::rename(&day, &moved).unwrap();
    assert_eq!(m.by_date("2026-10-21", "2026-10-21", None).unwrap().returned, 0);
    let r = m.by_date("2026-10-23", "2026-10-23", None).unwrap();
    assert_eq!(r.returned, 5);
    assert!(r.items.iter().all(|i| i.date == "2026-10-23"));

    // 4. Renamed away (a backup name): gone from every query.
    std::fs::rename(&moved, dir.path().join("cold/2026-10/2026-10-23.md.bak")).unwrap();
    assert!(recall_contents(&m, "牛肉面", None).is_empty());

    // 5. A month folder renamed: its days leave; renamed back, they return.
    std::fs::rename(dir.path().join("cold/2026-09"), dir.path().join("cold/old-09")).unwrap();
    assert_eq!(m.by_date("2026-09-01", "2026-09-30", None).unwrap().returned, 0);
    std::fs::rename(dir.path().join("cold/old-09"), dir.path().join("cold/2026-09")).unwrap();
    assert_eq!(m.by_date("2026-09-01", "2026-09-30", None).unwrap().returned, 2);

    // 6. Edited with size AND mtime restored (e.g. a tool that preserves times): invisible to
    //    the stat check by design; `sync --full` compares content hashes and finds it.
    let f = dir.path().join("cold/2026-10/2026-10-01.md");
    let before = std::fs::read_to_string(&f).unwrap();
    let mtime = std::fs::metadata(&f).unwrap().modified().unwrap();
    let after = before.replace("杭州", "苏州");
    assert_eq!(after.len(), before.len());
    std::fs::OpenOptions::new()
        .write(true)
        .open(&f)
        .and_then(|mut h| {
            use std::io::Write;
            h.write_all(after.as_bytes())?;
            h.set_modified(mtime)
        })
        .unwrap();
    let full = m.sync_with_progress(true, &mut |_| {}).unwrap();
    assert_eq!(full.files_mirrored, 1, "{full:?}");
    assert_eq!(recall_contents(&m, "苏州", None), ["国庆去苏州，订了西湖边的民宿"]);
    assert!(m.check().unwrap().clean);
}

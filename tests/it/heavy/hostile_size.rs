//! Hostile and odd input — size and query syntax: a big day file, a 1 MB single
//! line, many distinct tags, a 100 000-character query → bounded time and memory, clear
//! errors where a limit applies; FTS5 syntax in user input is always text (recall AND
//! retrieve), never an operator or an SQL error.
//!
//! CI sizes: a 5 MB day file, a 1 MB line, 10 000 tags, 100 000-character queries. The long
//! script (tools/reliability.sh) sets `MEMLAYERS_BIG_MB=50` and `MEMLAYERS_TAGS=100000`.
//! Time bounds are generous (debug build, two shared cores): they catch hangs and quadratic
//! blow-ups, not small slowdowns. Memory is measured in a child process (its own peak RSS).

use crate::common;
use crate::rel;

use std::path::Path;
use std::time::{Duration, Instant};

use common::*;
use memlayers::layers::cold::WriteArgs;
use memlayers::query::retrieve::RetrieveArgs;
use memlayers::{Error, Memory};

fn retrieve(m: &Memory, q: &str) -> memlayers::Result<memlayers::query::retrieve::RetrieveResult> {
    m.retrieve(&RetrieveArgs {
        query: q.into(),
        time_range: None,
        tz: None,
        limit: Some(50),
        explain: false,
        no_time: false,
        record_time_only: false,
    })
}

/// Runs `f`, asserting it takes less than `bound`; returns its value and the time it took.
fn timed<T>(what: &str, bound: Duration, f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let v = f();
    let d = t.elapsed();
    assert!(d < bound, "{what} took {d:?} (bound {bound:?})");
    (v, d)
}

/// Ok, or a BadInput naming one of `fields`; anything else (an SQLite error) fails.
fn ok_or_named<T: std::fmt::Debug>(what: &str, r: memlayers::Result<T>, fields: &[&str]) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(Error::BadInput { field, reason }) => {
            assert!(fields.contains(&field.as_str()), "{what}: field {field} ({reason})");
            None
        }
        Err(e) => panic!("{what}: {e}"),
    }
}

fn fixture(root: &Path) {
    put(
        root,
        "cold/2026-11/2026-11-20.md",
        "- [2026-11-20T04:00:00.000Z] [饮食] 晚饭吃了火锅 AND 烧烤 OR 串串 NOT 凉菜\n\
         - [2026-11-20T05:00:00.000Z] [code] C++ \"quoted\" NEAR(x, 2) a-b key:value ^caret *star {col}: 'tick' ;--\n\
         - [2026-11-20T06:00:00.000Z] [%] 百分号标签 100% done_ok\n\
         - [2026-11-20T07:00:00.000Z] [-] 无关的一条 placeholder\n\
         - [2026-11-20T08:00:00.000Z] [-] 无关的第二条 filler\n",
    );
}

#[test]
#[ignore = "heavy: run by .ci/run"]
fn fts5_syntax_in_user_input_is_text_through_recall_and_retrieve() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    // Sunday 2026-11-22 12:00 Shanghai: "本周" = 11-16 … 11-22 holds the fixture day.
    let m = open_at(dir.path(), "2026-11-22T04:00:00Z");
    let hostile = [
        "\"",
        "\"\"",
        "\"火锅",
        "火锅\"",
        "*",
        "火锅*",
        "*火锅",
        "NEAR(",
        "NEAR(火锅",
        "NEAR(火锅 烧烤, 2)",
        "NEAR/2",
        "AND",
        "OR",
        "NOT",
        "火锅 AND",
        "AND 火锅",
        "火锅 OR",
        "火锅 NOT 烧烤",
        "-",
        "-火锅",
        "火锅-",
        ":",
        "tag:火锅",
        "body:火锅",
        "{tag body}:火锅",
        "^",
        "^火锅",
        "(",
        ")",
        "(火锅",
        "火锅)",
        "()",
        "'",
        "';DROP TABLE entries;--",
        "\\",
        "+",
        "火锅+烧烤",
        "%",
        "_",
        "\0",
        "\u{1}",
        "[",
        "]",
        "〔src:a#1〕",
    ];
    for q in hostile {
        for mode in ["and", "or"] {
            ok_or_named(
                &format!("recall {q:?} {mode}"),
                m.recall(q, Some(50), Some(mode.parse().unwrap())),
                &["keyword"],
            );
        }
        ok_or_named(&format!("retrieve {q:?}"), retrieve(&m, q), &["keyword", "query"]);
        // With a time expression in front, the rest goes to the OR scorer inside the window.
        ok_or_named(&format!("retrieve 本周 {q:?}"), retrieve(&m, &format!("本周 {q}")), &["keyword", "query"]);
        ok_or_named(&format!("by_tag {q:?}"), m.by_tag(q, Some(50)), &["tag"]);
    }
    let contents =
        |r: memlayers::query::search::RecallResult| r.items.into_iter().map(|i| i.content).collect::<Vec<_>>();
    // Operators are words: "AND" finds the line that says AND, and only that one.
    assert_eq!(contents(m.recall("AND", None, None).unwrap()), ["晚饭吃了火锅 AND 烧烤 OR 串串 NOT 凉菜"]);
    assert_eq!(contents(m.recall("NEAR(", None, None).unwrap()).len(), 1);
    assert_eq!(contents(m.recall("key:value", None, None).unwrap()).len(), 1);
    assert_eq!(contents(m.recall("^caret", None, None).unwrap()).len(), 1);
    assert_eq!(contents(m.recall("\"火锅", None, None).unwrap()), ["晚饭吃了火锅 AND 烧烤 OR 串串 NOT 凉菜"]);
    // A column filter is not one: "tag:火锅" needs the word "tag", which no entry has.
    assert!(m.recall("tag:火锅", None, None).unwrap().items.is_empty());
    // "火锅 NOT 烧烤" is three AND-ed terms, not an exclusion: the line has all three.
    // "火锅 OR 不存在词" is three AND-ed terms too, not a union: nothing has all three.
    assert!(m.recall("火锅 OR 不存在词", None, None).unwrap().items.is_empty());
    assert_eq!(contents(m.recall("火锅 NOT 烧烤", None, None).unwrap()), ["晚饭吃了火锅 AND 烧烤 OR 串串 NOT 凉菜"]);
    // Windowed retrieve scores the same text, in OR mode: the lines with "near" or "火锅".
    let r = retrieve(&m, "本周 NEAR(火锅").unwrap();
    let mut got: Vec<String> = r.items.into_iter().map(|i| i.content).collect();
    got.sort();
    assert_eq!(
        got,
        [
            "C++ \"quoted\" NEAR(x, 2) a-b key:value ^caret *star {col}: 'tick' ;--",
            "晚饭吃了火锅 AND 烧烤 OR 串串 NOT 凉菜"
        ]
    );
    // by_tag is an exact match: '%' and '_' are not wildcards.
    assert_eq!(m.by_tag("%", None).unwrap().items.len(), 1);
    assert!(m.by_tag("_", None).unwrap().items.is_empty());
}

#[test]
#[ignore = "heavy: run by .ci/run"]
fn queries_of_100_000_characters_answer_in_bounded_time_or_name_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    let m = open_at(dir.path(), "2026-11-22T04:00:00Z");
    let distinct_cjk: String = (0..100_000u32).map(|i| char::from_u32(0x4E00 + (i * 7919) % 20_000).unwrap()).collect();
    let distinct_words: String =
        (0..100_000).map(|i| format!("w{i} ")).collect::<String>().chars().take(100_000).collect();
    let shapes: Vec<(&str, String)> = vec![
        ("one CJK word repeated", "火锅".repeat(50_000)),
        ("one term repeated 50 000 times", "火 ".repeat(50_000)),
        ("one Latin term repeated", "ab ".repeat(33_334)),
        ("100 000 distinct CJK characters", distinct_cjk),
        ("~15 000 distinct words", distinct_words),
        ("one 100 000-letter word", "a".repeat(100_000)),
        ("punctuation only", "，。！".repeat(33_334)),
        ("emoji", "😀".repeat(100_000)),
        ("FTS5 syntax", "NEAR( \"x\"* AND ^y -z ".repeat(5_000)),
    ];
    for (what, q) in &shapes {
        assert!(q.chars().count() >= 99_999, "{what}");
        for mode in ["and", "or"] {
            timed(&format!("recall {what} {mode}"), Duration::from_secs(10), || {
                ok_or_named(what, m.recall(q, Some(50), Some(mode.parse().unwrap())), &["keyword"])
            });
        }
        timed(&format!("retrieve {what}"), Duration::from_secs(10), || {
            ok_or_named(what, retrieve(&m, q), &["keyword", "query"])
        });
        timed(&format!("retrieve 本周 {what}"), Duration::from_secs(10), || {
            ok_or_named(what, retrieve(&m, &format!("本周 {q}")), &["keyword", "query"])
        });
    }
    // Repetition is not a reason to refuse: one term, asked 50 000 times, is one term.
    let r = m.recall(&"火锅 ".repeat(50_000), Some(50), None).unwrap();
    assert_eq!(r.items[0].content, "晚饭吃了火锅 AND 烧烤 OR 串串 NOT 凉菜");
    println!(
        "100 000-character queries: {} shapes × (recall and/or, retrieve, windowed retrieve), each < 10 s",
        shapes.len()
    );
    // Too many distinct terms: a clear error naming the field and the limit.
    let e = m.recall(&shapes[4].1, None, Some(memlayers::Mode::Or)).unwrap_err();
    assert!(matches!(&e, Error::BadInput { field, reason } if field == "keyword" && reason.contains("limit")), "{e}");
    // One code point past 200 000 is refused before any work, naming the field (recall,
    // the CLI/MCP path with a mode name, and retrieve).
    let long = "火".repeat(200_001);
    for e in [m.recall(&long, None, None).unwrap_err(), m.recall(&long, None, Some(memlayers::Mode::Or)).unwrap_err()] {
        assert!(
            matches!(&e, Error::BadInput { field, reason } if field == "keyword" && reason.contains("200000")),
            "{e}"
        );
    }
    let e = retrieve(&m, &long).unwrap_err();
    assert!(matches!(&e, Error::BadInput { field, reason } if field == "query" && reason.contains("200000")), "{e}");
    // A whole 4000-character Chinese entry used as a keyword is within the limit.
    let entry: String = (0..4000u32).map(|i| char::from_u32(0x4E00 + (i * 31) % 20_000).unwrap()).collect();
    timed("recall of a 4000-character entry", Duration::from_secs(10), || {
        m.recall(&entry, None, Some(memlayers::Mode::Or)).unwrap()
    });
}

/// Writes a day file of about `mb` MB: 100-byte entry lines with 50 tags.
fn big_day(root: &Path, mb: usize) -> usize {
    let mut s = String::with_capacity(mb << 20);
    let mut n = 0;
    while s.len() < mb << 20 {
        let secs = n % 86_400;
        s.push_str(&format!(
            "- [2026-10-20T{:02}:{:02}:{:02}.{:03}Z] [t{}] 大文件第{n}条 big file line {n} padding text\n",
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            n % 1000,
            n % 50
        ));
        n += 1;
    }
    put(root, "cold/2026-10/2026-10-20.md", &s);
    n
}

/// Child role: opens a prepared root (mirroring everything), queries it, and prints its own
/// figures: `entries=<n> open_ms=<ms> open_peak_kib=<VmHWM after open> recall_all_ms=<ms>
/// list_ms=<ms> recall_one_ms=<ms> peak_kib=<VmHWM>` (recall_all: a keyword every entry
/// matches; recall_one: a rare one).
#[test]
#[ignore = "child role: spawned by a_big_day_file_is_indexed_and_queried_in_bounded_time_and_memory"]
fn size_child() {
    let root = std::env::var("MEMLAYERS_SIZE_ROOT").expect("child role: MEMLAYERS_SIZE_ROOT set by the parent test");
    let t = Instant::now();
    let m = open_at(Path::new(&root), "2026-10-21T04:00:00Z");
    let open_ms = t.elapsed().as_millis();
    let open_peak_kib = rel::peak_rss_kib();
    let t = Instant::now();
    let hits = m.recall("大文件 padding", Some(50), None).unwrap();
    let recall_ms = t.elapsed().as_millis();
    let t = Instant::now();
    let day = m.by_date("2026-10-20", "2026-10-20", Some(200)).unwrap();
    let tag = m.by_tag("t7", Some(200)).unwrap();
    let list_ms = t.elapsed().as_millis();
    // The last line's number is a prefix of no other line's: a rare term.
    let last = m.check().unwrap().entries - 1;
    let t = Instant::now();
    let one = m.recall(&format!("line {last}"), Some(50), None).unwrap();
    let rare_ms = t.elapsed().as_millis();
    assert!(one.items.iter().any(|i| i.content.ends_with(&format!("line {last} padding text"))));
    let entries = m.check().unwrap().entries;
    assert!(hits.matched == entries && day.returned == 200 && tag.returned == 200);
    println!(
        "entries={entries} open_ms={open_ms} open_peak_kib={open_peak_kib} recall_all_ms={recall_ms} \
         list_ms={list_ms} recall_one_ms={rare_ms} peak_kib={}",
        rel::peak_rss_kib()
    );
}

fn figures(out: &str) -> std::collections::HashMap<String, u64> {
    out.lines()
        .filter_map(|l| l.find("entries=").map(|p| &l[p..]))
        .flat_map(|l| l.split_whitespace())
        .filter_map(|kv| kv.split_once('=').map(|(k, v)| (k.to_string(), v.parse().unwrap())))
        .collect()
}

#[test]
#[ignore = "heavy: run by .ci/run"]
fn a_big_day_file_is_indexed_and_queried_in_bounded_time_and_memory() {
    let mb = rel::budget("MEMLAYERS_BIG_MB", 5) as usize;
    let dir = tempfile::tempdir().unwrap();
    let n = big_day(dir.path(), mb);
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "heavy::hostile_size::size_child", "--ignored", "--nocapture", "--test-threads=1"])
        .env("MEMLAYERS_SIZE_ROOT", dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let f = figures(&String::from_utf8_lossy(&out.stdout));
    println!(
        "big day file: {mb} MB, {n} entries: opened (indexed) in {:.1} s, peak {} MB; a word in every entry \
         {:.1} s; a rare word {} ms; day and tag lists {} ms; peak {} MB",
        f["open_ms"] as f64 / 1000.0,
        f["open_peak_kib"] / 1024,
        f["recall_all_ms"] as f64 / 1000.0,
        f["recall_one_ms"],
        f["list_ms"],
        f["peak_kib"] / 1024
    );
    assert_eq!(f["entries"], n as u64);
    // Bounds: 30 s per 5 MB to mirror in a debug build; queries under 5 s; peak memory under
    // 20 × the file plus 150 MB (the file is read whole, decoded and segmented once).
    assert!(f["open_ms"] < 30_000 * (mb as u64).div_ceil(5), "{f:?}");
    assert!(f["list_ms"] < 5_000 && f["recall_one_ms"] < 5_000, "{f:?}");
    assert!(f["recall_all_ms"] < 20_000 * (mb as u64).div_ceil(5), "{f:?}");
    assert!(f["peak_kib"] < (20 * mb as u64 + 150) * 1024, "{f:?}");
}

#[test]
#[ignore = "heavy: run by .ci/run"]
fn a_one_megabyte_line_is_kept_whole_read_back_and_refused_where_the_plugin_sets_a_limit() {
    let dir = tempfile::tempdir().unwrap();
    let big = format!("开头{}结尾", "长".repeat(350_000)); // 350 004 chars, ~1 MB of UTF-8
    assert!(big.len() > 1_000_000);
    put(dir.path(), "cold/2026-10/2026-10-20.md", &format!("- [2026-10-20T01:00:00.000Z] [长行] {big}\n"));
    let (m, _) =
        timed("open with a 1 MB line", Duration::from_secs(30), || open_at(dir.path(), "2026-10-21T04:00:00Z"));
    let r = timed("recall in a 1 MB line", Duration::from_secs(10), || m.recall("结尾", None, None).unwrap()).0;
    assert_eq!(r.items[0].content, big, "read back whole");
    assert_eq!(m.by_tag("长行", None).unwrap().items[0].content.chars().count(), 350_004);
    // mem_write's limit is 4000 code points: a clear error, nothing written.
    let e = m.write(&WriteArgs { text: big.clone(), ..Default::default() }).unwrap_err();
    assert!(matches!(&e, Error::BadInput { field, reason } if field == "text" && reason.contains("4000")), "{e}");
    assert!(!dir.path().join("cold/2026-10/2026-10-21.md").exists());
    // An imported 1 MB paragraph becomes entries of at most 4000 code points holding every
    // character, in order.
    let archive = tempfile::tempdir().unwrap();
    std::fs::write(archive.path().join("2026-09-01.md"), format!("{big}\n")).unwrap();
    let rep = timed("import of a 1 MB paragraph", Duration::from_secs(60), || {
        m.import(archive.path(), None, &mut |_, _| {}).unwrap()
    })
    .0;
    // No sentence end anywhere: cut hard every 4000 code points, 88 pieces.
    assert_eq!(rep.entries_added, 88);
    let day = m.by_date("2026-09-01", "2026-09-01", Some(200)).unwrap();
    let mut items = day.items;
    items.sort_by(|a, b| a.ts.cmp(&b.ts));
    assert!(items.iter().all(|i| i.content.chars().count() <= 4000));
    assert_eq!(items.iter().map(|i| i.content.as_str()).collect::<String>(), big);
    assert!(m.check().unwrap().clean);
    println!("one 1 MB line: read back whole; write refused (4000); import split into 88 entries");
}

#[test]
#[ignore = "heavy: run by .ci/run"]
fn many_distinct_tags_stay_fast_to_list_and_search() {
    let n = rel::budget("MEMLAYERS_TAGS", 10_000) as usize;
    let dir = tempfile::tempdir().unwrap();
    // n entries with n distinct tags over 10 days.
    for d in 0..10 {
        let mut s = String::new();
        for i in (d..n).step_by(10) {
            s.push_str(&format!("- [2026-10-{:02}T01:00:00.000Z] [标签{i}] 第{i}条有自己的标签\n", d + 1));
        }
        put(dir.path(), &format!("cold/2026-10/2026-10-{:02}.md", d + 1), &s);
    }
    let (m, open) = timed("open with many tags", Duration::from_secs(60 * (n as u64).div_ceil(10_000)), || {
        open_at(dir.path(), "2026-10-21T04:00:00Z")
    });
    assert_eq!(m.check().unwrap().entries, n as i64);
    let (_, by_tag) = timed("by_tag × 100", Duration::from_secs(10), || {
        for i in (0..n).step_by(n / 100) {
            let r = m.by_tag(&format!("标签{i}"), None).unwrap();
            assert_eq!(r.items.len(), 1, "标签{i}");
            assert_eq!(r.items[0].content, format!("第{i}条有自己的标签"));
        }
    });
    let last = n - 1;
    let r =
        timed("recall of a tag", Duration::from_secs(10), || m.recall(&format!("标签{last}"), None, None).unwrap()).0;
    assert!(r.items.iter().any(|i| i.tag == format!("标签{last}")));
    let (s, stats) = timed("stats", Duration::from_secs(30), || m.stats().unwrap());
    assert!(serde_json::to_string(&s).unwrap().contains("标签"));
    let day = timed("summarize a day of many tags", Duration::from_secs(30), || {
        m.summarize(Some("day"), Some("2026-10-01"), false).unwrap()
    })
    .0;
    assert_eq!(day.top_tags.len(), 3);
    println!("many tags: {n} distinct tags: open {open:?}, 100 by_tag {by_tag:?}, stats {stats:?}");
}

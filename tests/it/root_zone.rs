//! The data root records the zone its files are dated in (`memlayers.json`); a call
//! in another zone frames its time words in that zone, and entries are filtered exactly by UTC
//! over the root's own day partition. Hand-worked with Asia/Shanghai (UTC+8) and UTC.

use crate::common::*;
use memlayers::{Config, Memory, RetrieveArgs, WindowSource};

fn utc() -> Config {
    Config { timezone: chrono_tz::UTC, ..Config::default() }
}

#[test]
fn the_zone_survives_deleting_the_index_and_a_mismatch_warns() {
    let dir = tempfile::tempdir().unwrap();
    drop(open_at(dir.path(), "2026-11-29T12:00:00Z"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("memlayers.json")).unwrap(),
        "{\"timezone\":\"Asia/Shanghai\"}\n"
    );
    std::fs::remove_file(dir.path().join("index.sqlite3")).unwrap();
    // Reopened with UTC configured: the files stay Shanghai-dated, with a warning.
    let m = Memory::open(dir.path(), utc()).unwrap().with_now(at("2026-11-29T20:00:00Z"));
    assert_eq!(m.tz(), chrono_tz::Asia::Shanghai);
    assert_eq!(m.warnings().len(), 1, "{:?}", m.warnings());
    assert!(m.warnings()[0].contains("dated in Asia/Shanghai"), "{:?}", m.warnings());
    // 2026-11-29 20:00 UTC is 2026-11-30 04:00 in Shanghai: the entry goes to the 11-30 file.
    let w = m.write(&memlayers::WriteArgs { text: "周报写完".into(), ..Default::default() }).unwrap();
    assert_eq!(w.date, "2026-11-30");
    assert!(dir.path().join("cold/2026-11/2026-11-30.md").exists());
    assert!(!dir.path().join("cold/2026-11/2026-11-29.md").exists());
    // The same zone configured: no warning.
    let m = Memory::open(dir.path(), config()).unwrap();
    assert!(m.warnings().is_empty(), "{:?}", m.warnings());
}

#[test]
fn another_zone_frames_time_words_and_filters_by_utc() {
    let dir = tempfile::tempdir().unwrap();
    // Shanghai-dated files. UTC dates in the comments.
    put(
        dir.path(),
        "cold/2026-11/2026-11-27.md",
        "- [2026-11-26T23:00:00.000Z] [-] 周报 甲\n\
         - [2026-11-27T15:30:00.000Z] [-] 周报 乙\n",
    ); // 甲: UTC 11-26 (Shanghai 11-27 07:00); 乙: UTC 11-27 (Shanghai 11-27 23:30)
    put(
        dir.path(),
        "cold/2026-11/2026-11-28.md",
        "- [2026-11-27T16:30:00.000Z] [-] 周报 丙\n\
         - [2026-11-28T01:00:00.000Z] [-] 周报 丁\n",
    ); // 丙: UTC 11-27 (Shanghai 11-28 00:30); 丁: UTC 11-28 (Shanghai 11-28 09:00)
    drop(open_at(dir.path(), "2026-11-28T12:00:00Z")); // records Asia/Shanghai
    let m = Memory::open(dir.path(), utc()).unwrap().with_now(at("2026-11-28T12:00:00Z"));
    let ask = |q: &str| {
        m.retrieve(&RetrieveArgs { query: q.into(), limit: Some(10), explain: true, ..Default::default() }).unwrap()
    };
    // "昨天" in UTC = [11-27 00:00Z, 11-28 00:00Z): 乙 and 丙, although they sit in two
    // Shanghai day files, and not 甲 or 丁, although they share those files.
    for q in ["昨天", "昨天的周报"] {
        let r = ask(q);
        let mut got: Vec<String> = r.items.iter().map(|i| i.content.clone()).collect();
        got.sort();
        assert_eq!(got, ["周报 丙", "周报 乙"], "{q}");
        let ex = r.explain.unwrap();
        assert_eq!(ex.window_source, WindowSource::Parsed);
        assert_eq!(ex.tz, "UTC");
        assert_eq!(
            ex.utc_filter.map(|(a, b)| (a.to_rfc3339(), b.to_rfc3339())),
            Some(("2026-11-27T00:00:00+00:00".into(), "2026-11-28T00:00:00+00:00".into()))
        );
        assert_eq!(r.matched, 2, "{q}");
    }
    // In the root's own zone, "昨天" is Shanghai 11-27: 甲 and 乙, a pure rowid range.
    let m = Memory::open(dir.path(), config()).unwrap().with_now(at("2026-11-28T12:00:00Z"));
    let r = m.retrieve(&RetrieveArgs { query: "昨天".into(), explain: true, ..Default::default() }).unwrap();
    let mut got: Vec<String> = r.items.iter().map(|i| i.content.clone()).collect();
    got.sort();
    assert_eq!(got, ["周报 乙", "周报 甲"]);
    assert_eq!(r.explain.unwrap().utc_filter, None);
}

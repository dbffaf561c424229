//! The usage ledger's failure rules, promotion, candidates, session auto-log and the
//! layer subcommands of the CLI. Zone Asia/Shanghai (UTC+8): 2026-10-21T12:00:00Z is
//! 2026-10-21 20:00 locally.

use crate::common;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::*;
use memlayers::files::entry::Source;
use memlayers::layers::cold::WriteArgs;
use memlayers::layers::usage::key;
use memlayers::{Config, Memory};

const NOW: &str = "2026-10-21T12:00:00Z";

fn open_cfg(root: &Path, cfg: Config, now: &str) -> Memory {
    Memory::open(root, cfg).unwrap().with_now(at(now))
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

fn usage(root: &Path) -> serde_json::Value {
    serde_json::from_str(&read(root, "usage.json")).unwrap()
}

fn fast() -> Config {
    Config { usage_throttle_ms: 0, ..config() }
}

const EMPTY_LEDGER: &str = "{\n  \"version\": 1,\n  \"entries\": {}\n}\n";

#[test]
fn a_corrupt_usage_json_is_rebuilt_silently() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-21.md", "- [2026-10-21T01:00:00.000Z] [计划] 周末想去看海\n");
    put(dir.path(), "usage.json", "{ \"version\": 1, \"entries\": { oops");
    let m = open_cfg(dir.path(), fast(), NOW);
    let r = m.recall("看海", None, None).unwrap();
    assert_eq!(r.returned, 1);
    let u = usage(dir.path());
    assert_eq!(u["version"], 1);
    assert_eq!(u["entries"].as_object().unwrap().len(), 1);
    assert_eq!(
        (u["entries"][key("周末想去看海")]["hits"].as_u64(), u["entries"][key("周末想去看海")]["weight"].as_f64()),
        (Some(1), Some(56.0))
    );
    drop(m);
    // Corrupt and never hit: the handle rewrites it as an empty ledger when it is dropped.
    put(dir.path(), "usage.json", "[1, 2");
    let m = open_cfg(dir.path(), fast(), NOW);
    assert_eq!(m.stats().unwrap().usage.entries, 0);
    drop(m);
    assert_eq!(read(dir.path(), "usage.json"), EMPTY_LEDGER);
    // Both unreadable versions were kept beside the ledger, byte for byte.
    assert_eq!(read(dir.path(), "usage.json.corrupt-0"), "{ \"version\": 1, \"entries\": { oops");
    assert_eq!(read(dir.path(), "usage.json.corrupt-1"), "[1, 2");
}

#[test]
fn a_deleted_usage_json_resets_every_weight() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-21.md", "- [2026-10-21T01:00:00.000Z] [计划] 周末想去看海\n");
    let m = open_cfg(dir.path(), fast(), NOW);
    m.recall("看海", None, None).unwrap();
    m.recall("看海", None, None).unwrap();
    assert_eq!(usage(dir.path())["entries"][key("周末想去看海")]["hits"], 2);
    std::fs::remove_file(dir.path().join("usage.json")).unwrap();
    let s = m.stats().unwrap();
    assert_eq!((s.usage.entries, s.weight_top.len()), (0, 0));
    m.recall("看海", None, None).unwrap();
    assert_eq!(usage(dir.path())["entries"][key("周末想去看海")]["hits"], 1);
}

#[test]
fn a_held_lock_does_not_fail_queries() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-21.md", "- [2026-10-21T01:00:00.000Z] [计划] 周末想去看海\n");
    let cfg = Config { lock_timeout_ms: 50, ..fast() };
    let m = open_cfg(dir.path(), cfg, NOW);
    let held = memlayers::files::lock::acquire(dir.path(), Duration::from_secs(1)).unwrap();
    assert_eq!(m.recall("看海", None, None).unwrap().returned, 1);
    assert_eq!(m.recent(None, None).unwrap().returned, 1);
    assert!(!dir.path().join("usage.json").exists());
    drop(held);
    m.recall("看海", None, None).unwrap();
    assert_eq!(usage(dir.path())["entries"][key("周末想去看海")]["hits"], 1);
}

#[test]
fn promotion_into_the_hot_body_adds_15_to_known_entries() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-21.md", "- [2026-10-21T01:00:00.000Z] [约定] 每周日复盘\n");
    let m = open_cfg(dir.path(), fast(), NOW);
    m.recall("复盘", None, None).unwrap();
    let weight = |root: &Path| usage(root)["entries"][key("每周日复盘")]["weight"].as_f64().unwrap();
    assert_eq!(weight(dir.path()), 56.0);
    m.hot_set("长期约定\n\n每周日复盘").unwrap();
    assert_eq!(weight(dir.path()), 71.0);
    // Unknown blocks are not added to the ledger.
    assert!(usage(dir.path())["entries"].get(key("长期约定")).is_none());
    // The same block again is not new: no promotion.
    m.hot_set("长期约定\n\n每周日复盘").unwrap();
    assert_eq!(weight(dir.path()), 71.0);
    // A new block holding it as a list item is.
    m.hot_set("长期约定\n\n- 每周日复盘").unwrap();
    assert_eq!(weight(dir.path()), 86.0);
    m.hot_set("- 每周日复盘\n- 喝水").unwrap();
    assert_eq!(weight(dir.path()), 100.0);
}

#[test]
fn important_writes_create_hot_md_and_never_duplicate_a_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let m = open_at(dir.path(), NOW);
    let w = |text: &str| {
        m.write(&WriteArgs { text: text.into(), tag: Some("计划".into()), important: true, ..Default::default() })
            .unwrap()
    };
    let a = w("周末想去看海");
    assert_eq!((a.added, a.candidate_index), (true, 1));
    assert_eq!(
        read(dir.path(), "hot.md"),
        "<!-- candidates:start -->\n- [2026-10-21T12:00:00.000Z] [计划] 周末想去看海\n<!-- candidates:end -->\n\n<!-- topics:start -->\n<!-- topics:end -->\n"
    );
    let again = w("周末想去看海");
    assert_eq!((again.added, again.candidate_index), (false, 1));
    assert_eq!(w("买票").candidate_index, 2);
    assert_eq!(m.hot_get().unwrap().candidate_count, 2);
}

fn turns(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn session_end_logs_once_per_session_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let five = turns(&["你好", "想去看海", " ", "订了\n周六的票", "好的，记下了", ""]);
    let src = Source { conv: "private:1".into(), seq: "977".into(), msg_id: None };
    {
        let off = open_at(dir.path(), NOW);
        let r = off.session_end(&five, Some(&src)).unwrap();
        assert_eq!((r.logged, r.reason.as_deref()), (false, Some("autoLogOnSessionEnd is off")));
    }
    let cfg = Config { auto_log_on_session_end: true, auto_log_min_turns: 4, ..config() };
    let m = open_cfg(dir.path(), cfg.clone(), NOW);
    let short = m.session_end(&turns(&["a", " ", "b", "c"]), Some(&src)).unwrap();
    assert_eq!(short.reason.as_deref(), Some("3 non-blank turns < autoLogMinTurns 4"));
    assert!(!dir.path().join("cold").exists());
    let r = m.session_end(&five, Some(&src)).unwrap();
    assert!(r.logged);
    assert_eq!(r.content.as_deref(), Some("想去看海 / 订了 周六的票 / 好的，记下了"));
    assert_eq!(
        read(dir.path(), "cold/2026-10/2026-10-21.md"),
        "- [2026-10-21T12:00:00.000Z] [session] 想去看海 / 订了 周六的票 / 好的，记下了 〔src:private:1#977〕\n"
    );
    let twice = m.session_end(&five, Some(&src)).unwrap();
    assert_eq!((twice.logged, twice.reason.as_deref()), (false, Some("session private:1#977 already logged")));
    drop(m);
    // A new process with a rebuilt index, the next day: still logged once.
    for f in ["index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"] {
        let _ = std::fs::remove_file(dir.path().join(f));
    }
    let m = open_cfg(dir.path(), cfg, "2026-10-22T12:00:00Z");
    assert!(!m.session_end(&five, Some(&src)).unwrap().logged);
    let other = Source { seq: "978".into(), ..src };
    let r = m.session_end(&five, Some(&other)).unwrap();
    assert_eq!((r.logged, r.date.as_deref()), (true, Some("2026-10-22")));
    assert_eq!(m.by_tag("session", None).unwrap().matched, 2);
}

fn cli(root: &Path, args: &[&str], stdin: Option<&str>) -> (i32, serde_json::Value, String) {
    let mut cmd = crate::common::cli();
    cmd.args(["--data-root", root.to_str().unwrap(), "--tz", "Asia/Shanghai", "--now", NOW, "--json"]).args(args);
    cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(s) = stdin {
        input.write_all(s.as_bytes()).unwrap();
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let json = serde_json::from_str(&stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code().unwrap(), json, String::from_utf8(out.stderr).unwrap())
}

#[test]
fn cli_layer_subcommands() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (code, j, _) = cli(root, &["hot-get"], None);
    assert_eq!((code, j["content"].as_str(), j["chars"].as_u64()), (0, Some(""), Some(0)));
    assert!(!root.join("hot.md").exists());
    let (code, j, _) = cli(root, &["hot-set", "我是小明"], None);
    assert_eq!((code, j["chars"].as_u64(), j["overLimit"].as_bool()), (0, Some(4), Some(false)));
    let (_, j, _) = cli(root, &["hot-set", "-"], Some("从标准输入来的正文\n"));
    assert_eq!(j["content"], "从标准输入来的正文");
    put(root, "body.txt", "从文件来的正文");
    let (_, j, _) = cli(root, &["hot-set", "--file", root.join("body.txt").to_str().unwrap()], None);
    assert_eq!(j["chars"], 7);
    let (code, _, err) = cli(root, &["hot-set"], None);
    assert_eq!(code, 2, "{err}");
    // A file that cannot be read is bad input naming `file` (exit 2), not an internal error.
    let (code, _, err) = cli(root, &["hot-set", "--file", root.join("missing.txt").to_str().unwrap()], None);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("file"), "{err}");
    // Control characters other than line breaks and tabs are refused as `write` refuses them
    // (U+0001 here), and hot.md keeps the body set above.
    let (code, _, err) = cli(root, &["hot-set", "a\u{1}b"], None);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("U+0001"), "{err}");
    assert_eq!(
        memlayers::layers::hot::parse(&std::fs::read_to_string(root.join("hot.md")).unwrap()).body,
        "从文件来的正文"
    );
    let (code, j, _) = cli(root, &["hot-set", "第一行\n\t第二行"], None);
    assert_eq!((code, j["chars"].as_u64()), (0, Some(8)));
    cli(root, &["hot-set", "从文件来的正文"], None);
    let (_, j, _) = cli(root, &["write", "周末想去看海", "--tag", "计划", "--important"], None);
    assert_eq!((j["candidateIndex"].as_u64(), j["overLimit"].as_bool()), (Some(1), Some(false)));
    let (_, j, _) = cli(root, &["summarize", "--period", "week"], None);
    assert_eq!((j["label"].as_str(), j["created"].as_bool()), (Some("2026-W43"), Some(true)));
    assert!(root.join("summaries/week/2026-W43.md").exists());
    let (code, _, _) = cli(root, &["summarize", "--period", "year"], None);
    assert_eq!(code, 2);
    cli(root, &["recall", "看海"], None);
    let (_, j, _) = cli(root, &["stats"], None);
    assert_eq!(
        (j["hot"]["candidateCount"].as_u64(), j["topRecalled"][0]["text"].as_str()),
        (Some(1), Some("周末想去看海"))
    );
    assert_eq!(j["summaries"]["week"]["files"], 1);
    let (code, j, _) = cli(root, &["export"], None);
    assert_eq!((code, j["written"].as_array().map(Vec::len)), (0, Some(0)));
    let (code, j, _) =
        cli(root, &["session-end", "--turn", "a", "--turn", "b", "--source", r#"{"conv":"c","seq":1}"#], None);
    assert_eq!((code, j["logged"].as_bool()), (0, Some(false)));
    let (code, _, _) = cli(root, &["session-end", "--source", "{"], None);
    assert_eq!(code, 2);
}

/// `Memory::defer_hits` (what `memlayers mcp` and `serve` set): a query's hits are not in the
/// index when it returns, `record_deferred_hits` records them at the instant the query ran and
/// in query order, and a drop records any still held back.
#[test]
fn deferred_hits_are_recorded_as_the_queries_would_have() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-10/2026-10-20.md",
        "- [2026-10-20T01:00:00.000Z] [-] 风筝 第一条\n- [2026-10-20T02:00:00.000Z] [-] 风筝 第二条\n",
    );
    let hits = |m: &Memory, text: &str| -> (u64, f64) {
        let l = m.usage_records(&[key(text)]).unwrap();
        l.entries.get(&key(text)).map_or((0, 50.0), |r| (r.hits, r.weight))
    };
    let m = open_cfg(dir.path(), config(), NOW);
    m.defer_hits(true);
    // Two queries: both entries twice, then 第一条 alone.
    assert_eq!(m.recall("风筝", Some(10), None).unwrap().returned, 2);
    assert_eq!(m.recall("第一条", Some(10), None).unwrap().returned, 1);
    assert_eq!(hits(&m, "风筝 第一条"), (0, 50.0), "held back, not in the index yet");
    m.record_deferred_hits();
    // 50 + 6 per hit (the plugin's bonus), no decay within the day: 2 hits → 62, 1 → 56.
    assert_eq!(hits(&m, "风筝 第一条"), (2, 62.0));
    assert_eq!(hits(&m, "风筝 第二条"), (1, 56.0));
    let at = m.usage_records(&[key("风筝 第二条")]).unwrap().entries[&key("风筝 第二条")].last_hit_at;
    assert_eq!(at, Some(common::at(NOW)));
    // Nothing left to record: a second call changes nothing.
    m.record_deferred_hits();
    assert_eq!(hits(&m, "风筝 第一条"), (2, 62.0));
    // Held back at the drop: recorded by it.
    m.recall("第二条", Some(10), None).unwrap();
    drop(m);
    let m = open_cfg(dir.path(), config(), NOW);
    assert_eq!(hits(&m, "风筝 第二条"), (2, 62.0));
}

/// Hits recorded by a lookup per key, then an update or an insert: a query's hits
/// land on what the ledger held, decayed first; an entry returned twice in one answer counts
/// twice; new keys go to the end of usage.json in answer order; the ranking reads the
/// decayed weights. Half-life 2 days so that the decays are exact. Values worked by hand from
/// the plugin's rules (docs/plugin-compatibility.md, "Usage ledger": hit +6 capped at 100, new entries start at 50, decay
/// `× 0.5^(whole days / half-life)` from the last decay, else the last hit).
#[test]
fn hits_update_decayed_records_and_append_new_keys_in_answer_order() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-20.md", "- [2026-10-20T02:00:00.000Z] [-] 风筝 新来的\n");
    put(
        dir.path(),
        "cold/2026-10/2026-10-21.md",
        "- [2026-10-21T01:00:00.000Z] [-] 风筝 老朋友\n- [2026-10-21T02:00:00.000Z] [-] 风筝 常客\n\
         - [2026-10-21T03:00:00.000Z] [-] 风筝 新来的\n",
    );
    let (old, regular, new, absent) = ("风筝 老朋友", "风筝 常客", "风筝 新来的", "没来过");
    // 老朋友: last decay 4 days 5 hours before NOW. 常客: no decay instant, no first hit; its
    // anchor (the last hit) is 11 hours before NOW. 没来过: in the ledger, never returned.
    let ledger = format!(
        "{{\"version\":1,\"entries\":{{\
         \"{}\":{{\"hits\":3,\"firstHitAt\":\"2026-10-01T00:00:00.000Z\",\"lastHitAt\":\"2026-10-17T07:00:00.000Z\",\
         \"weight\":80,\"lastDecayAt\":\"2026-10-17T07:00:00.000Z\"}},\
         \"{}\":{{\"hits\":7,\"lastHitAt\":\"2026-10-21T01:00:00.000Z\",\"weight\":98}},\
         \"{}\":{{\"hits\":0,\"weight\":40,\"lastDecayAt\":\"2026-10-21T00:00:00.000Z\"}}}}}}",
        key(old),
        key(regular),
        key(absent)
    );
    put(dir.path(), "usage.json", &ledger);
    let cfg = Config { half_life_days: 2.0, ..fast() };
    let m = open_cfg(dir.path(), cfg, NOW);
    let args = memlayers::query::retrieve::RetrieveArgs {
        query: "风筝".into(),
        limit: Some(10),
        explain: true,
        ..Default::default()
    };
    // The usage weight each returned text was ranked with, sorted by text.
    let weights = |m: &Memory| -> Vec<(String, f64)> {
        let r = m.retrieve(&args).unwrap();
        let parts = r.explain.unwrap().hits;
        let mut w: Vec<(String, f64)> =
            r.items.iter().map(|i| (i.content.clone(), parts.iter().find(|p| p.id == i.id).unwrap().weight)).collect();
        w.sort_by(|a, b| a.0.cmp(&b.0));
        w
    };
    let record = |text: &str| -> serde_json::Value { usage(dir.path())["entries"][key(text)].clone() };
    // Whole weights are written without a fraction (`26`, as JavaScript writes them).
    let rec = |hits: u64, first: Option<&str>, last: &str, weight: u64, decay: &str| {
        let mut v = serde_json::json!({ "hits": hits, "lastHitAt": last, "weight": weight, "lastDecayAt": decay });
        if let Some(f) = first {
            v["firstHitAt"] = f.into();
        }
        v
    };
    const T: &str = "2026-10-21T12:00:00.000Z";
    // Ranked with: 老朋友 80 × 0.5^(4 / 2) = 20; 常客 98 (under a day: no decay); 新来的 50
    // (never hit), once per day file.
    let (w_old, w_regular, w_new) = (20.0, 98.0, 50.0);
    let mut want =
        vec![(new.to_string(), w_new), (new.to_string(), w_new), (regular.into(), w_regular), (old.into(), w_old)];
    want.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(weights(&m), want);
    // 老朋友: 20 + 6 = 26, its decay instant moved by exactly 4 days (the 5 hours kept).
    assert_eq!(record(old), rec(4, Some("2026-10-01T00:00:00.000Z"), T, 26, "2026-10-21T07:00:00.000Z"));
    // 常客: 98 + 6 capped at 100; first hit and decay instant start now (they were absent).
    assert_eq!(record(regular), rec(8, Some(T), T, 100, T));
    // 新来的: two hits in one answer, 50 + 6 + 6 = 62.
    assert_eq!(record(new), rec(2, Some(T), T, 62, T));
    assert_eq!(
        record(absent),
        serde_json::json!({ "hits": 0, "weight": 40, "lastDecayAt": "2026-10-21T00:00:00.000Z" })
    );
    // The file's order, the new key last; the index knows the content of every key hit.
    let text = read(dir.path(), "usage.json");
    let at = |t: &str| text.find(&key(t)).unwrap();
    assert!(at(old) < at(regular) && at(regular) < at(absent) && at(absent) < at(new), "{text}");
    let c = rusqlite::Connection::open(dir.path().join("index.sqlite3")).unwrap();
    let texts: Vec<Option<String>> = c
        .prepare("SELECT text FROM usage ORDER BY rowid")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(texts, [Some(old.to_string()), Some(regular.into()), None, Some(new.into())]);
    // Again at the same instant: no decay (under a day since each anchor); ranked with the
    // weights just written, then +6 a hit.
    let mut want = vec![(new.to_string(), 62.0), (new.to_string(), 62.0), (regular.into(), 100.0), (old.into(), 26.0)];
    want.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(weights(&m), want);
    assert_eq!(record(old), rec(5, Some("2026-10-01T00:00:00.000Z"), T, 32, "2026-10-21T07:00:00.000Z"));
    assert_eq!(record(regular), rec(9, Some(T), T, 100, T));
    assert_eq!(record(new), rec(4, Some(T), T, 74, T));
}

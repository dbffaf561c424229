//! The layer files stay canonical — export, hand edits, index deletion, the 20-entry
//! day summary, and byte compatibility with the plugin's formats (tests/fixtures/layers).
//! Zone Asia/Shanghai (UTC+8).

use crate::common;

use std::path::Path;

use common::*;
use memlayers::layers::cold::WriteArgs;
use memlayers::{Config, Memory};

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

fn remove_index(root: &Path) {
    for f in ["index.sqlite3", "index.sqlite3-wal", "index.sqlite3-shm"] {
        let _ = std::fs::remove_file(root.join(f));
    }
}

/// Every file under the root except the index, with its bytes, sorted by path.
fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                walk(root, &p, out);
            } else if !rel.starts_with("index.sqlite3") && rel != ".lock" && rel != "memlayers.json" {
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// A data root with every layer populated: hot body, a candidate, topics, a day and a week
/// summary, and usage hits (the last one held back by the 5 s throttle).
fn populated(root: &Path) -> Memory {
    put(root, "cold/2026-10/2026-10-20.md", "- [2026-10-20T01:00:00.000Z] [饮食] 晚饭吃了火锅\n");
    let m = open_at(root, "2026-10-21T12:00:00Z");
    m.hot_set("我是小明，在上海。").unwrap();
    m.write(&WriteArgs {
        text: "周末想去看海".into(),
        tag: Some("计划".into()),
        important: true,
        ..Default::default()
    })
    .unwrap();
    m.summarize(Some("day"), Some("2026-10-20"), false).unwrap();
    m.summarize(Some("week"), None, false).unwrap();
    m.recall("火锅", None, None).unwrap();
    m.recall("看海", None, None).unwrap(); // same instant: throttled, not yet in usage.json
    m
}

#[test]
fn export_writes_pending_state_then_is_a_no_op() {
    let dir = tempfile::tempdir().unwrap();
    let m = populated(dir.path());
    let usage = read(dir.path(), "usage.json");
    assert!(!usage.contains(&memlayers::layers::usage::key("周末想去看海")));
    let first = m.export().unwrap();
    assert_eq!(first.written, ["usage.json"]);
    // hot.md, two summaries.
    assert_eq!(first.unchanged, 3);
    let before = snapshot(dir.path());
    let second = m.export().unwrap();
    assert!(second.written.is_empty(), "{second:?}");
    assert_eq!(second.unchanged, 4);
    assert_eq!(snapshot(dir.path()), before);
    let u: serde_json::Value = serde_json::from_str(&read(dir.path(), "usage.json")).unwrap();
    assert_eq!(u["entries"][memlayers::layers::usage::key("周末想去看海")]["hits"], 1);
    // A layer file deleted by hand is a hand edit too: export does not bring it back.
    std::fs::remove_file(dir.path().join("summaries/day/2026-10-20.md")).unwrap();
    let third = m.export().unwrap();
    assert!(third.written.is_empty());
    assert!(!dir.path().join("summaries/day/2026-10-20.md").exists());
    assert_eq!(m.stats().unwrap().summaries.day.files, 0);
}

#[test]
fn hand_edited_hot_md_and_summaries_win() {
    let dir = tempfile::tempdir().unwrap();
    let m = populated(dir.path());
    m.export().unwrap();
    // Edit hot.md by hand: new body, a topic line added, the candidate removed.
    put(
        dir.path(),
        "hot.md",
        "手改的正文\n\n<!-- candidates:start -->\n<!-- candidates:end -->\n\n<!-- topics:start -->\n旅行|2026-09\n<!-- topics:end -->\n",
    );
    let h = m.hot_get().unwrap();
    assert_eq!((h.content.as_str(), h.chars, h.candidate_count), ("手改的正文", 5, 0));
    assert_eq!(h.topics.iter().map(|t| t.line()).collect::<Vec<_>>(), ["旅行|2026-09"]);
    // Edit the day summary by hand: the next week summary reads the edited lines.
    let rel = "summaries/day/2026-10-20.md";
    let edited = format!("{}- [手工] 补记一条。后面不要\n", read(dir.path(), rel));
    put(dir.path(), rel, &edited);
    let day = m.summarize(Some("day"), Some("2026-10-20"), false).unwrap();
    assert_eq!((day.created, day.content.as_str(), day.kept), (false, edited.as_str(), 2));
    let week = m.summarize(Some("week"), Some("2026-10-20"), true).unwrap();
    assert!(week.content.contains("\n- [手工] 补记一条。后面不要\n"), "{}", week.content);
    // Its top tags (one entry each, in order of appearance) join the hand-written topic.
    let topics = ["旅行|2026-09", "饮食|2026-10", "手工|2026-10", "计划|2026-10"];
    assert_eq!(m.hot_get().unwrap().topics.iter().map(|t| t.line()).collect::<Vec<_>>(), topics);
    // Export keeps the hand edits.
    let rep = m.export().unwrap();
    assert!(rep.written.is_empty(), "{rep:?}");
    assert_eq!(read(dir.path(), rel), edited);
    assert!(read(dir.path(), "hot.md").starts_with("手改的正文\n"));
    // hot_set keeps the topics (hand-written and added).
    m.hot_set("新正文").unwrap();
    assert_eq!(m.hot_get().unwrap().topics.iter().map(|t| t.line()).collect::<Vec<_>>(), topics);
}

#[test]
fn deleting_the_index_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let m = populated(dir.path());
    m.flush_usage().unwrap();
    let hot = serde_json::to_value(m.hot_get().unwrap()).unwrap();
    let stats = serde_json::to_value(m.stats().unwrap()).unwrap();
    let week = m.summarize(Some("week"), None, false).unwrap().content;
    drop(m);
    let before = snapshot(dir.path());
    remove_index(dir.path());
    let m = open_at(dir.path(), "2026-10-21T12:00:00Z");
    assert_eq!(serde_json::to_value(m.hot_get().unwrap()).unwrap(), hot);
    // Same figures, and the same 40-character previews (recovered from the cold entries).
    assert_eq!(serde_json::to_value(m.stats().unwrap()).unwrap(), stats);
    // One hit each at the same instant: ordered by key (8e0b… < d3fa…).
    assert_eq!(stats["topRecalled"][0]["text"], "周末想去看海");
    assert_eq!(stats["topRecalled"][1]["text"], "晚饭吃了火锅");
    let again = m.summarize(Some("week"), None, false).unwrap();
    assert_eq!((again.created, again.content), (false, week));
    assert!(m.export().unwrap().written.is_empty());
    drop(m);
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn every_twentieth_entry_of_a_day_regenerates_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let m = open_at(dir.path(), "2026-10-21T12:00:00Z");
    let mut created = Vec::new();
    for i in 1..=41 {
        let r =
            m.write(&WriteArgs { text: format!("第{i}条"), tag: Some("流水".into()), ..Default::default() }).unwrap();
        if r.summary_created {
            created.push(r.day_count);
        }
        if i == 20 {
            assert!(read(dir.path(), "summaries/day/2026-10-21.md").contains("- 压缩比：原 20 条 → 保留 20 行\n"));
        }
    }
    assert_eq!(created, [20, 40]);
    let text = read(dir.path(), "summaries/day/2026-10-21.md");
    assert!(text.contains("- 压缩比：原 40 条 → 保留 40 行\n"), "{text}");
    assert!(text.ends_with("- [流水] 第40条\n"));
    // A duplicate (not added) never counts as crossing.
    let dup = m.write(&WriteArgs { text: "第41条".into(), tag: Some("流水".into()), ..Default::default() }).unwrap();
    assert_eq!((dup.added, dup.summary_created), (false, false));
    assert_eq!(m.hot_get().unwrap().topics.iter().map(|t| t.line()).collect::<Vec<_>>(), ["流水|2026-10"]);
}

fn fixture_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&fixtures().join("layers"), dir.path());
    dir
}

const FIXTURE_NOW: &str = "2026-10-22T00:00:00Z";

#[test]
fn plugin_layer_files_are_read_and_written_back_unchanged() {
    let dir = fixture_root();
    let before = snapshot(dir.path());
    let cfg = Config { usage_throttle_ms: 0, ..config() };
    let m = Memory::open(dir.path(), cfg).unwrap().with_now(at(FIXTURE_NOW));
    let h = m.hot_get().unwrap();
    assert_eq!(
        (h.content.as_str(), h.chars, h.candidate_count, h.topic_count),
        ("我是小明，在上海。\n\n长期约定：每周日复盘。", 22, 1, 2)
    );
    let s = m.stats().unwrap();
    assert_eq!((s.usage.entries, s.usage.hits, s.summaries.day.files), (3, 6, 1));
    assert_eq!(s.top_recalled[0].text, "录了《晴天》的翻唱，权重那一段还要再练");
    assert_eq!(s.top_recalled[0].weight, 72.31);
    let day = m.summarize(Some("day"), Some("2026-10-21"), false).unwrap();
    assert_eq!((day.created, day.original, day.kept), (false, Some(5), 5));
    assert!(m.export().unwrap().written.is_empty());
    assert_eq!(snapshot(dir.path()), before);
    // Setting the same body gives hot.md's exact bytes.
    m.hot_set("我是小明，在上海。\n\n长期约定：每周日复盘。").unwrap();
    assert_eq!(snapshot(dir.path()), before);
    // Regenerating the summary at the fixture's generation time gives its exact bytes; its top
    // tags (早报, 翻唱, 约定: one entry each, `-` never counts) add two topics lines.
    let fixture_summary = read(dir.path(), "summaries/day/2026-10-21.md");
    let again = m.summarize(Some("day"), Some("2026-10-21"), true).unwrap();
    assert_eq!((again.content.as_str(), again.topics_added), (fixture_summary.as_str(), 2));
    assert_eq!(read(dir.path(), "summaries/day/2026-10-21.md"), fixture_summary);
    assert!(
        read(dir.path(), "hot.md")
            .ends_with("翻唱|2026-10\n旅行|2026-09\n早报|2026-10\n约定|2026-10\n<!-- topics:end -->\n")
    );
}

#[test]
fn usage_json_keeps_its_key_order_and_final_newline() {
    let dir = fixture_root();
    let fixture = read(dir.path(), "usage.json");
    let cfg = Config { usage_throttle_ms: 0, ..config() };
    let m = Memory::open(dir.path(), cfg.clone()).unwrap().with_now(at(FIXTURE_NOW));
    // One hit on the third (last) key: hits 1 → 2, weight 56 → 62 (12 h since its anchor: no
    // decay), lastHitAt now; the other records and the order stay.
    m.recall("牛肉面", None, None).unwrap();
    let expected = fixture.replace(
        "\"hits\": 1,\n      \"firstHitAt\": \"2026-10-21T12:00:00.000Z\",\n      \"lastHitAt\": \"2026-10-21T12:00:00.000Z\",\n      \"weight\": 56,",
        "\"hits\": 2,\n      \"firstHitAt\": \"2026-10-21T12:00:00.000Z\",\n      \"lastHitAt\": \"2026-10-22T00:00:00.000Z\",\n      \"weight\": 62,",
    );
    assert_ne!(expected, fixture);
    assert_eq!(read(dir.path(), "usage.json"), expected);
    // A new key goes last.
    m.recall("早报", None, None).unwrap();
    let text = read(dir.path(), "usage.json");
    let k = memlayers::layers::usage::key("今日早报：SQLite 发布新版本，FTS5 修复了一个 bug");
    assert!(text.find(&k).unwrap() > text.find("3622d14e1b62839eda19b7308b6bc4b524291047").unwrap());
    drop(m);
    // Without a final newline in the file, none is added.
    let dir = fixture_root();
    put(dir.path(), "usage.json", fixture.trim_end_matches('\n'));
    let m = Memory::open(dir.path(), cfg).unwrap().with_now(at(FIXTURE_NOW));
    m.recall("牛肉面", None, None).unwrap();
    assert_eq!(read(dir.path(), "usage.json"), expected.trim_end_matches('\n'));
}

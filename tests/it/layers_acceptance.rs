//! Every row of dsh-memory-layers v1.2.1's acceptance table (验收对照), one test
//! each, against real files in a temp data root. Zone Asia/Shanghai (UTC+8), so
//! 2026-10-21T12:00:00Z is 20:00 on 2026-10-21 locally. Expected values are worked out by
//! hand from the plugin's rules (docs/plugin-compatibility.md).

use crate::common;

use std::path::Path;

use common::*;
use memlayers::files::entry::Source;
use memlayers::layers::cold::WriteArgs;
use memlayers::{Config, Memory};

const NOW: &str = "2026-10-21T12:00:00Z";

fn open_cfg(root: &Path, cfg: Config, now: &str) -> Memory {
    Memory::open(root, cfg).unwrap().with_now(at(now))
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

fn field(e: memlayers::Error) -> String {
    match e {
        memlayers::Error::BadInput { field, .. } => field,
        other => panic!("{other}"),
    }
}

fn usage_json(root: &Path) -> serde_json::Value {
    serde_json::from_str(&read(root, "usage.json")).unwrap()
}

/// 热层每次可读：`mem_hot_get` 在无文件时返回空正文，不报错 (and creates nothing).
#[test]
fn row01_hot_get_without_a_file_is_empty_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let names = || {
        let mut v: Vec<String> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        v.sort();
        v
    };
    let m = open_at(dir.path(), NOW);
    let after_open = names();
    let h = m.hot_get().unwrap();
    let j = serde_json::to_value(&h).unwrap();
    assert_eq!(
        j,
        serde_json::json!({
            "content": "", "chars": 0, "limit": 600, "overLimit": false, "hint": "",
            "candidates": [], "candidateCount": 0, "topics": [], "topicCount": 0,
            "pruned": {"expired": 0, "overflow": 0, "kept": 0}
        })
    );
    m.hot_get().unwrap();
    assert_eq!(names(), after_open);
    drop(m);
    // Only the index, its lock file and the root's zone record (memlayers' own, not memory
    // data) exist.
    let left = names();
    assert!(left.iter().all(|n| n.starts_with("index.sqlite3") || n == ".lock" || n == "memlayers.json"), "{left:?}");
}

/// 冷层可召回：`mem_recall` 扫描全部月份目录，跨月返回.
#[test]
fn row02_recall_crosses_every_month() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2025-12/2025-12-31.md", "- [2025-12-31T01:00:00.000Z] [翻唱] 跨年夜翻唱《晴天》\n");
    put(dir.path(), "cold/2026-03/2026-03-08.md", "- [2026-03-08T01:00:00.000Z] [翻唱] 翻唱《稻香》第二版\n");
    put(dir.path(), "cold/2026-10/2026-10-21.md", "- [2026-10-21T01:00:00.000Z] [计划] 下个月再翻唱一首\n");
    let m = open_at(dir.path(), NOW);
    let r = m.recall("翻唱", None, None).unwrap();
    let mut dates: Vec<&str> = r.items.iter().map(|i| i.date.as_str()).collect();
    dates.sort();
    assert_eq!(dates, ["2025-12-31", "2026-03-08", "2026-10-21"]);
    assert_eq!((r.scanned_files, r.scanned_entries, r.matched, r.returned), (3, 3, 3, 3));
}

const DAY_21: &str = "- [2026-10-21T01:00:00.000Z] [翻唱] 录了《晴天》初版。下次加和声\n- [2026-10-21T02:00:00.000Z] [计划] 周末想去看海\n";

/// 日/周/月摘要可生成：`mem_summarize` 三种 `period` 均落盘.
#[test]
fn row03_day_week_and_month_summaries_land_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-19.md", "- [2026-10-19T01:00:00.000Z] [翻唱] 练了《稻香》\n");
    put(dir.path(), "cold/2026-10/2026-10-21.md", DAY_21);
    let m = open_at(dir.path(), NOW);

    let day = m.summarize(Some("day"), None, false).unwrap();
    let day_text = "# 日摘要 2026-10-21\n\n- 来源：冷层 cold/2026-10/2026-10-21.md\n- 生成时间：2026-10-21T12:00:00.000Z\n- 压缩比：原 2 条 → 保留 2 行\n\n## 条目\n\n- [翻唱] 录了《晴天》初版\n- [计划] 周末想去看海\n";
    assert_eq!((day.created, day.file.as_str(), day.content.as_str()), (true, "summaries/day/2026-10-21.md", day_text));
    assert_eq!(read(dir.path(), "summaries/day/2026-10-21.md"), day_text);
    assert_eq!((day.top_tags.clone(), day.topics_added), (vec!["翻唱".to_string(), "计划".to_string()], 2));

    // The week reads 10-21's day summary and falls back to 10-19's cold file.
    let week = m.summarize(Some("week"), Some("2026-10-21"), false).unwrap();
    let week_text = "# 周摘要 2026-W43（2026-10-19 至 2026-10-25）\n\n- 来源：日摘要 2026-10-21；冷层 2026-10-19\n- 生成时间：2026-10-21T12:00:00.000Z\n- 压缩比：原 3 条 → 保留 2 行\n\n## 条目\n\n- [翻唱] 练了《稻香》 … 录了《晴天》初版（2 条）\n- [计划] 周末想去看海\n";
    assert_eq!(read(dir.path(), "summaries/week/2026-W43.md"), week_text);
    assert_eq!((week.label.as_str(), week.topics_added), ("2026-W43", 0));

    // October 2026: W41–W43 lie inside it; W43 has a summary, the rest has nothing.
    let month = m.summarize(Some("month"), Some("2026-10-21"), false).unwrap();
    let month_text = "# 月摘要 2026-10\n\n- 来源：周摘要 2026-W43\n- 生成时间：2026-10-21T12:00:00.000Z\n- 压缩比：原 3 条 → 保留 2 行\n\n## 条目\n\n- [翻唱] 练了《稻香》 … 录了《晴天》初版（2 条）\n- [计划] 共 1 条\n";
    assert_eq!(read(dir.path(), "summaries/month/2026-10.md"), month_text);
    assert_eq!((month.original, month.kept, month.omitted), (Some(3), 2, 0));

    // An existing summary is returned as is; force regenerates it.
    let again = m.summarize(Some("day"), Some("2026-10-21"), false).unwrap();
    assert_eq!((again.created, again.content.as_str(), again.kept), (false, day_text, 2));
    assert!(m.summarize(Some("day"), None, true).unwrap().created);
    // The top tags went to the topics index.
    let topics: Vec<String> = m.hot_get().unwrap().topics.iter().map(|t| t.line()).collect();
    assert_eq!(topics, ["翻唱|2026-10", "计划|2026-10"]);
    assert_eq!(field(m.summarize(Some("year"), None, false).unwrap_err()), "period");
    assert_eq!(field(m.summarize(None, Some("2026-13-01"), false).unwrap_err()), "date");
}

/// 超限有提示：`mem_hot_get` / `mem_hot_set` / `mem_write(important)` 都返回 `overLimit` 与 `hint`.
#[test]
fn row04_over_limit_is_reported_by_get_set_and_important_write() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = Config { hot_limit: 100, evict_target: 85, ..config() };
    put(dir.path(), "hot.md", &"字".repeat(120));
    let m = open_cfg(dir.path(), cfg, NOW);
    let g = m.hot_get().unwrap();
    assert_eq!((g.chars, g.limit, g.over_limit), (120, 100, true));
    assert_eq!(
        g.hint,
        "热层正文 120 字，超过上限 100 字（多 20 字）：请把细节用 mem_write 移到冷层，再用 mem_hot_set 写一版精简正文。"
    );
    // One block cannot be evicted (never the last block): still over, with both hints.
    let s = m.hot_set(&"文".repeat(130)).unwrap();
    assert_eq!((s.chars, s.over_limit, s.chars_after_evict, s.evicted.len()), (130, true, 130, 0));
    assert_eq!(
        s.hint,
        "热层正文 130 字，超过上限 100 字（多 30 字）：请把细节用 mem_write 移到冷层，再用 mem_hot_set 写一版精简正文。"
    );
    assert!(s.evict_hint.starts_with("正文 130 字超过上限 100 字，但没有可腾挪的块"), "{}", s.evict_hint);
    let w = m.write(&WriteArgs { text: "周末想去看海".into(), important: true, ..Default::default() }).unwrap();
    assert_eq!((w.candidate_index, w.over_limit, w.hint.as_deref()), (1, Some(true), Some(s.hint.as_str())));
    let j = serde_json::to_value(&w).unwrap();
    assert_eq!((j["overLimit"].clone(), j["candidateIndex"].clone()), (serde_json::json!(true), serde_json::json!(1)));
    // Within the limit: overLimit false and an empty hint.
    m.hot_set("短正文").unwrap();
    let w = m.write(&WriteArgs { text: "买票".into(), important: true, ..Default::default() }).unwrap();
    assert_eq!((w.candidate_index, w.over_limit, w.hint.as_deref()), (2, Some(false), Some("")));
    // A plain write does not carry the fields.
    let j = serde_json::to_value(m.write(&WriteArgs { text: "随手记".into(), ..Default::default() }).unwrap()).unwrap();
    assert!(j.get("overLimit").is_none() && j.get("hint").is_none());
}

/// 最近 N 天可查：`mem_recent(days)` 只读区间内实际存在的日期文件.
#[test]
fn row05_recent_reads_only_existing_day_files_in_range() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-15.md", "- [2026-10-15T01:00:00.000Z] [-] 太早\n");
    put(dir.path(), "cold/2026-10/2026-10-19.md", "- [2026-10-19T01:00:00.000Z] [-] 周一\n");
    put(dir.path(), "cold/2026-10/2026-10-21.md", "- [2026-10-21T01:00:00.000Z] [-] 周三\n");
    let m = open_at(dir.path(), NOW);
    let r = m.recent(Some(3), None).unwrap();
    assert_eq!((r.from.as_deref(), r.to.as_deref()), (Some("2026-10-19"), Some("2026-10-21")));
    assert_eq!((r.scanned_files, r.scanned_entries, r.returned), (2, 2, 2));
    assert_eq!(r.items.iter().map(|i| i.content.as_str()).collect::<Vec<_>>(), ["周三", "周一"]);
    let one = m.recent(Some(1), None).unwrap();
    assert_eq!((one.scanned_files, one.items[0].content.as_str()), (1, "周三"));
    assert!(!dir.path().join("cold/2026-10/2026-10-20.md").exists());
}

/// 按标签可查：`mem_by_tag(tag)` 精确匹配（大小写不敏感），`-` 匹配无标签.
#[test]
fn row06_by_tag_is_exact_case_insensitive_and_dash_is_untagged() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-10/2026-10-21.md",
        "- [2026-10-21T01:00:00.000Z] [Rust] 一\n- [2026-10-21T02:00:00.000Z] [rust] 二\n- [2026-10-21T03:00:00.000Z] [rusty] 三\n- [2026-10-21T04:00:00.000Z] [-] 四\n",
    );
    let m = open_at(dir.path(), NOW);
    let r = m.by_tag("RUST", None).unwrap();
    assert_eq!(r.items.iter().map(|i| i.content.as_str()).collect::<Vec<_>>(), ["二", "一"]);
    assert_eq!(m.by_tag("-", None).unwrap().items.iter().map(|i| i.content.as_str()).collect::<Vec<_>>(), ["四"]);
}

/// 按日期区间可查：`mem_by_date(from, to)` 闭区间，非法/倒置/过大区间报可读错误.
#[test]
fn row07_by_date_is_closed_and_rejects_bad_ranges() {
    let dir = tempfile::tempdir().unwrap();
    for d in ["18", "19", "20", "21"] {
        put(
            dir.path(),
            &format!("cold/2026-10/2026-10-{d}.md"),
            &format!("- [2026-10-{d}T01:00:00.000Z] [-] 第{d}日\n"),
        );
    }
    let m = open_at(dir.path(), NOW);
    let r = m.by_date("2026-10-19", "2026-10-20", None).unwrap();
    assert_eq!(r.items.iter().map(|i| i.content.as_str()).collect::<Vec<_>>(), ["第20日", "第19日"]);
    assert_eq!(m.by_date("2026-10-21", "2026-10-21", None).unwrap().items[0].content, "第21日");
    assert_eq!(field(m.by_date("2026-10-21", "2026-10-19", None).unwrap_err()), "from");
    assert_eq!(field(m.by_date("2026-10-32", "2026-10-19", None).unwrap_err()), "from");
    // 2016-10-23 … 2026-10-31 is 3661 days, one more than the 3660 allowed.
    assert_eq!(field(m.by_date("2016-10-23", "2026-10-31", None).unwrap_err()), "to");
    assert!(m.by_date("2016-10-24", "2026-10-31", None).is_ok());
    let msg = m.by_date("2026-10-21", "2026-10-19", None).unwrap_err().to_string();
    assert_eq!(msg, "invalid from: 2026-10-21 is after to 2026-10-19");
}

/// 多词组合可切换：`mem_recall(mode)` 支持 `and` / `or` / `any`，默认 `and`.
#[test]
fn row08_recall_modes() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-10/2026-10-21.md",
        "- [2026-10-21T01:00:00.000Z] [-] 周末去看海\n- [2026-10-21T02:00:00.000Z] [-] 周末去爬山\n- [2026-10-21T03:00:00.000Z] [-] 看海看日出\n",
    );
    let m = open_at(dir.path(), NOW);
    let and = m.recall("周末 看海", None, None).unwrap();
    assert_eq!((serde_json::to_value(and.mode).unwrap(), and.matched), (serde_json::json!("and"), 1));
    assert_eq!(and.items[0].content, "周末去看海");
    for mode in ["or", "any"] {
        let r = m.recall("周末 看海", None, Some(mode.parse().unwrap())).unwrap();
        assert_eq!((serde_json::to_value(r.mode).unwrap(), r.matched), (serde_json::json!(mode), 3));
    }
}

/// 主题索引不占字数：`mem_hot_get.chars` 只统计正文，索引与候选另计.
#[test]
fn row09_chars_count_only_the_body() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "hot.md",
        "我是小明\n\n<!-- candidates:start -->\n- [2026-10-21T03:10:00.000Z] [计划] 周末想去看海\n<!-- candidates:end -->\n\n<!-- topics:start -->\n翻唱|2026-10\n旅行|2026-09\n<!-- topics:end -->\n",
    );
    let m = open_at(dir.path(), NOW);
    let h = m.hot_get().unwrap();
    assert_eq!((h.content.as_str(), h.chars, h.candidate_count, h.topic_count), ("我是小明", 4, 1, 2));
    let s = m.hot_set("我是小明，在上海").unwrap();
    assert_eq!((s.chars, s.candidate_count, s.topic_count), (8, 1, 2));
    assert_eq!(m.stats().unwrap().hot.chars, 8);
}

/// 重启后数据完整：全部是磁盘上的 UTF-8 文件，随进程重启保留.
#[test]
fn row10_a_new_process_sees_everything() {
    let dir = tempfile::tempdir().unwrap();
    {
        let m = open_at(dir.path(), NOW);
        m.hot_set("我是小明").unwrap();
        m.write(&WriteArgs {
            text: "周末想去看海".into(),
            tag: Some("计划".into()),
            important: true,
            ..Default::default()
        })
        .unwrap();
        m.summarize(None, None, false).unwrap();
        m.recall("看海", None, None).unwrap();
    }
    let m = open_at(dir.path(), "2026-10-21T13:00:00Z");
    let h = m.hot_get().unwrap();
    assert_eq!((h.content.as_str(), h.candidates[0].content.as_str()), ("我是小明", "周末想去看海"));
    assert_eq!(h.topics.iter().map(|t| t.line()).collect::<Vec<_>>(), ["计划|2026-10"]);
    assert!(!m.summarize(None, None, false).unwrap().created);
    let s = m.stats().unwrap();
    assert_eq!((s.cold.entries, s.summaries.day.files, s.usage.hits), (1, 1, 1));
    assert_eq!(m.by_tag("计划", None).unwrap().items[0].content, "周末想去看海");
}

/// 热层超限自腾：`mem_hot_set` 返回 `evicted` / `charsAfterEvict` / `evictHint`，被腾的块能在当天冷层 grep 到.
#[test]
fn row11_hot_set_evicts_to_todays_cold_file() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = Config { hot_limit: 100, evict_target: 85, ..config() };
    let m = open_cfg(dir.path(), cfg, NOW);
    let (a, b) = ("甲".repeat(60), "乙".repeat(50));
    // 9 (heading block) + 2 + 60 + 2 + 50 = 123 > 100.
    let s = m.hot_set(&format!("# 身份\n我是小明\n\n{a}\n\n{b}")).unwrap();
    // Equally inactive: the lowest block goes first (the top of the body goes last).
    assert_eq!(s.evicted.len(), 1);
    assert_eq!((s.evicted[0].content.as_str(), s.evicted[0].chars), (b.as_str(), 50));
    assert_eq!(s.evicted[0].reason, "不在使用账本中（从未被召回）");
    // 9 + 2 + 60 = 71 ≤ evictTarget 85.
    assert_eq!((s.chars, s.chars_after_evict, s.over_limit), (71, 71, false));
    assert_eq!(
        s.evict_hint,
        "正文 123 字超过上限 100 字，已把 1 块（50 字）腾挪到当天冷层（tag=hot-evict），剩 71 字。"
    );
    let cold = read(dir.path(), "cold/2026-10/2026-10-21.md");
    assert_eq!(cold, format!("- [2026-10-21T12:00:00.000Z] [hot-evict] {b}\n"));
    assert!(read(dir.path(), "hot.md").starts_with(&format!("# 身份\n我是小明\n\n{a}\n\n<!-- candidates:start -->")));
    assert_eq!(m.by_tag("hot-evict", None).unwrap().items[0].content, b);
}

/// 候选自动下沉：`mem_hot_get` 返回 `pruned`，下沉条目 tag 为 `candidate-expired`.
#[test]
fn row12_expired_and_overflowing_candidates_sink() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "hot.md",
        "正文\n\n<!-- candidates:start -->\n- [2026-09-01T00:00:00.000Z] [计划] 五十天前的候选\n- [2026-10-10T00:00:00.000Z] [-] 最旧的未过期候选\n- [2026-10-15T00:00:00.000Z] [计划] 留下一\n- [2026-10-20T00:00:00.000Z] [计划] 留下二\n<!-- candidates:end -->\n\n<!-- topics:start -->\n<!-- topics:end -->\n",
    );
    let cfg = Config { candidate_ttl_days: 30, candidate_max: 2, ..config() };
    let m = open_cfg(dir.path(), cfg, NOW);
    let h = m.hot_get().unwrap();
    assert_eq!(serde_json::to_value(h.pruned).unwrap(), serde_json::json!({"expired": 1, "overflow": 1, "kept": 2}));
    assert_eq!(h.candidates.iter().map(|c| c.content.as_str()).collect::<Vec<_>>(), ["留下一", "留下二"]);
    assert_eq!(
        read(dir.path(), "cold/2026-10/2026-10-21.md"),
        "- [2026-10-21T12:00:00.000Z] [candidate-expired] [计划] 五十天前的候选\n- [2026-10-21T12:00:00.000Z] [candidate-expired] [-] 最旧的未过期候选\n"
    );
    assert!(!read(dir.path(), "hot.md").contains("五十天前"));
    let again = m.hot_get().unwrap();
    assert_eq!(
        serde_json::to_value(again.pruned).unwrap(),
        serde_json::json!({"expired": 0, "overflow": 0, "kept": 2})
    );
}

fn key(s: &str) -> String {
    memlayers::layers::usage::key(s)
}

/// 召回留痕可查：连续召回后 `usage.json` 的 `hits` 增长，`mem_stats.topRecalled` 能列出.
#[test]
fn row13_recall_hits_grow_in_usage_json_and_top_recalled() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-21.md", DAY_21);
    let k = key("录了《晴天》初版。下次加和声");
    let cfg = Config { usage_throttle_ms: 0, ..config() };
    let mut m = open_cfg(dir.path(), cfg, "2026-10-21T12:00:00Z");
    for (n, t) in ["2026-10-21T12:00:00Z", "2026-10-21T12:01:00Z", "2026-10-21T12:02:00Z"].iter().enumerate() {
        m = m.with_now(at(t));
        assert_eq!(m.recall("晴天", None, None).unwrap().returned, 1);
        let rec = &usage_json(dir.path())["entries"][&k];
        // 50 + 6 per hit, no whole day passed.
        assert_eq!((rec["hits"].as_u64(), rec["weight"].as_f64()), (Some(n as u64 + 1), Some(56.0 + 6.0 * n as f64)));
    }
    let rec = &usage_json(dir.path())["entries"][&k];
    assert_eq!(rec["firstHitAt"], "2026-10-21T12:00:00.000Z");
    assert_eq!(rec["lastHitAt"], "2026-10-21T12:02:00.000Z");
    m.recent(Some(1), None).unwrap(); // both entries: one more hit each
    let s = m.stats().unwrap();
    let top: Vec<(String, u64, f64)> = s.top_recalled.iter().map(|i| (i.text.clone(), i.hits, i.weight)).collect();
    assert_eq!(top, [("录了《晴天》初版。下次加和声".to_string(), 4, 74.0), ("周末想去看海".to_string(), 1, 56.0)]);
    assert_eq!(s.top_recalled[0].last_hit_at.as_deref(), Some("2026-10-21T12:02:00.000Z"));
    assert_eq!(s.top_recalled[0].key, k);
}

/// The same with the default throttle (5 s): hits inside the window wait, and are written
/// when the handle is dropped (the plugin's flush at exit).
#[test]
fn row13b_throttled_hits_are_flushed_at_exit() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-21.md", DAY_21);
    let k = key("周末想去看海");
    let mut m = open_at(dir.path(), "2026-10-21T12:00:00Z");
    m.recall("看海", None, None).unwrap();
    assert_eq!(usage_json(dir.path())["entries"][&k]["hits"], 1);
    m = m.with_now(at("2026-10-21T12:00:04.999Z"));
    m.recall("看海", None, None).unwrap();
    assert_eq!(usage_json(dir.path())["entries"][&k]["hits"], 1);
    m = m.with_now(at("2026-10-21T12:00:05.000Z"));
    m.recall("看海", None, None).unwrap();
    assert_eq!(usage_json(dir.path())["entries"][&k]["hits"], 3);
    m = m.with_now(at("2026-10-21T12:00:06Z"));
    m.by_tag("计划", None).unwrap();
    assert_eq!(usage_json(dir.path())["entries"][&k]["hits"], 3);
    drop(m);
    let rec = &usage_json(dir.path())["entries"][&k];
    assert_eq!((rec["hits"].as_u64(), rec["weight"].as_f64()), (Some(4), Some(74.0)));
    assert_eq!(rec["lastHitAt"], "2026-10-21T12:00:06.000Z");
}

/// 权重会衰减：把 `lastDecayAt` 改到 60 天前，一次读取后权重约为原值 1/4.
#[test]
fn row14_weight_decays_to_a_quarter_after_sixty_days() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-21.md", DAY_21);
    let (kx, ky) = (key("录了《晴天》初版。下次加和声"), key("周末想去看海"));
    // 2026-08-22T12:00Z is 60 days before 2026-10-21T12:00Z; halfLifeDays 30 → 80 × 0.5² = 20.
    put(
        dir.path(),
        "usage.json",
        &format!(
            "{{\n  \"version\": 1,\n  \"entries\": {{\n    \"{kx}\": {{\n      \"hits\": 2,\n      \"firstHitAt\": \"2026-08-01T00:00:00.000Z\",\n      \"lastHitAt\": \"2026-08-22T12:00:00.000Z\",\n      \"weight\": 80,\n      \"lastDecayAt\": \"2026-08-22T12:00:00.000Z\"\n    }}\n  }}\n}}\n"
        ),
    );
    let cfg = Config { usage_throttle_ms: 0, half_life_days: 30.0, ..config() };
    let m = open_cfg(dir.path(), cfg, NOW);
    let s = m.stats().unwrap();
    assert_eq!((s.weight_top[0].key.as_str(), s.weight_top[0].weight), (kx.as_str(), 20.0));
    // A read that writes the ledger (a hit on the other entry) stores the decay.
    m.recall("看海", None, None).unwrap();
    let u = usage_json(dir.path());
    assert_eq!(u["entries"][&kx]["weight"], 20);
    assert_eq!(u["entries"][&kx]["lastDecayAt"], "2026-10-21T12:00:00.000Z");
    assert_eq!(u["entries"][&ky]["weight"], 56);
    // A hit on it: decayed 20, then + 6.
    m.recall("晴天", None, None).unwrap();
    let u = usage_json(dir.path());
    assert_eq!((u["entries"][&kx]["weight"].as_f64(), u["entries"][&kx]["hits"].as_u64()), (Some(26.0), Some(3)));
}

/// 来源可追溯：带 `source` 写入的行以 `〔src:conv#seq〕` 结尾，查询能取回 `source` 对象.
#[test]
fn row15_source_markers_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let m = open_at(dir.path(), NOW);
    let s1 = Source { conv: "private:1234567890".into(), seq: "977".into(), msg_id: None };
    let s2 = Source { conv: "group:42".into(), seq: "15".into(), msg_id: Some("msg-8812".into()) };
    m.write(&WriteArgs {
        text: "录了《晴天》".into(),
        tag: Some("翻唱".into()),
        source: Some(s1.clone()),
        ..Default::default()
    })
    .unwrap();
    m.write(&WriteArgs {
        text: "和小王约定每周五同步".into(),
        tag: Some("约定".into()),
        source: Some(s2.clone()),
        important: true,
    })
    .unwrap();
    let file = read(dir.path(), "cold/2026-10/2026-10-21.md");
    let lines: Vec<&str> = file.lines().collect();
    assert_eq!(lines[0], "- [2026-10-21T12:00:00.000Z] [翻唱] 录了《晴天》 〔src:private:1234567890#977〕");
    assert_eq!(lines[1], "- [2026-10-21T12:00:00.000Z] [约定] 和小王约定每周五同步 〔src:group:42#15/msg-8812〕");
    assert_eq!(m.recall("晴天", None, None).unwrap().items[0].source, Some(s1.clone()));
    assert_eq!(m.by_tag("约定", None).unwrap().items[0].source, Some(s2.clone()));
    let recent = m.recent(None, None).unwrap();
    // Same instant: the later line first.
    assert_eq!(recent.items.iter().map(|i| i.source.clone()).collect::<Vec<_>>(), [Some(s2.clone()), Some(s1.clone())]);
    let j = serde_json::to_value(&m.by_date("2026-10-21", "2026-10-21", None).unwrap().items[1]).unwrap();
    assert_eq!(j["source"], serde_json::json!({"conv": "private:1234567890", "seq": 977}));
    // The candidate keeps its source too.
    assert_eq!(m.hot_get().unwrap().candidates[0].source, Some(s2));
    assert!(read(dir.path(), "hot.md").contains("和小王约定每周五同步 〔src:group:42#15/msg-8812〕\n"));
}

/// 摘要逐级压缩：三种摘要头部都有 `压缩比：原 N 条 → 保留 M 行`，月摘要行数明显少于来源条目.
#[test]
fn row16_summaries_compress_level_by_level() {
    let dir = tempfile::tempdir().unwrap();
    // 2026-10-05..07 lie in ISO week W41 (Mon 10-05 … Sun 10-11), wholly inside October.
    put(
        dir.path(),
        "cold/2026-10/2026-10-05.md",
        "- [2026-10-05T01:00:00.000Z] [饮食] 早饭吃了包子。很香\n- [2026-10-05T02:00:00.000Z] [饮食] 午饭吃了面\n- [2026-10-05T03:00:00.000Z] [约定] 和小王约定周五同步\n",
    );
    put(
        dir.path(),
        "cold/2026-10/2026-10-06.md",
        "- [2026-10-06T01:00:00.000Z] [饮食] 晚饭吃了火锅\n- [2026-10-06T02:00:00.000Z] [开销] 火锅 180 元\n- [2026-10-06T03:00:00.000Z] [翻唱] 录了《晴天》初版\n",
    );
    put(
        dir.path(),
        "cold/2026-10/2026-10-07.md",
        "- [2026-10-07T01:00:00.000Z] [开销] 电影票 90 元\n- [2026-10-07T02:00:00.000Z] [翻唱] 录了《稻香》\n- [2026-10-07T03:00:00.000Z] [饮食] 夜宵吃了烧烤\n",
    );
    let m = open_at(dir.path(), "2026-10-08T00:00:00Z");
    for d in ["2026-10-05", "2026-10-06", "2026-10-07"] {
        let s = m.summarize(Some("day"), Some(d), false).unwrap();
        assert!(s.content.contains("- 压缩比：原 3 条 → 保留 3 行\n"), "{}", s.content);
    }
    assert_eq!(
        read(dir.path(), "summaries/day/2026-10-05.md"),
        "# 日摘要 2026-10-05\n\n- 来源：冷层 cold/2026-10/2026-10-05.md\n- 生成时间：2026-10-08T00:00:00.000Z\n- 压缩比：原 3 条 → 保留 3 行\n\n## 条目\n\n- [饮食] 早饭吃了包子\n- [饮食] 午饭吃了面\n- [约定] 和小王约定周五同步\n"
    );
    let week = m.summarize(Some("week"), Some("2026-10-07"), false).unwrap();
    assert_eq!(
        week.content,
        "# 周摘要 2026-W41（2026-10-05 至 2026-10-11）\n\n- 来源：日摘要 2026-10-05、2026-10-06、2026-10-07\n- 生成时间：2026-10-08T00:00:00.000Z\n- 压缩比：原 9 条 → 保留 4 行\n\n## 条目\n\n- [饮食] 早饭吃了包子 … 夜宵吃了烧烤（4 条）\n- [约定] 和小王约定周五同步\n- [开销] 火锅 180 元 … 电影票 90 元（2 条）\n- [翻唱] 录了《晴天》初版 … 录了《稻香》（2 条）\n"
    );
    let month = m.summarize(Some("month"), Some("2026-10-07"), false).unwrap();
    assert_eq!(
        month.content,
        "# 月摘要 2026-10\n\n- 来源：周摘要 2026-W41\n- 生成时间：2026-10-08T00:00:00.000Z\n- 压缩比：原 9 条 → 保留 4 行\n\n## 条目\n\n- [约定] 和小王约定周五同步\n- [翻唱] 录了《晴天》初版 … 录了《稻香》（2 条）\n- [饮食] 共 4 条\n- [开销] 共 2 条\n"
    );
    // 4 month lines for 9 source entries.
    assert!(month.kept < month.original.unwrap());
    let topics: Vec<String> = m.hot_get().unwrap().topics.iter().map(|t| t.line()).collect();
    assert_eq!(topics, ["饮食|2026-10", "约定|2026-10", "开销|2026-10", "翻唱|2026-10"]);
}

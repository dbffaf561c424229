//! Auto-evict: when the hot body is over `hotLimit`, move the least active blocks to cold.
//!
//! Rules per dsh-memory-layers v1.2.1 (docs/plugin-compatibility.md, "Hot layer"):
//!
//! * Runs only when `autoEvict` is on and the body is over `hotLimit` (code points); evicts
//!   until the body is at most `evictTarget` or nothing more may go.
//! * The body is split into blocks on blank lines ([`split_blocks`]). A block may go only if
//!   it has at least 20 code points, contains no `<!--`, does not start with `#` (after
//!   leading spaces), was not hit by a query in the last 90 days (a last hit exactly 90 days
//!   ago still protects), and — when the usage ledger knows it — its weight (decayed to
//!   `now`) is below `demoteThreshold` and it is old enough (see [`super::demotable`]).
//! * A block is matched to the ledger through [`block_keys`]: the SHA-1 of the block with
//!   whitespace collapsed, of each of its lines, of each line without a leading list marker
//!   (`- `, `* `, `+ `), and of the content of each entry line in it. Any matching record
//!   counts; the most protective one decides.
//! * Least active first: lowest weight (50 when not in the ledger), then never hit before
//!   hit, then older last hit, then LATER position in the body: among equally inactive blocks
//!   the top of the body (identity, long-term agreements) goes last.
//! * Minimal: blocks go in that order until the body is at most `evictTarget`; then every
//!   evicted block that fits back without passing `evictTarget` is put back (most active
//!   first), so no block is moved that was not needed (a 772-char body of blocks 180, 544 and
//!   44 with target 510 moves the 544 block alone).
//! * Never the last block: at least one block always stays.
//! * After an eviction the body is rebuilt from the remaining blocks joined by one blank
//!   line; `charsAfterEvict` is measured on it.
//!
//! The caller writes [`cold_entries`] (tag `hot-evict`) to today's cold file FIRST and only
//! then saves the new body; if the cold write fails, the body is saved without eviction and
//! [`failed_hint`] becomes the `evictHint` (docs/plugin-compatibility.md: "腾挪先写冷层成功、再从正文移除").

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::{chars, demotable, fmt_num, records};
use crate::Config;
use crate::files::entry::{Entry, LineKind, parse_line};
use crate::layers::usage::{DEFAULT_WEIGHT, Ledger, key};

/// Tag of evicted blocks in cold (docs/plugin-compatibility.md: "tag=hot-evict").
pub const EVICT_TAG: &str = "hot-evict";
/// Minimum block length that may be evicted, in code points (docs/plugin-compatibility.md: "≥ 20 字").
pub const MIN_BLOCK_CHARS: usize = 20;
/// Maximum length of one cold entry in code points (docs/plugin-compatibility.md: "单条上限 4000 字"); longer
/// evicted blocks are written as several entries.
pub const MAX_ENTRY_CHARS: usize = 4000;

/// One evicted block (docs/plugin-compatibility.md: "每块含 content / chars / reason").
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvictedBlock {
    /// The block as it was in the body (may span lines).
    pub content: String,
    /// Its length in code points.
    pub chars: usize,
    /// Why it was chosen, in words (weight, last hit).
    pub reason: String,
}

/// The outcome of planning an eviction.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvictPlan {
    /// The body after eviction (unchanged when nothing is evicted).
    pub body: String,
    /// The blocks to move, in body order.
    pub evicted: Vec<EvictedBlock>,
    /// Body length before eviction, code points.
    pub chars_before: usize,
    /// Body length after eviction, code points.
    pub chars_after_evict: usize,
    /// What happened, in words; empty when the body was within the limit or autoEvict is off.
    pub evict_hint: String,
}

/// Splits a body into blocks: maximal runs of lines that are not blank (whitespace-only
/// lines separate blocks). Lines keep their text; blocks never start or end with a blank line.
pub fn split_blocks(body: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    for line in body.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            if !cur.is_empty() {
                blocks.push(cur.join("\n"));
                cur.clear();
            }
        } else {
            cur.push(line);
        }
    }
    if !cur.is_empty() {
        blocks.push(cur.join("\n"));
    }
    blocks
}

/// Collapses every run of whitespace (line breaks included) into one space and trims: the
/// single-line form used for cold entries (docs/plugin-compatibility.md, "Writing an entry": "换行和连续空白会压成空格").
pub fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The usage-ledger keys a block may be known under (see the module docs), deduplicated.
pub fn block_keys(block: &str) -> Vec<String> {
    let mut texts = vec![collapse(block)];
    for line in block.lines() {
        let t = line.trim();
        if let LineKind::Entry(e) = parse_line(t) {
            texts.push(e.content);
        }
        texts.push(collapse(t));
        for marker in ["- ", "* ", "+ "] {
            if let Some(rest) = t.strip_prefix(marker) {
                texts.push(collapse(rest));
            }
        }
    }
    let mut keys: Vec<String> = Vec::new();
    for t in texts.iter().filter(|t| !t.is_empty()) {
        let k = key(t);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys
}

/// Activity of an evictable block, for ordering.
struct Candidate {
    index: usize,
    weight: f64,
    last_hit: Option<DateTime<Utc>>,
    reason: String,
}

/// Decides whether block `b` may be evicted; `Ok` carries its activity.
fn assess(index: usize, b: &str, cfg: &Config, ledger: &Ledger, now: DateTime<Utc>) -> Option<Candidate> {
    if chars(b) < MIN_BLOCK_CHARS || b.contains("<!--") || b.trim_start().starts_with('#') {
        return None;
    }
    let recs = records(ledger, &block_keys(b));
    let last_hit = recs.iter().filter_map(|r| r.last_hit_at).max();
    if last_hit.is_some_and(|h| now - h <= Duration::days(super::RECENT_HIT_DAYS)) {
        return None;
    }
    demotable(&recs, cfg, now).ok()?;
    if recs.is_empty() {
        return Some(Candidate {
            index,
            weight: DEFAULT_WEIGHT,
            last_hit: None,
            reason: "不在使用账本中（从未被召回）".into(),
        });
    }
    let weight = recs.iter().map(|r| r.weight_at(now, cfg.half_life_days)).fold(0.0, f64::max);
    let when = match last_hit {
        Some(h) => format!("最后命中 {} 天前", (now - h).num_days()),
        None => "从未命中".into(),
    };
    Some(Candidate {
        index,
        weight,
        last_hit,
        reason: format!("权重 {} < {}，{when}", fmt_num(weight), fmt_num(cfg.demote_threshold)),
    })
}

const PROTECTED: &str = "标题、含 <!--、不足 20 字、90 天内被召回过、权重不低于阈值或入账不久的块，以及最后一块";

/// Plans the eviction of `body` (see the module docs). `ledger` is the usage ledger as read;
/// weights are decayed to `now` on the fly. Pure; never fails.
pub fn plan_evict(body: &str, cfg: &Config, ledger: &Ledger, now: DateTime<Utc>) -> EvictPlan {
    let before = chars(body);
    let unchanged = |hint: String| EvictPlan {
        body: body.to_string(),
        evicted: Vec::new(),
        chars_before: before,
        chars_after_evict: before,
        evict_hint: hint,
    };
    if !cfg.auto_evict || before <= cfg.hot_limit {
        return unchanged(String::new());
    }
    let blocks = split_blocks(body);
    let mut order: Vec<Candidate> =
        blocks.iter().enumerate().filter_map(|(i, b)| assess(i, b, cfg, ledger, now)).collect();
    order.sort_by(|a, b| {
        a.weight.total_cmp(&b.weight).then_with(|| a.last_hit.cmp(&b.last_hit)).then_with(|| b.index.cmp(&a.index))
    });
    let mut evicted_order: Vec<usize> = Vec::new();
    let mut keep = vec![true; blocks.len()];
    let mut reasons: Vec<Option<String>> = vec![None; blocks.len()];
    let mut current = before;
    for c in order {
        let remaining = keep.iter().filter(|k| **k).count();
        if current <= cfg.evict_target || remaining <= 1 {
            break;
        }
        keep[c.index] = false;
        reasons[c.index] = Some(c.reason);
        evicted_order.push(c.index);
        current = body_chars(&blocks, &keep);
    }
    // Put back what was not needed, most active (last evicted) first.
    for &i in evicted_order.iter().rev() {
        keep[i] = true;
        if body_chars(&blocks, &keep) <= cfg.evict_target {
            reasons[i] = None;
        } else {
            keep[i] = false;
        }
    }
    if keep.iter().all(|k| *k) {
        return unchanged(format!(
            "正文 {before} 字超过上限 {} 字，但没有可腾挪的块（受保护：{PROTECTED}），请手动精简。",
            cfg.hot_limit
        ));
    }
    let mut evicted = Vec::new();
    let mut kept = Vec::new();
    for ((b, k), r) in blocks.iter().zip(&keep).zip(reasons) {
        if *k {
            kept.push(b.as_str());
        } else {
            evicted.push(EvictedBlock { content: b.clone(), chars: chars(b), reason: r.unwrap_or_default() });
        }
    }
    let new_body = kept.join("\n\n");
    let after = chars(&new_body);
    let moved: usize = evicted.iter().map(|e| e.chars).sum();
    let mut hint = format!(
        "正文 {before} 字超过上限 {} 字，已把 {} 块（{moved} 字）腾挪到当天冷层（tag={EVICT_TAG}），剩 {after} 字。",
        cfg.hot_limit,
        evicted.len()
    );
    if after > cfg.evict_target {
        hint.push_str(&format!("仍高于腾挪目标 {} 字（其余受保护：{PROTECTED}），请手动精简。", cfg.evict_target));
    }
    EvictPlan { body: new_body, evicted, chars_before: before, chars_after_evict: after, evict_hint: hint }
}

/// Length in code points of the body made of the kept blocks joined by one blank line.
fn body_chars(blocks: &[String], keep: &[bool]) -> usize {
    let kept: Vec<&String> = blocks.iter().zip(keep).filter(|(_, k)| **k).map(|(b, _)| b).collect();
    kept.iter().map(|b| chars(b)).sum::<usize>() + 2 * kept.len().saturating_sub(1)
}

/// The cold entries to write for evicted blocks: tag `hot-evict`, timestamp `now`, the block
/// collapsed to one line ([`collapse`]); a block longer than 4000 code points is cut into
/// consecutive entries of at most 4000.
pub fn cold_entries(evicted: &[EvictedBlock], now: DateTime<Utc>) -> Vec<Entry> {
    let mut out = Vec::new();
    for b in evicted {
        let text: Vec<char> = collapse(&b.content).chars().collect();
        for chunk in text.chunks(MAX_ENTRY_CHARS) {
            let content: String = chunk.iter().collect();
            let content = content.trim().to_string();
            if !content.is_empty() {
                out.push(Entry { ts: now, tag: EVICT_TAG.into(), content, source: None });
            }
        }
    }
    out
}

/// The `evictHint` when the cold write failed and the body was saved without eviction.
pub fn failed_hint(chars_before: usize, limit: usize, error: &str) -> String {
    format!(
        "正文 {chars_before} 字超过上限 {limit} 字；腾挪失败（写冷层出错：{error}），正文保持原样、未腾挪，请稍后重试或手动精简。"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::usage::Record;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }
    const NOW: &str = "2026-10-21T00:00:00Z";

    fn cfg() -> Config {
        Config { hot_limit: 100, evict_target: 85, ..Config::default() }
    }

    fn rec(weight: f64, first_days_ago: i64, last_days_ago: i64) -> Record {
        let now = t(NOW);
        Record {
            hits: 1,
            first_hit_at: Some(now - Duration::days(first_days_ago)),
            last_hit_at: Some(now - Duration::days(last_days_ago)),
            weight,
            last_decay_at: Some(now),
        }
    }

    #[test]
    fn splits_on_blank_lines() {
        assert_eq!(split_blocks("a\nb\n\n \n\nc\r\n\nd"), vec!["a\nb", "c", "d"]);
        assert!(split_blocks("").is_empty());
        assert_eq!(collapse(" a \n\n b\tc "), "a b c");
    }

    #[test]
    fn evicts_least_active_until_target() {
        let (a, b, c) = ("A".repeat(30), "B".repeat(30), "C".repeat(30));
        let body = format!("# 身份\n\n{a}\n\n{b}\n\n{c}");
        // 4 + 30*3 + 3 blank-line separators of 2 = 100? No: "# 身份" is 4, 3 separators → 100.
        assert_eq!(chars(&body), 100);
        let body = format!("{body}\n\n{}", "D".repeat(30)); // 132 > 100
        let mut l = Ledger::default();
        l.entries.insert(key(&b), rec(10.0, 200, 100)); // eligible, weight 10
        l.entries.insert(key(&c), rec(10.0, 200, 10)); // hit 10 days ago: protected
        let p = plan_evict(&body, &cfg(), &l, t(NOW));
        // B goes first (weight 10 < 50); then 4 + 30 + 30 + 30 + 3*2 = 100 > 85, so D goes
        // (weight 50 like A, but lower in the body: the top goes last): 4 + 30 + 30 + 2*2 = 68.
        let d = "D".repeat(30);
        assert_eq!(p.evicted.iter().map(|e| &e.content).collect::<Vec<_>>(), vec![&b, &d]);
        assert_eq!(p.body, format!("# 身份\n\n{a}\n\n{c}"));
        assert_eq!((p.chars_before, p.chars_after_evict), (132, 68));
        assert_eq!(p.evicted[1].reason, "不在使用账本中（从未被召回）");
        assert_eq!(p.evicted[0].reason, "权重 10 < 20，最后命中 100 天前");
        assert_eq!(p.evicted[0].chars, 30);
        assert_eq!(
            p.evict_hint,
            "正文 132 字超过上限 100 字，已把 2 块（60 字）腾挪到当天冷层（tag=hot-evict），剩 68 字。"
        );
    }

    #[test]
    fn moves_no_more_than_needed() {
        // Worked by hand: blocks of 180, 544 and 44 code points, none in the ledger, limit 600,
        // target floor(600 * 0.85) = 510. Body: 180 + 544 + 44 + 2 separators of 2 = 772.
        // Least active first, ties lowest in the body first: 44 goes (772 - 46 = 726 > 510),
        // then 544 (726 - 546 = 180 ≤ 510); the 44 block fits back (180 + 2 + 44 = 226 ≤ 510),
        // so only the 544 block moves and 226 chars stay.
        let (x, y, z) = ("甲".repeat(180), "乙".repeat(544), "丙".repeat(44));
        let body = format!("{x}\n\n{y}\n\n{z}");
        let c = Config { hot_limit: 600, evict_target: 510, ..Config::default() };
        let p = plan_evict(&body, &c, &Ledger::default(), t(NOW));
        assert_eq!(p.evicted.iter().map(|e| e.chars).collect::<Vec<_>>(), vec![544]);
        assert_eq!(p.body, format!("{x}\n\n{z}"));
        assert_eq!((p.chars_before, p.chars_after_evict), (772, 226));
    }

    #[test]
    fn nothing_happens_within_the_limit_or_when_off() {
        let body = "x".repeat(100);
        let p = plan_evict(&body, &cfg(), &Ledger::default(), t(NOW));
        assert_eq!((p.evicted.len(), p.evict_hint.as_str(), p.chars_after_evict), (0, "", 100));
        let over = format!("{}\n\n{}", "x".repeat(60), "y".repeat(60));
        let off = Config { auto_evict: false, ..cfg() };
        let p = plan_evict(&over, &off, &Ledger::default(), t(NOW));
        assert_eq!((p.evicted.len(), p.body == over, p.evict_hint.as_str()), (0, true, ""));
    }

    #[test]
    fn never_the_last_block() {
        let one = "x".repeat(120);
        let p = plan_evict(&one, &cfg(), &Ledger::default(), t(NOW));
        assert!(p.evicted.is_empty());
        assert_eq!(p.body, one);
        assert!(p.evict_hint.starts_with("正文 120 字超过上限 100 字，但没有可腾挪的块"), "{}", p.evict_hint);
        // Two blocks of 90: the lower one goes, the top stays although 90 > target 85.
        let two = format!("{}\n\n{}", "x".repeat(90), "y".repeat(90));
        let p = plan_evict(&two, &cfg(), &Ledger::default(), t(NOW));
        assert_eq!(p.evicted.len(), 1);
        assert_eq!(p.body, "x".repeat(90));
        assert_eq!(p.chars_after_evict, 90);
        assert!(p.evict_hint.contains("仍高于腾挪目标 85 字"), "{}", p.evict_hint);
    }

    #[test]
    fn protection_rules() {
        let now = t(NOW);
        let filler = "f".repeat(40); // eligible, evicted first among equals by position
        let short = "短".repeat(19);
        let comment = format!("<!-- 备注 -->{}", "c".repeat(30));
        let heading = format!("  # 标题{}", "h".repeat(30));
        let heavy = "w".repeat(30); // weight 30 ≥ 20
        let young = "y".repeat(30); // weight 10 but first hit 100 days ago with half-life 120
        let edge = "e".repeat(30); // last hit exactly 90 days ago
        let mut l = Ledger::default();
        l.entries.insert(key(&heavy), rec(30.0, 200, 100));
        l.entries.insert(key(&young), rec(10.0, 100, 100));
        l.entries.insert(key(&edge), rec(5.0, 200, 90));
        let body = [filler.as_str(), &short, &comment, &heading, &heavy, &young, &edge].join("\n\n");
        let c = Config { half_life_days: 120.0, evict_target: 1, ..cfg() };
        let p = plan_evict(&body, &c, &l, now);
        assert_eq!(p.evicted.iter().map(|e| e.content.as_str()).collect::<Vec<_>>(), [filler.as_str()]);
        // One second past 90 days the edge block becomes evictable (weight 5 < filler's 50).
        l.entries.get_mut(&key(&edge)).unwrap().last_hit_at = Some(now - Duration::days(90) - Duration::seconds(1));
        let p = plan_evict(&body, &c, &l, now);
        assert_eq!(p.evicted.iter().map(|e| e.content.as_str()).collect::<Vec<_>>(), [filler.as_str(), &edge]);
        assert_eq!(p.evicted[1].reason, "权重 5 < 20，最后命中 90 天前");
    }

    #[test]
    fn decayed_weight_decides() {
        // Weight 60, last decayed 60 days ago, half-life 30 → 15 < 20: evictable.
        let now = t(NOW);
        let b = "z".repeat(60);
        let mut l = Ledger::default();
        l.entries.insert(
            key(&b),
            Record {
                hits: 2,
                first_hit_at: Some(now - Duration::days(120)),
                last_hit_at: Some(now - Duration::days(120)),
                weight: 60.0,
                last_decay_at: Some(now - Duration::days(60)),
            },
        );
        let body = format!("{b}\n\n{}", "k".repeat(50));
        let p = plan_evict(&body, &cfg(), &l, now);
        assert_eq!(p.evicted.len(), 1);
        assert_eq!(p.evicted[0].reason, "权重 15 < 20，最后命中 120 天前");
        assert_eq!(p.body, "k".repeat(50));
    }

    #[test]
    fn ledger_matches_lines_list_items_and_entry_lines() {
        let keys = block_keys("- 喜欢翻唱\n- [2026-10-01T00:00:00.000Z] [约定] 每周日复盘 〔src:c#1〕");
        for text in [
            "喜欢翻唱",
            "每周日复盘",
            "- 喜欢翻唱",
            "- 喜欢翻唱 - [2026-10-01T00:00:00.000Z] [约定] 每周日复盘 〔src:c#1〕",
        ] {
            assert!(keys.contains(&key(text)), "{text}");
        }
        // A recent hit on one line protects the whole block.
        let block = format!("- 喜欢翻唱\n- {}", "补".repeat(40));
        let mut l = Ledger::default();
        l.record_hit(&key("喜欢翻唱"), t(NOW) - Duration::days(3));
        let body = format!("{block}\n\n{}", "k".repeat(60));
        let p = plan_evict(&body, &cfg(), &l, t(NOW));
        assert_eq!(p.evicted.iter().map(|e| e.content.as_str()).collect::<Vec<_>>(), ["k".repeat(60).as_str()]);
    }

    #[test]
    fn cold_entries_are_single_lines_of_at_most_4000() {
        let now = t(NOW);
        let blocks = vec![
            EvictedBlock { content: "第一行\n  第二行".into(), chars: 8, reason: String::new() },
            EvictedBlock { content: "字".repeat(4001), chars: 4001, reason: String::new() },
        ];
        let es = cold_entries(&blocks, now);
        assert_eq!(es.len(), 3);
        assert_eq!(es[0].content, "第一行 第二行");
        assert_eq!((es[0].tag.as_str(), es[0].ts), ("hot-evict", now));
        assert_eq!((chars(&es[1].content), chars(&es[2].content)), (4000, 1));
        assert_eq!(
            failed_hint(700, 600, "disk full"),
            "正文 700 字超过上限 600 字；腾挪失败（写冷层出错：disk full），正文保持原样、未腾挪，请稍后重试或手动精简。"
        );
    }
}

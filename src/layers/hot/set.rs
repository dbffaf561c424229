//! `mem_hot_set(content)`: replace the hot body, optionally the candidates and topics, then
//! auto-evict.
//!
//! Rules per dsh-memory-layers v1.2.1 (docs/plugin-compatibility.md, "Hot layer"):
//!
//! * `content` replaces the body entirely (an empty string clears it). It is read with the
//!   same tolerant parser as hot.md ([`super::parse`]): if it carries its own candidates block,
//!   that block's entries replace the candidates; if it carries a topics block, its
//!   `topic|YYYY-MM` lines replace the topics index; blocks it does not carry are kept.
//! * Promotion: a body block that was not already in the old body (same text) and is known to
//!   the usage ledger ([`super::evict::block_keys`]) is promoted: `weight + 15`. The plan lists
//!   those keys. Eviction is evaluated on the ledger as it was before this call, so the
//!   promotion of a block being written cannot by itself save it from eviction in the same
//!   call; an evicted block is not promoted.
//! * Auto-evict as in [`super::evict`].
//! * Returned figures describe the body actually saved: `chars`, `overLimit`, `hint` and
//!   `charsAfterEvict` are measured after eviction (`charsAfterEvict == chars`); the size
//!   before eviction is in `evictHint`.
//!
//! Wiring, in this order: (1) apply [`SetPlan::promote`] to the ledger (`Ledger::promote`);
//! (2) if [`SetPlan::cold_entries`] is non-empty, append them to today's cold file; (3) on
//! success save [`SetPlan::doc`] and return [`SetPlan::result`]; on failure save the pair
//! from [`SetPlan::cold_write_failed`] instead (body set, nothing evicted).

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::evict::{EvictedBlock, block_keys, cold_entries, failed_hint, plan_evict, split_blocks};
use super::{HotDoc, chars, hint, parse};
use crate::Config;
use crate::files::entry::Entry;
use crate::layers::usage::Ledger;

/// The result of `mem_hot_set`, with the plugin's field names.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HotSetResult {
    /// The body as saved.
    pub content: String,
    /// Its length in code points.
    pub chars: usize,
    /// `hotLimit`.
    pub limit: usize,
    /// `chars > limit`.
    pub over_limit: bool,
    /// Trimming hint, empty when within the limit.
    pub hint: String,
    /// Blocks moved to cold (empty when none).
    pub evicted: Vec<EvictedBlock>,
    /// Body length after eviction (equal to `chars`).
    pub chars_after_evict: usize,
    /// What eviction did, in words; empty when there was nothing to do.
    pub evict_hint: String,
    /// Number of candidates after the set.
    pub candidate_count: usize,
    /// Number of topics after the set.
    pub topic_count: usize,
    /// Repairs made while reading `content` (omitted when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Everything the caller needs to carry out a set (see the module docs for the order).
#[derive(Debug, Clone, PartialEq)]
pub struct SetPlan {
    /// The document to save once `cold_entries` are written.
    pub doc: HotDoc,
    /// Cold entries for the evicted blocks (tag `hot-evict`), to write first.
    pub cold_entries: Vec<Entry>,
    /// Usage keys to promote (+15), already in the ledger.
    pub promote: Vec<String>,
    /// The result to return after a successful save.
    pub result: HotSetResult,
    /// The document with the new body but nothing evicted (used on cold-write failure).
    pub unevicted: HotDoc,
}

impl SetPlan {
    /// The document to save and the result to return when writing `cold_entries` failed:
    /// the new body without eviction, `evicted` empty, `evictHint` saying why.
    pub fn cold_write_failed(&self, limit: usize, error: &str) -> (HotDoc, HotSetResult) {
        let n = chars(&self.unevicted.body);
        let result = HotSetResult {
            content: self.unevicted.body.clone(),
            chars: n,
            over_limit: n > limit,
            hint: hint(n, limit),
            evicted: Vec::new(),
            chars_after_evict: n,
            evict_hint: failed_hint(n, limit, error),
            ..self.result.clone()
        };
        (self.unevicted.clone(), result)
    }
}

/// Plans `mem_hot_set(content)` on the current document `old`. Pure; never fails.
pub fn apply_set(old: &HotDoc, content: &str, cfg: &Config, ledger: &Ledger, now: DateTime<Utc>) -> SetPlan {
    let given = parse(content);
    let mut doc = old.clone();
    doc.body = given.body.clone();
    doc.warnings = given.warnings.clone();
    if given.has_candidates_block {
        doc.candidates = given.candidates.clone();
        doc.candidate_extras = given.candidate_extras.clone();
    }
    if given.has_topics_block {
        doc.topics = given.topics.clone();
        doc.topic_extras = given.topic_extras.clone();
    }
    let old_blocks = split_blocks(&old.body);
    let mut promote: Vec<String> = Vec::new();
    for b in split_blocks(&doc.body).iter().filter(|b| !old_blocks.contains(b)) {
        for k in block_keys(b) {
            if ledger.get(&k).is_some() && !promote.contains(&k) {
                promote.push(k);
            }
        }
    }
    // Eviction sees the ledger as it was: the +15 of this very call must not by itself save
    // a block (a block just promoted would otherwise never be evictable); blocks that are evicted get no promotion.
    let plan = plan_evict(&doc.body, cfg, ledger, now);
    let evicted_keys: Vec<String> = plan.evicted.iter().flat_map(|e| block_keys(&e.content)).collect();
    let kept_keys: Vec<String> = split_blocks(&plan.body).iter().flat_map(|b| block_keys(b)).collect();
    promote.retain(|k| kept_keys.contains(k) || !evicted_keys.contains(k));
    let unevicted = doc.clone();
    doc.body = plan.body.clone();
    let n = chars(&doc.body);
    let result = HotSetResult {
        content: doc.body.clone(),
        chars: n,
        limit: cfg.hot_limit,
        over_limit: n > cfg.hot_limit,
        hint: hint(n, cfg.hot_limit),
        chars_after_evict: plan.chars_after_evict,
        evict_hint: plan.evict_hint,
        candidate_count: doc.candidates.len(),
        topic_count: doc.topics.len(),
        warnings: doc.warnings.clone(),
        evicted: plan.evicted,
    };
    SetPlan { cold_entries: cold_entries(&result.evicted, now), doc, promote, result, unevicted }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::hot::{Topic, format};
    use crate::layers::usage::{Record, key};
    use chrono::Duration;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }
    const NOW: &str = "2026-10-21T00:00:00Z";
    const OLD: &str = "旧正文\n\n<!-- candidates:start -->\n- [2026-10-20T00:00:00.000Z] [计划] 看海\n<!-- candidates:end -->\n\n<!-- topics:start -->\n翻唱|2026-10\n<!-- topics:end -->\n";

    fn cfg() -> Config {
        Config { hot_limit: 100, evict_target: 85, ..Config::default() }
    }

    #[test]
    fn replaces_body_keeps_blocks() {
        let old = parse(OLD);
        let p = apply_set(&old, "新正文", &cfg(), &Ledger::default(), t(NOW));
        assert_eq!(
            format(&p.doc),
            "新正文\n\n<!-- candidates:start -->\n- [2026-10-20T00:00:00.000Z] [计划] 看海\n<!-- candidates:end -->\n\n<!-- topics:start -->\n翻唱|2026-10\n<!-- topics:end -->\n"
        );
        let r = &p.result;
        assert_eq!(
            (r.content.as_str(), r.chars, r.limit, r.over_limit, r.hint.as_str()),
            ("新正文", 3, 100, false, "")
        );
        assert_eq!((r.candidate_count, r.topic_count, r.chars_after_evict, r.evict_hint.as_str()), (1, 1, 3, ""));
        assert!(p.cold_entries.is_empty() && p.promote.is_empty() && r.evicted.is_empty());
    }

    #[test]
    fn empty_content_clears_only_the_body() {
        let p = apply_set(&parse(OLD), "", &cfg(), &Ledger::default(), t(NOW));
        assert_eq!(p.doc.body, "");
        assert_eq!((p.doc.candidates.len(), p.doc.topics.len()), (1, 1));
        assert_eq!(p.result.chars, 0);
    }

    #[test]
    fn content_blocks_replace_candidates_and_topics() {
        let content = "正文\n<!-- candidates:start -->\n<!-- candidates:end -->\n<!-- topics:start -->\n旅行|2026-09\n<!-- topics:end -->";
        let p = apply_set(&parse(OLD), content, &cfg(), &Ledger::default(), t(NOW));
        assert!(p.doc.candidates.is_empty());
        assert_eq!(p.doc.topics, vec![Topic::new("旅行", "2026-09").unwrap()]);
        assert_eq!(p.doc.body, "正文");
        let only_topics = "正文\n<!-- topics:start -->\n<!-- topics:end -->";
        let p = apply_set(&parse(OLD), only_topics, &cfg(), &Ledger::default(), t(NOW));
        assert_eq!((p.doc.candidates.len(), p.doc.topics.len()), (1, 0));
    }

    #[test]
    fn over_limit_evicts_and_reports() {
        let a = "甲".repeat(60);
        let b = "乙".repeat(50);
        let content = format!("{a}\n\n{b}"); // 112 > 100
        let p = apply_set(&parse(OLD), &content, &cfg(), &Ledger::default(), t(NOW));
        // Both weight 50, never hit: the lower one goes (the top of the body goes last);
        // 60 ≤ 85.
        assert_eq!(p.doc.body, a);
        let r = &p.result;
        assert_eq!((r.chars, r.over_limit, r.chars_after_evict), (60, false, 60));
        assert_eq!(r.evicted.len(), 1);
        assert_eq!((r.evicted[0].content.as_str(), r.evicted[0].chars), (b.as_str(), 50));
        assert_eq!(p.cold_entries.len(), 1);
        assert_eq!((p.cold_entries[0].tag.as_str(), p.cold_entries[0].content.as_str()), ("hot-evict", b.as_str()));
        let j = serde_json::to_value(r).unwrap();
        assert_eq!(j["charsAfterEvict"], 60);
        assert_eq!(j["evicted"][0]["reason"], "不在使用账本中（从未被召回）");
        assert!(j["evictHint"].as_str().unwrap().contains("已把 1 块（50 字）"));

        let (doc, r) = p.cold_write_failed(100, "disk full");
        assert_eq!(doc.body, content);
        assert_eq!((r.chars, r.over_limit, r.chars_after_evict, r.evicted.len()), (112, true, 112, 0));
        assert!(r.evict_hint.contains("腾挪失败（写冷层出错：disk full）"), "{}", r.evict_hint);
        assert!(r.hint.starts_with("热层正文 112 字，超过上限 100 字"));
    }

    #[test]
    fn autoevict_off_only_reports() {
        let content = format!("{}\n\n{}", "甲".repeat(60), "乙".repeat(50));
        let c = Config { auto_evict: false, ..cfg() };
        let p = apply_set(&HotDoc::default(), &content, &c, &Ledger::default(), t(NOW));
        assert_eq!((p.result.chars, p.result.over_limit, p.result.evicted.len()), (112, true, 0));
        assert_eq!(p.result.evict_hint, "");
        assert!(p.cold_entries.is_empty());
    }

    #[test]
    fn promotion_does_not_save_a_block_in_the_same_call() {
        let now = t(NOW);
        let song = "翻".repeat(30);
        let filler = "k".repeat(80);
        let old_rec = |weight: f64| Record {
            hits: 1,
            first_hit_at: Some(now - Duration::days(100)),
            last_hit_at: Some(now - Duration::days(100)),
            weight,
            last_decay_at: Some(now),
        };
        let mut l = Ledger::default();
        l.entries.insert(key(&song), old_rec(10.0));
        let content = format!("{song}\n\n{filler}"); // 30 + 2 + 80 = 112 > 100
        // The song is new in the body and known (weight 10): +15 would make it 25 ≥ 20, but
        // eviction sees the ledger before this call, so the song (10 < filler's 50) goes:
        // 80 ≤ 85. It left the body, so it is not promoted either.
        let p = apply_set(&HotDoc::default(), &content, &cfg(), &l, now);
        assert_eq!(p.doc.body, filler);
        assert_eq!(p.result.evicted.iter().map(|e| e.content.as_str()).collect::<Vec<_>>(), [song.as_str()]);
        assert!(p.promote.is_empty());
        // Same with the song already in the old body.
        let p = apply_set(&parse(&song), &content, &cfg(), &l, now);
        assert_eq!((p.doc.body.as_str(), p.promote.is_empty()), (filler.as_str(), true));
        // When something less active goes instead (filler weight 5), the new song stays and
        // is promoted: 30 ≤ 85.
        l.entries.insert(key(&filler), old_rec(5.0));
        let p = apply_set(&HotDoc::default(), &content, &cfg(), &l, now);
        assert_eq!(p.doc.body, song);
        assert_eq!(p.promote, vec![key(&song)]);
    }
}

//! Candidate TTL and overflow, checked on every hot read.
//!
//! Rules per dsh-memory-layers v1.2.1 (docs/plugin-compatibility.md, "Hot layer" and "Usage ledger"):
//!
//! * Expired: a candidate whose write instant is MORE than `candidateTtlDays` × 24 h before
//!   `now` (exactly `candidateTtlDays` old is still kept).
//! * Overflow: if more than `candidateMax` remain, the oldest (by write instant, then by
//!   position) sink until `candidateMax` remain.
//! * Protection: a candidate whose content is in the usage ledger sinks only if the ledger
//!   allows demotion (weight decayed to `now` below `demoteThreshold` and old enough, see
//!   [`super::demotable`]) — docs/plugin-compatibility.md: "只有 weight < demoteThreshold 且够老的条目，才允许被腾挪/
//!   下沉". Protected candidates are skipped by both rules, so `kept` can exceed
//!   `candidateMax`.
//! * Sinking writes a cold entry for today: tag `candidate-expired`, timestamp `now`, content
//!   `[origTag] text`, the original source marker kept ([`sink_entry`]).
//!
//! The caller writes [`PrunePlan::sink`] to today's cold file first and saves
//! [`PrunePlan::doc`] only after that succeeded; on failure it keeps the old hot.md and
//! reports [`Pruned::none`].

use chrono::{DateTime, Duration, Utc};
use serde::Serialize;

use super::{HotDoc, demotable};
use crate::Config;
use crate::files::entry::Entry;
use crate::layers::usage::{Ledger, key};

/// Tag of sunk candidates in cold (docs/plugin-compatibility.md: "tag=candidate-expired").
pub const EXPIRED_TAG: &str = "candidate-expired";

/// Counts returned as `pruned` by `mem_hot_get` (docs/plugin-compatibility.md: "{ expired, overflow, kept }").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Pruned {
    /// Candidates sunk because they were older than `candidateTtlDays`.
    pub expired: usize,
    /// Candidates sunk because there were more than `candidateMax`.
    pub overflow: usize,
    /// Candidates left.
    pub kept: usize,
}

impl Pruned {
    /// Nothing sunk, `kept` candidates left (also the report when the cold write failed).
    pub fn none(kept: usize) -> Pruned {
        Pruned { expired: 0, overflow: 0, kept }
    }
}

/// What a hot read must do to the candidates.
#[derive(Debug, Clone, PartialEq)]
pub struct PrunePlan {
    /// The document with only the kept candidates (file order preserved).
    pub doc: HotDoc,
    /// Cold entries to write first: the expired ones in file order, then the overflow ones
    /// oldest first.
    pub sink: Vec<Entry>,
    /// The counts.
    pub pruned: Pruned,
}

/// The cold entry a sunk candidate becomes: tag `candidate-expired`, timestamp `now`,
/// content `[origTag] text`, source kept.
pub fn sink_entry(c: &Entry, now: DateTime<Utc>) -> Entry {
    Entry { ts: now, tag: EXPIRED_TAG.into(), content: format!("[{}] {}", c.tag, c.content), source: c.source.clone() }
}

/// Applies TTL and overflow to `doc`'s candidates (see the module docs). Pure; never fails.
pub fn prune_candidates(doc: &HotDoc, cfg: &Config, ledger: &Ledger, now: DateTime<Utc>) -> PrunePlan {
    let ttl = Duration::days(cfg.candidate_ttl_days);
    let protected: Vec<bool> = doc
        .candidates
        .iter()
        .map(|c| ledger.get(&key(&c.content)).is_some_and(|r| demotable(&[r], cfg, now).is_err()))
        .collect();
    let mut sink = Vec::new();
    let mut alive: Vec<usize> = Vec::new();
    let mut expired = 0;
    for (i, c) in doc.candidates.iter().enumerate() {
        if !protected[i] && now - c.ts > ttl {
            sink.push(sink_entry(c, now));
            expired += 1;
        } else {
            alive.push(i);
        }
    }
    let mut overflow = 0;
    if alive.len() > cfg.candidate_max {
        let excess = alive.len() - cfg.candidate_max;
        let mut oldest: Vec<usize> = alive.iter().copied().filter(|i| !protected[*i]).collect();
        oldest.sort_by_key(|i| (doc.candidates[*i].ts, *i));
        oldest.truncate(excess);
        for i in &oldest {
            sink.push(sink_entry(&doc.candidates[*i], now));
        }
        overflow = oldest.len();
        alive.retain(|i| !oldest.contains(i));
    }
    let mut out = doc.clone();
    out.candidates = alive.iter().map(|i| doc.candidates[*i].clone()).collect();
    PrunePlan { doc: out, sink, pruned: Pruned { expired, overflow, kept: alive.len() } }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::entry::Source;
    use crate::layers::usage::Record;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }
    const NOW: &str = "2026-10-21T00:00:00Z";

    fn c(ts: &str, content: &str) -> Entry {
        Entry { ts: t(ts), tag: "计划".into(), content: content.into(), source: None }
    }

    fn doc() -> HotDoc {
        HotDoc {
            body: "正文".into(),
            candidates: vec![
                c("2026-09-20T00:00:00Z", "c1"), // 31 days: expired
                c("2026-09-21T00:00:00Z", "c2"), // exactly 30 days: kept by TTL
                c("2026-10-01T00:00:00Z", "c3"),
                c("2026-10-10T00:00:00Z", "c4"),
                c("2026-10-05T00:00:00Z", "c5"),
                c("2026-10-20T00:00:00Z", "c6"),
            ],
            ..HotDoc::default()
        }
    }

    fn cfg() -> Config {
        Config { candidate_ttl_days: 30, candidate_max: 3, ..Config::default() }
    }

    fn contents(d: &HotDoc) -> Vec<&str> {
        d.candidates.iter().map(|c| c.content.as_str()).collect()
    }

    #[test]
    fn ttl_then_overflow_oldest_first() {
        let p = prune_candidates(&doc(), &cfg(), &Ledger::default(), t(NOW));
        assert_eq!(p.pruned, Pruned { expired: 1, overflow: 2, kept: 3 });
        assert_eq!(contents(&p.doc), ["c4", "c5", "c6"]);
        assert_eq!(
            p.sink.iter().map(|e| e.content.as_str()).collect::<Vec<_>>(),
            ["[计划] c1", "[计划] c2", "[计划] c3"]
        );
        assert!(p.sink.iter().all(|e| e.tag == "candidate-expired" && e.ts == t(NOW)));
        assert_eq!(p.doc.body, "正文");
    }

    #[test]
    fn nothing_to_do() {
        let d = HotDoc { candidates: vec![c("2026-10-20T00:00:00Z", "x")], ..HotDoc::default() };
        let p = prune_candidates(&d, &cfg(), &Ledger::default(), t(NOW));
        assert_eq!(p.pruned, Pruned::none(1));
        assert!(p.sink.is_empty());
        assert_eq!(p.doc, d);
    }

    #[test]
    fn ledger_weight_protects() {
        let now = t(NOW);
        let mut l = Ledger::default();
        // c1: expired by age but weight 80 → stays. c2: weight 56 from a recent hit → stays.
        l.entries.insert(key("c1"), Record { weight: 80.0, last_decay_at: Some(now), ..Record::default() });
        l.record_hit(&key("c2"), now - Duration::days(1));
        // c3: weight 10, first hit 100 days ago → may sink.
        l.entries.insert(
            key("c3"),
            Record {
                weight: 10.0,
                first_hit_at: Some(now - Duration::days(100)),
                last_decay_at: Some(now),
                ..Record::default()
            },
        );
        let p = prune_candidates(&doc(), &cfg(), &l, now);
        // Alive after TTL: all 6; excess 3; unprotected oldest: c3 (10-01), c5 (10-05), c4 (10-10).
        assert_eq!(p.pruned, Pruned { expired: 0, overflow: 3, kept: 3 });
        assert_eq!(contents(&p.doc), ["c1", "c2", "c6"]);
    }

    #[test]
    fn sink_keeps_tag_and_source() {
        let mut e = c("2026-01-01T00:00:00Z", "周末想去看海");
        e.tag = "-".into();
        e.source = Some(Source { conv: "private:1".into(), seq: "9".into(), msg_id: None });
        let s = sink_entry(&e, t(NOW));
        assert_eq!(s.content, "[-] 周末想去看海");
        assert_eq!(s.source, e.source);
        assert_eq!(
            crate::files::entry::format_line(&s),
            "- [2026-10-21T00:00:00.000Z] [candidate-expired] [-] 周末想去看海 〔src:private:1#9〕"
        );
    }
}

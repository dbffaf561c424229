//! The figures of `mem_stats`, computed from inputs the caller gathers. Pure: no file I/O,
//! no clock.
//!
//! Per dsh-memory-layers v1.2.1 (docs/plugin-compatibility.md, "Stats"): hot body chars / limit /
//! candidate count / topic count; cold files and entries listed by month with the latest
//! date; file counts and chars of the three summary levels; and, from v1.2, usage:
//! `topRecalled` (the 5 most recalled: `hits` / `lastHitAt`), `weightTop` (5 highest
//! weights) and `weightBottom` (5 lowest, the next to be evicted), each text cut to its
//! first 40 code points.
//!
//! Orderings (the seed names the lists, these are the tie-breaks): `topRecalled` — only
//! entries with at least one hit; more hits first, then later last hit, then key.
//! `weightTop` — higher weight first, then more hits, then key. `weightBottom` — lower weight
//! first, then never-hit / older last hit first, then key. Weights are decayed to `now`
//! (same rule as [`Ledger::decay`]) and shown rounded to 2 decimals.

pub mod ops;

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use crate::Config;
use crate::files::entry::format_ts;
use crate::layers::hot::{HotDoc, chars};
use crate::layers::usage::{Ledger, Record};

/// How many items each usage list holds (docs/plugin-compatibility.md: "5 条").
pub const USAGE_LIST_LEN: usize = 5;
/// How much of an entry's text a usage item shows, code points (docs/plugin-compatibility.md: "正文只取前 40 字").
pub const USAGE_TEXT_CHARS: usize = 40;

/// One month of the cold layer, as gathered by the caller.
#[derive(Debug, Clone, PartialEq)]
pub struct ColdMonthInput {
    /// `YYYY-MM`.
    pub month: String,
    /// Day files in the month folder.
    pub files: usize,
    /// Entry lines in them.
    pub entries: usize,
    /// The latest local date with a file, if any.
    pub latest: Option<NaiveDate>,
}

/// File count and total chars (code points) of one summary level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct LevelCount {
    /// Number of summary files.
    pub files: usize,
    /// Their total length in code points.
    pub chars: usize,
}

/// Hot layer figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HotStats {
    /// Body length, code points.
    pub chars: usize,
    /// `hotLimit`.
    pub limit: usize,
    /// `chars > limit`.
    pub over_limit: bool,
    /// Number of candidates.
    pub candidate_count: usize,
    /// Number of topics lines.
    pub topic_count: usize,
}

/// One month of cold figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ColdMonth {
    /// `YYYY-MM`.
    pub month: String,
    /// Day files.
    pub files: usize,
    /// Entries.
    pub entries: usize,
    /// Latest date `YYYY-MM-DD`, `null` when the month has no file.
    pub latest: Option<String>,
}

/// Cold layer figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ColdStats {
    /// Day files in all months.
    pub files: usize,
    /// Entries in all months.
    pub entries: usize,
    /// Latest date overall, `null` when there is none.
    pub latest: Option<String>,
    /// Per month, oldest first.
    pub months: Vec<ColdMonth>,
}

/// Summary figures per level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct SummaryStats {
    /// `summaries/day/`.
    pub day: LevelCount,
    /// `summaries/week/`.
    pub week: LevelCount,
    /// `summaries/month/`.
    pub month: LevelCount,
}

/// Ledger totals.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageStats {
    /// Records in usage.json.
    pub entries: usize,
    /// Sum of their hits.
    pub hits: u64,
}

/// One item of `topRecalled` / `weightTop` / `weightBottom`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageItem {
    /// The ledger key (SHA-1 of the content).
    pub key: String,
    /// The first 40 code points of the entry text; empty when the text is not known any more.
    pub text: String,
    /// Hits so far.
    pub hits: u64,
    /// Weight decayed to now, rounded to 2 decimals.
    pub weight: f64,
    /// Last hit instant, `null` when never hit.
    pub last_hit_at: Option<String>,
}

/// Everything `mem_stats` returns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    /// Hot layer.
    pub hot: HotStats,
    /// Cold layer.
    pub cold: ColdStats,
    /// Summaries.
    pub summaries: SummaryStats,
    /// Usage ledger totals.
    pub usage: UsageStats,
    /// The 5 most recalled entries.
    pub top_recalled: Vec<UsageItem>,
    /// The 5 highest weights.
    pub weight_top: Vec<UsageItem>,
    /// The 5 lowest weights.
    pub weight_bottom: Vec<UsageItem>,
}

/// Computes the stats. `texts` maps ledger keys to entry contents (the caller knows them from
/// the cold layer / index); `now` and `cfg.half_life_days` decay the weights for display.
pub fn compute(
    hot: &HotDoc,
    cold: &[ColdMonthInput],
    summaries: SummaryStats,
    ledger: &Ledger,
    texts: &HashMap<String, String>,
    cfg: &Config,
    now: DateTime<Utc>,
) -> Stats {
    let n = chars(&hot.body);
    let hot = HotStats {
        chars: n,
        limit: cfg.hot_limit,
        over_limit: n > cfg.hot_limit,
        candidate_count: hot.candidates.len(),
        topic_count: hot.topics.len(),
    };
    let mut months: Vec<&ColdMonthInput> = cold.iter().collect();
    months.sort_by(|a, b| a.month.cmp(&b.month));
    let day = |d: &NaiveDate| d.format("%Y-%m-%d").to_string();
    let cold = ColdStats {
        files: months.iter().map(|m| m.files).sum(),
        entries: months.iter().map(|m| m.entries).sum(),
        latest: months.iter().filter_map(|m| m.latest).max().as_ref().map(day),
        months: months
            .iter()
            .map(|m| ColdMonth {
                month: m.month.clone(),
                files: m.files,
                entries: m.entries,
                latest: m.latest.as_ref().map(day),
            })
            .collect(),
    };
    let recs: Vec<(&String, &Record, f64)> =
        ledger.entries.iter().map(|(k, r)| (k, r, r.weight_at(now, cfg.half_life_days))).collect();
    let item = |(k, r, w): &(&String, &Record, f64)| UsageItem {
        key: (*k).clone(),
        text: texts.get(*k).map(|t| t.chars().take(USAGE_TEXT_CHARS).collect()).unwrap_or_default(),
        hits: r.hits,
        weight: (w * 100.0).round() / 100.0,
        last_hit_at: r.last_hit_at.map(format_ts),
    };
    let mut top: Vec<_> = recs.iter().filter(|(_, r, _)| r.hits > 0).collect();
    top.sort_by(|a, b| b.1.hits.cmp(&a.1.hits).then(b.1.last_hit_at.cmp(&a.1.last_hit_at)).then(a.0.cmp(b.0)));
    let mut high: Vec<_> = recs.iter().collect();
    high.sort_by(|a, b| b.2.total_cmp(&a.2).then(b.1.hits.cmp(&a.1.hits)).then(a.0.cmp(b.0)));
    let mut low: Vec<_> = recs.iter().collect();
    low.sort_by(|a, b| a.2.total_cmp(&b.2).then(a.1.last_hit_at.cmp(&b.1.last_hit_at)).then(a.0.cmp(b.0)));
    let list = |v: Vec<&(&String, &Record, f64)>| v.into_iter().take(USAGE_LIST_LEN).map(item).collect();
    Stats {
        hot,
        cold,
        summaries,
        usage: UsageStats { entries: ledger.entries.len(), hits: ledger.entries.values().map(|r| r.hits).sum() },
        top_recalled: list(top),
        weight_top: list(high),
        weight_bottom: list(low),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::hot::parse;
    use chrono::Duration;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }
    const NOW: &str = "2026-10-21T12:00:00Z";

    fn ledger() -> Ledger {
        let now = t(NOW);
        let r = |hits: u64, weight: f64, last: Option<&str>| Record {
            hits,
            first_hit_at: last.map(t),
            last_hit_at: last.map(t),
            weight,
            last_decay_at: Some(now),
        };
        let mut l = Ledger::default();
        l.entries.insert("k1".into(), r(10, 90.0, Some("2026-10-20T00:00:00Z")));
        l.entries.insert("k2".into(), r(3, 40.0, Some("2026-10-19T00:00:00Z")));
        l.entries.insert("k3".into(), r(3, 70.0, Some("2026-10-21T00:00:00Z")));
        l.entries.insert("k4".into(), r(0, 50.0, None));
        l.entries.insert("k5".into(), r(1, 10.0, Some("2026-06-01T00:00:00Z")));
        let mut k6 = r(1, 80.0, Some("2026-09-21T00:00:00Z"));
        k6.last_decay_at = Some(now - Duration::days(30)); // 80 → 40 at half-life 30
        l.entries.insert("k6".into(), k6);
        l.entries.insert("k7".into(), r(5, 15.0, Some("2026-10-01T00:00:00Z")));
        l
    }

    fn keys(v: &[UsageItem]) -> Vec<&str> {
        v.iter().map(|i| i.key.as_str()).collect()
    }

    #[test]
    fn usage_lists() {
        let texts: HashMap<String, String> =
            [("k1".to_string(), "一".repeat(50)), ("k5".to_string(), "短".to_string())].into_iter().collect();
        let s =
            compute(&HotDoc::default(), &[], SummaryStats::default(), &ledger(), &texts, &Config::default(), t(NOW));
        assert_eq!(keys(&s.top_recalled), ["k1", "k7", "k3", "k2", "k6"]);
        assert_eq!(keys(&s.weight_top), ["k1", "k3", "k4", "k2", "k6"]);
        assert_eq!(keys(&s.weight_bottom), ["k5", "k7", "k6", "k2", "k4"]);
        assert_eq!(s.top_recalled[0].text, "一".repeat(40));
        assert_eq!(s.top_recalled[4].weight, 40.0);
        assert_eq!(s.weight_bottom[0].text, "短");
        assert_eq!(s.weight_top[3].text, "");
        assert_eq!(s.usage, UsageStats { entries: 7, hits: 23 });
        let j = serde_json::to_value(&s).unwrap();
        assert_eq!(j["topRecalled"][0]["hits"], 10);
        assert_eq!(j["topRecalled"][0]["lastHitAt"], "2026-10-20T00:00:00.000Z");
        assert_eq!(j["weightTop"][2]["lastHitAt"], serde_json::Value::Null);
        assert_eq!(j["weightBottom"][0]["weight"], 10.0);
    }

    #[test]
    fn layer_figures() {
        let hot = parse(
            "正文\n\n<!-- candidates:start -->\n- [2026-10-21T03:10:00.000Z] [计划] 看海\n<!-- candidates:end -->\n\n<!-- topics:start -->\n翻唱|2026-10\n旅行|2026-09\n<!-- topics:end -->\n",
        );
        let cold = [
            ColdMonthInput {
                month: "2026-10".into(),
                files: 2,
                entries: 5,
                latest: NaiveDate::from_ymd_opt(2026, 10, 21),
            },
            ColdMonthInput {
                month: "2026-09".into(),
                files: 3,
                entries: 10,
                latest: NaiveDate::from_ymd_opt(2026, 9, 30),
            },
        ];
        let sums = SummaryStats {
            day: LevelCount { files: 4, chars: 900 },
            week: LevelCount { files: 1, chars: 300 },
            month: LevelCount::default(),
        };
        let s = compute(&hot, &cold, sums, &Ledger::default(), &HashMap::new(), &Config::default(), t(NOW));
        assert_eq!(s.hot, HotStats { chars: 2, limit: 600, over_limit: false, candidate_count: 1, topic_count: 2 });
        assert_eq!((s.cold.files, s.cold.entries, s.cold.latest.as_deref()), (5, 15, Some("2026-10-21")));
        assert_eq!(s.cold.months.iter().map(|m| m.month.as_str()).collect::<Vec<_>>(), ["2026-09", "2026-10"]);
        assert_eq!(s.cold.months[0].latest.as_deref(), Some("2026-09-30"));
        assert!(s.top_recalled.is_empty() && s.weight_top.is_empty() && s.weight_bottom.is_empty());
        let j = serde_json::to_value(&s).unwrap();
        assert_eq!(j["hot"]["candidateCount"], 1);
        assert_eq!(j["hot"]["overLimit"], false);
        assert_eq!(j["summaries"]["day"], serde_json::json!({"files": 4, "chars": 900}));
    }
}

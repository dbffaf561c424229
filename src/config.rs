//! Configuration: the plugin's keys with its defaults and ranges, plus memlayers' own.
//!
//! Keys and defaults per dsh-memory-layers v1.2.1 (docs/plugin-compatibility.md, "Data root and configuration"). A value of the wrong
//! type or out of range falls back to the default and adds a warning naming the key; loading
//! never fails because of a bad value (only an unreadable or non-JSON file is an error).

use chrono_tz::Tz;
use serde_json::Value;

use crate::{Error, Result};

/// All settings. Field docs give the JSON key, default and accepted range.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// `hotLimit`: hot body limit in Unicode code points; 100–20000, default 600.
    pub hot_limit: usize,
    /// `autoEvict`: move inactive hot blocks to cold when over the limit; default true.
    pub auto_evict: bool,
    /// `evictTarget`: code points to evict down to; 1–hotLimit, default floor(hotLimit*0.85).
    pub evict_target: usize,
    /// `candidateTtlDays`: candidates older than this sink to cold; 1–3650, default 30.
    pub candidate_ttl_days: i64,
    /// `candidateMax`: at most this many candidates, oldest sink first; 1–1000, default 12.
    pub candidate_max: usize,
    /// `usageThrottleMs`: minimum interval between usage.json writes; 0–600000, default 5000.
    pub usage_throttle_ms: u64,
    /// `halfLifeDays`: usage weight half-life in days; 1–3650, default 30.
    pub half_life_days: f64,
    /// `demoteThreshold`: weight below which an entry may be evicted; 0–100, default 20.
    pub demote_threshold: f64,
    /// `autoLogOnSessionEnd`: write a session record at session end; default false.
    pub auto_log_on_session_end: bool,
    /// `autoLogMinTurns`: minimum turns for the session record; 1–1000, default 4.
    pub auto_log_min_turns: usize,
    /// `dataRoot`: data root parent (`<dataRoot>/memory`); default empty (follow DSH_HOME).
    pub data_root: Option<String>,
    /// `timezone` (memlayers): IANA zone that partitions cold files by local date and frames
    /// time expressions; default the system's local zone, else UTC.
    pub timezone: Tz,
    /// `recencyTauDays` (memlayers): τ of the optional recency term `exp(-Δt/τ)` in
    /// `retrieve`, in days; 0.1–36500, default off (`None`): docs/time-expressions.md, "How
    /// `retrieve` uses the window", rule 6.
    pub recency_tau_days: Option<f64>,
    /// `lockTimeoutMs` (memlayers): how long a writer waits for the writer lock before
    /// failing with [`Error::LockTimeout`]; 0–600000, default 10000.
    pub lock_timeout_ms: u64,
    /// `rankUsageWeight`, `rankRecentWeight`, `rankRecencyWeight` (memlayers): the weights of
    /// the bounded terms of the recall/retrieve score; each 0–10, defaults 0.1 / 0.1 / 0.1.
    pub rank: RankWeights,
    /// `ranker` (memlayers): where the BM25 of `recall` and `retrieve` comes from,
    /// `"memlayers"` (default) or `"sqlite"` ([`Ranker`]; docs/ranking.md, "The `sqlite`
    /// ranker").
    pub ranker: Ranker,
}

/// Where BM25 comes from (config `ranker`). Both score the same candidates (the newest 500
/// matches at most) with the same score around BM25; docs/ranking.md, "The `sqlite` ranker",
/// says exactly how their BM25 differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ranker {
    /// `"memlayers"`: BM25 computed by memlayers from FTS5's own records and counts
    /// (`fts5::bm25`): fast, and it sees each entry's length.
    #[default]
    Memlayers,
    /// `"sqlite"`: SQLite's stock `bm25(entries_fts, 1.0, 2.0)`, the way back should FTS5's
    /// internal records change: reads none of them and calls no memlayers auxiliary function;
    /// slower (FTS5 counts every match of each phrase on every query).
    Sqlite,
}

/// Weights of the bounded terms of the recall/retrieve score (`query::search` module docs):
/// `text + W_usage·weight/100 + W_recent·recent + W_recency·exp(-Δt/τ)`; the text term (BM25
/// min-max normalised, 0–1) has weight 1. Defaults measured on the labelled question set
/// (docs/ranking.md, "Measured on a labelled question set").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankWeights {
    /// `W_usage`, multiplies `weight / 100` (config `rankUsageWeight`, 0–10, default 0.1).
    pub usage: f64,
    /// `W_recent`, multiplies the plugin's recency bonus 0 / ⅓ / 1 (config `rankRecentWeight`,
    /// 0–10, default 0.1).
    pub recent: f64,
    /// `W_recency`, multiplies `exp(-Δt/τ)` when `recencyTauDays` is set (config
    /// `rankRecencyWeight`, 0–10, default 0.1).
    pub recency: f64,
}

impl Default for RankWeights {
    fn default() -> Self {
        RankWeights { usage: 0.1, recent: 0.1, recency: 0.1 }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            hot_limit: 600,
            auto_evict: true,
            evict_target: 510,
            candidate_ttl_days: 30,
            candidate_max: 12,
            usage_throttle_ms: 5000,
            half_life_days: 30.0,
            demote_threshold: 20.0,
            auto_log_on_session_end: false,
            auto_log_min_turns: 4,
            data_root: None,
            timezone: system_timezone(),
            recency_tau_days: None,
            lock_timeout_ms: 10_000,
            rank: RankWeights::default(),
            ranker: Ranker::default(),
        }
    }
}

/// The system's local IANA zone: `$TZ` when it names one (a leading `:` is allowed), else the
/// zone the `iana-time-zone` crate reads from the system, else UTC. Worked out once per process;
/// a `$TZ` that is set but names no IANA zone, and a system zone that cannot be determined, are
/// reported once with `log::warn!` (the data root would otherwise be dated in a zone the user
/// did not choose without a word).
pub fn system_timezone() -> Tz {
    static ZONE: std::sync::OnceLock<Tz> = std::sync::OnceLock::new();
    *ZONE.get_or_init(|| {
        if let Ok(z) = std::env::var("TZ") {
            match z.trim_start_matches(':').parse() {
                Ok(tz) => return tz,
                Err(_) => log::warn!("TZ={z:?} is not an IANA time zone name; using the system's zone"),
            }
        }
        match iana_time_zone::get_timezone().map(|z| (z.parse::<Tz>(), z)) {
            Ok((Ok(tz), _)) => tz,
            Ok((Err(_), name)) => {
                log::warn!(
                    "the system time zone {name:?} is not a known IANA name; using UTC (set --tz or config timezone)"
                );
                Tz::UTC
            }
            Err(e) => {
                log::warn!("the system time zone cannot be determined ({e}); using UTC (set --tz or config timezone)");
                Tz::UTC
            }
        }
    })
}

/// Parses an IANA zone name; the error names `field`.
#[cfg_attr(not(feature = "cli"), allow(dead_code))] // used by the CLI
pub fn parse_tz(field: &str, name: &str) -> Result<Tz> {
    name.parse::<Tz>().map_err(|_| Error::bad(field, format!("unknown IANA time zone {name:?}")))
}

impl Config {
    /// Builds a config from a JSON object with the plugin's keys. Returns the config and the
    /// warnings for values that fell back to their defaults. Unknown keys are warned about too.
    /// Errors only when `json` is not a JSON object.
    pub fn from_json(json: &str) -> Result<(Config, Vec<String>)> {
        let v: Value = serde_json::from_str(json).map_err(|e| Error::Json { what: "config".into(), source: e })?;
        let Value::Object(map) = v else {
            return Err(Error::bad("config", "must be a JSON object"));
        };
        let mut c = Config::default();
        let mut w = Vec::new();
        for (k, v) in &map {
            match k.as_str() {
                "hotLimit" => set_int(&mut c.hot_limit, k, v, 100, 20000, &mut w),
                "autoEvict" => set_bool(&mut c.auto_evict, k, v, &mut w),
                "evictTarget" | "lockTimeoutMs" | "usageThrottleMs" => {}
                "candidateTtlDays" => set_int(&mut c.candidate_ttl_days, k, v, 1, 3650, &mut w),
                "candidateMax" => set_int(&mut c.candidate_max, k, v, 1, 1000, &mut w),
                // Integers, as the plugin's config says ("配置非法（非整数、越界）时回退到默认值"):
                // 1.5 or 20.5 fall back with a warning; 30.0 is the integer 30.
                "halfLifeDays" => set_whole(&mut c.half_life_days, k, v, 1, 3650, &mut w),
                "demoteThreshold" => set_whole(&mut c.demote_threshold, k, v, 0, 100, &mut w),
                "autoLogOnSessionEnd" => set_bool(&mut c.auto_log_on_session_end, k, v, &mut w),
                "autoLogMinTurns" => set_int(&mut c.auto_log_min_turns, k, v, 1, 1000, &mut w),
                "dataRoot" => match v {
                    Value::String(s) if s.contains('\0') => w.push("dataRoot: contains NUL; using the default".into()),
                    Value::String(s) => c.data_root = (!s.trim().is_empty()).then(|| s.clone()),
                    Value::Null => {}
                    _ => w.push(format!("dataRoot: expected a string, got {v}; using the default")),
                },
                "rankUsageWeight" => set_num(&mut c.rank.usage, k, v, 0.0, 10.0, &mut w),
                "rankRecentWeight" => set_num(&mut c.rank.recent, k, v, 0.0, 10.0, &mut w),
                "rankRecencyWeight" => set_num(&mut c.rank.recency, k, v, 0.0, 10.0, &mut w),
                "ranker" => match v.as_str() {
                    Some("memlayers") => c.ranker = Ranker::Memlayers,
                    Some("sqlite") => c.ranker = Ranker::Sqlite,
                    _ => w.push(format!("ranker: {v} is not \"memlayers\" or \"sqlite\"; using \"memlayers\"")),
                },
                "timezone" => match v.as_str().map(str::parse::<Tz>) {
                    Some(Ok(tz)) => c.timezone = tz,
                    _ => w.push(format!("timezone: {v} is not an IANA zone name; using {}", c.timezone)),
                },
                "recencyTauDays" => match v {
                    Value::Null => {}
                    _ => match v.as_f64().filter(|x| (0.1..=36500.0).contains(x)) {
                        Some(x) => c.recency_tau_days = Some(x),
                        None => {
                            w.push(format!("recencyTauDays: {v} is not a number in 0.1–36500; recency term stays off"))
                        }
                    },
                },
                _ => w.push(format!("{k}: unknown config key, ignored")),
            }
        }
        // Keys whose range depends on another key come last.
        c.evict_target = c.hot_limit * 85 / 100;
        if let Some(v) = map.get("evictTarget") {
            set_int(&mut c.evict_target, "evictTarget", v, 1, c.hot_limit as i64, &mut w);
        }
        if let Some(v) = map.get("usageThrottleMs") {
            set_int(&mut c.usage_throttle_ms, "usageThrottleMs", v, 0, 600_000, &mut w);
        }
        if let Some(v) = map.get("lockTimeoutMs") {
            set_int(&mut c.lock_timeout_ms, "lockTimeoutMs", v, 0, 600_000, &mut w);
        }
        Ok((c, w))
    }
}

fn set_int<T: TryFrom<i64> + std::fmt::Display + Copy>(
    slot: &mut T,
    key: &str,
    v: &Value,
    lo: i64,
    hi: i64,
    w: &mut Vec<String>,
) {
    match v.as_i64().filter(|x| (lo..=hi).contains(x)).and_then(|x| T::try_from(x).ok()) {
        Some(x) => *slot = x,
        None => w.push(format!("{key}: {v} is not an integer in {lo}–{hi}; using the default {slot}")),
    }
}

fn set_num(slot: &mut f64, key: &str, v: &Value, lo: f64, hi: f64, w: &mut Vec<String>) {
    match v.as_f64().filter(|x| (lo..=hi).contains(x)) {
        Some(x) => *slot = x,
        None => w.push(format!("{key}: {v} is not a number in {lo}–{hi}; using the default {slot}")),
    }
}

/// An integer-valued key stored as f64 (it enters decay arithmetic): whole numbers in
/// `lo..=hi` only.
fn set_whole(slot: &mut f64, key: &str, v: &Value, lo: i64, hi: i64, w: &mut Vec<String>) {
    match v.as_f64().filter(|x| x.fract() == 0.0 && (lo as f64..=hi as f64).contains(x)) {
        Some(x) => *slot = x,
        None => w.push(format!("{key}: {v} is not an integer in {lo}–{hi}; using the default {slot}")),
    }
}

fn set_bool(slot: &mut bool, key: &str, v: &Value, w: &mut Vec<String>) {
    match v.as_bool() {
        Some(b) => *slot = b,
        None => w.push(format!("{key}: {v} is not true/false; using the default {slot}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_the_plugin() {
        let (c, w) = Config::from_json("{}").unwrap();
        assert!(w.is_empty());
        assert_eq!((c.hot_limit, c.evict_target, c.candidate_ttl_days, c.candidate_max), (600, 510, 30, 12));
        assert_eq!((c.usage_throttle_ms, c.half_life_days, c.demote_threshold), (5000, 30.0, 20.0));
        assert_eq!((c.auto_evict, c.auto_log_on_session_end, c.auto_log_min_turns), (true, false, 4));
    }

    #[test]
    fn bad_values_fall_back_with_a_warning() {
        let (c, w) = Config::from_json(
            r#"{"hotLimit": 50, "candidateMax": "x", "timezone": "Mars/Base", "halfLifeDays": 7, "hotLimitt": 1}"#,
        )
        .unwrap();
        assert_eq!(c.hot_limit, 600);
        assert_eq!(c.candidate_max, 12);
        assert_eq!(c.half_life_days, 7.0);
        assert_eq!(w.len(), 4, "{w:?}");
        assert!(w[0].starts_with("candidateMax") || w.iter().any(|x| x.starts_with("hotLimit:")));
    }

    #[test]
    fn non_integer_half_life_and_threshold_fall_back() {
        let (c, mut w) = Config::from_json(r#"{"halfLifeDays": 1.5, "demoteThreshold": 20.5}"#).unwrap();
        assert_eq!((c.half_life_days, c.demote_threshold), (30.0, 20.0));
        w.sort();
        assert_eq!(
            w,
            vec![
                "demoteThreshold: 20.5 is not an integer in 0–100; using the default 20".to_string(),
                "halfLifeDays: 1.5 is not an integer in 1–3650; using the default 30".to_string(),
            ]
        );
        let (c, w) = Config::from_json(r#"{"halfLifeDays": 45.0, "demoteThreshold": 0}"#).unwrap();
        assert_eq!((c.half_life_days, c.demote_threshold, w.len()), (45.0, 0.0, 0));
    }

    #[test]
    fn evict_target_follows_hot_limit() {
        let (c, _) = Config::from_json(r#"{"hotLimit": 1000}"#).unwrap();
        assert_eq!(c.evict_target, 850);
        let (c, w) = Config::from_json(r#"{"hotLimit": 1000, "evictTarget": 2000}"#).unwrap();
        assert_eq!((c.evict_target, w.len()), (850, 1));
    }
}

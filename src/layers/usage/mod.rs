//! The usage ledger (`usage.json`): recall hits, weights and half-life decay. Pure: no file
//! I/O and no clock; callers pass the file text in, get bytes out, and pass `now`.
//!
//! Format and rules per dsh-memory-layers v1.2.1 (docs/plugin-compatibility.md, "Usage ledger"):
//!
//! ```json
//! {
//!   "version": 1,
//!   "entries": {
//!     "<sha1(content)>": {
//!       "hits": 3,
//!       "firstHitAt": "2026-10-01T03:10:00.000Z",
//!       "lastHitAt": "2026-10-21T03:10:00.000Z",
//!       "weight": 68,
//!       "lastDecayAt": "2026-10-21T03:10:00.000Z"
//!     }
//!   }
//! }
//! ```
//!
//! * Key: lowercase hex SHA-1 of the entry content (the text without its source marker), see
//!   [`key`].
//! * A hit (recall / recent / by-tag / by-date / retrieve returned the entry): `hits + 1`,
//!   `weight + 6` capped at 100, `lastHitAt = now`, `firstHitAt` set on the first hit
//!   ([`Ledger::record_hit`]). An entry never seen has weight 50 ([`DEFAULT_WEIGHT`]).
//! * Promotion into the hot body: `weight + 15` (cap 100), only for entries already in the
//!   ledger ([`Ledger::promote`]).
//! * Decay on read: `weight *= 0.5^(d / halfLifeDays)` where `d` is the number of WHOLE days
//!   since `lastDecayAt`; nothing happens before one whole day has passed, and `lastDecayAt`
//!   then moves forward by exactly `d` days so the fraction of a day is not lost
//!   ([`Ledger::decay`]). Weights never go below 0.
//!
//! Serialisation ([`Ledger::to_json`]) is deterministic: two-space pretty JSON, `version`
//! then `entries`, entries sorted by key, the record fields in the plugin's documented order
//! (`hits`, `firstHitAt`, `lastHitAt`, `weight`, `lastDecayAt`), whole-number weights written
//! without a fraction (`68`, as JavaScript writes them), instants as
//! `YYYY-MM-DDTHH:MM:SS.mmmZ`, and a final newline.

pub mod ops;
pub mod table;

/// The usage ledger's canonical file, in the data root.
pub const USAGE_FILE: &str = "usage.json";

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Serialize, Serializer};
use serde_json::Value;
use sha1::{Digest, Sha1};

use crate::files::entry::format_ts;

/// Weight of an entry that is not in the ledger (docs/plugin-compatibility.md: "删掉会按‘权重 50、从未命中’重建").
pub const DEFAULT_WEIGHT: f64 = 50.0;
/// Weight added per hit (docs/plugin-compatibility.md: "weight += 6").
pub const HIT_BONUS: f64 = 6.0;
/// Weight added when promoted into the hot body (docs/plugin-compatibility.md: "weight += 15").
pub const PROMOTE_BONUS: f64 = 15.0;
/// Upper bound of a weight (docs/plugin-compatibility.md: "上限 100").
pub const MAX_WEIGHT: f64 = 100.0;
/// The only ledger version this module reads and writes.
pub const VERSION: u64 = 1;

const DAY_SECS: i64 = 86_400;

/// The ledger key of an entry: lowercase hex SHA-1 of its content (UTF-8 bytes, without the
/// source marker). `key("abc")` is `a9993e364706816aba3e25717850c26c9cd0d89d`.
pub fn key(content: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha1::digest(content.as_bytes());
    let mut s = String::with_capacity(40);
    for b in digest.iter() {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 0xf)] as char);
    }
    s
}

/// The message of the top-level visitor for a top level that is not an object.
const NOT_OBJECT: &str = "usage ledger: top level is not an object";
/// The message of a stream stopped because the record callback failed.
const STOPPED: &str = "usage ledger: stopped by the record callback";

/// The record callback of [`parse_stream`] and the first error it returned.
struct Sink<'a> {
    each: &'a mut dyn FnMut(String, Record) -> crate::Result<()>,
    failed: Option<crate::Error>,
}

/// The top level of usage.json, read in one streaming pass: `version` (any JSON value,
/// checked by the caller), `entries` (records handed to the sink one by one; false when
/// missing or not an object), other keys ignored.
struct TopSeed<'s, 'a>(&'s mut Sink<'a>);

/// What [`TopSeed`] found besides the records.
struct Top {
    version: Option<Value>,
    entries: bool,
}

impl<'de> DeserializeSeed<'de> for TopSeed<'_, '_> {
    type Value = Top;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<Top, D::Error> {
        struct V<'s, 'a>(&'s mut Sink<'a>);
        impl<'de> Visitor<'de> for V<'_, '_> {
            type Value = Top;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(NOT_OBJECT)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> std::result::Result<Top, A::Error> {
                let mut top = Top { version: None, entries: false };
                while let Some(k) = m.next_key::<String>()? {
                    match k.as_str() {
                        "version" => top.version = Some(m.next_value()?),
                        "entries" => top.entries = m.next_value_seed(EntriesSeed(&mut *self.0))?,
                        _ => {
                            m.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(top)
            }
        }
        d.deserialize_any(V(self.0))
    }
}

/// The `entries` object, record by record into the sink (false when it is not an object).
struct EntriesSeed<'s, 'a>(&'s mut Sink<'a>);

impl<'de> DeserializeSeed<'de> for EntriesSeed<'_, '_> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<bool, D::Error> {
        struct V<'s, 'a>(&'s mut Sink<'a>);
        impl<'de> Visitor<'de> for V<'_, '_> {
            type Value = bool;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> std::result::Result<bool, A::Error> {
                while let Some(k) = m.next_key::<String>()? {
                    let v: Value = m.next_value()?;
                    if let Some(r) = record_of(&v)
                        && let Err(e) = (self.0.each)(k, r)
                    {
                        self.0.failed = Some(e);
                        return Err(serde::de::Error::custom(STOPPED));
                    }
                }
                Ok(true)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> std::result::Result<bool, A::Error> {
                while s.next_element::<IgnoredAny>()?.is_some() {}
                Ok(false)
            }
            fn visit_bool<E>(self, _: bool) -> std::result::Result<bool, E> {
                Ok(false)
            }
            fn visit_i64<E>(self, _: i64) -> std::result::Result<bool, E> {
                Ok(false)
            }
            fn visit_u64<E>(self, _: u64) -> std::result::Result<bool, E> {
                Ok(false)
            }
            fn visit_f64<E>(self, _: f64) -> std::result::Result<bool, E> {
                Ok(false)
            }
            fn visit_str<E>(self, _: &str) -> std::result::Result<bool, E> {
                Ok(false)
            }
            fn visit_unit<E>(self) -> std::result::Result<bool, E> {
                Ok(false)
            }
        }
        d.deserialize_any(V(self.0))
    }
}

/// Reads a ledger from `reader` (the file's bytes, a leading UTF-8 BOM allowed) in one
/// streaming pass, handing each record to `each(key, record)` in file order as soon as it is
/// read: the whole file never exists in memory as text or as a JSON tree (a
/// 100 MB ledger took 674 MB when parsed whole). Tolerant per field as [`Ledger::parse`];
/// a key present twice is handed over twice. Returns how the file was read; on `Corrupt`
/// some records may already have been handed over (the caller discards them). Errors: only
/// the first error `each` returned (the stream stops there).
pub fn parse_stream<R: std::io::Read>(
    reader: R,
    each: &mut dyn FnMut(String, Record) -> crate::Result<()>,
) -> crate::Result<LoadStatus> {
    let mut reader = std::io::BufReader::with_capacity(64 * 1024, reader);
    {
        use std::io::BufRead;
        let head = reader.fill_buf().map_err(|e| crate::Error::io(std::path::Path::new("usage.json"), e))?;
        if head.starts_with("\u{feff}".as_bytes()) {
            reader.consume(3);
        }
    }
    let mut sink = Sink { each, failed: None };
    let mut de = serde_json::Deserializer::from_reader(&mut reader);
    let top = TopSeed(&mut sink).deserialize(&mut de).and_then(|t| de.end().map(|()| t));
    if let Some(e) = sink.failed {
        return Err(e);
    }
    let top = match top {
        Ok(t) => t,
        Err(e) if e.is_data() && e.to_string().contains(NOT_OBJECT) => {
            return Ok(LoadStatus::Corrupt("top level is not an object".into()));
        }
        Err(e) if e.is_io() => {
            return Err(crate::Error::io(std::path::Path::new("usage.json"), std::io::Error::other(e.to_string())));
        }
        Err(e) => return Ok(LoadStatus::Corrupt(format!("not JSON: {e}"))),
    };
    if top.version.as_ref().and_then(Value::as_u64) != Some(VERSION) {
        let other = top.version.as_ref().and_then(Value::as_u64);
        return Ok(LoadStatus::Corrupt(format!("version is {other:?}, expected 1")));
    }
    if !top.entries {
        return Ok(LoadStatus::Corrupt("entries is missing or not an object".into()));
    }
    Ok(LoadStatus::Ok)
}

/// One record of the file, tolerant per field (see [`Ledger::parse`]); `None` when the value
/// is not an object.
fn record_of(v: &Value) -> Option<Record> {
    let Value::Object(r) = v else { return None };
    let ts = |name: &str| {
        r.get(name)
            .and_then(Value::as_str)
            .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
            .map(|t| t.with_timezone(&Utc))
    };
    let hits = r.get("hits").and_then(Value::as_f64).filter(|h| h.is_finite() && *h >= 0.0).unwrap_or(0.0);
    let weight = r.get("weight").and_then(Value::as_f64).filter(|w| w.is_finite()).unwrap_or(DEFAULT_WEIGHT);
    Some(Record {
        hits: hits.floor() as u64,
        first_hit_at: ts("firstHitAt"),
        last_hit_at: ts("lastHitAt"),
        weight: weight.clamp(0.0, MAX_WEIGHT),
        last_decay_at: ts("lastDecayAt"),
    })
}

/// One ledger record. Instants are UTC; `None` means the field was absent in the file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    /// Number of hits so far.
    pub hits: u64,
    /// Instant of the first hit.
    #[serde(rename = "firstHitAt", serialize_with = "ser_ts", skip_serializing_if = "Option::is_none")]
    pub first_hit_at: Option<DateTime<Utc>>,
    /// Instant of the latest hit.
    #[serde(rename = "lastHitAt", serialize_with = "ser_ts", skip_serializing_if = "Option::is_none")]
    pub last_hit_at: Option<DateTime<Utc>>,
    /// Current weight, 0–100.
    #[serde(serialize_with = "ser_weight")]
    pub weight: f64,
    /// Instant up to which decay has been applied.
    #[serde(rename = "lastDecayAt", serialize_with = "ser_ts", skip_serializing_if = "Option::is_none")]
    pub last_decay_at: Option<DateTime<Utc>>,
}

impl Default for Record {
    fn default() -> Self {
        Record { hits: 0, first_hit_at: None, last_hit_at: None, weight: DEFAULT_WEIGHT, last_decay_at: None }
    }
}

impl Record {
    /// The weight this record would have after decaying to `now` (same rule as
    /// [`Ledger::decay`]), without changing the record.
    pub fn weight_at(&self, now: DateTime<Utc>, half_life_days: f64) -> f64 {
        let mut r = self.clone();
        r.decay(now, half_life_days);
        r.weight
    }

    /// One hit at `now` ([`Ledger::record_hit`] on a record already in the ledger):
    /// `hits + 1`, `weight + 6` (cap 100), `lastHitAt = now`, `firstHitAt` and `lastDecayAt`
    /// set to `now` when absent. No decay: the caller decays first.
    fn hit(&mut self, now: DateTime<Utc>) {
        self.hits += 1;
        self.weight = (self.weight + HIT_BONUS).min(MAX_WEIGHT);
        self.last_hit_at = Some(now);
        self.first_hit_at.get_or_insert(now);
        self.last_decay_at.get_or_insert(now);
    }

    /// Sets every instant of the record more than a day after `now` (the system clock's) to
    /// `now`: a far-future clock's hit no longer holds its decay back (decay runs forward from
    /// the anchor only). The weight is kept. Returns true when the record changed.
    pub fn unfreeze(&mut self, now: DateTime<Utc>) -> bool {
        let limit = now + Duration::days(1);
        let mut changed = false;
        for t in [&mut self.first_hit_at, &mut self.last_hit_at, &mut self.last_decay_at] {
            if t.is_some_and(|t| t > limit) {
                *t = Some(now);
                changed = true;
            }
        }
        changed
    }

    /// Applies decay up to `now`; returns true when the record changed.
    fn decay(&mut self, now: DateTime<Utc>, half_life_days: f64) -> bool {
        let Some(anchor) = self.last_decay_at.or(self.last_hit_at).or(self.first_hit_at) else {
            self.last_decay_at = Some(now);
            return true;
        };
        let days = (now - anchor).num_seconds().div_euclid(DAY_SECS);
        if days < 1 {
            return false;
        }
        if half_life_days > 0.0 {
            self.weight = (self.weight * 0.5f64.powf(days as f64 / half_life_days)).max(0.0);
        }
        self.last_decay_at = Some(anchor + Duration::seconds(days * DAY_SECS));
        true
    }
}

fn ser_ts<S: Serializer>(ts: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
    match ts {
        Some(t) => s.serialize_str(&format_ts(*t)),
        None => s.serialize_none(),
    }
}

/// Writes whole numbers without a fraction, the way JavaScript's `JSON.stringify` does.
fn ser_weight<S: Serializer>(w: &f64, s: S) -> Result<S::Ok, S::Error> {
    if w.is_finite() && w.fract() == 0.0 && w.abs() < 9.0e15 { s.serialize_i64(*w as i64) } else { s.serialize_f64(*w) }
}

/// How a ledger text was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "status", content = "reason")]
pub enum LoadStatus {
    /// Read as is (individual bad fields may have been defaulted, see [`Ledger::parse`]).
    Ok,
    /// There was no file; the ledger starts empty.
    Missing,
    /// The file could not be read as a version-1 ledger; the ledger starts empty and the
    /// reason says why. The caller rebuilds it silently (docs/plugin-compatibility.md: "文件缺失或损坏时静默重建").
    Corrupt(String),
}

/// The whole ledger. Keys are kept sorted.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Ledger {
    /// Records by key (see [`key`]).
    pub entries: BTreeMap<String, Record>,
}

impl Ledger {
    /// Reads a ledger. `text` is the file content, `None` when the file does not exist.
    /// Never fails: a missing or unreadable file gives an empty ledger and a status saying
    /// so. Inside a readable file, tolerant per field: a non-object record is dropped, a
    /// missing or non-numeric `hits` reads 0, `weight` reads 50 and is clamped to 0–100,
    /// unparseable instants read as absent.
    pub fn parse(text: Option<&str>) -> (Ledger, LoadStatus) {
        let Some(text) = text else {
            return (Ledger::default(), LoadStatus::Missing);
        };
        let mut entries = BTreeMap::new();
        let status = parse_stream(text.as_bytes(), &mut |k, r| {
            entries.insert(k, r);
            Ok(())
        })
        .unwrap_or_else(|e| LoadStatus::Corrupt(e.to_string()));
        match status {
            LoadStatus::Ok => (Ledger { entries }, LoadStatus::Ok),
            other => (Ledger::default(), other),
        }
    }

    /// The file bytes: deterministic (same ledger → same bytes), see the module docs.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct File<'a> {
            version: u64,
            entries: &'a BTreeMap<String, Record>,
        }
        let mut s = serde_json::to_string_pretty(&File { version: VERSION, entries: &self.entries })
            .expect("a ledger of strings and finite numbers always serialises");
        s.push('\n');
        s
    }

    /// Applies decay to every record up to `now` (docs/plugin-compatibility.md, "Usage ledger"); returns how many records
    /// changed, so the caller knows whether the file needs writing. A record without any
    /// instant gets `lastDecayAt = now` (its decay clock starts).
    pub fn decay(&mut self, now: DateTime<Utc>, half_life_days: f64) -> usize {
        self.entries.values_mut().map(|r| r.decay(now, half_life_days)).filter(|c| *c).count()
    }

    /// Records one hit of the entry with `key`: creates it at weight 50 when absent, then
    /// `hits + 1`, `weight + 6` (cap 100), `lastHitAt = now`, `firstHitAt` and `lastDecayAt`
    /// set to `now` when absent. Returns the record after the hit.
    pub fn record_hit(&mut self, key: &str, now: DateTime<Utc>) -> &Record {
        let r = self.entries.entry(key.to_string()).or_default();
        r.hit(now);
        r
    }

    /// Promotion into the hot body: `weight + 15` (cap 100) when `key` is already in the
    /// ledger; returns false and changes nothing otherwise (docs/plugin-compatibility.md: "只对已在账本里的条目生效").
    pub fn promote(&mut self, key: &str) -> bool {
        match self.entries.get_mut(key) {
            Some(r) => {
                r.weight = (r.weight + PROMOTE_BONUS).min(MAX_WEIGHT);
                true
            }
            None => false,
        }
    }

    /// The record of `key`, if any.
    pub fn get(&self, key: &str) -> Option<&Record> {
        self.entries.get(key)
    }

    /// The stored weight of `key`, or 50 for an entry not in the ledger.
    pub fn weight(&self, key: &str) -> f64 {
        self.entries.get(key).map_or(DEFAULT_WEIGHT, |r| r.weight)
    }
}

/// Write throttling for usage.json (docs/plugin-compatibility.md: "写盘按 usageThrottleMs 节流合并，进程退出前会把
/// 没落盘的命中补写"). Pure bookkeeping: the caller asks [`Throttle::due`] after each change and
/// [`Throttle::needs_flush`] at exit.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Throttle {
    /// Instant of the last write, `None` before the first.
    pub last_write: Option<DateTime<Utc>>,
    /// True when the in-memory ledger has changes not yet written.
    pub dirty: bool,
}

impl Throttle {
    /// Marks the ledger as changed.
    pub fn mark_dirty(&mut self) {
        self.dirty = true;
    }

    /// True when there are unwritten changes and the last write is at least `throttle_ms`
    /// milliseconds before `now` (or there was none).
    pub fn due(&self, now: DateTime<Utc>, throttle_ms: u64) -> bool {
        self.dirty && should_write(self.last_write, now, throttle_ms)
    }

    /// Records a successful write at `now`.
    pub fn wrote(&mut self, now: DateTime<Utc>) {
        self.last_write = Some(now);
        self.dirty = false;
    }

    /// True when changes are pending (to be written at exit regardless of the throttle).
    pub fn needs_flush(&self) -> bool {
        self.dirty
    }
}

/// The throttle rule alone: write when there was no previous write, or when at least
/// `throttle_ms` milliseconds have passed since it (a clock that went backwards counts as
/// not elapsed).
pub fn should_write(last_write: Option<DateTime<Utc>>, now: DateTime<Utc>, throttle_ms: u64) -> bool {
    match last_write {
        None => true,
        Some(last) => (now - last).num_milliseconds() >= i64::try_from(throttle_ms).unwrap_or(i64::MAX),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn key_is_lowercase_hex_sha1() {
        // FIPS 180 test vector.
        assert_eq!(key("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(key(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    }

    #[test]
    fn sixty_days_at_half_life_thirty_quarters_the_weight() {
        // The plugin's acceptance check (docs/plugin-compatibility.md, "Usage ledger"): lastDecayAt moved 60 days back → weight ≈ 1/4.
        let now = t("2026-10-21T03:10:00.000Z");
        let mut l = Ledger::default();
        l.entries.insert(
            "k".into(),
            Record { hits: 2, weight: 80.0, last_decay_at: Some(t("2026-08-22T03:10:00.000Z")), ..Record::default() },
        );
        assert_eq!(l.decay(now, 30.0), 1);
        let r = l.get("k").unwrap();
        assert_eq!(r.weight, 20.0);
        assert_eq!(r.last_decay_at, Some(now));
    }

    #[test]
    fn decay_uses_whole_days_and_keeps_the_fraction() {
        let mut l = Ledger::default();
        let start = t("2026-10-01T00:00:00.000Z");
        l.entries.insert("k".into(), Record { weight: 40.0, last_decay_at: Some(start), ..Record::default() });
        // 23 h: not a whole day, nothing changes.
        assert_eq!(l.decay(t("2026-10-01T23:00:00.000Z"), 1.0), 0);
        assert_eq!(l.get("k").unwrap().weight, 40.0);
        // 1 day 12 h with half-life 1 day: one halving, clock moves exactly one day.
        assert_eq!(l.decay(t("2026-10-02T12:00:00.000Z"), 1.0), 1);
        assert_eq!(l.get("k").unwrap().weight, 20.0);
        assert_eq!(l.get("k").unwrap().last_decay_at, Some(t("2026-10-02T00:00:00.000Z")));
        // 12 h later (2 d since start): the kept half day completes another whole day.
        assert_eq!(l.decay(t("2026-10-03T00:00:00.000Z"), 1.0), 1);
        assert_eq!(l.get("k").unwrap().weight, 10.0);
    }

    #[test]
    fn decay_anchor_falls_back_and_starts_the_clock() {
        let mut l = Ledger::default();
        l.entries.insert(
            "hit".into(),
            Record { weight: 60.0, last_hit_at: Some(t("2026-09-21T00:00:00.000Z")), ..Record::default() },
        );
        l.entries.insert("bare".into(), Record::default());
        let now = t("2026-10-21T00:00:00.000Z");
        assert_eq!(l.decay(now, 30.0), 2);
        assert_eq!(l.get("hit").unwrap().weight, 30.0); // 30 days from lastHitAt
        assert_eq!(l.get("bare").unwrap().weight, 50.0);
        assert_eq!(l.get("bare").unwrap().last_decay_at, Some(now));
        // A future anchor (clock skew) leaves the weight alone.
        let mut f = Record { weight: 70.0, last_decay_at: Some(t("2026-11-01T00:00:00.000Z")), ..Record::default() };
        assert!(!f.decay(now, 30.0));
        assert_eq!(f.weight, 70.0);
    }

    #[test]
    fn weight_at_does_not_mutate() {
        let r = Record { weight: 80.0, last_decay_at: Some(t("2026-09-21T00:00:00.000Z")), ..Record::default() };
        assert_eq!(r.weight_at(t("2026-10-21T00:00:00.000Z"), 30.0), 40.0);
        assert_eq!(r.weight, 80.0);
    }

    #[test]
    fn hits_add_six_capped_at_100() {
        let mut l = Ledger::default();
        let t1 = t("2026-10-01T00:00:00.000Z");
        let t2 = t("2026-10-02T00:00:00.000Z");
        let r = l.record_hit("k", t1).clone();
        assert_eq!(
            (r.hits, r.weight, r.first_hit_at, r.last_hit_at, r.last_decay_at),
            (1, 56.0, Some(t1), Some(t1), Some(t1))
        );
        let r = l.record_hit("k", t2).clone();
        assert_eq!(
            (r.hits, r.weight, r.first_hit_at, r.last_hit_at, r.last_decay_at),
            (2, 62.0, Some(t1), Some(t2), Some(t1))
        );
        l.entries.get_mut("k").unwrap().weight = 97.0;
        assert_eq!(l.record_hit("k", t2).weight, 100.0);
    }

    #[test]
    fn promote_only_known_entries() {
        let mut l = Ledger::default();
        assert!(!l.promote("new"));
        assert!(l.entries.is_empty());
        l.record_hit("k", t("2026-10-01T00:00:00.000Z")); // 56
        assert!(l.promote("k"));
        assert_eq!(l.weight("k"), 71.0);
        assert!(l.promote("k"));
        assert!(l.promote("k"));
        assert_eq!(l.weight("k"), 100.0); // 86 + 15 capped
        assert_eq!(l.weight("unknown"), 50.0);
    }

    #[test]
    fn serialises_deterministically_in_the_plugin_shape() {
        let mut l = Ledger::default();
        l.record_hit("bb", t("2026-10-21T03:10:00Z"));
        l.entries.insert(
            "aa".into(),
            Record {
                hits: 3,
                first_hit_at: Some(t("2026-10-01T00:00:00Z")),
                last_hit_at: Some(t("2026-10-20T00:00:00Z")),
                weight: 17.5,
                last_decay_at: Some(t("2026-10-20T00:00:00Z")),
            },
        );
        let expected = r#"{
  "version": 1,
  "entries": {
    "aa": {
      "hits": 3,
      "firstHitAt": "2026-10-01T00:00:00.000Z",
      "lastHitAt": "2026-10-20T00:00:00.000Z",
      "weight": 17.5,
      "lastDecayAt": "2026-10-20T00:00:00.000Z"
    },
    "bb": {
      "hits": 1,
      "firstHitAt": "2026-10-21T03:10:00.000Z",
      "lastHitAt": "2026-10-21T03:10:00.000Z",
      "weight": 56,
      "lastDecayAt": "2026-10-21T03:10:00.000Z"
    }
  }
}
"#;
        assert_eq!(l.to_json(), expected);
        let (back, status) = Ledger::parse(Some(expected));
        assert_eq!(status, LoadStatus::Ok);
        assert_eq!(back, l);
        assert_eq!(back.to_json(), expected);
        assert_eq!(Ledger::default().to_json(), "{\n  \"version\": 1,\n  \"entries\": {}\n}\n");
    }

    #[test]
    fn missing_or_corrupt_files_give_an_empty_ledger() {
        assert_eq!(Ledger::parse(None), (Ledger::default(), LoadStatus::Missing));
        for bad in ["", "{", "[]", r#"{"version":2,"entries":{}}"#, r#"{"version":1}"#, r#"{"version":1,"entries":[]}"#]
        {
            let (l, s) = Ledger::parse(Some(bad));
            assert!(l.entries.is_empty(), "{bad}");
            assert!(matches!(s, LoadStatus::Corrupt(_)), "{bad} → {s:?}");
        }
    }

    #[test]
    fn tolerant_fields() {
        let text = r#"{"version":1,"entries":{
            "a":{"hits":"x","weight":150,"lastHitAt":"yesterday"},
            "b":{"hits":2.7,"weight":-3},
            "c":5,
            "d":{}
        }}"#;
        let (l, s) = Ledger::parse(Some(text));
        assert_eq!(s, LoadStatus::Ok);
        assert_eq!(l.entries.len(), 3);
        let a = l.get("a").unwrap();
        assert_eq!((a.hits, a.weight, a.last_hit_at), (0, 100.0, None));
        let b = l.get("b").unwrap();
        assert_eq!((b.hits, b.weight), (2, 0.0));
        assert_eq!(l.get("d").unwrap().weight, 50.0);
    }

    #[test]
    fn throttle() {
        let t0 = t("2026-10-21T00:00:00.000Z");
        assert!(should_write(None, t0, 5000));
        assert!(!should_write(Some(t0), t0 + Duration::milliseconds(4999), 5000));
        assert!(should_write(Some(t0), t0 + Duration::milliseconds(5000), 5000));
        assert!(!should_write(Some(t0), t0 - Duration::milliseconds(1), 0));
        let mut th = Throttle::default();
        assert!(!th.due(t0, 5000));
        th.mark_dirty();
        assert!(th.due(t0, 5000));
        th.wrote(t0);
        assert!(!th.needs_flush());
        th.mark_dirty();
        assert!(!th.due(t0 + Duration::seconds(4), 5000));
        assert!(th.needs_flush());
        assert!(th.due(t0 + Duration::seconds(5), 5000));
    }
}

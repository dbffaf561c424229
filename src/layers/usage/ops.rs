//! The usage ledger backed by the index: the `usage` table is the live state, `usage.json` its
//! canonical file (dsh-memory-layers v1.2 "召回留痕与权重"). Rules come from [`crate::layers::usage`]
//! (pure); this module does the I/O.
//!
//! * Every entry returned by recall / recent / by-tag / by-date / retrieve is a hit
//!   (`Store::record_hits`): its record decays to now, then `hits + 1`, `weight + 6` (cap
//!   100), `lastHitAt = now`, in one transaction under the writer lock. A lock timeout (bounded
//!   by [`USAGE_LOCK_TIMEOUT_MS`]) or any other failure is reported as a `log` warning and the query
//!   goes on: queries never fail because of the ledger.
//! * usage.json is rewritten from the table, atomically, when `usageThrottleMs` has passed
//!   since the last write (the instant of that write is kept in the index's `meta` table, so
//!   the throttle holds across processes), and by [`Memory::flush_usage`](crate::Memory::flush_usage), which dropping a
//!   [`Memory`](crate::Memory) with unwritten hits calls. Before a write, records at least one whole day past
//!   their decay anchor are decayed (the plugin decays on every read of the ledger).
//! * Ranking reads decayed weights (`Store::weights`): `Record::weight_at(now)`, 50 for an
//!   entry never hit, with one `SELECT … WHERE key IN (…)` per call.
//! * Byte compatibility: records are written in the order their keys entered the ledger (the
//!   order JavaScript keeps, and the order of the file they were read from), and the file ends
//!   with a newline exactly when the last file read did (new files: with one).

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use crate::files::entry::format_ts;
use crate::files::lock::WriterLock;
use crate::index::Store;
use crate::layers::sync::USAGE_FILE;
use crate::layers::usage::{DEFAULT_WEIGHT, Ledger, LoadStatus, Record, key, should_write};
use crate::{Error, Result};

/// Longest wait for the writer lock when recording hits or flushing at drop, in ms (also
/// bounded by `lockTimeoutMs`): a query waits at most this long before giving up on recording.
pub const USAGE_LOCK_TIMEOUT_MS: u64 = 2_000;
/// `meta` key: UTC instant (ms since the epoch) of the last usage.json write.
pub const META_LAST_WRITE: &str = "usage_last_write_ms";
/// `meta` key, present (`1`) while the usage table holds hits that a per-call store
/// (`Memory::open_per_call`) committed but did not write to usage.json (the throttle held);
/// removed by every usage.json write.
pub const META_PENDING: &str = "usage_pending";
/// `meta` key: `1` when usage.json ends with a newline (as last read or written), `0` if not.
pub const META_FINAL_NEWLINE: &str = "usage_final_newline";

const RECORD_COLUMNS: &str = "key, hits, first_hit_at, last_hit_at, weight, last_decay_at";

fn parse_ts(s: Option<String>) -> Option<DateTime<Utc>> {
    s.and_then(|s| DateTime::parse_from_rfc3339(&s).ok()).map(|t| t.with_timezone(&Utc))
}

fn record_from_row(r: &rusqlite::Row) -> rusqlite::Result<(String, Record)> {
    let hits: i64 = r.get(1)?;
    Ok((
        r.get(0)?,
        Record {
            hits: hits.max(0) as u64,
            first_hit_at: parse_ts(r.get(2)?),
            last_hit_at: parse_ts(r.get(3)?),
            weight: r.get(4)?,
            last_decay_at: parse_ts(r.get(5)?),
        },
    ))
}

/// Upserts a record; `text` (the content the key was computed from) is kept when `None`.
/// New keys go to the end of the ledger order.
fn upsert(c: &Connection, k: &str, r: &Record, text: Option<&str>) -> Result<()> {
    c.prepare_cached(
        "INSERT INTO usage(key, hits, first_hit_at, last_hit_at, weight, last_decay_at, text) \
         VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(key) DO UPDATE SET hits = excluded.hits, \
         first_hit_at = excluded.first_hit_at, last_hit_at = excluded.last_hit_at, weight = excluded.weight, \
         last_decay_at = excluded.last_decay_at, text = coalesce(excluded.text, usage.text)",
    )?
    .execute(params![
        k,
        r.hits.min(i64::MAX as u64) as i64,
        r.first_hit_at.map(format_ts),
        r.last_hit_at.map(format_ts),
        r.weight,
        r.last_decay_at.map(format_ts),
        text
    ])?;
    Ok(())
}

/// The records of `keys` (missing keys are simply absent), one query via `json_each`.
pub fn load(c: &Connection, keys: &[String]) -> Result<Ledger> {
    let mut ledger = Ledger::default();
    if keys.is_empty() {
        return Ok(ledger);
    }
    let json = serde_json::to_string(keys).map_err(|e| Error::Json { what: "usage keys".into(), source: e })?;
    let sql = format!("SELECT {RECORD_COLUMNS} FROM usage WHERE key IN (SELECT value FROM json_each(?1))");
    let mut st = c.prepare_cached(&sql)?;
    for row in st.query_map([json], record_from_row)? {
        let (k, r) = row?;
        ledger.entries.insert(k, r);
    }
    Ok(ledger)
}

/// Every record in ledger order, with the content text when the index knows it.
pub fn load_all(c: &Connection) -> Result<Vec<(String, Record, Option<String>)>> {
    let sql = format!("SELECT {RECORD_COLUMNS}, text FROM usage ORDER BY rowid");
    let mut st = c.prepare_cached(&sql)?;
    let rows = st.query_map([], |r| {
        let (k, rec) = record_from_row(r)?;
        Ok((k, rec, r.get::<_, Option<String>>(6)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn meta_get(c: &Connection, k: &str) -> Result<Option<String>> {
    Ok(c.prepare_cached("SELECT value FROM meta WHERE key = ?1")?.query_row([k], |r| r.get(0)).optional()?)
}

fn meta_set(c: &Connection, k: &str, v: &str) -> Result<()> {
    c.prepare_cached("INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)")?.execute([k, v])?;
    Ok(())
}

/// The keys of the `entries` object of a ledger text, in file order (empty when unreadable).
pub fn key_order(text: &str) -> Vec<String> {
    struct Keys(Vec<String>);
    impl<'de> Deserialize<'de> for Keys {
        fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Keys, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> std::result::Result<Keys, A::Error> {
                    let mut out = Vec::new();
                    while let Some(k) = m.next_key::<String>()? {
                        m.next_value::<IgnoredAny>()?;
                        out.push(k);
                    }
                    Ok(Keys(out))
                }
            }
            d.deserialize_map(V)
        }
    }
    #[derive(Deserialize)]
    struct Top {
        entries: Keys,
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str::<Top>(text).map(|t| t.entries.0).unwrap_or_default()
}

/// Replaces the usage table from usage.json's bytes (`None`: the file is gone). Tolerant per
/// [`Ledger::parse`]: an unreadable file empties the table and returns `Corrupt`. Content
/// texts already known for surviving keys are kept.
pub fn replace_from_file(tx: &Transaction, bytes: Option<&[u8]>) -> Result<LoadStatus> {
    let text = match bytes.map(std::str::from_utf8) {
        None => None,
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => {
            tx.execute("DELETE FROM usage", [])?;
            return Ok(LoadStatus::Corrupt(format!("not UTF-8: {e}")));
        }
    };
    let (ledger, status) = Ledger::parse(text);
    let texts: HashMap<String, String> = {
        let mut st = tx.prepare("SELECT key, text FROM usage WHERE text IS NOT NULL")?;
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?
    };
    tx.execute("DELETE FROM usage", [])?;
    // File order (first occurrence of each key), then any key the order reader missed.
    let mut seen = std::collections::HashSet::new();
    let mut order: Vec<String> = text.map(key_order).unwrap_or_default();
    order.retain(|k| ledger.entries.contains_key(k) && seen.insert(k.clone()));
    order.extend(ledger.entries.keys().filter(|k| seen.insert((*k).clone())).cloned());
    for k in &order {
        upsert(tx, k, &ledger.entries[k], texts.get(k).map(String::as_str))?;
    }
    if status == LoadStatus::Ok
        && let Some(t) = text
    {
        meta_set(tx, META_FINAL_NEWLINE, if t.ends_with('\n') { "1" } else { "0" })?;
    }
    Ok(status)
}

/// The usage.json bytes of the table: the layout of [`Ledger::to_json`] (two-space JSON,
/// `version` then `entries`, record fields in the plugin's order) with the records in ledger
/// order and the final newline as recorded (module docs).
pub fn file_bytes(c: &Connection) -> Result<Vec<u8>> {
    struct Ordered(Vec<(String, Record)>);
    impl Serialize for Ordered {
        fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(self.0.len()))?;
            for (k, r) in &self.0 {
                m.serialize_entry(k, r)?;
            }
            m.end()
        }
    }
    #[derive(Serialize)]
    struct File {
        version: u64,
        entries: Ordered,
    }
    let entries = load_all(c)?.into_iter().map(|(k, r, _)| (k, r)).collect();
    let mut s =
        serde_json::to_string_pretty(&File { version: crate::layers::usage::VERSION, entries: Ordered(entries) })
            .map_err(|e| Error::Json { what: USAGE_FILE.into(), source: e })?;
    if meta_get(c, META_FINAL_NEWLINE)?.as_deref() != Some("0") {
        s.push('\n');
    }
    Ok(s.into_bytes())
}

/// Decays (and stores) every record at least one whole day past its decay anchor; returns how
/// many changed. Uses the `usage_decay` expression index.
pub fn decay_due(c: &Connection, now: DateTime<Utc>, half_life_days: f64) -> Result<usize> {
    let cutoff = format_ts(now - chrono::Duration::days(1));
    let sql = format!(
        "SELECT {RECORD_COLUMNS} FROM usage WHERE coalesce(last_decay_at, last_hit_at, first_hit_at, '') <= ?1"
    );
    let mut ledger = Ledger::default();
    for row in c.prepare_cached(&sql)?.query_map([cutoff], record_from_row)? {
        let (k, r) = row?;
        ledger.entries.insert(k, r);
    }
    ledger.decay(now, half_life_days);
    for (k, r) in &ledger.entries {
        upsert(c, k, r, None)?;
    }
    Ok(ledger.entries.len())
}

fn ms(t: DateTime<Utc>) -> String {
    t.timestamp_millis().to_string()
}

/// Something a query returned, whose usage is recorded: an entry, keyed by its text.
pub trait Hit {
    /// The entry's text (without the source marker), from which its usage key is derived.
    fn content(&self) -> &str;
}

impl Store {
    /// Takes the writer lock for the ledger: at most [`USAGE_LOCK_TIMEOUT_MS`] (or
    /// `lockTimeoutMs` when smaller).
    fn usage_lock(&self) -> Result<WriterLock> {
        let ms = self.config().lock_timeout_ms.min(USAGE_LOCK_TIMEOUT_MS);
        crate::files::lock::acquire(self.root(), Duration::from_millis(ms))
    }

    /// Records one usage hit per returned item (module docs). Never fails: problems are
    /// reported as a `log` warning and the caller's query result stands.
    pub(crate) fn record_hits<H: Hit>(&self, items: &[H]) {
        // A read-only data root records nothing (the warning at open says so).
        if items.is_empty() || self.read_only.is_some() {
            return;
        }
        if let Err(e) = self.try_record_hits(items) {
            log::warn!("usage hits not recorded: {e}");
        }
    }

    fn try_record_hits<H: Hit>(&self, items: &[H]) -> Result<()> {
        // During an import the lock is held for minutes: do not make the query wait for it.
        if self.writer_busy()? {
            return Err(Error::LockTimeout { path: self.root().to_path_buf(), waited_ms: 0 });
        }
        let lock = self.usage_lock()?;
        let now = self.now();
        let keyed: Vec<(String, &str)> = items.iter().map(|i| (key(i.content()), i.content())).collect();
        let mut distinct: Vec<String> = keyed.iter().map(|(k, _)| k.clone()).collect();
        distinct.sort();
        distinct.dedup();
        let mut c = self.conn()?;
        let tx = c.transaction()?;
        let mut ledger = load(&tx, &distinct)?;
        ledger.decay(now, self.config().half_life_days);
        for (k, _) in &keyed {
            ledger.record_hit(k, now);
        }
        let mut done = std::collections::HashSet::new();
        for (k, text) in &keyed {
            if done.insert(k) {
                upsert(&tx, k, &ledger.entries[k], Some(text))?;
            }
        }
        tx.commit()?;
        self.usage_changed(&lock)
    }

    /// After a change of the table: writes usage.json when the throttle allows, else marks
    /// this handle as holding unwritten changes (written by [`Memory::flush_usage`](crate::Memory::flush_usage) / drop).
    pub(crate) fn usage_changed(&self, lock: &WriterLock) -> Result<()> {
        let c = self.conn()?;
        let last = meta_get(&c, META_LAST_WRITE)?
            .and_then(|v| v.parse::<i64>().ok())
            .and_then(DateTime::<Utc>::from_timestamp_millis);
        if should_write(last, self.now(), self.config().usage_throttle_ms) {
            self.write_usage_file(lock)?;
        } else {
            self.usage_pending.store(true, Ordering::Relaxed);
            if !self.watching {
                // A per-call store does not flush at drop (one usage.json write and its two
                // fsyncs per CLI call, issue 15): the hits are committed in the index, and this
                // mark makes the first later call past the throttle write them out.
                meta_set(&c, META_PENDING, "1")?;
            }
        }
        Ok(())
    }

    /// Writes usage.json when a per-call store left hits unwritten ([`META_PENDING`]) and
    /// `usageThrottleMs` has passed since the last write (by this store's clock). Called when
    /// a per-call store is dropped; otherwise one `meta` read. Returns true when written.
    /// Errors: lock timeout, I/O.
    pub(crate) fn flush_due_usage(&self) -> Result<bool> {
        let c = self.conn()?;
        if meta_get(&c, META_PENDING)?.is_none() {
            return Ok(false);
        }
        let last = meta_get(&c, META_LAST_WRITE)?
            .and_then(|v| v.parse::<i64>().ok())
            .and_then(DateTime::<Utc>::from_timestamp_millis);
        drop(c);
        if !should_write(last, self.now(), self.config().usage_throttle_ms) {
            return Ok(false);
        }
        self.flush_usage()
    }

    /// Writes usage.json from the table (after the decay pass) when its bytes differ from the
    /// file's; never creates a file for an empty ledger. Records the write instant. Returns
    /// true when the file was written.
    pub(crate) fn write_usage_file(&self, lock: &WriterLock) -> Result<bool> {
        let now = self.now();
        let mut c = self.conn()?;
        let tx = c.transaction()?;
        decay_due(&tx, now, self.config().half_life_days)?;
        let bytes = file_bytes(&tx)?;
        let empty: bool = tx.query_row("SELECT NOT EXISTS (SELECT 1 FROM usage)", [], |r| r.get(0))?;
        meta_set(&tx, META_LAST_WRITE, &ms(now))?;
        tx.execute("DELETE FROM meta WHERE key = ?1", [META_PENDING])?;
        tx.commit()?;
        drop(c);
        self.usage_pending.store(false, Ordering::Relaxed);
        let path = self.root().join(USAGE_FILE);
        let on_disk = match std::fs::read(&path) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io(&path, e)),
        };
        if on_disk.as_deref() == Some(&bytes[..]) || (on_disk.is_none() && empty) {
            return Ok(false);
        }
        match self.write_layer(lock, USAGE_FILE, &bytes) {
            // A hand edit landed since the last sync: the file wins (the next sync loads it).
            Err(Error::Changed(_)) => Ok(false),
            Err(e) => Err(e),
            Ok(()) => Ok(true),
        }
    }

    /// Stores `records` (key, record) in the ledger as they are, then writes usage.json. For
    /// merging another data root's ledger at import; the caller holds the writer lock.
    /// Errors: index, I/O.
    pub(crate) fn put_usage_records_locked(&self, lock: &WriterLock, records: &[(String, Record)]) -> Result<()> {
        let mut c = self.conn()?;
        let tx = c.transaction()?;
        for (k, r) in records {
            upsert(&tx, k, r, None)?;
        }
        tx.commit()?;
        drop(c);
        self.write_usage_file(lock)?;
        Ok(())
    }

    /// Writes pending ledger changes to usage.json now, regardless of the throttle (the
    /// plugin's "进程退出前会把没落盘的命中补写"). A hand edit of usage.json made since this
    /// index last wrote or read it wins (it is loaded first). Returns true when the file was
    /// written. Errors: lock timeout, I/O. Called (errors ignored) when a [`Memory`](crate::Memory) with
    /// unwritten hits is dropped.
    pub fn flush_usage(&self) -> Result<bool> {
        if self.read_only.is_some() {
            return Ok(false);
        }
        let lock = self.usage_lock()?;
        self.sync_layers(crate::layers::sync::LayerScope::Live, false, Some(&lock))?;
        self.write_usage_file(&lock)
    }

    /// Usage weights (0–100) of items, decayed to now; 50 for entries never hit. One query per
    /// call; on an index error every weight reads 50 (reported as a `log` warning).
    pub(crate) fn weights<H: Hit>(&self, items: &[H]) -> Vec<f64> {
        match self.try_weights(items) {
            Ok(w) => w,
            Err(e) => {
                log::warn!("usage weights not read: {e}");
                vec![DEFAULT_WEIGHT; items.len()]
            }
        }
    }

    fn try_weights<H: Hit>(&self, items: &[H]) -> Result<Vec<f64>> {
        let keys: Vec<String> = items.iter().map(|i| key(i.content())).collect();
        let mut distinct = keys.clone();
        distinct.sort();
        distinct.dedup();
        let ledger = load(&*self.conn()?, &distinct)?;
        let (now, hl) = (self.now(), self.config().half_life_days);
        Ok(keys.iter().map(|k| ledger.get(k).map_or(DEFAULT_WEIGHT, |r| r.weight_at(now, hl))).collect())
    }

    /// The ledger records of `keys` (as stored, not decayed).
    pub fn usage_records(&self, keys: &[String]) -> Result<Ledger> {
        load(&*self.conn()?, keys)
    }

    /// Promotion into the hot body (seeds/002 "被 mem_hot_set 提升进热层正文：weight += 15"):
    /// for each key already in the ledger, decay to now then `+15` (cap 100). The caller holds
    /// the writer lock.
    pub(crate) fn promote_locked(&self, lock: &WriterLock, keys: &[String]) -> Result<()> {
        let now = self.now();
        let mut c = self.conn()?;
        let tx = c.transaction()?;
        let mut ledger = load(&tx, keys)?;
        if ledger.entries.is_empty() {
            return Ok(());
        }
        ledger.decay(now, self.config().half_life_days);
        for k in keys {
            ledger.promote(k);
        }
        for (k, r) in &ledger.entries {
            upsert(&tx, k, r, None)?;
        }
        tx.commit()?;
        drop(c);
        self.usage_changed(lock)
    }
}

impl Drop for Store {
    /// Flushes hits this handle recorded but the throttle held back (errors go to the `log`
    /// crate). A per-call store instead writes usage.json only when hits are pending in the
    /// index (its own or an earlier call's) and the throttle has passed; otherwise it leaves
    /// them to a later call.
    fn drop(&mut self) {
        let r = if self.watching {
            if self.usage_pending.load(Ordering::Relaxed) { self.flush_usage().map(|_| ()) } else { Ok(()) }
        } else {
            self.flush_due_usage().map(|_| ())
        };
        if let Err(e) = r {
            log::warn!("usage.json not flushed: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_is_file_order() {
        let t = r#"{"version":1,"entries":{"zz":{"hits":1},"aa":{"hits":2},"mm":5}}"#;
        assert_eq!(key_order(t), ["zz", "aa", "mm"]);
        assert!(key_order("{").is_empty());
        assert!(key_order(r#"{"version":1,"entries":[]}"#).is_empty());
    }
}

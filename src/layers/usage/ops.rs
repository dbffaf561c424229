//! The usage ledger backed by the index: the `usage` table is the live state, `usage.json` its
//! canonical file (dsh-memory-layers v1.2 "召回留痕与权重"). Rules come from [`crate::layers::usage`]
//! (pure); this module does the I/O.
//!
//! * Every entry returned by recall / recent / by-tag / by-date / retrieve is a hit
//!   (`record_hits`): its record decays to now, then `hits + 1`, `weight + 6` (cap
//!   100), `lastHitAt = now`, in one transaction under the writer lock. A lock timeout (bounded
//!   by [`USAGE_LOCK_TIMEOUT_MS`]) or any other failure is reported as a `log` warning and the query
//!   goes on: queries never fail because of the ledger.
//! * usage.json is rewritten from the table, atomically, when `usageThrottleMs` has passed
//!   since the last write (the instant of that write is kept in the index's `meta` table, so
//!   the throttle holds across processes), and by [`Memory::flush_usage`](crate::Memory::flush_usage), which dropping a
//!   [`Memory`](crate::Memory) with unwritten hits calls. Before a write, records at least one whole day past
//!   their decay anchor are decayed (the plugin decays on every read of the ledger).
//! * Ranking reads decayed weights (`weights_on`): `Record::weight_at(now)`, 50 for an
//!   entry never hit, with one `SELECT … WHERE key = ?` per item (one cached statement).
//! * Byte compatibility: records are written in the order their keys entered the ledger (the
//!   order JavaScript keeps, and the order of the file they were read from), and the file ends
//!   with a newline exactly when the last file read did (new files: with one).

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};

use crate::index::Store;
use crate::index::store::{SyncPolicy, WriteSession};
use crate::layers::sync::{sync_layers, write_layer};
use crate::layers::usage::table::*;
use crate::layers::usage::{DEFAULT_WEIGHT, Ledger, Record, USAGE_FILE, key, should_write};
use crate::{Error, Result};

/// Longest wait for the writer lock when recording hits or flushing at drop, in ms (also
/// bounded by `lockTimeoutMs`): a query waits at most this long before giving up on recording.
pub const USAGE_LOCK_TIMEOUT_MS: u64 = 2_000;

/// Something a query returned, whose usage is recorded: an entry, keyed by its text.
pub trait Hit {
    /// The entry's text (without the source marker), from which its usage key is derived.
    fn content(&self) -> &str;
}

/// Takes the writer lock for the ledger: at most [`USAGE_LOCK_TIMEOUT_MS`] (or
/// `lockTimeoutMs` when smaller).
fn usage_lock(store: &Store) -> Result<WriteSession<'_>> {
    store.lock_within(store.config().lock_timeout_ms.min(USAGE_LOCK_TIMEOUT_MS))
}

/// Records one hit per text in `contents` (the items a query returned), made at `now` (module
/// docs): nothing on a read-only data root (the warning at open says so). Never fails:
/// problems are reported as a `log` warning and the caller's query result stands.
pub(crate) fn record_hits<'a>(store: &Store, contents: impl Iterator<Item = &'a str>, now: DateTime<Utc>) {
    if store.read_only() {
        return;
    }
    match try_record_hits(store, contents, now) {
        Ok(()) => {}
        // Not "try again": running the query again records its own hits, not these.
        Err(Error::LockTimeout { path, waited_ms }) => log::warn!(
            "usage hits of this query not recorded: another memlayers process holds the writer lock of {} \
             (an import, a sync or another write; waited {waited_ms} ms); the answer stands",
            path.display()
        ),
        Err(e) => log::warn!("usage hits not recorded: {e}"),
    }
}

fn try_record_hits<'a>(store: &Store, contents: impl Iterator<Item = &'a str>, now: DateTime<Utc>) -> Result<()> {
    // A lock free at once (the usual case) is taken without first asking the index whether
    // a long write is under way (none can be: its writer would hold the lock).
    let lock = match store.try_lock()? {
        Some(lock) => lock,
        None => {
            // During an import the lock is held for minutes: do not make the query wait for it.
            if store.writer_busy()? {
                return Err(Error::LockTimeout { path: store.root().to_path_buf(), waited_ms: 0 });
            }
            usage_lock(store)?
        }
    };
    // Distinct keys in the order they first appear (new keys enter the ledger in that
    // order), each with its content and its number of hits in this batch. Found by a scan
    // of the few keys of a usual answer, by a hash index past LINEAR_KEYS.
    const LINEAR_KEYS: usize = 32;
    let mut hits: Vec<(String, &str, u32)> = Vec::new();
    let mut index: Option<std::collections::HashMap<String, usize>> = None;
    for text in contents {
        let k = key(text);
        let at = match &index {
            Some(ix) => ix.get(&k).copied(),
            None => hits.iter().position(|(h, _, _)| *h == k),
        };
        match at {
            Some(i) => hits[i].2 += 1,
            None => {
                if let Some(ix) = &mut index {
                    ix.insert(k.clone(), hits.len());
                }
                hits.push((k, text, 1));
                if index.is_none() && hits.len() > LINEAR_KEYS {
                    index = Some(hits.iter().enumerate().map(|(i, (h, _, _))| (h.clone(), i)).collect());
                }
            }
        }
    }
    drop(index);
    let hl = store.config().half_life_days;
    let real_clock = !store.clock_pinned();
    let mut c = store.conn()?;
    let tx = c.transaction()?;
    {
        // One lookup by key per record (columns 1..=5 as `record_at` reads them), then an
        // update by rowid or an insert: cheaper than a `json_each` list of the keys and an
        // upsert by key.
        let mut find = tx.prepare_cached(
            "SELECT rowid, hits, first_hit_at, last_hit_at, weight, last_decay_at, text IS NULL FROM usage \
             WHERE key = ?1",
        )?;
        let mut update = tx.prepare_cached(
            "UPDATE usage SET hits = ?2, first_hit_at = ?3, last_hit_at = ?4, weight = ?5, last_decay_at = ?6, \
             text = coalesce(?7, text) WHERE rowid = ?1",
        )?;
        let mut insert = tx.prepare_cached(
            "INSERT INTO usage(key, hits, first_hit_at, last_hit_at, weight, last_decay_at, text) \
             VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for (k, text, n) in &hits {
            let found = find
                .query_row([k], |r| Ok((r.get::<_, i64>(0)?, record_at(r, 1)?, r.get::<_, bool>(6)?)))
                .optional()?;
            let (row, mut rec) = match found {
                // Decayed to now before the hit (the plugin decays on every read).
                Some((rowid, mut rec, no_text)) => {
                    if real_clock {
                        rec.unfreeze(now);
                    }
                    rec.decay(now, hl);
                    (Some((rowid, no_text)), rec)
                }
                None => (None, Record::default()),
            };
            for _ in 0..*n {
                rec.hit(now);
            }
            let (h, first, last, w, decay) = stored(&rec);
            match row {
                // The content is set only where the row has none: a row's text is the
                // content its key was computed from, the same text.
                Some((rowid, no_text)) => {
                    update.execute(params![rowid, h, first, last, w, decay, no_text.then_some(*text)])?
                }
                None => insert.execute(params![k, h, first, last, w, decay, text])?,
            };
        }
    }
    let write = note_change(store, &tx)?;
    tx.commit()?;
    // One connection at a time: a one-call process would open (and parse the schema of) a
    // second one for the usage.json write.
    drop(c);
    after_change(&lock, write)
}

/// After a change of the table, inside its transaction (under the writer lock, so the
/// instant of the last usage.json write cannot change before the commit): true when
/// `usageThrottleMs` allows writing usage.json now ([`after_change`] writes it).
/// Otherwise false, and a per-call store marks the table as holding unwritten hits
/// ([`META_PENDING`]) in the same transaction.
fn note_change(store: &Store, tx: &Connection) -> Result<bool> {
    let last = meta_get(tx, META_LAST_WRITE)?
        .and_then(|v| v.parse::<i64>().ok())
        .and_then(DateTime::<Utc>::from_timestamp_millis);
    if should_write(last, store.now(), store.config().usage_throttle_ms) {
        return Ok(true);
    }
    // A per-call store does not flush at drop (one usage.json write and its two fsyncs per
    // CLI call): the hits are committed in the index, and this mark makes the
    // first later call past the throttle write them out. Set once: the later calls that
    // find it find nothing to change.
    if !store.watching() && meta_get(tx, META_PENDING)?.as_deref() != Some("1") {
        meta_set(tx, META_PENDING, "1")?;
    }
    Ok(false)
}

/// After the commit of a change that [`note_change`] saw: writes usage.json when it
/// said so (`write`), else marks this handle as holding unwritten changes (written by
/// [`Memory::flush_usage`](crate::Memory::flush_usage) / drop).
fn after_change(lock: &WriteSession<'_>, write: bool) -> Result<()> {
    let store = lock.store();
    if write {
        write_usage_file(lock)?;
    } else {
        store.set_usage_unwritten(true);
    }
    Ok(())
}

/// Writes usage.json when a per-call store left hits unwritten ([`META_PENDING`]) and
/// `usageThrottleMs` has passed since the last write (by this store's clock). Called when
/// a per-call store is dropped; otherwise one `meta` read. Returns true when written.
/// Errors: lock timeout, I/O.
pub(crate) fn flush_due_usage(store: &Store) -> Result<bool> {
    let c = store.conn()?;
    if meta_get(&c, META_PENDING)?.is_none() {
        return Ok(false);
    }
    let last = meta_get(&c, META_LAST_WRITE)?
        .and_then(|v| v.parse::<i64>().ok())
        .and_then(DateTime::<Utc>::from_timestamp_millis);
    drop(c);
    if !should_write(last, store.now(), store.config().usage_throttle_ms) {
        return Ok(false);
    }
    flush_usage(store)
}

/// Writes usage.json from the table (after the decay pass) when its bytes differ from the
/// file's; never creates a file for an empty ledger. Records the write instant. Returns
/// true when the file was written.
pub(crate) fn write_usage_file(lock: &WriteSession<'_>) -> Result<bool> {
    let store = lock.store();
    let now = store.ledger_now();
    let mut c = store.conn()?;
    let tx = c.transaction()?;
    if !store.clock_pinned() {
        unfreeze_all(&tx, now)?;
    }
    decay_due(&tx, now, store.config().half_life_days)?;
    let bytes = file_bytes(&tx)?;
    let empty: bool = tx.query_row("SELECT NOT EXISTS (SELECT 1 FROM usage)", [], |r| r.get(0))?;
    meta_set(&tx, META_LAST_WRITE, &ms(now))?;
    tx.execute("DELETE FROM meta WHERE key = ?1", [META_PENDING])?;
    tx.commit()?;
    drop(c);
    store.set_usage_unwritten(false);
    // Compared with the hash the index recorded for the file (the sync before every write
    // brought it up to date), not by reading the file again under the lock: a 100 MB
    // ledger took a second more that way. A hand edit since that sync is caught by the
    // compare-and-swap of write_layer (the file wins).
    let c = store.conn()?;
    let recorded: Option<String> = c
        .prepare_cached("SELECT hash FROM layer_files WHERE path = ?1")?
        .query_row([USAGE_FILE], |r| r.get(0))
        .optional()?;
    drop(c);
    let same = recorded.as_deref().is_some_and(|h| h == crate::index::sync::sha1_hex(&bytes));
    if same || (recorded.is_none() && empty) {
        return Ok(false);
    }
    match write_layer(lock, USAGE_FILE, &bytes) {
        // A hand edit landed since the last sync: the file wins (the next sync loads it).
        Err(Error::Changed(_)) => Ok(false),
        Err(e) => Err(e),
        Ok(()) => Ok(true),
    }
}

/// Stores `records` (key, record) in the ledger as they are, then writes usage.json. For
/// merging another data root's ledger at import; the caller holds the writer lock.
/// Errors: index, I/O.
pub(crate) fn put_usage_records_locked(lock: &WriteSession<'_>, records: &[(String, Record)]) -> Result<()> {
    let store = lock.store();
    let mut c = store.conn()?;
    let tx = c.transaction()?;
    for (k, r) in records {
        upsert(&tx, k, r, None)?;
    }
    tx.commit()?;
    drop(c);
    write_usage_file(lock)?;
    Ok(())
}

/// Writes pending ledger changes to usage.json now, regardless of the throttle (the
/// plugin's "进程退出前会把没落盘的命中补写"). A hand edit of usage.json made since this
/// index last wrote or read it wins (it is loaded first). Returns true when the file was
/// written. Errors: lock timeout, I/O. Called (errors ignored) when a [`Memory`](crate::Memory) with
/// unwritten hits is dropped.
pub fn flush_usage(store: &Store) -> Result<bool> {
    if store.read_only() {
        return Ok(false);
    }
    let lock = usage_lock(store)?;
    sync_layers(store, crate::layers::sync::LayerScope::Live, SyncPolicy::held(&lock))?;
    write_usage_file(&lock)
}

/// Usage weights (0–100) of items, decayed to now; 50 for entries never hit. One query per
/// call, on the connection the caller holds (a query ranking its candidates): asking the
/// store for another would open a second connection in a one-call process and parse the
/// schema again (0.2 ms of a CLI call). On an index error every weight reads 50
/// (reported as a `log` warning).
pub(crate) fn weights_on<H: Hit>(store: &Store, c: &rusqlite::Connection, items: &[H]) -> Vec<f64> {
    match try_weights(store, c, items) {
        Ok(w) => w,
        Err(e) => {
            log::warn!("usage weights not read: {e}");
            vec![DEFAULT_WEIGHT; items.len()]
        }
    }
}

fn try_weights<H: Hit>(store: &Store, c: &rusqlite::Connection, items: &[H]) -> Result<Vec<f64>> {
    // One lookup by key per item through one cached statement: cheaper than one statement
    // over a `json_each` list of the keys. Only what the decay reads: the
    // weight and its anchor (`Record::weight_at` decays from the last decay, else the last
    // hit, else the first), one timestamp parsed per row.
    let mut st = c.prepare_cached(
        "SELECT weight, coalesce(last_decay_at, last_hit_at, first_hit_at) FROM usage WHERE key = ?1",
    )?;
    let (now, hl) = (store.now(), store.config().half_life_days);
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let rec = st
            .query_row([key(item.content())], |r| {
                let (weight, last_decay_at) = (r.get(0)?, ts_at(r, 1)?);
                Ok(Record { hits: 0, first_hit_at: None, last_hit_at: None, weight, last_decay_at })
            })
            .optional()?;
        out.push(rec.map_or(DEFAULT_WEIGHT, |r| r.weight_at(now, hl)));
    }
    Ok(out)
}

/// The ledger records of `keys` (as stored, not decayed).
pub fn usage_records(store: &Store, keys: &[String]) -> Result<Ledger> {
    load(&*store.conn()?, keys)
}

/// Promotion into the hot body (docs/plugin-compatibility.md: "被 mem_hot_set 提升进热层正文：weight += 15"):
/// for each key already in the ledger, decay to now then `+15` (cap 100). The caller holds
/// the writer lock.
pub(crate) fn promote_locked(lock: &WriteSession<'_>, keys: &[String]) -> Result<()> {
    let store = lock.store();
    let now = store.now();
    let mut c = store.conn()?;
    let tx = c.transaction()?;
    let mut ledger = load(&tx, keys)?;
    if ledger.entries.is_empty() {
        return Ok(());
    }
    ledger.decay(now, store.config().half_life_days);
    for k in keys {
        ledger.promote(k);
    }
    for (k, r) in &ledger.entries {
        upsert(&tx, k, r, None)?;
    }
    let write = note_change(store, &tx)?;
    tx.commit()?;
    drop(c);
    after_change(lock, write)
}

/// What closing a handle writes (`Memory`'s drop, after the hits it held back are recorded):
/// a long-lived store flushes the hits it recorded but the throttle held back; a per-call store
/// writes usage.json only when hits are pending in the index (its own or an earlier call's)
/// and the throttle has passed, else it leaves them to a later call. Errors go to the `log`
/// crate.
pub(crate) fn flush_at_close(store: &Store) {
    let r = if store.watching() {
        if store.usage_unwritten() { flush_usage(store).map(|_| ()) } else { Ok(()) }
    } else {
        flush_due_usage(store).map(|_| ())
    };
    if let Err(e) = r {
        log::warn!("usage.json not flushed: {e}");
    }
}

//! The `usage` table and its canonical file, on a connection: reading and writing records,
//! streaming usage.json into the table (directly, or through a staging table in SQLite's temp
//! database), writing the file's bytes from the table, and decay. Rules come from
//! [`crate::layers::usage`] (pure); the `Store` operations that take the writer lock are in
//! [`crate::layers::usage::ops`].

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use crate::files::entry::format_ts;
use crate::layers::usage::{Ledger, LoadStatus, Record, USAGE_FILE};
use crate::{Error, Result};

/// `meta` key: UTC instant (ms since the epoch) of the last usage.json write.
pub const META_LAST_WRITE: &str = "usage_last_write_ms";
/// `meta` key, present (`1`) while the usage table holds hits that a per-call store
/// (`Memory::open_per_call`) committed but did not write to usage.json (the throttle held);
/// removed by every usage.json write.
pub const META_PENDING: &str = "usage_pending";
/// `meta` key: `1` when usage.json ends with a newline (as last read or written), `0` if not.
pub const META_FINAL_NEWLINE: &str = "usage_final_newline";

pub(crate) const RECORD_COLUMNS: &str = "key, hits, first_hit_at, last_hit_at, weight, last_decay_at";

/// An instant of the `usage` table: RFC 3339, `None` when absent or unreadable. The shape
/// the table holds ([`format_ts`]: `2026-10-21T03:10:00.000Z`) is read directly, anything
/// else by chrono's RFC 3339 parser (both give the same instant for that shape; chrono's
/// general parser cost 1 200 instructions a timestamp, three per record read).
pub(crate) fn parse_ts(s: Option<&str>) -> Option<DateTime<Utc>> {
    let s = s?;
    canonical_ts(s).or_else(|| DateTime::parse_from_rfc3339(s).ok().map(|t| t.with_timezone(&Utc)))
}

/// The instant in column `i` of a row ([`parse_ts`]), read in place (no copy of the text).
/// Errors: the column is neither text nor NULL, or not UTF-8.
pub(crate) fn ts_at(r: &rusqlite::Row, i: usize) -> rusqlite::Result<Option<DateTime<Utc>>> {
    let v = r.get_ref(i)?;
    let s = v.as_str_or_null().map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, v.data_type(), Box::new(e)))?;
    Ok(parse_ts(s))
}

/// `s` when it is exactly `YYYY-MM-DDTHH:MM:SS.mmmZ` (24 ASCII bytes) with a valid date and
/// time; `None` otherwise, leaving it to chrono (other shapes, a leap second `:60`).
pub(crate) fn canonical_ts(s: &str) -> Option<DateTime<Utc>> {
    let b = s.as_bytes();
    if b.len() != 24 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    if b[19] != b'.' || b[23] != b'Z' {
        return None;
    }
    let num = |from: usize, to: usize| {
        b[from..to].iter().try_fold(0u32, |n, &d| d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0')))
    };
    let date = chrono::NaiveDate::from_ymd_opt(num(0, 4)? as i32, num(5, 7)?, num(8, 10)?)?;
    Some(date.and_hms_milli_opt(num(11, 13)?, num(14, 16)?, num(17, 19)?, num(20, 23)?)?.and_utc())
}

/// [`format_ts`] of `t` (`2026-10-21T03:10:00.000Z`, milliseconds truncated), written
/// directly for years 0–9999 outside a leap second, else by `format_ts` itself (chrono's
/// formatter cost 800 instructions a timestamp, three per record written).
pub(crate) fn ts_text(t: DateTime<Utc>) -> String {
    use chrono::{Datelike, Timelike};
    let (date, time) = (t.date_naive(), t.time());
    let nano = time.nanosecond();
    if !(0..=9999).contains(&date.year()) || nano >= 1_000_000_000 {
        return format_ts(t);
    }
    let mut b = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut v: u32| {
        for d in b[at..at + width].iter_mut().rev() {
            *d = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    put(0, 4, date.year() as u32);
    put(5, 2, date.month());
    put(8, 2, date.day());
    put(11, 2, time.hour());
    put(14, 2, time.minute());
    put(17, 2, time.second());
    put(20, 3, nano / 1_000_000);
    String::from_utf8(b.to_vec()).expect("ASCII digits and separators")
}

pub(crate) fn record_from_row(r: &rusqlite::Row) -> rusqlite::Result<(String, Record)> {
    Ok((r.get(0)?, record_at(r, 1)?))
}

/// The record in columns `at..at + 5` of a row: hits, first hit, last hit, weight, last decay
/// (the order of [`RECORD_COLUMNS`] after the key).
pub(crate) fn record_at(r: &rusqlite::Row, at: usize) -> rusqlite::Result<Record> {
    let hits: i64 = r.get(at)?;
    Ok(Record {
        hits: hits.max(0) as u64,
        first_hit_at: ts_at(r, at + 1)?,
        last_hit_at: ts_at(r, at + 2)?,
        weight: r.get(at + 3)?,
        last_decay_at: ts_at(r, at + 4)?,
    })
}

/// Upserts a record; `text` (the content the key was computed from) is kept when `None`.
/// New keys go to the end of the ledger order.
pub(crate) fn upsert(c: &Connection, k: &str, r: &Record, text: Option<&str>) -> Result<()> {
    let (h, first, last, w, decay) = stored(r);
    c.prepare_cached(
        "INSERT INTO usage(key, hits, first_hit_at, last_hit_at, weight, last_decay_at, text) \
         VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(key) DO UPDATE SET hits = excluded.hits, \
         first_hit_at = excluded.first_hit_at, last_hit_at = excluded.last_hit_at, weight = excluded.weight, \
         last_decay_at = excluded.last_decay_at, text = coalesce(excluded.text, usage.text)",
    )?
    .execute(params![k, h, first, last, w, decay, text])?;
    Ok(())
}

/// A record's columns as the `usage` table stores them: hits (capped at `i64::MAX`), first hit,
/// last hit, weight, last decay (timestamps as `format_ts`).
type Stored = (i64, Option<String>, Option<String>, f64, Option<String>);

pub(crate) fn stored(r: &Record) -> Stored {
    (
        r.hits.min(i64::MAX as u64) as i64,
        r.first_hit_at.map(ts_text),
        r.last_hit_at.map(ts_text),
        r.weight,
        r.last_decay_at.map(ts_text),
    )
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

pub(crate) fn meta_get(c: &Connection, k: &str) -> Result<Option<String>> {
    Ok(c.prepare_cached("SELECT value FROM meta WHERE key = ?1")?.query_row([k], |r| r.get(0)).optional()?)
}

pub(crate) fn meta_set(c: &Connection, k: &str, v: &str) -> Result<()> {
    c.prepare_cached("INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)")?.execute([k, v])?;
    Ok(())
}

/// What [`reload`] learnt about the bytes it streamed: their sha1 (lowercase hex), their
/// length, their code points (UTF-8 lead bytes), whether they end with a newline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    /// Lowercase hex SHA-1 of the bytes.
    pub sha1: String,
    /// Length in bytes.
    pub size: i64,
    /// Code points (bytes that are not UTF-8 continuation bytes).
    pub chars: i64,
    /// The last byte is `\n`.
    pub final_newline: bool,
}

/// A reader that hashes and counts what passes through it.
pub(crate) struct Tap<R> {
    inner: R,
    sha: sha1::Sha1,
    size: i64,
    chars: i64,
    last: Option<u8>,
}

impl<R: std::io::Read> std::io::Read for Tap<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use sha1::Digest as _;
        let n = self.inner.read(buf)?;
        self.sha.update(&buf[..n]);
        self.size += n as i64;
        self.chars += buf[..n].iter().filter(|b| (**b & 0xC0) != 0x80).count() as i64;
        if n > 0 {
            self.last = Some(buf[n - 1]);
        }
        Ok(n)
    }
}

impl<R> Tap<R> {
    fn new(inner: R) -> Tap<R> {
        use sha1::Digest as _;
        Tap { inner, sha: sha1::Sha1::new(), size: 0, chars: 0, last: None }
    }

    fn digest(self) -> Digest {
        use sha1::Digest as _;
        let sha1 = self.sha.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Digest { sha1, size: self.size, chars: self.chars, final_newline: self.last == Some(b'\n') }
    }
}

/// The [`Digest`] of everything `reader` yields, read in 64 KiB pieces (constant memory).
pub fn digest_of<R: std::io::Read>(reader: R) -> std::io::Result<Digest> {
    let mut tap = Tap::new(reader);
    std::io::copy(&mut tap, &mut std::io::sink())?;
    Ok(tap.digest())
}

/// Replaces the usage table from usage.json's bytes (`None`: the file is gone), streamed
/// from `src`: records go into the table as they are parsed, so memory stays bounded by the
/// largest record plus SQLite's page cache, whatever the file's size (a 100 MB ledger took 674 MB read whole).
/// Tolerant per [`Ledger::parse`]: an unreadable file empties the table and returns
/// `Corrupt`. Records keep the file's order (first occurrence of a key; a later occurrence
/// updates its values, as a JSON object's last duplicate wins); content texts already known
/// for surviving keys are kept. Returns the status and the digest of the bytes read (`None`
/// when there is no file). Errors: I/O while reading, index.
pub fn reload<R: std::io::Read>(tx: &Transaction, src: Option<R>) -> Result<(LoadStatus, Option<Digest>)> {
    let Some(src) = src else {
        tx.execute("DELETE FROM usage", [])?;
        return Ok((LoadStatus::Missing, None));
    };
    // Rows up to `base` are the old table; rows above it are this file's, in file order.
    let base: i64 = tx.query_row("SELECT coalesce(max(rowid), 0) FROM usage", [], |r| r.get(0))?;
    let mut tap = Tap::new(src);
    let status = {
        let mut find = tx.prepare_cached("SELECT rowid, text FROM usage WHERE key = ?1")?;
        let mut del = tx.prepare_cached("DELETE FROM usage WHERE rowid = ?1")?;
        let mut insert = tx.prepare_cached(
            "INSERT INTO usage(rowid, key, hits, first_hit_at, last_hit_at, weight, last_decay_at, text) \
             VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        // Explicit rowids: SQLite would reuse the rowid of a row just deleted at the top.
        let mut next = base;
        let mut each = |k: String, r: Record| -> Result<()> {
            let old: Option<(i64, Option<String>)> =
                find.query_row([&k], |row| Ok((row.get(0)?, row.get(1)?))).optional()?;
            let text = match old {
                // Seen earlier in this file: update in place (keeps its position).
                Some((rowid, _)) if rowid > base => return upsert(tx, &k, &r, None),
                // Known from before: moved to the new order with its text.
                Some((rowid, text)) => {
                    del.execute([rowid])?;
                    text
                }
                None => None,
            };
            next += 1;
            let (h, first, last, w, decay) = stored(&r);
            insert.execute(params![next, k, h, first, last, w, decay, text])?;
            Ok(())
        };
        crate::layers::usage::parse_stream(&mut tap, &mut each)?
    };
    // Read what the parser left (trailing bytes after an error) so the digest is the file's.
    std::io::copy(&mut tap, &mut std::io::sink()).map_err(|e| Error::io(USAGE_FILE, e))?;
    let digest = tap.digest();
    if status == LoadStatus::Ok {
        tx.execute("DELETE FROM usage WHERE rowid <= ?1", [base])?;
        meta_set(tx, META_FINAL_NEWLINE, if digest.final_newline { "1" } else { "0" })?;
    } else {
        tx.execute("DELETE FROM usage", [])?;
    }
    Ok((status, Some(digest)))
}

/// Creates the staging table of [`stage`] (empty): connection-local, in SQLite's temp
/// database, so filling it takes no lock on the index and needs no writer lock; it spills to a
/// temp file like any temp table, so memory stays bounded: by a 16 MB page cache for the temp
/// database while it exists (with SQLite's default 2 MB, the key index of a 100 MB ledger
/// thrashed to the temp file: 42 s instead of 32 s, debug build), given back by [`drop_stage`].
pub(crate) fn create_stage(c: &Connection) -> Result<()> {
    c.execute_batch(
        "PRAGMA temp.cache_size = -16000; DROP TABLE IF EXISTS temp.usage_stage; \
         CREATE TEMP TABLE usage_stage (seq INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, \
         hits INTEGER NOT NULL, first_hit_at TEXT, last_hit_at TEXT, weight REAL NOT NULL, \
         last_decay_at TEXT, text TEXT);",
    )?;
    Ok(())
}

/// Drops the staging table of [`stage`] if there is one, and gives its page cache back
/// (`shrink_memory`; the temp cache back to SQLite's default). Nothing when there is none.
pub fn drop_stage(c: &Connection) -> Result<()> {
    // Cached: every sync of the layers asks (a per-call process once, a long-lived one per query).
    let staged: bool = c
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM temp.sqlite_master WHERE name = 'usage_stage')")?
        .query_row([], |r| r.get(0))?;
    if staged {
        c.execute_batch("DROP TABLE temp.usage_stage; PRAGMA temp.cache_size = -2000; PRAGMA shrink_memory;")?;
    }
    Ok(())
}

/// Parses usage.json's bytes from `src` into a staging table of this connection (SQLite's
/// temp database: nothing in index.sqlite3 is written or locked, so it runs without the writer
/// lock, which a 100 MB ledger would otherwise hold for seconds), streamed record by record as [`reload`] does: file order, a key
/// present twice keeps its first position and its last values. [`swap_in`] then replaces the
/// usage table from it in one short transaction under the lock. Returns the load status (on
/// `Corrupt` the staging table is empty) and the digest of the bytes read. Errors: I/O while
/// reading, SQLite.
pub fn stage<R: std::io::Read>(c: &Connection, src: R) -> Result<(LoadStatus, Digest)> {
    create_stage(c)?;
    let tx = c.unchecked_transaction()?;
    let mut tap = Tap::new(src);
    let status = {
        let mut put = tx.prepare(
            "INSERT INTO temp.usage_stage(key, hits, first_hit_at, last_hit_at, weight, last_decay_at) \
             VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(key) DO UPDATE SET hits = excluded.hits, \
             first_hit_at = excluded.first_hit_at, last_hit_at = excluded.last_hit_at, \
             weight = excluded.weight, last_decay_at = excluded.last_decay_at",
        )?;
        let mut each = |k: String, r: Record| -> Result<()> {
            put.execute(params![
                k,
                r.hits.min(i64::MAX as u64) as i64,
                r.first_hit_at.map(format_ts),
                r.last_hit_at.map(format_ts),
                r.weight,
                r.last_decay_at.map(format_ts),
            ])?;
            Ok(())
        };
        crate::layers::usage::parse_stream(&mut tap, &mut each)?
    };
    std::io::copy(&mut tap, &mut std::io::sink()).map_err(|e| Error::io(USAGE_FILE, e))?;
    if status != LoadStatus::Ok {
        tx.execute("DELETE FROM temp.usage_stage", [])?;
    }
    tx.commit()?;
    Ok((status, tap.digest()))
}

/// Replaces the usage table by what [`stage`] parsed (`status` as it returned): the records in
/// file order, keeping the content texts already known for surviving keys, and the file's
/// final newline; a `Corrupt` ledger empties the table, as [`reload`] does. The caller holds
/// the writer lock and checked that the file is still the one staged. Cost: one pass over the
/// staged rows (a delete of the old table and an insert in rowid order), no JSON parsing.
pub fn swap_in(tx: &Transaction, status: &LoadStatus, final_newline: bool) -> Result<()> {
    if *status != LoadStatus::Ok {
        tx.execute("DELETE FROM usage", [])?;
        return Ok(());
    }
    tx.execute_batch(
        "UPDATE temp.usage_stage AS s SET text = u.text \
         FROM (SELECT key, text FROM main.usage WHERE text IS NOT NULL) AS u WHERE u.key = s.key; \
         DELETE FROM main.usage; \
         INSERT INTO main.usage(rowid, key, hits, first_hit_at, last_hit_at, weight, last_decay_at, text) \
         SELECT seq, key, hits, first_hit_at, last_hit_at, weight, last_decay_at, text \
         FROM temp.usage_stage ORDER BY seq;",
    )?;
    meta_set(tx, META_FINAL_NEWLINE, if final_newline { "1" } else { "0" })?;
    Ok(())
}

/// [`reload`] from bytes in memory (`None`: the file is gone).
pub fn replace_from_file(tx: &Transaction, bytes: Option<&[u8]>) -> Result<LoadStatus> {
    Ok(reload(tx, bytes)?.0)
}

/// The usage.json bytes of the table: the layout of [`Ledger::to_json`] (two-space JSON,
/// `version` then `entries`, record fields in the plugin's order) with the records in ledger
/// order and the final newline as recorded (module docs). Records are serialised straight
/// from the query, one at a time: the bytes are the only copy of the ledger in memory.
pub fn file_bytes(c: &Connection) -> Result<Vec<u8>> {
    type RowIter<'a> = dyn Iterator<Item = rusqlite::Result<(String, Record)>> + 'a;
    struct Streamed<'r, 'a>(std::cell::RefCell<&'r mut RowIter<'a>>);
    impl Serialize for Streamed<'_, '_> {
        fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(None)?;
            for row in &mut **self.0.borrow_mut() {
                let (k, r) = row.map_err(serde::ser::Error::custom)?;
                m.serialize_entry(&k, &r)?;
            }
            m.end()
        }
    }
    #[derive(Serialize)]
    struct File<'r, 'a> {
        version: u64,
        entries: Streamed<'r, 'a>,
    }
    let sql = format!("SELECT {RECORD_COLUMNS} FROM usage ORDER BY rowid");
    let mut st = c.prepare_cached(&sql)?;
    let mut rows = st.query_map([], record_from_row)?;
    let iter: &mut RowIter<'_> = &mut rows;
    let file = File { version: crate::layers::usage::VERSION, entries: Streamed(std::cell::RefCell::new(iter)) };
    // Reserved up front: growing by doubling would copy a 100 MB ledger into a 200 MB buffer
    // (300 MB at once). Reserved pages cost no memory until written; 256 bytes a record bounds
    // a record of the plugin layout (key and braces 52, hits 20, three instants 45 each,
    // weight up to 32).
    let records: i64 = c.query_row("SELECT count(*) FROM usage", [], |r| r.get(0))?;
    let mut out = Vec::with_capacity((records.max(0) * 256 + 4096) as usize);
    serde_json::to_writer_pretty(&mut out, &file).map_err(|e| Error::Json { what: USAGE_FILE.into(), source: e })?;
    if meta_get(c, META_FINAL_NEWLINE)?.as_deref() != Some("0") {
        out.push(b'\n');
    }
    Ok(out)
}

/// Undoes, on the system clock's `now`, what a far-future clock left in the ledger: every
/// instant more than [`LEDGER_CLOCK_LEAD`](crate::index::store::LEDGER_CLOCK_LEAD) after `now`
/// (ledgers written before `Store::ledger_now` existed, or by
/// another program) is set to `now`, so decay runs again from today ([`Record::unfreeze`] for one
/// record). The weight is kept. Returns the records changed. One scan of the ledger, run before
/// usage.json is written (which reads every record anyway).
pub fn unfreeze_all(c: &Connection, now: DateTime<Utc>) -> Result<usize> {
    let limit = format_ts(now + crate::index::store::LEDGER_CLOCK_LEAD);
    let now = format_ts(now);
    let mut n = 0;
    for col in ["first_hit_at", "last_hit_at", "last_decay_at"] {
        let sql = format!("UPDATE usage SET {col} = ?1 WHERE {col} > ?2");
        n += c.prepare_cached(&sql)?.execute([&now, &limit])?;
    }
    Ok(n)
}

/// Records decayed per statement batch in [`decay_due`].
pub(crate) const DECAY_BATCH: usize = 4096;

/// Decays (and stores) every record at least one whole day past its decay anchor; returns how
/// many changed. Finds them (their rowids) by a scan of the ledger (migration V12 dropped the
/// index on the anchor, which every hit moved; this pass runs before usage.json is written,
/// which reads every record too), then decays them `DECAY_BATCH` at a time, so memory does
/// not grow with the ledger.
pub fn decay_due(c: &Connection, now: DateTime<Utc>, half_life_days: f64) -> Result<usize> {
    let cutoff = format_ts(now - chrono::Duration::days(1));
    let due: Vec<i64> = c
        .prepare_cached("SELECT rowid FROM usage WHERE coalesce(last_decay_at, last_hit_at, first_hit_at, '') <= ?1")?
        .query_map([cutoff], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let sql = format!("SELECT {RECORD_COLUMNS} FROM usage WHERE rowid IN (SELECT value FROM json_each(?1))");
    for chunk in due.chunks(DECAY_BATCH) {
        let ids = serde_json::to_string(chunk).map_err(|e| Error::Json { what: "usage rowids".into(), source: e })?;
        let mut ledger = Ledger::default();
        for row in c.prepare_cached(&sql)?.query_map([ids], record_from_row)? {
            let (k, r) = row?;
            ledger.entries.insert(k, r);
        }
        ledger.decay(now, half_life_days);
        for (k, r) in &ledger.entries {
            upsert(c, k, r, None)?;
        }
    }
    Ok(due.len())
}

pub(crate) fn ms(t: DateTime<Utc>) -> String {
    t.timestamp_millis().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE usage (key TEXT NOT NULL UNIQUE, hits INTEGER NOT NULL, first_hit_at TEXT, \
             last_hit_at TEXT, weight REAL NOT NULL, last_decay_at TEXT, text TEXT); \
             CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);",
        )
        .unwrap();
        c
    }

    fn rows(c: &Connection) -> Vec<(String, i64, f64, Option<String>)> {
        c.prepare("SELECT key, hits, weight, text FROM usage ORDER BY rowid")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    #[test]
    fn reload_streams_in_file_order_and_keeps_known_texts() {
        let mut c = db();
        let tx = c.transaction().unwrap();
        let first = "\u{feff}{\"version\":1,\"entries\":{\"zz\":{\"hits\":1},\"aa\":{\"hits\":2},\"mm\":5}}";
        let (status, d) = reload(&tx, Some(first.as_bytes())).unwrap();
        assert_eq!(status, LoadStatus::Ok);
        let d = d.unwrap();
        assert_eq!((d.size, d.final_newline), (first.len() as i64, false));
        assert_eq!(d.sha1, crate::index::sync::sha1_hex(first.as_bytes()));
        // "mm" is not an object: dropped. Missing weights read 50.
        assert_eq!(rows(&tx), [("zz".into(), 1, 50.0, None), ("aa".into(), 2, 50.0, None)]);
        tx.execute("UPDATE usage SET text = '火锅' WHERE key = 'aa'", []).unwrap();
        // New order, a duplicate key (the last value wins, the first position stays), a key gone.
        let second = "{\"version\":1,\"entries\":{\"aa\":{\"hits\":7},\"bb\":{\"weight\":10},\"aa\":{\"hits\":9}}}\n";
        let (status, d) = reload(&tx, Some(second.as_bytes())).unwrap();
        assert_eq!((status, d.unwrap().final_newline), (LoadStatus::Ok, true));
        assert_eq!(rows(&tx), [("aa".into(), 9, 50.0, Some("火锅".into())), ("bb".into(), 0, 10.0, None)]);
        // Unreadable halfway: the table is emptied, nothing of the half read stays.
        let (status, _) = reload(&tx, Some(&b"{\"version\":1,\"entries\":{\"cc\":{\"hits\":1},"[..])).unwrap();
        assert!(matches!(status, LoadStatus::Corrupt(_)), "{status:?}");
        assert!(rows(&tx).is_empty());
        // Version after entries, and wrong: emptied too.
        let (status, _) = reload(&tx, Some(&b"{\"entries\":{\"cc\":{}},\"version\":2}"[..])).unwrap();
        assert_eq!(status, LoadStatus::Corrupt("version is Some(2), expected 1".into()));
        assert!(rows(&tx).is_empty());
    }

    #[test]
    fn stage_then_swap_in_matches_reload() {
        let first = "{\"version\":1,\"entries\":{\"zz\":{\"hits\":1},\"aa\":{\"hits\":2}}}";
        let second = "{\"version\":1,\"entries\":{\"aa\":{\"hits\":7},\"bb\":{\"weight\":10},\"aa\":{\"hits\":9}}}\n";
        let mut c = db();
        let tx = c.transaction().unwrap();
        reload(&tx, Some(first.as_bytes())).unwrap();
        tx.execute("UPDATE usage SET text = '火锅' WHERE key = 'aa'", []).unwrap();
        tx.commit().unwrap();
        // Staged with no transaction on the index open; nothing in `usage` changes yet.
        let (status, d) = stage(&c, second.as_bytes()).unwrap();
        assert_eq!((status.clone(), d.size, d.final_newline), (LoadStatus::Ok, second.len() as i64, true));
        assert_eq!(d.sha1, crate::index::sync::sha1_hex(second.as_bytes()));
        assert_eq!(rows(&c).len(), 2);
        assert_eq!(rows(&c)[0].0, "zz");
        let tx = c.transaction().unwrap();
        swap_in(&tx, &status, d.final_newline).unwrap();
        tx.commit().unwrap();
        // As reload: file order, first position and last value of "aa", its known text kept.
        assert_eq!(rows(&c), [("aa".into(), 9, 50.0, Some("火锅".into())), ("bb".into(), 0, 10.0, None)]);
        assert_eq!(meta_get(&c, META_FINAL_NEWLINE).unwrap().as_deref(), Some("1"));
        drop_stage(&c).unwrap();
        // A corrupt ledger stages nothing and empties the table when swapped in.
        let (status, _) = stage(&c, &b"{\"version\":1,\"entries\":{\"cc\":{\"hits\":1},"[..]).unwrap();
        assert!(matches!(status, LoadStatus::Corrupt(_)), "{status:?}");
        let staged: i64 = c.query_row("SELECT count(*) FROM temp.usage_stage", [], |r| r.get(0)).unwrap();
        assert_eq!(staged, 0);
        let tx = c.transaction().unwrap();
        swap_in(&tx, &status, true).unwrap();
        tx.commit().unwrap();
        assert!(rows(&c).is_empty());
    }

    #[test]
    fn timestamps_read_and_written_as_chrono_does() {
        let chrono_parse = |s: &str| DateTime::parse_from_rfc3339(s).ok().map(|t| t.with_timezone(&Utc));
        // The table's shape, read directly: 2026-10-21 03:10:00.123 UTC is 1 792 552 200 123 ms
        // after the epoch (20 747 days of 86 400 s, plus 3 h 10 min, plus 123 ms).
        let t = canonical_ts("2026-10-21T03:10:00.123Z").unwrap();
        assert_eq!(t.timestamp_millis(), 20_747 * 86_400_000 + (3 * 3600 + 10 * 60) * 1000 + 123);
        // Other shapes and invalid dates or times are left to chrono, with its answer.
        for s in [
            "2026-10-21T03:10:00.123Z",
            "0000-01-01T00:00:00.000Z",
            "9999-12-31T23:59:59.999Z",
            "2024-02-29T12:00:00.000Z",
            "2026-02-29T12:00:00.000Z",
            "2026-13-01T00:00:00.000Z",
            "2026-10-21T24:00:00.000Z",
            "2016-12-31T23:59:60.500Z",
            "2026-10-21t03:10:00.123z",
            "2026-10-21T03:10:00Z",
            "2026-10-21T03:10:00.123+08:00",
            "2026-10-21T03:10:00.1234Z",
            "2026-10-2xT03:10:00.123Z",
            "+2026-10-21T03:10:00.12Z",
            "",
        ] {
            assert_eq!(parse_ts(Some(s)), chrono_parse(s), "{s}");
        }
        assert!(canonical_ts("2016-12-31T23:59:60.500Z").is_none(), "leap second: chrono's");
        // Written as format_ts writes: milliseconds truncated, years outside 0–9999 and leap
        // seconds by format_ts itself.
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31).unwrap().and_hms_milli_opt(23, 59, 59, 1_500).unwrap();
        for t in [
            t,
            t + chrono::Duration::nanoseconds(999_999),
            DateTime::<Utc>::from_timestamp_millis(0).unwrap(),
            chrono_parse("0000-01-01T00:00:00.000Z").unwrap(),
            chrono_parse("9999-12-31T23:59:59.999Z").unwrap(),
            chrono_parse("9999-12-31T23:59:59.999Z").unwrap() + chrono::Duration::milliseconds(1),
            chrono_parse("0000-01-01T00:00:00.000Z").unwrap() - chrono::Duration::milliseconds(1),
            leap.and_utc(),
        ] {
            assert_eq!(ts_text(t), format_ts(t), "{t:?}");
        }
        assert_eq!(ts_text(t + chrono::Duration::nanoseconds(999_999)), "2026-10-21T03:10:00.123Z");
    }

    #[test]
    fn file_bytes_streams_the_plugin_layout() {
        let mut c = db();
        let tx = c.transaction().unwrap();
        assert_eq!(file_bytes(&tx).unwrap(), b"{\n  \"version\": 1,\n  \"entries\": {}\n}\n");
        reload(&tx, Some(&b"{\"version\":1,\"entries\":{\"b\":{\"hits\":2,\"weight\":62.5},\"a\":{}}}"[..])).unwrap();
        let want = "{\n  \"version\": 1,\n  \"entries\": {\n    \"b\": {\n      \"hits\": 2,\n      \"weight\": 62.5\n    },\n    \"a\": {\n      \"hits\": 0,\n      \"weight\": 50\n    }\n  }\n}";
        // The file read had no final newline: none is written.
        assert_eq!(String::from_utf8(file_bytes(&tx).unwrap()).unwrap(), want);
    }
}

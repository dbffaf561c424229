//! Change detection and mirroring of cold files into the index.
//!
//! Split in two, so the decision is testable without I/O (the same split basic-memory makes between its change
//! planning and its change detector):
//! [`plan`] compares what is on disk with what the index knows (size, mtime, inode) and lists
//! the files to look at and the files gone; [`apply`] reads those files, compares content
//! hashes, and re-mirrors the days that really changed, in one transaction per batch.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, NaiveDate, Utc};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::Serialize;

use crate::files::entry::{LineKind, parse_line};
use crate::files::{cold_rel, day_number, day_of_cold_rel};
use crate::fts5::segment::segment;
use crate::index::mirror::Known;
use crate::{Error, Result};

// The entry-id encoding and the content hash live in `files` (the fts5 layer below uses them).
pub use crate::files::{MAX_ENTRIES_PER_DAY, ORDINAL_BITS, id_range, sha1_hex};

/// Files re-mirrored per transaction.
pub const BATCH_FILES: usize = 256;

/// What the file system says about one cold file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileStat {
    /// Path relative to the data root, `cold/YYYY-MM/YYYY-MM-DD.md`.
    pub rel: String,
    /// The local date the path names.
    pub day: NaiveDate,
    /// Size in bytes.
    pub size: i64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Inode number (changes when a file is replaced by rename).
    pub inode: i64,
    /// Status-change time (ctime), ns since the Unix epoch, 0 where the platform has none
    /// ([`crate::files::identity::ctime_ns`]): unlike mtime it cannot be set back, so a
    /// same-size edit whose mtime was restored (`touch -r`, `rsync -t`) is still seen.
    pub ctime_ns: i64,
}

/// The outcome of [`plan`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Files new or with different size/mtime/inode: read and hash them.
    pub check: Vec<FileStat>,
    /// Files in the index but no longer on disk: drop their entries.
    pub removed: Vec<(String, NaiveDate)>,
}

impl Plan {
    /// True when nothing needs doing.
    pub fn is_empty(&self) -> bool {
        self.check.is_empty() && self.removed.is_empty()
    }
}

/// Pure change detection: compares disk stats with the index's knowledge.
pub fn plan(disk: &[FileStat], known: &HashMap<String, Known>) -> Plan {
    let mut p = Plan::default();
    for f in disk {
        match known.get(&f.rel) {
            Some(k)
                if k.size == f.size && k.mtime_ns == f.mtime_ns && k.inode == f.inode && k.ctime_ns == f.ctime_ns => {}
            _ => p.check.push(f.clone()),
        }
    }
    let on_disk: std::collections::HashSet<&str> = disk.iter().map(|f| f.rel.as_str()).collect();
    for rel in known.keys() {
        if !on_disk.contains(rel.as_str())
            && let Some(day) = day_of_cold_rel(rel)
        {
            p.removed.push((rel.clone(), day));
        }
    }
    p.removed.sort();
    p
}

/// A mirrored file's recorded identity, as [`changed`] compares it (a row of `files` without
/// its hash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownStat {
    /// Path relative to the data root.
    pub rel: String,
    /// Size in bytes when mirrored.
    pub size: i64,
    /// mtime when mirrored, ns.
    pub mtime_ns: i64,
    /// Inode when mirrored.
    pub inode: i64,
    /// ctime when mirrored, ns.
    pub ctime_ns: i64,
}

/// True when [`plan`] of the same files would not be empty: a file on disk the index does not
/// record or records with another size, mtime, inode or ctime, or a recorded day file gone
/// from disk. `disk` and `known` must both be sorted by path (bytewise: [`scan_disk`]'s order
/// and SQLite's `ORDER BY path`). One merge pass that stops at the first difference, without
/// the map [`plan`] builds: the check a one-call process makes before every query without a
/// time window, beside the query (building the map of 3 445 rows with their hashes
/// took 1.5–2.4 ms of that check at 1M entries).
pub fn changed(disk: &[FileStat], known: &[KnownStat]) -> bool {
    let mut d = disk.iter().peekable();
    for k in known {
        // Disk files sorting before this row are not recorded: new.
        if d.next_if(|f| f.rel.as_str() < k.rel.as_str()).is_some() {
            return true;
        }
        match d.next_if(|f| f.rel == k.rel) {
            Some(f) if (f.size, f.mtime_ns, f.inode, f.ctime_ns) != (k.size, k.mtime_ns, k.inode, k.ctime_ns) => {
                return true;
            }
            Some(_) => {}
            // Recorded, not on disk: removed (rows that name no day file are not cold files
            // and are left alone, as plan does).
            None if day_of_cold_rel(&k.rel).is_some() => return true,
            None => {}
        }
    }
    d.next().is_some()
}

/// Lists the cold files under `root` (`cold/YYYY-MM/YYYY-MM-DD.md`, regular files only;
/// symlinks, temp files and other names are ignored). Sorted by path. With more than
/// [`PARALLEL_SCAN_MONTHS`] month folders the folders are split over two threads (the scan is
/// one `statx` per file, kernel time that two cores halve). Errors: [`Error::OutsideRoot`]
/// when `cold` itself is a symlink leading out of the data root.
pub fn scan_disk(root: &Path) -> Result<Vec<FileStat>> {
    let Some(months) = month_dirs(root)? else { return Ok(Vec::new()) };
    let all = |_: NaiveDate| true;
    let mut out = if months.len() > PARALLEL_SCAN_MONTHS {
        let (a, b) = months.split_at(months.len() / 2);
        let other = std::thread::scope(|s| {
            let h = s.spawn(|| scan_months(b, &all));
            let mine = scan_months(a, &all);
            (mine, h.join())
        });
        match other {
            (Ok(mut mine), Ok(Ok(theirs))) => {
                mine.extend(theirs);
                mine
            }
            (Err(e), _) | (_, Ok(Err(e))) => return Err(e),
            // The helper thread panicked: scan everything here instead.
            (_, Err(_)) => scan_months(&months, &all)?,
        }
    } else {
        scan_months(&months, &all)?
    };
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

/// Month folders above which [`scan_disk`] uses two threads (two years of days: below it the
/// scan takes well under a millisecond and a thread would cost more than it saves).
pub const PARALLEL_SCAN_MONTHS: usize = 24;

/// The cold files of local dates `from..=to` only (inclusive), found the way [`scan_disk`]
/// finds them: lists just the month folders the range touches and stats just the day files
/// inside the range, so a query over a day costs one `getdents` and one `statx` instead of one
/// `statx` per file of the archive. Sorted by path. Errors: as [`scan_disk`].
pub fn scan_days(root: &Path, from: NaiveDate, to: NaiveDate) -> Result<Vec<FileStat>> {
    use chrono::Datelike;
    let cold = crate::files::safe_join(root, "cold")?;
    let mut months = Vec::new();
    let mut m = NaiveDate::from_ymd_opt(from.year(), from.month(), 1).unwrap_or(from);
    while m <= to {
        let name = m.format("%Y-%m").to_string();
        let path = cold.join(&name);
        // A month folder that is a symlink is skipped, as scan_disk's directory walk does.
        if std::fs::symlink_metadata(&path).is_ok_and(|md| md.is_dir()) {
            months.push((name, path));
        }
        m = m.checked_add_months(chrono::Months::new(1)).unwrap_or(NaiveDate::MAX);
    }
    let mut out = scan_months(&months, &|d| d >= from && d <= to)?;
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

/// The month folders under `root/cold` (`None` when there is no `cold/`).
fn month_dirs(root: &Path) -> Result<Option<Vec<(String, std::path::PathBuf)>>> {
    let cold = crate::files::safe_join(root, "cold")?;
    let months = match std::fs::read_dir(&cold) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&cold, e)),
    };
    let mut out = Vec::new();
    for m in months {
        let m = m.map_err(|e| Error::io(&cold, e))?;
        let Ok(mname) = m.file_name().into_string() else { continue };
        if !m.file_type().map(|t| t.is_dir()).unwrap_or(false) || mname.len() != 7 {
            continue;
        }
        out.push((mname, m.path()));
    }
    Ok(Some(out))
}

/// Stats the day files of the given month folders whose date `keep` accepts.
fn scan_months(months: &[(String, std::path::PathBuf)], keep: &dyn Fn(NaiveDate) -> bool) -> Result<Vec<FileStat>> {
    let mut out = Vec::new();
    for (mname, mdir) in months {
        let files = match std::fs::read_dir(mdir) {
            Ok(f) => f,
            // Removed since it was listed: its files are gone (the plan drops them).
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            // Unreadable (permissions): its day files are left out, as an unreadable day file
            // is, and queries answer from the rest.
            Err(e) => {
                log::warn!("cold/{mname}: cannot be read ({e}): its day files are left out of the index");
                continue;
            }
        };
        for f in files {
            let f = f.map_err(|e| Error::io(mdir, e))?;
            let Ok(fname) = f.file_name().into_string() else { continue };
            let rel = format!("cold/{mname}/{fname}");
            let Some(day) = day_of_cold_rel(&rel) else { continue };
            if !keep(day) {
                continue;
            }
            // fstatat relative to the open month directory (no path walk); symlinks not followed.
            let Ok(meta) = f.metadata() else { continue };
            if !meta.file_type().is_file() {
                continue;
            }
            let (size, mtime_ns, inode) = crate::files::identity::identity(&meta);
            let ctime_ns = crate::files::identity::ctime_ns(&meta);
            out.push(FileStat { rel, day, size, mtime_ns, inode, ctime_ns });
        }
    }
    Ok(out)
}

/// One line that looked like an entry but could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Malformed {
    /// File relative to the data root.
    pub file: String,
    /// 1-based line number (0 for a whole-file problem such as invalid UTF-8).
    pub line: i64,
    /// Why it could not be read.
    pub reason: String,
}

/// What a sync or import changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncReport {
    /// True when the index could not be brought up to date now (another writer holds the
    /// lock: an import or rebuild under way; or a read-only root whose index is behind): it
    /// answers as of its last consistent state. Omitted when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
    /// Cold files found on disk.
    pub files_scanned: usize,
    /// Files (re-)mirrored because their content changed or they are new.
    pub files_mirrored: usize,
    /// Files whose stat changed but whose content did not.
    pub files_unchanged_content: usize,
    /// Files gone from disk whose entries were dropped from the index.
    pub files_removed: usize,
    /// Entries (re-)inserted.
    pub entries_indexed: usize,
    /// Entry-looking lines that could not be read, in the mirrored files.
    pub malformed: Vec<Malformed>,
    /// Day files that could not be read (relative paths): left out of the index, tried again
    /// at every sync; each is also in `malformed` (line 0) with the reason. Omitted when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<String>,
    /// What the sync of the layer files (hot.md, usage.json, summaries) changed.
    pub layers: LayerReport,
}

/// What a layer sync changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LayerReport {
    /// Layer files found on disk.
    pub files_scanned: usize,
    /// Files whose content changed (or that are new) and were re-mirrored.
    pub files_mirrored: usize,
    /// Files gone from disk whose rows were dropped.
    pub files_removed: usize,
    /// True when the usage table was replaced from usage.json (or emptied because it is gone).
    pub usage_reloaded: bool,
    /// Why usage.json could not be read, when it could not (it is rebuilt silently).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage_corrupt: Option<String>,
}

/// Reads, hashes and mirrors the planned files; drops removed ones. Batches of
/// [`BATCH_FILES`] files per transaction. `progress` is called with the number of files done;
/// `tz` (the zone partitioning the day files) is passed to [`mirror_file`].
pub fn apply(
    c: &mut Connection,
    root: &Path,
    p: &Plan,
    known: &HashMap<String, Known>,
    tz: chrono_tz::Tz,
    progress: &mut dyn FnMut(usize),
) -> Result<SyncReport> {
    let mut rep = SyncReport::default();
    for chunk in p.removed.chunks(BATCH_FILES) {
        let tx = c.transaction()?;
        for (rel, day) in chunk {
            delete_day(&tx, *day)?;
            tx.execute("DELETE FROM files WHERE path = ?1", [rel])?;
            tx.execute("DELETE FROM malformed WHERE file = ?1", [rel])?;
            rep.files_removed += 1;
        }
        tx.commit()?;
    }
    let mut done = 0;
    for chunk in p.check.chunks(BATCH_FILES) {
        let tx = c.transaction()?;
        for f in chunk {
            let path = root.join(&f.rel);
            let bytes = match std::fs::read(&path) {
                Ok(b) => b,
                // Deleted between scan and read: the next sync drops it.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    rep.malformed.push(unreadable(&tx, f, &e)?);
                    rep.unreadable.push(f.rel.clone());
                    continue;
                }
            };
            let hash = sha1_hex(&bytes);
            if known.get(&f.rel).is_some_and(|k| k.hash == hash) {
                tx.execute(
                    "UPDATE files SET size = ?2, mtime_ns = ?3, inode = ?4, ctime_ns = ?5 WHERE path = ?1",
                    params![f.rel, bytes.len() as i64, f.mtime_ns, f.inode, f.ctime_ns],
                )?;
                rep.files_unchanged_content += 1;
                continue;
            }
            let stat = FileStat { size: bytes.len() as i64, ..f.clone() };
            let (n, bad) = mirror_file(&tx, &stat, &bytes, &hash, tz)?;
            rep.files_mirrored += 1;
            rep.entries_indexed += n;
            rep.malformed.extend(bad);
        }
        tx.commit()?;
        done += chunk.len();
        progress(done);
    }
    crate::index::compact_after_bulk(c, rep.entries_indexed)?;
    Ok(rep)
}

/// Takes a day file that cannot be read (permissions, an I/O error) out of the index: its
/// entries are dropped — the index never answers for bytes it cannot read — and it is not
/// recorded in `files`, so every later sync tries it again (a `chmod` changes its ctime
/// anyway) and warns again, naming it, while queries answer from the other files. The reason
/// is kept in `malformed` (line 0), which `check` lists. Returns that report.
fn unreadable(tx: &Transaction, f: &FileStat, e: &std::io::Error) -> Result<Malformed> {
    delete_day(tx, f.day)?;
    tx.execute("DELETE FROM files WHERE path = ?1", [&f.rel])?;
    tx.execute("DELETE FROM malformed WHERE file = ?1", [&f.rel])?;
    let m = Malformed {
        file: f.rel.clone(),
        line: 0,
        reason: format!("cannot be read ({e}): not indexed; queries answer from the other day files"),
    };
    record_malformed(tx, &m)?;
    log::warn!("{}: {}", f.rel, m.reason);
    Ok(m)
}

/// Deletes every entry of a local date from `entries`, the FTS5 table, `entry_lens` and
/// `entry_events`.
pub fn delete_day(tx: &Transaction, day: NaiveDate) -> Result<()> {
    let (lo, hi) = id_range(day, day);
    {
        let mut sel = tx.prepare_cached("SELECT id, tag, content FROM entries WHERE id BETWEEN ?1 AND ?2")?;
        let mut del =
            tx.prepare_cached("INSERT INTO entries_fts(entries_fts, rowid, tag, body) VALUES('delete', ?1, ?2, ?3)")?;
        let rows =
            sel.query_map([lo, hi], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)))?;
        for row in rows {
            let (id, tag, content) = row?;
            del.execute(params![id, segment(&tag), segment(&content)])?;
        }
    }
    tx.execute("DELETE FROM entry_rows WHERE id BETWEEN ?1 AND ?2", [lo, hi])?;
    crate::fts5::lens::delete_day(tx, day_number(day))?;
    crate::index::events::delete_ids(tx, lo, hi)?;
    Ok(())
}

/// What the index derives from one entry's text: its FTS5 columns — its tag and its content,
/// segmented ([`segment`]), as `entries_fts` stores them — and its event windows
/// ([`crate::index::events::event_days`], stored in `entry_events`). Computed apart from the
/// insert so that a caller with a second thread (an import's file stage) can segment and parse
/// there, beside the index inserts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FtsText {
    /// `segment(tag)`.
    pub tag: String,
    /// `segment(content)`.
    pub body: String,
    /// The event windows of the content, in the zone partitioning the day files.
    pub events: Vec<crate::index::events::EventDays>,
}

impl FtsText {
    /// The FTS5 columns and event windows of `e`; `tz` is the zone partitioning the day files
    /// ([`crate::index::Store::tz`]), which anchors the event windows.
    pub fn of(e: &crate::files::entry::Entry, tz: chrono_tz::Tz) -> Self {
        FtsText {
            tag: segment(&e.tag),
            body: segment(&e.content),
            events: crate::index::events::event_days(&e.content, e.ts, tz),
        }
    }
}

/// One entry appended to a day file, ready to index: its 1-based line number in the file, the
/// entry, and its FTS5 columns.
#[derive(Debug)]
pub struct Appended<'a> {
    /// 1-based line number in the day file.
    pub line: i64,
    /// The entry as written.
    pub entry: &'a crate::files::entry::Entry,
    /// [`FtsText::of`] the entry.
    pub fts: FtsText,
}

impl<'a> Appended<'a> {
    /// `entry` at `line`, with its FTS5 columns and event windows (in `tz`, the zone
    /// partitioning the day files) computed now.
    pub fn new(line: i64, entry: &'a crate::files::entry::Entry, tz: chrono_tz::Tz) -> Self {
        Appended { line, entry, fts: FtsText::of(entry, tz) }
    }
}

/// Records one malformed line in the `malformed` table (one row per file and line).
fn record_malformed(tx: &Transaction, m: &Malformed) -> Result<()> {
    tx.prepare_cached("INSERT OR REPLACE INTO malformed(file, line, reason) VALUES(?1, ?2, ?3)")?
        .execute(params![m.file, m.line, m.reason])?;
    Ok(())
}

/// The malformed-line report of an entry at `line` of the day file `f` whose timestamp falls
/// on another local date in `tz` than the file's (it is indexed all the same, under the file's
/// date); None when it does not.
fn misdated(f: &FileStat, line: i64, e: &crate::files::entry::Entry, tz: chrono_tz::Tz) -> Option<Malformed> {
    let local = crate::files::local_date(e.ts, tz);
    (local != f.day).then(|| {
        let day = f.day.format("%Y-%m-%d");
        Malformed {
            file: f.rel.clone(),
            line,
            reason: format!(
                "timestamp {} is local date {local} in {tz}, not this file's date {day}; indexed under {day}",
                crate::files::entry::format_ts(e.ts)
            ),
        }
    })
}

/// The report of an indexable line past the most one day can hold ([`MAX_ENTRIES_PER_DAY`]):
/// it is in the file but no query can find it. `write` and `import` refuse to add such lines
/// ([`room_in_day`]); only a hand edit can make a day this long.
fn over_limit(f: &FileStat, line: i64) -> Malformed {
    Malformed {
        file: f.rel.clone(),
        line,
        reason: format!("more than {MAX_ENTRIES_PER_DAY} entries in one day: not indexed (no query can find it)"),
    }
}

/// How many more entries a day file that holds `indexed` indexable lines (entries and bullets
/// without a timestamp) can take before no query could find the next: [`MAX_ENTRIES_PER_DAY`]
/// minus `indexed`, never below 0. The ordinal of an entry id has [`ORDINAL_BITS`] bits
/// (`id = day << 20 | ordinal`), so a day holds at most 2^20 − 1 entries.
pub fn room_in_day(indexed: usize) -> usize {
    MAX_ENTRIES_PER_DAY.saturating_sub(indexed)
}

/// Indexes entries appended to a file whose previous bytes (hash `old_hash`) the index already
/// mirrors, without touching the existing rows. `first_ordinal` is the number of entries the
/// file held before; `lines` are the new entries with their 1-based line numbers and FTS5
/// columns. In `tz` (the zone partitioning the day files), an appended entry dated another
/// local day than the file is recorded in `malformed` as [`mirror_file`] records it (an import
/// of an archive dated in another zone), so the index reports what a rebuild from the file
/// would. Returns false (doing nothing) when
/// the index does not hold `old_hash` for the file, so the caller falls back to
/// [`mirror_file`].
pub fn append_indexed(
    tx: &Transaction,
    f: &FileStat,
    old_hash: &str,
    new_hash: &str,
    first_ordinal: usize,
    lines: &[Appended<'_>],
    tz: chrono_tz::Tz,
) -> Result<bool> {
    // Cached statements: an import runs these once per day file.
    let known: Option<(String, i64)> = tx
        .prepare_cached("SELECT hash, entries FROM files WHERE path = ?1")?
        .query_row([&f.rel], |r| Ok((r.get(0)?, r.get(1)?)))
        .ok();
    match known {
        Some((h, n)) if h == old_hash && n as usize == first_ordinal => {}
        None if old_hash == sha1_hex(b"") && first_ordinal == 0 => {}
        _ => return Ok(false),
    }
    if first_ordinal + lines.len() > MAX_ENTRIES_PER_DAY {
        return Ok(false);
    }
    let day_s = f.day.format("%Y-%m-%d").to_string();
    let base = day_number(f.day) << ORDINAL_BITS;
    let mut lens = Vec::with_capacity(lines.len());
    for (k, a) in lines.iter().enumerate() {
        lens.push(insert_entry(tx, base | (first_ordinal + k) as i64, a.line, a.entry, &a.fts, true)?);
        if let Some(m) = misdated(f, a.line, a.entry, tz) {
            record_malformed(tx, &m)?;
        }
    }
    crate::fts5::lens::append(tx, day_number(f.day), first_ordinal, &lens)?;
    tx.prepare_cached(
        "INSERT OR REPLACE INTO files(path, day, size, mtime_ns, inode, ctime_ns, hash, entries) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![f.rel, day_s, f.size, f.mtime_ns, f.inode, f.ctime_ns, new_hash, (first_ordinal + lines.len()) as i64])?;
    Ok(true)
}

/// Milliseconds in a day.
pub const DAY_MS: i64 = 86_400_000;
/// [`day_number`] of 1970-01-01, the Unix epoch's date.
pub const EPOCH_DAY_NUMBER: i64 = 719_163;

/// The stored instant of an entry (`entry_rows.ts_off`, migration V8): milliseconds from
/// 00:00 UTC of the local date `id` encodes to the UTC instant `ts` (negative in zones ahead
/// of UTC for entries written before midnight UTC). The `entries` view adds them back:
/// `ts_ms = ((id >> 20) - 719163) × 86400000 + ts_off`.
pub fn ts_offset(id: i64, ts: DateTime<Utc>) -> i64 {
    ts.timestamp_millis() - ((id >> ORDINAL_BITS) - EPOCH_DAY_NUMBER) * DAY_MS
}

/// The by_tag key of a tag: its Unicode lowercase (`Rust`, `RUST` → `rust`; `Ä` → `ä`), so
/// listing by tag is case-insensitive beyond ASCII (SQLite's `lower()` folds ASCII only).
pub fn tag_key(tag: &str) -> String {
    tag.to_lowercase()
}

/// The `tags` row of `tag`'s key (migration V8), added when new: its id, and the spelling
/// to store in `entry_rows.tag` (`None` when it is the key's first spelling, `tags.tag`).
fn tag_ref<'t>(c: &Connection, tag: &'t str) -> Result<(i64, Option<&'t str>)> {
    if tag == "-" {
        return Ok((0, None)); // the untagged row every index holds (migration V8)
    }
    let key = tag_key(tag);
    let mut sel = c.prepare_cached("SELECT id, tag FROM tags WHERE key = ?1")?;
    let found: Option<(i64, String)> = sel.query_row([&key], |r| Ok((r.get(0)?, r.get(1)?))).optional()?;
    Ok(match found {
        Some((id, first)) => (id, (first != tag).then_some(tag)),
        None => {
            c.prepare_cached("INSERT INTO tags(key, tag) VALUES(?1, ?2)")?.execute([key.as_str(), tag])?;
            (c.last_insert_rowid(), None)
        }
    })
}

/// Inserts one entry into `entry_rows` (not the FTS5 table): `id` as [`id_range`] assigns
/// them, `line` its 1-based line in the day file (at least its ordinal + 1). The `day`,
/// `file`, `ts` text and `tag_key` of the `entries` view derive from these.
pub fn insert_row(
    c: &Connection,
    id: i64,
    ts: DateTime<Utc>,
    tag: &str,
    content: &str,
    source: Option<&str>,
    line: i64,
) -> Result<()> {
    let (tag_id, spelling) = tag_ref(c, tag)?;
    let skipped = line - 1 - (id & MAX_ENTRIES_PER_DAY as i64);
    let mut ins = c.prepare_cached(
        "INSERT INTO entry_rows(id, ts_off, tag_id, tag, content, source, skipped) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    ins.execute(params![id, ts_offset(id, ts), tag_id, spelling, content, source, skipped])?;
    Ok(())
}

/// The `entry_rows.source` of an entry read from a bullet without a timestamp
/// ([`crate::files::entry::undated_bullet`]): the empty string, which no source marker body can
/// be (a marker body holds a `#`), so no schema change is needed to tell such entries apart.
/// Their instant is the start of their file's local day, a stand-in: results say `tsKnown:
/// false` ([`crate::query::Item::ts_known`]).
pub const UNDATED_SOURCE: &str = "";

/// Inserts one entry into `entry_rows` and, with its FTS5 columns and event windows `fts`, the
/// FTS5 table and `entry_events`;
/// `ts_known` false for a bullet without a timestamp ([`UNDATED_SOURCE`]). Returns its token
/// count ([`crate::fts5::lens::tokens_of`]), which the caller stores with the day's others
/// ([`crate::fts5::lens::append`]).
fn insert_entry(
    tx: &Transaction,
    id: i64,
    lineno: i64,
    e: &crate::files::entry::Entry,
    fts: &FtsText,
    ts_known: bool,
) -> Result<usize> {
    let source = if ts_known { e.source.as_ref().map(|s| s.marker_body()) } else { Some(UNDATED_SOURCE.to_string()) };
    insert_row(tx, id, e.ts, &e.tag, &e.content, source.as_deref(), lineno)?;
    let mut ins = tx.prepare_cached("INSERT INTO entries_fts(rowid, tag, body) VALUES(?1, ?2, ?3)")?;
    ins.execute(params![id, fts.tag, fts.body])?;
    crate::index::events::insert(tx, id, &fts.events)?;
    Ok(crate::fts5::lens::tokens_of(&fts.tag, &fts.body))
}

/// Replaces the index rows of one file with its current content. `bytes` are the file's bytes
/// (invalid UTF-8 is decoded lossily and reported as line 0). Entry lines are indexed, and so
/// is each hand-written bullet without a timestamp (`- 买了新的跑鞋`,
/// [`undated_bullet`](crate::files::entry::undated_bullet)): tag `-`, its instant the start of
/// the file's local day in `tz`, marked time-unknown ([`UNDATED_SOURCE`]); the file is not
/// rewritten to add a timestamp. Returns entries indexed and the malformed lines: entry-looking
/// lines that could not be read, near misses of the entry format
/// ([`near_miss`](crate::files::entry::near_miss)), lines past the day's limit, and entries
/// whose timestamp falls on another local date in `tz` (the zone partitioning the day files,
/// which also anchors event windows) than the file's (indexed all the same, under the file's
/// date).
pub fn mirror_file(
    tx: &Transaction,
    f: &FileStat,
    bytes: &[u8],
    hash: &str,
    tz: chrono_tz::Tz,
) -> Result<(usize, Vec<Malformed>)> {
    debug_assert_eq!(cold_rel(f.day), f.rel);
    delete_day(tx, f.day)?;
    tx.execute("DELETE FROM malformed WHERE file = ?1", [&f.rel])?;
    let mut bad = Vec::new();
    let text = String::from_utf8_lossy(bytes);
    if matches!(text, std::borrow::Cow::Owned(_)) {
        bad.push(Malformed { file: f.rel.clone(), line: 0, reason: "invalid UTF-8 (bad bytes read as U+FFFD)".into() });
    }
    let day_s = f.day.format("%Y-%m-%d").to_string();
    let base = day_number(f.day) << ORDINAL_BITS;
    let mut n = 0usize;
    let mut lens = Vec::new();
    // A bullet without a timestamp is dated at the start of the file's local day.
    let day_start = || crate::temporal::days::local_midnight(f.day, tz);
    for (i, line) in text.split('\n').enumerate() {
        let lineno = i as i64 + 1;
        match parse_line(line) {
            LineKind::Other => match crate::files::entry::undated_bullet(line) {
                Some(_) if n >= MAX_ENTRIES_PER_DAY => bad.push(over_limit(f, lineno)),
                Some(content) => {
                    let e = crate::files::entry::Entry {
                        ts: day_start(),
                        tag: "-".into(),
                        content: content.to_string(),
                        source: None,
                    };
                    lens.push(insert_entry(tx, base | n as i64, lineno, &e, &FtsText::of(&e, tz), false)?);
                    n += 1;
                }
                None => {
                    if let Some(reason) = crate::files::entry::near_miss(line) {
                        bad.push(Malformed { file: f.rel.clone(), line: lineno, reason });
                    }
                }
            },
            LineKind::Malformed(reason) => bad.push(Malformed { file: f.rel.clone(), line: lineno, reason }),
            LineKind::Entry(_) if n >= MAX_ENTRIES_PER_DAY => bad.push(over_limit(f, lineno)),
            LineKind::Entry(e) => {
                bad.extend(misdated(f, lineno, &e, tz));
                lens.push(insert_entry(tx, base | n as i64, lineno, &e, &FtsText::of(&e, tz), true)?);
                n += 1;
            }
        }
    }
    if text.contains('\0') {
        // One row per (file, line): a second whole-file problem joins the first's reason.
        match bad.iter_mut().find(|m| m.line == 0) {
            Some(m) => m.reason.push_str("; file contains NUL bytes"),
            None => bad.push(Malformed { file: f.rel.clone(), line: 0, reason: "file contains NUL bytes".into() }),
        }
    }
    for m in &bad {
        record_malformed(tx, m)?;
    }
    crate::fts5::lens::append(tx, day_number(f.day), 0, &lens)?;
    tx.execute(
        "INSERT OR REPLACE INTO files(path, day, size, mtime_ns, inode, ctime_ns, hash, entries) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![f.rel, day_s, f.size, f.mtime_ns, f.inode, f.ctime_ns, hash, n as i64],
    )?;
    Ok((n, bad))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(rel: &str, size: i64, mtime: i64) -> FileStat {
        FileStat {
            rel: rel.into(),
            day: day_of_cold_rel(rel).unwrap(),
            size,
            mtime_ns: mtime,
            inode: 7,
            ctime_ns: mtime,
        }
    }

    fn ks(rel: &str, size: i64, mtime: i64) -> KnownStat {
        KnownStat { rel: rel.into(), size, mtime_ns: mtime, inode: 7, ctime_ns: mtime }
    }

    #[test]
    fn changed_agrees_with_plan_on_every_kind_of_difference() {
        let (a, b, c) = ("cold/2026-10/2026-10-01.md", "cold/2026-10/2026-10-02.md", "cold/2026-11/2026-11-01.md");
        let same = [st(a, 10, 1), st(b, 20, 2), st(c, 30, 3)];
        let rec = [ks(a, 10, 1), ks(b, 20, 2), ks(c, 30, 3)];
        let mut ctime = st(b, 20, 2);
        ctime.ctime_ns = 9; // same size and mtime, later ctime (`touch -r` after an edit)
        let mut inode = st(c, 30, 3);
        inode.inode = 8; // replaced by an editor's rename
        let cases: Vec<(&str, Vec<FileStat>, Vec<KnownStat>, bool)> = vec![
            ("identical", same.to_vec(), rec.to_vec(), false),
            ("both empty", vec![], vec![], false),
            ("grew", vec![st(a, 10, 1), st(b, 21, 2), st(c, 30, 3)], rec.to_vec(), true),
            ("mtime", vec![st(a, 10, 1), st(b, 20, 5), st(c, 30, 3)], rec.to_vec(), true),
            ("ctime only", vec![st(a, 10, 1), ctime, st(c, 30, 3)], rec.to_vec(), true),
            ("inode only", vec![st(a, 10, 1), st(b, 20, 2), inode], rec.to_vec(), true),
            (
                "new first",
                vec![st("cold/2026-09/2026-09-30.md", 1, 1), st(a, 10, 1), st(b, 20, 2), st(c, 30, 3)],
                rec.to_vec(),
                true,
            ),
            (
                "new between",
                vec![st(a, 10, 1), st(b, 20, 2), st("cold/2026-10/2026-10-09.md", 1, 1), st(c, 30, 3)],
                rec.to_vec(),
                true,
            ),
            (
                "new last",
                vec![st(a, 10, 1), st(b, 20, 2), st(c, 30, 3), st("cold/2026-12/2026-12-01.md", 1, 1)],
                rec.to_vec(),
                true,
            ),
            ("removed middle", vec![st(a, 10, 1), st(c, 30, 3)], rec.to_vec(), true),
            ("removed last", vec![st(a, 10, 1), st(b, 20, 2)], rec.to_vec(), true),
            ("all removed", vec![], rec.to_vec(), true),
            ("nothing recorded", same.to_vec(), vec![], true),
            // A recorded row that names no day file is not a removal (plan skips it too).
            (
                "stray row",
                same.to_vec(),
                vec![ks(a, 10, 1), ks(b, 20, 2), ks(c, 30, 3), ks("cold/notes.md", 1, 1)],
                false,
            ),
        ];
        for (name, disk, known, want) in cases {
            assert_eq!(changed(&disk, &known), want, "{name}");
            let map: HashMap<String, Known> = known
                .iter()
                .map(|k| {
                    let v = Known {
                        size: k.size,
                        mtime_ns: k.mtime_ns,
                        inode: k.inode,
                        ctime_ns: k.ctime_ns,
                        hash: String::new(),
                    };
                    (k.rel.clone(), v)
                })
                .collect();
            assert_eq!(!plan(&disk, &map).is_empty(), want, "plan, {name}");
        }
    }

    #[test]
    fn plan_detects_new_changed_and_removed() {
        let known: HashMap<String, Known> = [
            (
                "cold/2026-10/2026-10-01.md".to_string(),
                Known { size: 10, mtime_ns: 1, inode: 7, ctime_ns: 1, hash: "a".into() },
            ),
            (
                "cold/2026-10/2026-10-02.md".to_string(),
                Known { size: 10, mtime_ns: 1, inode: 7, ctime_ns: 1, hash: "b".into() },
            ),
            (
                "cold/2026-10/2026-10-03.md".to_string(),
                Known { size: 10, mtime_ns: 1, inode: 7, ctime_ns: 1, hash: "c".into() },
            ),
        ]
        .into();
        let disk = vec![
            st("cold/2026-10/2026-10-01.md", 10, 1), // unchanged
            st("cold/2026-10/2026-10-02.md", 11, 1), // grew
            st("cold/2026-10/2026-10-04.md", 5, 1),  // new
        ];
        let p = plan(&disk, &known);
        let check: Vec<&str> = p.check.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(check, ["cold/2026-10/2026-10-02.md", "cold/2026-10/2026-10-04.md"]);
        assert_eq!(
            p.removed,
            vec![("cold/2026-10/2026-10-03.md".to_string(), NaiveDate::from_ymd_opt(2026, 10, 3).unwrap())]
        );
    }

    #[test]
    fn id_ranges_are_day_aligned() {
        let d = NaiveDate::from_ymd_opt(2026, 10, 21).unwrap();
        let (lo, hi) = id_range(d, d);
        assert_eq!(hi - lo + 1, 1 << 20);
        assert_eq!(lo >> 20, day_number(d));
        let (lo2, _) = id_range(d.succ_opt().unwrap(), d.succ_opt().unwrap());
        assert_eq!(lo2, hi + 1);
    }
}

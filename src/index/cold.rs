//! The cold files' side of a [`Store`]: bringing the index up to date with `cold/` (through
//! the watch of a long-lived handle, or a scan scoped to a query's days on a per-call one) and
//! mirroring a day file this process just wrote. Free functions over the store's context; the
//! watch and the stat started at open are the store's (`index::store`), read only here.

use std::collections::HashMap;
use std::path::Path;

use chrono::NaiveDate;
use chrono_tz::Tz;
use rusqlite::Connection;

use crate::index::Store;
use crate::index::mirror::{self, Known, Mirror, Table};
use crate::index::store::{Locking, SyncPolicy, SyncScope, WriteSession};
use crate::index::sync::{self, FileStat, Plan, SyncReport};
use crate::index::watch::ColdWatch;
use crate::{Error, Result};

/// Brings the index up to date with the cold files, as `policy` says: stats the cold files
/// and re-mirrors the ones whose size, mtime or inode changed and whose content hash differs;
/// drops the entries of deleted files. A watching store (a long-lived handle) does nothing
/// while the inotify watch armed at its previous scan saw no change (see
/// [`crate::index::watch`]), and scans every file otherwise; a per-call store stats only the
/// day files of `policy.days` (listing only their month folders). `progress` receives the
/// number of files done. The report's `layers` part is left empty. Errors: index, I/O; the
/// writer lock as `policy.locking` takes it (a lock timeout, or the "busy" error of
/// [`Locking::IfFree`]).
pub(crate) fn sync_cold(store: &Store, policy: SyncPolicy<'_>, progress: &mut dyn FnMut(usize)) -> Result<SyncReport> {
    if !store.watching() {
        return scan_and_apply(store, policy.full, policy.days, policy.locking, progress);
    }
    let mut watch = store.watch.lock().unwrap_or_else(|e| e.into_inner());
    if !policy.full
        && let Some(w) = watch.as_mut()
        && w.quiet()
    {
        return Ok(SyncReport { files_scanned: w.files, ..Default::default() });
    }
    // Armed before the scan: a change made during or after it is pending at the next sync.
    *watch = ColdWatch::arm(store.root());
    let rep = scan_and_apply(store, policy.full, SyncScope::All, policy.locking, progress);
    match (&rep, watch.as_mut()) {
        (Ok(r), Some(w)) => w.files = r.files_scanned,
        (Err(_), _) => *watch = None,
        _ => {}
    }
    rep
}

fn scan_and_apply(
    store: &Store,
    full: bool,
    scope: SyncScope,
    locking: Locking<'_>,
    progress: &mut dyn FnMut(usize),
) -> Result<SyncReport> {
    let mut c = store.conn()?;
    let mut m = ColdMirror { root: store.root(), tz: store.tz(), full, scope, progress };
    let done = mirror::mirror_changes(&mut m, &mut c, || store.mirror_guard(locking))?;
    let files_scanned = done.first.len();
    Ok(match done.applied {
        None => SyncReport { files_scanned, ..Default::default() },
        Some((_, applied)) => SyncReport { files_scanned, ..applied },
    })
}

/// True when some cold file differs from what the index records (new, removed, or size,
/// mtime, inode or ctime changed): the check of [`sync_cold`] without mirroring.
/// Both sides sorted by path and compared in one pass ([`sync::changed`]); the disk side
/// from the stat started at open ([`Store::set_prescan`]) when there is one.
pub(crate) fn cold_changed(store: &Store) -> Result<bool> {
    let started = store.prescan.lock().unwrap_or_else(|e| e.into_inner()).take();
    let disk = match started.map(|h| h.join()) {
        Some(Ok(scan)) => scan?,
        // No stat started, or its thread panicked: stat now.
        _ => sync::scan_disk(store.root())?,
    };
    let c = store.conn()?;
    let mut st = c.prepare_cached("SELECT path, size, mtime_ns, inode, ctime_ns FROM files ORDER BY path")?;
    let known = st
        .query_map([], |r| {
            Ok(sync::KnownStat {
                rel: r.get(0)?,
                size: r.get(1)?,
                mtime_ns: r.get(2)?,
                inode: r.get(3)?,
                ctime_ns: r.get(4)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(sync::changed(&disk, &known))
}

/// Mirrors one cold file (after this process wrote it), under the writer lock the caller
/// holds.
pub(crate) fn mirror_day(lock: &WriteSession<'_>, day: NaiveDate) -> Result<()> {
    let store = lock.store();
    let path = store.root().join(crate::files::cold_rel(day));
    let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
    mirror_appended(lock, day, &[], 0, &bytes, &[])
}

/// Mirrors a day file this process just wrote as `bytes`. When `old_bytes` (holding
/// `old_entries` entries) is what the index already mirrors and `appended` are the entries
/// added after it, only those are inserted; otherwise the whole day is re-mirrored.
pub(crate) fn mirror_appended(
    lock: &WriteSession<'_>,
    day: NaiveDate,
    old_bytes: &[u8],
    old_entries: usize,
    bytes: &[u8],
    appended: &[(i64, &crate::files::entry::Entry)],
) -> Result<()> {
    let store = lock.store();
    let path = store.root().join(crate::files::cold_rel(day));
    let meta = std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?;
    let appended: Vec<sync::Appended> = appended.iter().map(|(l, e)| sync::Appended::new(*l, e, store.tz())).collect();
    let written = WrittenFile::new(day, meta, old_bytes, old_entries, bytes, appended);
    let mut c = store.conn()?;
    let tx = c.transaction()?;
    mirror_written_in(store, &tx, &written)?;
    tx.commit()?;
    Ok(())
}

/// Mirrors a day file this process wrote ([`WrittenFile`]) inside the caller's transaction
/// (an import mirrors a batch of days in one), under the writer lock the caller holds: the
/// appended entries alone when the index mirrors the bytes before them, else the whole day
/// from `bytes`. The index records the identity in `meta`, taken right after the write, so
/// an edit made after it is seen by the next sync.
pub(crate) fn mirror_written_in(store: &Store, tx: &rusqlite::Transaction, w: &WrittenFile<'_>) -> Result<()> {
    let rel = crate::files::cold_rel(w.day);
    let (_, mtime_ns, inode) = crate::files::identity::identity(&w.meta);
    let ctime_ns = crate::files::identity::ctime_ns(&w.meta);
    let stat = sync::FileStat { rel, day: w.day, size: w.bytes.len() as i64, mtime_ns, inode, ctime_ns };
    let done = !w.appended.is_empty()
        && sync::append_indexed(tx, &stat, &w.old_hash, &w.hash, w.old_entries, &w.appended, store.tz())?;
    if !done {
        sync::mirror_file(tx, &stat, w.bytes, &w.hash, store.tz())?;
    }
    Ok(())
}

/// A day file this process just wrote, with everything its mirror needs
/// ([`crate::index::cold::mirror_written_in`]): hashes and segmented entries are computed where the file was
/// written, so an import does that work on its file thread, beside the index inserts of the
/// batch before (the index thread set the import's pace).
#[derive(Debug)]
pub(crate) struct WrittenFile<'a> {
    /// The file's local date.
    pub day: NaiveDate,
    /// Its metadata right after the write.
    pub meta: std::fs::Metadata,
    /// SHA-1 (hex) of its bytes before the write, and the entries those held.
    pub old_hash: String,
    pub old_entries: usize,
    /// Its bytes after the write, and their SHA-1 (hex).
    pub bytes: &'a [u8],
    pub hash: String,
    /// The entries appended after the old bytes, in file order.
    pub appended: Vec<sync::Appended<'a>>,
}

impl<'a> WrittenFile<'a> {
    /// The written file `day` (`meta` read right after the write) that held `old_bytes`
    /// (`old_entries` entries) and now holds `bytes`, `appended` added after the old bytes.
    pub(crate) fn new(
        day: NaiveDate,
        meta: std::fs::Metadata,
        old_bytes: &[u8],
        old_entries: usize,
        bytes: &'a [u8],
        appended: Vec<sync::Appended<'a>>,
    ) -> Self {
        WrittenFile {
            day,
            meta,
            old_hash: sync::sha1_hex(old_bytes),
            old_entries,
            bytes,
            hash: sync::sha1_hex(bytes),
            appended,
        }
    }
}

/// The cold files as a [`Mirror`]: `cold/YYYY-MM/YYYY-MM-DD.md` into `files` and `entries`.
struct ColdMirror<'a> {
    root: &'a Path,
    /// The configured zone: entries dated another local day than their file are reported.
    tz: Tz,
    /// Re-read every file regardless of stats.
    full: bool,
    /// The day files to check.
    scope: SyncScope,
    progress: &'a mut dyn FnMut(usize),
}

impl Mirror for ColdMirror<'_> {
    type Disk = Vec<FileStat>;
    type Plan = Plan;
    type Report = SyncReport;
    const TABLE: Table = Table::Files;

    fn scan(&self) -> Result<Vec<FileStat>> {
        match self.scope {
            SyncScope::All => sync::scan_disk(self.root),
            SyncScope::Days(a, b) => sync::scan_days(self.root, a, b),
        }
    }

    fn known(&self, c: &Connection) -> Result<HashMap<String, Known>> {
        match self.scope {
            SyncScope::All => mirror::known(c, Table::Files),
            SyncScope::Days(a, b) => {
                mirror::known_between(c, Table::Files, &crate::files::cold_rel(a), &crate::files::cold_rel(b))
            }
        }
    }

    fn plan(&self, disk: &Vec<FileStat>, known: &HashMap<String, Known>) -> Plan {
        let mut p = sync::plan(disk, known);
        if self.full {
            p.check = disk.clone();
        }
        p
    }

    fn is_empty(plan: &Plan) -> bool {
        plan.is_empty()
    }

    fn apply(&mut self, c: &mut Connection, plan: &Plan, known: &HashMap<String, Known>) -> Result<SyncReport> {
        sync::apply(c, self.root, plan, known, self.tz, self.progress)
    }
}

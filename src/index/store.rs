//! [`Store`]: what every subsystem needs from an open data root — its path, its
//! configuration, the index connection pool, the writer lock and the clock — and the cold
//! mirror on top of them. The query, layer and import code takes a `&Store`, never the
//! [`crate::Memory`] facade, so no folder depends on the one above it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use rusqlite::Connection;

use crate::files::lock::{self, WriterLock};
use crate::index::mirror::{self, Known, Mirror, Table};
use crate::index::sync::{self, FileStat, Plan, SyncReport};
use crate::index::watch::ColdWatch;
use crate::index::{self, DbPool, OpenState};
use crate::{Config, Error, Result};

thread_local! {
    /// "Now" pinned for the call running on this thread ([`at_instant`]).
    static CALL_NOW: std::cell::Cell<Option<DateTime<Utc>>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with "now" pinned to `now` (a UTC instant) for every [`Store::now`] read on this
/// thread until it returns (panics included), over any pin of the handle: one call pinned on
/// a long-lived handle that otherwise reads the clock, as `memlayers serve` answers a CLI call
/// made with `--now` (such calls ran in-process, 8–11 ms over the library for an
/// unwindowed query at 1M entries, against 1.5–2.3 ms through the server). Only this thread:
/// other callers sharing the handle keep their own clock.
pub(crate) fn at_instant<R>(now: DateTime<Utc>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<DateTime<Utc>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CALL_NOW.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(CALL_NOW.with(|c| c.replace(Some(now))));
    f()
}

/// The system clock, truncated to milliseconds (the precision of entry timestamps): the one
/// place the engine reads it.
fn system_now() -> DateTime<Utc> {
    #[allow(clippy::disallowed_methods)] // the one place that reads the clock
    let n = Utc::now();
    DateTime::from_timestamp_millis(n.timestamp_millis()).unwrap_or(n)
}

/// How far a pinned clock may run ahead of the system clock before the usage ledger stops
/// following it (`Store::ledger_now`): one day, the most two honest clocks differ by when
/// one of them reads a local time as UTC (zones span UTC−12 to UTC+14).
pub const LEDGER_CLOCK_LEAD: chrono::Duration = chrono::Duration::days(1);

/// An open data root: path, configuration, index pool, lock and clock.
#[derive(Debug)]
pub struct Store {
    pub(crate) root: PathBuf,
    pub(crate) config: Config,
    /// The zone the root's files are dated in (`files::zone`: recorded in memlayers.json).
    partition_tz: Tz,
    /// True from an open that recorded the zone (a new data root) until the first write or
    /// import through this handle reports it ([`Store::take_zone_recorded`]).
    zone_created: AtomicBool,
    pool: DbPool,
    fixed_now: Option<DateTime<Utc>>,
    /// True while this handle holds usage hits not yet written to usage.json (usage ops).
    pub(crate) usage_pending: AtomicBool,
    /// Queries hold their usage hits back in [`Store::deferred_hits`] (a server that replies
    /// first and records them after: `Memory::defer_hits`).
    pub(crate) defer_hits: AtomicBool,
    /// Usage hits held back while `defer_hits` is set: the instant of each query and the texts
    /// it returned, in query order.
    pub(crate) deferred_hits: Mutex<Vec<(DateTime<Utc>, Vec<String>)>>,
    /// Changes under cold/ since the last scan (None: scan at every sync).
    watch: Mutex<Option<ColdWatch>>,
    /// Changes of the live layer files since their last check (a watching store only).
    pub(crate) layer_watch: Mutex<crate::index::watch::LayerState>,
    /// Why the data root cannot be written (`None`: it can): queries only (a read-only mount, another
    /// user's folder).
    pub(crate) read_only: Option<String>,
    /// Where a read-only root's index lives (kept alive: a temporary one is deleted on drop).
    ro_index: Option<index::ReadOnlyIndex>,
    /// False for a per-call store ([`Store::open`] with `per_call`): no inotify watch, cold
    /// checks scoped to the files a query reads ([`Store::sync_days`]), and usage hits held
    /// back by the throttle left to a later call instead of flushed at drop.
    pub(crate) watching: bool,
    /// Document frequencies of query phrases, kept while the FTS5 index is unchanged
    /// (`fts5::bm25`).
    pub(crate) df_memo: Mutex<crate::fts5::bm25::DfMemo>,
    /// A stat of every cold file started before the index was opened
    /// ([`crate::Memory::open_per_call_scanning`]), taken by the first check that needs one.
    prescan: Mutex<Option<std::thread::JoinHandle<Result<Vec<sync::FileStat>>>>>,
}

/// The cold files a query reads, so a per-call check can stat only those
/// ([`Store::sync_days`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncScope {
    /// Every day file (unwindowed queries, listings by tag, layer commands).
    All,
    /// The day files of local dates `from..=to` (inclusive).
    Days(NaiveDate, NaiveDate),
}

impl Store {
    /// Opens (or creates, or rebuilds) `root/index.sqlite3`; creates `root` if missing.
    /// Returns the store, whether the index was fresh, and warnings (a corrupt index moved
    /// aside). Errors: `root` is not a folder or cannot be created; the index cannot be
    /// created.
    ///
    /// `per_call`: this process makes one call and exits (the CLI): the store keeps no inotify
    /// watch, whose 120-odd watches cost more to add and to close (11–14 ms at 1M entries)
    /// than the call itself, and checks only the day files each query reads
    /// ([`Store::sync_days`]); its connections leave the WAL for a later checkpoint
    /// ([`index::open`]).
    pub(crate) fn open(root: &Path, config: Config, per_call: bool) -> Result<(Store, OpenState, Vec<String>)> {
        let root = root.to_path_buf();
        if root.exists() && !root.is_dir() {
            return Err(Error::bad("data-root", format!("{} exists and is not a folder", root.display())));
        }
        std::fs::create_dir_all(&root).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotADirectory => {
                Error::bad("data-root", format!("{} cannot be a folder: a part of its path is a file", root.display()))
            }
            _ => Error::io(&root, e),
        })?;
        // The root's real path: the index is opened with SQLite's NOFOLLOW, which refuses a
        // symlink in any component of the path (a symlinked home, data folder, or macOS's
        // /tmp → /private/tmp), while a link planted inside the root stays refused.
        #[cfg(unix)]
        let root = std::fs::canonicalize(&root).map_err(|e| Error::io(&root, e))?;
        let read_only = crate::files::read_only_cause(&root);
        let (pool, state, mut warnings, ro_index) = match &read_only {
            None => {
                let (pool, state, warnings) = index::open(&root.join(index::INDEX_FILE), per_call)?;
                (pool, state, warnings, None)
            }
            Some(cause) => {
                let (pool, state, ro) = index::open_read_only(&root)?;
                let how = match ro {
                    index::ReadOnlyIndex::InPlace => "its index as it is",
                    index::ReadOnlyIndex::Temporary(_) => "a temporary index built from the files",
                };
                let w = format!(
                    "data root {} is read-only ({cause}): queries answer from {how}; no usage hits are recorded and writes are refused",
                    root.display()
                );
                (pool, state, vec![w], Some(ro))
            }
        };
        let zone = crate::files::zone::resolve(&root, config.timezone);
        warnings.extend(zone.warnings);
        let store = Store {
            root,
            config,
            partition_tz: zone.zone,
            zone_created: AtomicBool::new(zone.created),
            pool,
            fixed_now: None,
            usage_pending: Default::default(),
            defer_hits: Default::default(),
            deferred_hits: Default::default(),
            watch: Mutex::new(None),
            layer_watch: Default::default(),
            read_only,
            ro_index,
            watching: !per_call,
            df_memo: Default::default(),
            prescan: Mutex::new(None),
        };
        Ok((store, state, warnings))
    }

    /// Hands over a stat of every cold file (`sync::scan_disk`) started on another thread
    /// before the store was opened; the next check of the cold files without a time window
    /// uses it instead of stating them again.
    pub(crate) fn set_prescan(&mut self, scan: std::thread::JoinHandle<Result<Vec<sync::FileStat>>>) {
        *self.prescan.get_mut().unwrap_or_else(|e| e.into_inner()) = Some(scan);
    }

    /// Pins "now" (UTC) for everything done through this store.
    pub(crate) fn pin_now(&mut self, now: DateTime<Utc>) {
        self.fixed_now = Some(now);
    }

    /// The current instant: the one pinned for the running call ([`at_instant`]), else the
    /// handle's ([`Store::pin_now`]), else the system clock truncated to milliseconds (the
    /// precision of entry timestamps).
    pub fn now(&self) -> DateTime<Utc> {
        CALL_NOW.with(std::cell::Cell::get).or(self.fixed_now).unwrap_or_else(system_now)
    }

    /// True when "now" is pinned ([`at_instant`], [`Store::pin_now`]), false when it is the
    /// system clock's.
    pub(crate) fn clock_pinned(&self) -> bool {
        CALL_NOW.with(std::cell::Cell::get).or(self.fixed_now).is_some()
    }

    /// The instant the usage ledger records for what is done now: [`Store::now`], except that a
    /// pinned clock more than [`LEDGER_CLOCK_LEAD`] ahead of the system clock (`--now 2035-…`)
    /// records at the system clock's instant. A hit moves its record's decay anchor to the
    /// instant it is recorded at, and decay only runs forward from the anchor: one call from a
    /// far-future clock would otherwise stop the decay of every record it hit until the real
    /// clock caught up (a weight held at 62 for years). A pinned clock in the past, or less than
    /// a day ahead (a zone mistaken for UTC, a skewed machine), is recorded as it is.
    pub(crate) fn ledger_now(&self) -> DateTime<Utc> {
        let now = self.now();
        if !self.clock_pinned() {
            return now;
        }
        let real = system_now();
        if now - real > LEDGER_CLOCK_LEAD { real } else { now }
    }

    /// Today's local date in the zone the root's files are dated in ([`Store::tz`]).
    pub fn today(&self) -> NaiveDate {
        crate::files::local_date(self.now(), self.tz())
    }

    /// The data root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The zone the root's files are dated in: recorded in `memlayers.json` (`files::zone`),
    /// else the configured one. It partitions cold files by local date.
    pub fn tz(&self) -> Tz {
        self.partition_tz
    }

    /// `Some(zone)` the first time a write or an import through this handle asks, when opening
    /// it recorded the zone of a new data root in `memlayers.json` ([`crate::files::zone`]:
    /// how a root's zone is chosen, and why it cannot change in place); `None` otherwise.
    pub(crate) fn take_zone_recorded(&self) -> Option<Tz> {
        self.zone_created.swap(false, std::sync::atomic::Ordering::Relaxed).then_some(self.partition_tz)
    }

    /// The configured zone (`--tz`, config `timezone`): frames time expressions. Differs from
    /// [`Store::tz`] only when the root records another zone (a warning at open says so).
    pub fn frame_tz(&self) -> Tz {
        self.config.timezone
    }

    /// A connection to the index, from this store's [`DbPool`].
    pub fn conn(&self) -> Result<crate::index::Conn<'_>> {
        self.pool.get()
    }

    /// Takes the writer lock (bounded by `lockTimeoutMs`). Errors: [`Error::LockTimeout`];
    /// [`Error::ReadOnly`] on a data root that cannot be written (every write path starts
    /// here, so writes fail before touching anything, naming the real cause).
    pub fn lock(&self) -> Result<WriterLock> {
        if let Some(cause) = &self.read_only {
            return Err(Error::ReadOnly { path: self.root.clone(), cause: cause.clone() });
        }
        lock::acquire(&self.root, Duration::from_millis(self.config.lock_timeout_ms))
    }

    /// The writer lock for mirroring files into the index. `wait`: as [`Store::lock`];
    /// otherwise only if free now, else the "busy" error ([`is_busy`]). On a read-only root
    /// with a temporary index the lock is taken all the same (it creates nothing); with the
    /// root's own index opened in place nothing can be mirrored: always busy.
    pub(crate) fn mirror_lock(&self, wait: bool) -> Result<WriterLock> {
        if matches!(self.ro_index, Some(index::ReadOnlyIndex::InPlace)) {
            return Err(self.busy());
        }
        if wait {
            return lock::acquire(&self.root, Duration::from_millis(self.config.lock_timeout_ms));
        }
        lock::try_acquire(&self.root)?.ok_or_else(|| self.busy())
    }

    /// The error [`Store::mirror_lock`] returns when it does not wait: a lock timeout after 0 ms.
    fn busy(&self) -> Error {
        Error::LockTimeout { path: self.root.clone(), waited_ms: 0 }
    }

    /// Marks, in the index, that a long write (an import) is under way while `_lock` is held:
    /// readers that find the mark and the lock taken say `stale`. Cleared when the guard drops
    /// (a mark left by a killed process is ignored: its lock is free).
    pub(crate) fn mark_busy(&self, _lock: &WriterLock, what: &str) -> Result<BusyMark<'_>> {
        self.conn()?.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)", [META_BUSY, what])?;
        Ok(BusyMark { store: self })
    }

    /// True when a writer marked a long write ([`Store::mark_busy`]) and holds the lock now.
    pub(crate) fn writer_busy(&self) -> Result<bool> {
        use rusqlite::OptionalExtension;
        let c = self.conn()?;
        let mark: Option<String> = c
            .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
            .query_row([META_BUSY], |r| r.get(0))
            .optional()?;
        Ok(mark.is_some() && lock::try_acquire(&self.root)?.is_none())
    }

    /// Brings the index up to date with the cold files: stats every cold file and re-mirrors
    /// the ones whose size, mtime or inode changed and whose content hash differs; drops the
    /// entries of deleted files. Free when the inotify watch armed at the previous scan saw
    /// nothing change (see [`crate::index::watch`]). The report's `layers` part is left empty.
    pub(crate) fn sync_cold(&self, full: bool, progress: &mut dyn FnMut(usize)) -> Result<SyncReport> {
        self.sync_cold_with(full, true, progress)
    }

    /// [`Store::sync_cold`]; without `wait`, a busy writer lock is the "busy" error
    /// ([`is_busy`]) instead of a wait.
    pub(crate) fn sync_cold_with(&self, full: bool, wait: bool, progress: &mut dyn FnMut(usize)) -> Result<SyncReport> {
        if !self.watching {
            return self.scan_and_apply(full, SyncScope::All, wait, progress);
        }
        let mut watch = self.watch.lock().unwrap_or_else(|e| e.into_inner());
        if !full
            && let Some(w) = watch.as_mut()
            && w.quiet()
        {
            return Ok(SyncReport { files_scanned: w.files, ..Default::default() });
        }
        // Armed before the scan: a change made during or after it is pending at the next sync.
        *watch = ColdWatch::arm(&self.root);
        let rep = self.scan_and_apply(full, SyncScope::All, wait, progress);
        match (&rep, watch.as_mut()) {
            (Ok(r), Some(w)) => w.files = r.files_scanned,
            (Err(_), _) => *watch = None,
            _ => {}
        }
        rep
    }

    /// The cold part of [`Store::sync_days`] on a per-call store: stats only the day files of
    /// `scope` (listing only its month folders) and mirrors the ones changed, added or removed
    /// there, waiting for the writer lock. Errors: as [`Store::sync`].
    pub(crate) fn sync_cold_days(&self, scope: SyncScope) -> Result<SyncReport> {
        self.scan_and_apply(false, scope, true, &mut |_| {})
    }

    /// The cold part of a reader's sync ([`Store::sync_reader`]) for `scope`: never waits for
    /// the writer lock (the "busy" error instead, [`is_busy`]).
    pub(crate) fn sync_cold_reader(&self, full: bool, scope: SyncScope) -> Result<SyncReport> {
        if self.watching || scope == SyncScope::All {
            return self.sync_cold_with(full, false, &mut |_| {});
        }
        self.scan_and_apply(false, scope, false, &mut |_| {})
    }

    fn scan_and_apply(
        &self,
        full: bool,
        scope: SyncScope,
        wait: bool,
        progress: &mut dyn FnMut(usize),
    ) -> Result<SyncReport> {
        let mut c = self.conn()?;
        let mut m = ColdMirror { root: &self.root, tz: self.tz(), full, scope, progress };
        let done = mirror::mirror_changes(&mut m, &mut c, None, || self.mirror_lock(wait))?;
        let files_scanned = done.first.len();
        Ok(match done.applied {
            None => SyncReport { files_scanned, ..Default::default() },
            Some((_, applied)) => SyncReport { files_scanned, ..applied },
        })
    }

    /// True when some cold file differs from what the index records (new, removed, or size,
    /// mtime, inode or ctime changed): the check of [`Store::sync_cold`] without mirroring.
    /// Both sides sorted by path and compared in one pass ([`sync::changed`]); the disk side
    /// from the stat started at open ([`Store::set_prescan`]) when there is one.
    pub(crate) fn cold_changed(&self) -> Result<bool> {
        let started = self.prescan.lock().unwrap_or_else(|e| e.into_inner()).take();
        let disk = match started.map(|h| h.join()) {
            Some(Ok(scan)) => scan?,
            // No stat started, or its thread panicked: stat now.
            _ => sync::scan_disk(&self.root)?,
        };
        let c = self.conn()?;
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

    /// True when this store keeps an inotify watch (a long-lived handle), false for a
    /// per-call handle.
    pub(crate) fn watching(&self) -> bool {
        self.watching
    }

    /// Mirrors one cold file (after this process wrote it), under the writer lock the caller
    /// holds.
    pub(crate) fn mirror_day(&self, lock: &WriterLock, day: NaiveDate) -> Result<()> {
        let path = self.root.join(crate::files::cold_rel(day));
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        self.mirror_appended(lock, day, &[], 0, &bytes, &[])
    }

    /// Mirrors a day file this process just wrote as `bytes`. When `old_bytes` (holding
    /// `old_entries` entries) is what the index already mirrors and `appended` are the entries
    /// added after it, only those are inserted; otherwise the whole day is re-mirrored.
    pub(crate) fn mirror_appended(
        &self,
        _lock: &WriterLock,
        day: NaiveDate,
        old_bytes: &[u8],
        old_entries: usize,
        bytes: &[u8],
        appended: &[(i64, &crate::files::entry::Entry)],
    ) -> Result<()> {
        let path = self.root.join(crate::files::cold_rel(day));
        let meta = std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?;
        let appended: Vec<sync::Appended> =
            appended.iter().map(|(l, e)| sync::Appended::new(*l, e, self.tz())).collect();
        let written = WrittenFile::new(day, meta, old_bytes, old_entries, bytes, appended);
        let mut c = self.conn()?;
        let tx = c.transaction()?;
        self.mirror_written_in(&tx, &written)?;
        tx.commit()?;
        Ok(())
    }

    /// Mirrors a day file this process wrote ([`WrittenFile`]) inside the caller's transaction
    /// (an import mirrors a batch of days in one), under the writer lock the caller holds: the
    /// appended entries alone when the index mirrors the bytes before them, else the whole day
    /// from `bytes`. The index records the identity in `meta`, taken right after the write, so
    /// an edit made after it is seen by the next sync.
    pub(crate) fn mirror_written_in(&self, tx: &rusqlite::Transaction, w: &WrittenFile<'_>) -> Result<()> {
        let rel = crate::files::cold_rel(w.day);
        let (_, mtime_ns, inode) = crate::files::identity::identity(&w.meta);
        let ctime_ns = crate::files::identity::ctime_ns(&w.meta);
        let stat = sync::FileStat { rel, day: w.day, size: w.bytes.len() as i64, mtime_ns, inode, ctime_ns };
        let done = !w.appended.is_empty()
            && sync::append_indexed(tx, &stat, &w.old_hash, &w.hash, w.old_entries, &w.appended, self.tz())?;
        if !done {
            sync::mirror_file(tx, &stat, w.bytes, &w.hash, self.tz())?;
        }
        Ok(())
    }
}

/// A day file this process just wrote, with everything its mirror needs
/// ([`Store::mirror_written_in`]): hashes and segmented entries are computed where the file was
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

/// `meta` key of `Store::mark_busy`: what a long write under the lock is doing.
pub const META_BUSY: &str = "writer_busy";

/// True for the "busy" error of a sync that does not wait for the writer lock.
pub(crate) fn is_busy(e: &Error) -> bool {
    matches!(e, Error::LockTimeout { waited_ms: 0, .. })
}

/// Guard of [`Store::mark_busy`]: clears the mark when dropped.
#[derive(Debug)]
pub(crate) struct BusyMark<'a> {
    store: &'a Store,
}

impl Drop for BusyMark<'_> {
    fn drop(&mut self) {
        if let Ok(c) = self.store.conn() {
            let _ = c.execute("DELETE FROM meta WHERE key = ?1", [META_BUSY]);
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

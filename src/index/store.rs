//! [`Store`]: what every subsystem needs from an open data root — its path, its
//! configuration, the index connection pool, the writer lock and the clock — and the cold
//! mirror on top of them. The query, layer and import code takes a `&Store`, never the
//! [`crate::Memory`] facade, so no folder depends on the one above it.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;

use crate::files::lock::{self, WriterLock};
use crate::index::watch::ColdWatch;
use crate::index::{self, DbPool, OpenState, sync};
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

/// An open data root: the context every subsystem takes — its path, its configuration, the
/// index connection pool, the clock and the writer lock — plus the state a handle keeps
/// between calls: the zone its files are dated in, the watches that let a long-lived handle
/// skip unchanged files (read by `index::cold` and `layers::sync`), the document-frequency
/// memo of the BM25 scoring (`query::search`) and whether it holds usage hits not yet written
/// to usage.json (`layers::usage::ops`). The operations on a store are free functions (or
/// `query::Reader`'s methods) in the folder that owns them.
#[derive(Debug)]
pub struct Store {
    root: PathBuf,
    config: Config,
    /// The zone the root's files are dated in (`files::zone`: recorded in memlayers.json).
    partition_tz: Tz,
    /// True from an open that recorded the zone (a new data root) until the first write or
    /// import through this handle reports it ([`Store::take_zone_recorded`]).
    zone_created: AtomicBool,
    pool: DbPool,
    fixed_now: Option<DateTime<Utc>>,
    /// True while this handle holds usage hits not yet written to usage.json
    /// ([`Store::usage_unwritten`]).
    usage_unwritten: AtomicBool,
    /// Changes under cold/ since the last scan (None: scan at every sync; `index::cold`).
    pub(in crate::index) watch: Mutex<Option<ColdWatch>>,
    /// Changes of the live layer files since their last check (a watching store only).
    layer_watch: Mutex<crate::index::watch::LayerState>,
    /// Why the data root cannot be written (`None`: it can): queries only (a read-only mount, another
    /// user's folder).
    read_only: Option<String>,
    /// Where a read-only root's index lives (kept alive: a temporary one is deleted on drop).
    ro_index: Option<index::ReadOnlyIndex>,
    /// False for a per-call store ([`Store::open`] with `per_call`): no inotify watch, cold
    /// checks scoped to the files a query reads ([`SyncPolicy::days`]), and usage hits held
    /// back by the throttle left to a later call instead of flushed at drop.
    watching: bool,
    /// Document frequencies of query phrases, kept while the FTS5 index is unchanged
    /// (`fts5::bm25`).
    df_memo: Mutex<crate::fts5::bm25::DfMemo>,
    /// A stat of every cold file started before the index was opened
    /// ([`crate::Memory::open_per_call_scanning`]), taken by the first check that needs one
    /// (`index::cold::cold_changed`).
    pub(in crate::index) prescan: Mutex<Option<std::thread::JoinHandle<Result<Vec<sync::FileStat>>>>>,
}

/// The writer lock held through a store ([`Store::lock`]): what every write-side function
/// takes, as proof that its caller holds the lock, and through which it reaches the store. One
/// session at a time per data root (the lock is an `flock` on the root folder: a second one in
/// the same process would wait for the first); dropping it releases the lock.
#[derive(Debug)]
pub struct WriteSession<'a> {
    store: &'a Store,
    _lock: WriterLock,
}

impl<'a> WriteSession<'a> {
    /// The store this session writes.
    pub fn store(&self) -> &'a Store {
        self.store
    }

    /// Marks, in the index, that a long write (an import) is under way while this session
    /// holds the lock: readers that find the mark and the lock taken say `stale`. Cleared when
    /// the guard drops (a mark left by a killed process is ignored: its lock is free).
    pub(crate) fn mark_busy(&self, what: &str) -> Result<BusyMark<'a>> {
        self.store.conn()?.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)", [META_BUSY, what])?;
        Ok(BusyMark { store: self.store })
    }
}

/// The cold files a query reads, so a per-call check can stat only those ([`SyncPolicy::days`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncScope {
    /// Every day file (unwindowed queries, listings by tag, layer commands).
    All,
    /// The day files of local dates `from..=to` (inclusive).
    Days(NaiveDate, NaiveDate),
}

/// How a sync that found files to mirror gets the writer lock.
#[derive(Debug, Clone, Copy)]
pub enum Locking<'s> {
    /// Waits for it, up to `lockTimeoutMs` ([`Store::lock`]): a writer's sync.
    Wait,
    /// Takes it only if it is free now, else gives up with the "busy" error (`is_busy`),
    /// which a reader's sync turns into `stale`: an answer never waits for an import or a
    /// rebuild.
    IfFree,
    /// The caller holds it already (a write about to change the files it syncs; taking it
    /// twice in one process would wait for itself).
    Held(&'s WriteSession<'s>),
}

/// What a sync checks and how it takes the writer lock: the one argument of every sync
/// (`layers::sync::sync`, `layers::sync::sync_layers`, `index::cold::sync_cold`).
#[derive(Debug, Clone, Copy)]
pub struct SyncPolicy<'s> {
    /// Re-reads every file regardless of its stat, and checks every layer file (summaries
    /// too), not only the live ones: a new or rebuilt index, `memlayers sync --full`. Otherwise
    /// a long-lived handle checks only what its watch saw change.
    pub full: bool,
    /// The day files the caller reads: a per-call store stats only those (a watching store's
    /// watch covers every file at no cost).
    pub days: SyncScope,
    /// How the writer lock is taken when files need mirroring.
    pub locking: Locking<'s>,
}

impl<'s> SyncPolicy<'s> {
    /// A writer's sync of every file: waits for the writer lock when files need mirroring.
    pub const WRITER: SyncPolicy<'static> = SyncPolicy { full: false, days: SyncScope::All, locking: Locking::Wait };

    /// A reader's sync of every file (every query, opening a handle): never waits for the
    /// writer lock; files it could not mirror leave the answer `stale`.
    pub const READER: SyncPolicy<'static> = SyncPolicy { full: false, days: SyncScope::All, locking: Locking::IfFree };

    /// A sync under the writer lock `session` holds.
    pub fn held(session: &'s WriteSession<'s>) -> Self {
        SyncPolicy { full: false, days: SyncScope::All, locking: Locking::Held(session) }
    }

    /// This policy re-reading every file ([`SyncPolicy::full`]).
    pub fn full(self) -> Self {
        SyncPolicy { full: true, ..self }
    }

    /// This policy for a caller that reads only `days`' cold files.
    pub fn days(self, days: SyncScope) -> Self {
        SyncPolicy { days, ..self }
    }

    /// True for a reader's policy ([`Locking::IfFree`]).
    pub fn reader(&self) -> bool {
        matches!(self.locking, Locking::IfFree)
    }
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
    /// ([`SyncPolicy::days`]); its connections leave the WAL for a later checkpoint
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
            usage_unwritten: Default::default(),
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
    pub fn lock(&self) -> Result<WriteSession<'_>> {
        self.lock_within(self.config.lock_timeout_ms)
    }

    /// [`Store::lock`] waiting at most `ms` milliseconds (the usage ledger's shorter wait).
    pub(crate) fn lock_within(&self, ms: u64) -> Result<WriteSession<'_>> {
        if let Some(cause) = &self.read_only {
            return Err(Error::ReadOnly { path: self.root.clone(), cause: cause.clone() });
        }
        Ok(self.session(lock::acquire(&self.root, Duration::from_millis(ms))?))
    }

    /// The writer lock if it is free now (one attempt, no wait), else `None`. Errors: as
    /// [`Store::lock`] on a read-only data root; I/O opening the lock.
    pub(crate) fn try_lock(&self) -> Result<Option<WriteSession<'_>>> {
        if let Some(cause) = &self.read_only {
            return Err(Error::ReadOnly { path: self.root.clone(), cause: cause.clone() });
        }
        Ok(lock::try_acquire_once(&self.root)?.map(|l| self.session(l)))
    }

    fn session(&self, lock: WriterLock) -> WriteSession<'_> {
        WriteSession { store: self, _lock: lock }
    }

    /// The writer lock for mirroring files into the index. `wait`: as [`Store::lock`];
    /// otherwise only if free now, else the "busy" error ([`is_busy`]). On a read-only root
    /// with a temporary index the lock is taken all the same (it creates nothing); with the
    /// root's own index opened in place nothing can be mirrored: always busy.
    pub(crate) fn mirror_lock(&self, wait: bool) -> Result<WriteSession<'_>> {
        if matches!(self.ro_index, Some(index::ReadOnlyIndex::InPlace)) {
            return Err(self.busy());
        }
        let lock = if wait {
            lock::acquire(&self.root, Duration::from_millis(self.config.lock_timeout_ms))?
        } else {
            lock::try_acquire(&self.root)?.ok_or_else(|| self.busy())?
        };
        Ok(self.session(lock))
    }

    /// The writer lock a mirror takes as `locking` says (`index::mirror::mirror_changes`):
    /// `None` when the caller's session holds it already. Errors: as [`Store::mirror_lock`].
    pub(crate) fn mirror_guard(&self, locking: Locking<'_>) -> Result<Option<WriteSession<'_>>> {
        match locking {
            Locking::Held(_) => Ok(None),
            Locking::Wait => self.mirror_lock(true).map(Some),
            Locking::IfFree => self.mirror_lock(false).map(Some),
        }
    }

    /// The error [`Store::mirror_lock`] returns when it does not wait: a lock timeout after 0 ms.
    fn busy(&self) -> Error {
        Error::LockTimeout { path: self.root.clone(), waited_ms: 0 }
    }

    /// True when a writer marked a long write ([`WriteSession::mark_busy`]) and holds the lock now.
    pub(crate) fn writer_busy(&self) -> Result<bool> {
        use rusqlite::OptionalExtension;
        let c = self.conn()?;
        let mark: Option<String> = c
            .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
            .query_row([META_BUSY], |r| r.get(0))
            .optional()?;
        Ok(mark.is_some() && lock::try_acquire(&self.root)?.is_none())
    }

    /// True when this store keeps an inotify watch (a long-lived handle), false for a
    /// per-call handle.
    pub(crate) fn watching(&self) -> bool {
        self.watching
    }

    /// True when the data root cannot be written (a read-only mount, another user's folder):
    /// queries answer, nothing is recorded, writes are refused ([`Store::lock`]).
    pub(crate) fn read_only(&self) -> bool {
        self.read_only.is_some()
    }

    /// What a long-lived handle's watch saw of hot.md and usage.json since their last check
    /// (`layers::sync`).
    pub(crate) fn layer_watch(&self) -> std::sync::MutexGuard<'_, crate::index::watch::LayerState> {
        self.layer_watch.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The memo of document frequencies the BM25 scoring keeps while the FTS5 index is unchanged
    /// (`fts5::bm25::DfMemo`, `query::search`).
    pub(crate) fn df_memo(&self) -> &Mutex<crate::fts5::bm25::DfMemo> {
        &self.df_memo
    }

    /// True while this handle holds usage hits the throttle kept out of usage.json
    /// (`layers::usage::ops`): `Memory`'s drop writes them.
    pub(crate) fn usage_unwritten(&self) -> bool {
        self.usage_unwritten.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Records whether this handle holds usage hits not yet written to usage.json
    /// ([`Store::usage_unwritten`]).
    pub(crate) fn set_usage_unwritten(&self, unwritten: bool) {
        self.usage_unwritten.store(unwritten, std::sync::atomic::Ordering::Relaxed);
    }
}

/// `meta` key of `WriteSession::mark_busy`: what a long write under the lock is doing.
pub const META_BUSY: &str = "writer_busy";

/// True for the "busy" error of a sync that does not wait for the writer lock.
pub(crate) fn is_busy(e: &Error) -> bool {
    matches!(e, Error::LockTimeout { waited_ms: 0, .. })
}

/// Guard of [`WriteSession::mark_busy`]: clears the mark when dropped.
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

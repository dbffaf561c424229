//! [`Memory`]: one open data root — its files, its index and its configuration.
//!
//! Every query first brings the index up to date with the files ([`Memory::sync`]), so hand
//! edits are seen by the next query. Every write takes the writer lock, writes the canonical
//! file atomically, then mirrors that file into the index.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;

use crate::files::lock::{self, WriterLock};
use crate::index::layer_sync::LayerScope;
use crate::index::sync::{self, SyncReport};
use crate::index::{self, DbPool, OpenState};
use crate::{Config, Error, Result};

/// An open data root.
#[derive(Debug)]
pub struct Memory {
    root: PathBuf,
    config: Config,
    pool: DbPool,
    fixed_now: Option<DateTime<Utc>>,
    open_report: SyncReport,
    warnings: Vec<String>,
    /// True while this handle holds usage hits not yet written to usage.json (usage_store).
    pub(crate) usage_pending: std::sync::atomic::AtomicBool,
    /// Changes under cold/ since the last scan (None: scan at every sync).
    watch: std::sync::Mutex<Option<crate::index::watch::ColdWatch>>,
}

impl Memory {
    /// Opens the data root `root` (created if missing) with `config`: opens or rebuilds
    /// `index.sqlite3` and mirrors every new or changed cold file. Errors: the root cannot be
    /// created, the index cannot be created, or another writer holds the lock longer than
    /// `lockTimeoutMs` while files need mirroring.
    pub fn open(root: impl AsRef<Path>, config: Config) -> Result<Memory> {
        let (mut m, state) = Self::open_inner(root.as_ref(), config)?;
        m.open_report = m.sync_with_progress(state == OpenState::Fresh, &mut |_| {})?;
        Ok(m)
    }

    /// Opens without mirroring anything: for `check`, which reports the index as it is.
    pub fn open_unsynced(root: impl AsRef<Path>, config: Config) -> Result<Memory> {
        Ok(Self::open_inner(root.as_ref(), config)?.0)
    }

    fn open_inner(root: &Path, config: Config) -> Result<(Memory, OpenState)> {
        let root = root.to_path_buf();
        if root.exists() && !root.is_dir() {
            return Err(Error::bad("data-root", format!("{} exists and is not a folder", root.display())));
        }
        std::fs::create_dir_all(&root).map_err(|e| Error::io(&root, e))?;
        let (pool, state, warnings) = index::open(&root.join(index::INDEX_FILE))?;
        let usage_pending = Default::default();
        let watch = std::sync::Mutex::new(None);
        let m = Memory {
            root,
            config,
            pool,
            fixed_now: None,
            open_report: SyncReport::default(),
            warnings,
            usage_pending,
            watch,
        };
        Ok((m, state))
    }

    /// Pins "now" (UTC) for everything this handle does: writes, `recent`, time expressions.
    /// For tests, demos and `--now`; without it the system clock is read.
    pub fn with_now(mut self, now: DateTime<Utc>) -> Memory {
        self.fixed_now = Some(now);
        self
    }

    /// The current instant: the pinned one, or the system clock truncated to milliseconds
    /// (the precision of entry timestamps).
    pub fn now(&self) -> DateTime<Utc> {
        self.fixed_now.unwrap_or_else(|| {
            #[allow(clippy::disallowed_methods)] // the one place that reads the clock
            let n = Utc::now();
            DateTime::from_timestamp_millis(n.timestamp_millis()).unwrap_or(n)
        })
    }

    /// Today's local date in the configured time zone.
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

    /// The configured time zone (partitions cold files; frames time expressions).
    pub fn tz(&self) -> Tz {
        self.config.timezone
    }

    /// What the sync at open did.
    pub fn open_report(&self) -> &SyncReport {
        &self.open_report
    }

    /// Warnings raised while opening (e.g. a corrupt index rebuilt).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// A pooled connection to the index.
    pub fn conn(&self) -> Result<r2d2::PooledConnection<r2d2_sqlite::SqliteConnectionManager>> {
        Ok(self.pool.get()?)
    }

    /// Takes the writer lock (bounded by `lockTimeoutMs`).
    pub fn lock(&self) -> Result<WriterLock> {
        lock::acquire(&self.root, Duration::from_millis(self.config.lock_timeout_ms))
    }

    /// Brings the index up to date with the cold files: stats every cold file and re-mirrors
    /// the ones whose size, mtime or inode changed and whose content hash differs; drops the
    /// entries of deleted files. Also picks up hand edits of hot.md and usage.json
    /// (`layer_sync`). Cheap when nothing changed (no lock, no reads), and free for cold/ when
    /// the inotify watch armed at the previous scan saw nothing change (see `watch`).
    pub fn sync(&self) -> Result<SyncReport> {
        self.sync_with_progress(false, &mut |_| {})
    }

    /// [`Memory::sync`] with a progress callback (files done) and, when `full`, a re-read of
    /// every file regardless of stats.
    pub fn sync_with_progress(&self, full: bool, progress: &mut dyn FnMut(usize)) -> Result<SyncReport> {
        let scope = if full { LayerScope::All } else { LayerScope::Live };
        let layers = self.sync_layers(scope, full, None)?;
        let mut watch = self.watch.lock().unwrap_or_else(|e| e.into_inner());
        if !full
            && let Some(w) = watch.as_mut()
            && w.quiet()
        {
            return Ok(SyncReport { files_scanned: w.files, layers, ..Default::default() });
        }
        // Armed before the scan: a change made during or after it is pending at the next sync.
        *watch = crate::index::watch::ColdWatch::arm(&self.root);
        let rep = self.scan_and_apply(full, layers, progress);
        match (&rep, watch.as_mut()) {
            (Ok(r), Some(w)) => w.files = r.files_scanned,
            (Err(_), _) => *watch = None,
            _ => {}
        }
        rep
    }

    fn scan_and_apply(
        &self,
        full: bool,
        layers: crate::index::layer_sync::LayerReport,
        progress: &mut dyn FnMut(usize),
    ) -> Result<SyncReport> {
        let disk = sync::scan_disk(&self.root)?;
        let mut c = self.conn()?;
        let known = sync::known_files(&c)?;
        let mut p = sync::plan(&disk, &known);
        if full {
            p.check = disk.clone();
        }
        let mut rep = SyncReport { files_scanned: disk.len(), layers: layers.clone(), ..Default::default() };
        if p.is_empty() {
            return Ok(rep);
        }
        let _lock = self.lock()?;
        // Re-plan under the lock: another writer may have mirrored these files meanwhile.
        let known = sync::known_files(&c)?;
        let disk = sync::scan_disk(&self.root)?;
        let mut p = sync::plan(&disk, &known);
        if full {
            p.check = disk;
        }
        let applied = sync::apply(&mut c, &self.root, &p, &known, progress)?;
        rep = SyncReport { files_scanned: rep.files_scanned, layers, ..applied };
        Ok(rep)
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
        let rel = crate::files::cold_rel(day);
        let path = self.root.join(&rel);
        let meta = std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?;
        let (_, mtime_ns, inode) = crate::files::identity::identity(&meta);
        let stat = sync::FileStat { rel, day, size: bytes.len() as i64, mtime_ns, inode };
        let mut c = self.conn()?;
        let tx = c.transaction()?;
        let hash = sync::sha1_hex(bytes);
        let done = !appended.is_empty()
            && sync::append_indexed(&tx, &stat, &sync::sha1_hex(old_bytes), &hash, old_entries, appended)?;
        if !done {
            sync::mirror_file(&tx, &stat, bytes, &hash)?;
        }
        tx.commit()?;
        Ok(())
    }
}

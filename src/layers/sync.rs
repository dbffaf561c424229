//! Mirroring of the layer files — `hot.md`, `usage.json`, `summaries/{day,week,month}/*.md` —
//! into the `layer_files` table (and, for usage.json, the `usage` table).
//!
//! The files are canonical (the memory is the Markdown files; the index is derived from them and can be deleted): every write of a layer file
//! goes to the file first, atomically, and then records the file's stat, hash and bytes here
//! ([`Store::write_layer`]). [`Store::sync_layers`] picks up what changed behind our back —
//! a hand edit, another tool — the same way the cold sync does: a pure [`plan`] compares
//! size / mtime / inode with the recorded row, and the apply step re-reads only those files
//! and compares sha1s. The file always wins:
//!
//! * hot.md or a summary changed → its row is replaced by the file's bytes; gone → row dropped.
//! * usage.json changed → the `usage` table is replaced from the file; unreadable → emptied
//!   (every entry back to "weight 50, never hit", docs/plugin-compatibility.md: "文件缺失或损坏时静默重建"),
//!   its bytes moved to `usage.json.corrupt-N` and usage.json rewritten at once as the empty
//!   ledger, whatever the throttle (docs/layers.md); gone → emptied. Never an error.
//!
//! usage.json is parsed WITHOUT the writer lock (a 100 MB ledger parsed under the lock held it
//! for the whole parse, blocking every writer for seconds): when its stat differs from
//! the recorded row, the sync first streams it into a staging table of its own connection
//! ([`crate::layers::usage::table::stage`], SQLite's temp database, which locks nothing in the
//! index), noting the file's size / mtime / inode / ctime before and after the read. Under
//! the lock it checks that the file at the path still has that identity and swaps the staged
//! records in with one short transaction ([`crate::layers::usage::table::swap_in`]); if the file
//! changed meanwhile it lets the lock go and parses again ([`STAGE_TRIES`] times, then parses
//! under the lock, so it always ends). A caller that already holds the lock parses under it.
//!
//! [`Store::sync`] (run by every query) looks at hot.md and usage.json only
//! ([`LayerScope::Live`]); the summaries are looked at ([`LayerScope::All`]) by whatever reads
//! them — `summarize`, `stats`, `export` — and by `sync --full` or a fresh index, so a query
//! does not stat thousands of summary files.
//!
//! Summary files are only mirrored here: they are never read as cold entries (their item lines
//! look like malformed entry lines; the cold scanner reads `cold/` only).

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use crate::files::lock::WriterLock;
use crate::index::Store;
use crate::index::mirror::{self, Known, Mirror, Table};
pub use crate::index::sync::LayerReport;
use crate::index::sync::{SyncReport, sha1_hex};
use crate::{Error, Result};

/// The hot layer file, relative to the data root.
pub const HOT_FILE: &str = "hot.md";
pub use crate::layers::usage::USAGE_FILE;
/// How many times a sync parses usage.json outside the writer lock and finds it changed under
/// the lock before it parses it under the lock instead (module docs). A file rewritten that
/// often during its own parse is being written in a loop; parsing under the lock then ends it.
pub const STAGE_TRIES: usize = 3;
/// The summary folders, relative to the data root, with their kinds.
pub const SUMMARY_DIRS: [(&str, LayerKind); 3] =
    [("summaries/day", LayerKind::Day), ("summaries/week", LayerKind::Week), ("summaries/month", LayerKind::Month)];

/// Which layer files a sync looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerScope {
    /// hot.md and usage.json: two stats. What every query needs (usage weights) and what
    /// [`Store::sync`] covers.
    Live,
    /// Also every summary file: what `summarize`, `stats` and `export` read, and what
    /// `sync --full` and a fresh index cover.
    All,
}

/// What a layer file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LayerKind {
    /// `hot.md`.
    Hot,
    /// `usage.json`.
    Usage,
    /// `summaries/day/*.md`.
    Day,
    /// `summaries/week/*.md`.
    Week,
    /// `summaries/month/*.md`.
    Month,
}

impl LayerKind {
    /// The `kind` column value: `hot`, `usage`, `day`, `week`, `month`.
    pub fn as_str(self) -> &'static str {
        match self {
            LayerKind::Hot => "hot",
            LayerKind::Usage => "usage",
            LayerKind::Day => "day",
            LayerKind::Week => "week",
            LayerKind::Month => "month",
        }
    }

    /// Reads a `kind` column value.
    pub fn parse(s: &str) -> Option<LayerKind> {
        Some(match s {
            "hot" => LayerKind::Hot,
            "usage" => LayerKind::Usage,
            "day" => LayerKind::Day,
            "week" => LayerKind::Week,
            "month" => LayerKind::Month,
            _ => return None,
        })
    }
}

/// What the file system says about one layer file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayerStat {
    /// Path relative to the data root.
    pub rel: String,
    /// Its kind.
    pub kind: LayerKind,
    /// Size in bytes.
    pub size: i64,
    /// Modification time, ns since the Unix epoch.
    pub mtime_ns: i64,
    /// Inode number.
    pub inode: i64,
    /// Status-change time, ns since the Unix epoch (0 where the platform has none): it cannot
    /// be set back, so a same-size edit with a restored mtime still differs (migration V10).
    pub ctime_ns: i64,
}

/// The outcome of [`plan`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LayerPlan {
    /// Files new or with a different size / mtime / inode (all files when `full`).
    pub check: Vec<LayerStat>,
    /// Files recorded but gone from disk.
    pub removed: Vec<(String, LayerKind)>,
}

impl LayerPlan {
    /// True when nothing needs doing.
    pub fn is_empty(&self) -> bool {
        self.check.is_empty() && self.removed.is_empty()
    }
}

/// Pure change detection: disk stats (of the files in `scope`) against the recorded rows.
/// `full` re-checks every file; rows outside `scope` are never reported removed.
pub fn plan(disk: &[LayerStat], known: &HashMap<String, Known>, scope: LayerScope, full: bool) -> LayerPlan {
    let mut p = LayerPlan::default();
    for f in disk {
        match known.get(&f.rel) {
            Some(k)
                if !full && (k.size, k.mtime_ns, k.inode, k.ctime_ns) == (f.size, f.mtime_ns, f.inode, f.ctime_ns) => {}
            _ => p.check.push(f.clone()),
        }
    }
    let on_disk: std::collections::HashSet<&str> = disk.iter().map(|f| f.rel.as_str()).collect();
    for rel in known.keys() {
        if !on_disk.contains(rel.as_str())
            && let Some(kind) = kind_of(rel)
            && (scope == LayerScope::All || matches!(kind, LayerKind::Hot | LayerKind::Usage))
        {
            p.removed.push((rel.clone(), kind));
        }
    }
    p.removed.sort_by(|a, b| a.0.cmp(&b.0));
    p
}

/// The kind of a layer path (`hot.md`, `usage.json`, `summaries/<level>/<name>.md`), or `None`.
pub fn kind_of(rel: &str) -> Option<LayerKind> {
    match rel {
        HOT_FILE => return Some(LayerKind::Hot),
        USAGE_FILE => return Some(LayerKind::Usage),
        _ => {}
    }
    let (dir, name) = rel.rsplit_once('/')?;
    let kind = SUMMARY_DIRS.iter().find(|(d, _)| *d == dir)?.1;
    (name.ends_with(".md") && !name.starts_with('.')).then_some(kind)
}

/// (size, mtime ns, inode) of a regular file; `None` when missing or not a regular file.
pub fn stat_of(path: &Path) -> Option<(i64, i64, i64, i64)> {
    let m = std::fs::symlink_metadata(path).ok()?;
    m.file_type().is_file().then(|| full_ident(&m))
}

/// Lists the layer files of `scope` under `root` (regular files only; temp files
/// `.name.tmp-*` and other names are ignored), sorted by path. Errors:
/// [`Error::OutsideRoot`] when a summaries folder is a symlink leading out of the data root.
pub fn scan(root: &Path, scope: LayerScope) -> Result<Vec<LayerStat>> {
    let mut out = Vec::new();
    let mut push = |rel: String, kind: LayerKind| {
        if let Some((size, mtime_ns, inode, ctime_ns)) = stat_of(&root.join(&rel)) {
            out.push(LayerStat { rel, kind, size, mtime_ns, inode, ctime_ns });
        }
    };
    push(HOT_FILE.to_string(), LayerKind::Hot);
    push(USAGE_FILE.to_string(), LayerKind::Usage);
    let dirs = if scope == LayerScope::All { &SUMMARY_DIRS[..] } else { &[] };
    for &(dir, kind) in dirs {
        // A summaries folder symlinked out of the root must not be read (safe_join refuses it).
        let path = crate::files::safe_join(root, dir)?;
        let entries = match std::fs::read_dir(&path) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(&path, e)),
        };
        for e in entries {
            let e = e.map_err(|err| Error::io(&path, err))?;
            let Ok(name) = e.file_name().into_string() else { continue };
            let rel = format!("{dir}/{name}");
            if kind_of(&rel) == Some(kind) {
                push(rel, kind);
            }
        }
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(out)
}

/// Records a layer file's row: its stat, the sha1 and code-point count of `bytes`, and the
/// bytes themselves (NULL for usage.json, whose state is the `usage` table).
pub fn upsert_row(c: &Connection, f: &LayerStat, bytes: &[u8]) -> Result<()> {
    let body = (f.kind != LayerKind::Usage).then_some(bytes);
    let chars = String::from_utf8_lossy(bytes).chars().count() as i64;
    c.prepare_cached(
        "INSERT OR REPLACE INTO layer_files(path, kind, size, mtime_ns, inode, ctime_ns, hash, chars, body) \
         VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        f.rel,
        f.kind.as_str(),
        f.size,
        f.mtime_ns,
        f.inode,
        f.ctime_ns,
        sha1_hex(bytes),
        chars,
        body
    ])?;
    Ok(())
}

/// Reads, hashes and mirrors the planned files; drops the removed ones; reloads the usage
/// table when usage.json changed. One transaction.
fn apply(
    c: &mut Connection,
    root: &Path,
    p: &LayerPlan,
    known: &HashMap<String, Known>,
    staged: Option<&Staged>,
) -> Result<LayerReport> {
    let mut rep = LayerReport::default();
    let tx = c.transaction()?;
    for (rel, kind) in &p.removed {
        tx.execute("DELETE FROM layer_files WHERE path = ?1", [rel])?;
        if *kind == LayerKind::Usage {
            crate::layers::usage::table::replace_from_file(&tx, None)?;
            rep.usage_reloaded = true;
        }
        rep.files_removed += 1;
    }
    for f in &p.check {
        let path = root.join(&f.rel);
        if f.kind == LayerKind::Usage {
            apply_usage(&tx, root, f, known, staged, &mut rep)?;
            continue;
        }
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(&path, e)),
        };
        let f = LayerStat { size: bytes.len() as i64, ..f.clone() };
        if known.get(&f.rel).is_some_and(|k| k.hash == sha1_hex(&bytes)) {
            update_stat(&tx, &f)?;
            continue;
        }
        upsert_row(&tx, &f, &bytes)?;
        rep.files_mirrored += 1;
    }
    tx.commit()?;
    Ok(rep)
}

/// Records a new stat for a layer file whose bytes did not change.
fn update_stat(c: &Connection, f: &LayerStat) -> Result<()> {
    c.execute(
        "UPDATE layer_files SET size = ?2, mtime_ns = ?3, inode = ?4, ctime_ns = ?5 WHERE path = ?1",
        params![f.rel, f.size, f.mtime_ns, f.inode, f.ctime_ns],
    )?;
    Ok(())
}

/// (size, mtime ns, inode, ctime ns) of a file: what must not have changed between the parse
/// of usage.json outside the lock and its swap under the lock.
type FullIdent = (i64, i64, i64, i64);

fn full_ident(m: &std::fs::Metadata) -> FullIdent {
    let (size, mtime_ns, inode) = crate::files::identity::identity(m);
    (size, mtime_ns, inode, crate::files::identity::ctime_ns(m))
}

/// usage.json as read outside the writer lock ([`Store::stage_usage`]): the file's identity
/// during the read, the digest of its bytes, and the load status of the records staged in the
/// connection's staging table (`None`: not parsed, because its bytes are the recorded ones).
#[derive(Debug)]
struct Staged {
    ident: FullIdent,
    digest: crate::layers::usage::table::Digest,
    status: Option<crate::layers::usage::LoadStatus>,
}

/// The usage.json part of [`apply`], streamed (a 100 MB ledger took 674 MB
/// read whole). With `staged` (parsed outside the lock): the file must still be the one
/// staged, else [`Error::Changed`] (the caller parses again); its records are swapped in.
/// Without: one pass hashes the file (constant memory) to skip a file whose bytes are what the
/// row records; otherwise a second pass through the same descriptor parses it straight into
/// the usage table ([`crate::layers::usage::table::reload`]). Either way the row records the
/// digest of what was loaded, and an unreadable ledger is emptied with its bytes kept beside it.
fn apply_usage(
    tx: &rusqlite::Transaction,
    root: &Path,
    f: &LayerStat,
    known: &HashMap<String, Known>,
    staged: Option<&Staged>,
    rep: &mut LayerReport,
) -> Result<()> {
    use crate::layers::usage::{LoadStatus, table};
    use std::io::{Seek, SeekFrom};
    let path = root.join(&f.rel);
    let (status, d) = if let Some(st) = staged {
        let now = std::fs::symlink_metadata(&path).ok().filter(|m| m.is_file()).map(|m| full_ident(&m));
        if now != Some(st.ident) {
            return Err(Error::Changed(path));
        }
        match (&st.status, known.get(&f.rel).is_some_and(|k| k.hash == st.digest.sha1)) {
            (_, true) => return update_stat(tx, &LayerStat { size: st.digest.size, ..f.clone() }),
            (Some(status), false) => {
                table::swap_in(tx, status, st.digest.final_newline)?;
                (status.clone(), st.digest.clone())
            }
            // Not parsed (its bytes were the recorded ones), but the row changed since: again.
            (None, false) => return Err(Error::Changed(path)),
        }
    } else {
        let mut file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io(&path, e)),
        };
        let d = table::digest_of(&file).map_err(|e| Error::io(&path, e))?;
        if known.get(&f.rel).is_some_and(|k| k.hash == d.sha1) {
            return update_stat(tx, &LayerStat { size: d.size, ..f.clone() });
        }
        file.seek(SeekFrom::Start(0)).map_err(|e| Error::io(&path, e))?;
        let (status, digest) = table::reload(tx, Some(&file))?;
        (status, digest.unwrap_or(d))
    };
    let (mut f, mut d) = (f.clone(), d);
    if let LoadStatus::Corrupt(why) = status {
        // The ledger is rebuilt as the plugin promises, but the unreadable bytes are kept
        // beside it first: a hand edit gone wrong can be repaired, not just lost. Then
        // usage.json itself is rewritten at once as the rebuilt (empty) ledger, whatever
        // `usageThrottleMs` says (docs/layers.md): left in place until the next throttled
        // write, the unreadable file was read again, and copied aside again, by any rebuild
        // of the index meanwhile, and stayed forever when no later call recorded a hit.
        let snap = crate::files::cas::read(&path)?;
        // Changed since it was parsed (a repair by hand?): read again (the caller retries).
        if sha1_hex(&snap.bytes) != d.sha1 {
            return Err(Error::Changed(path));
        }
        let aside =
            (0..).map(|n| root.join(format!("usage.json.corrupt-{n}"))).find(|p| !p.exists()).expect("a free name");
        crate::files::atomic_write(&aside, &snap.bytes)?;
        crate::layers::usage::table::meta_set(tx, crate::layers::usage::table::META_FINAL_NEWLINE, "1")?;
        let fresh = table::file_bytes(tx)?;
        if crate::files::cas::replace(&path, &snap, &fresh)? == crate::files::cas::Outcome::Changed {
            return Err(Error::Changed(path));
        }
        let m = std::fs::symlink_metadata(&path).map_err(|e| Error::io(&path, e))?;
        (f.size, f.mtime_ns, f.inode, f.ctime_ns) = full_ident(&m);
        d = table::digest_of(&fresh[..]).map_err(|e| Error::io(&path, e))?;
        rep.usage_corrupt =
            Some(format!("{why}; the unreadable file was moved to {} and usage.json started over", aside.display()));
    }
    rep.usage_reloaded = true;
    tx.prepare_cached(
        "INSERT OR REPLACE INTO layer_files(path, kind, size, mtime_ns, inode, ctime_ns, hash, chars, body) \
         VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, NULL)",
    )?
    .execute(params![f.rel, f.kind.as_str(), d.size, f.mtime_ns, f.inode, f.ctime_ns, d.sha1, d.chars])?;
    rep.files_mirrored += 1;
    Ok(())
}

/// The layer files of one [`LayerScope`] as a [`Mirror`]: into `layer_files` (and `usage`).
struct LayerMirror<'a> {
    root: &'a Path,
    scope: LayerScope,
    /// Re-read every file regardless of stats.
    full: bool,
    /// usage.json as parsed outside the lock, if it was.
    staged: Option<Staged>,
}

impl Mirror for LayerMirror<'_> {
    type Disk = Vec<LayerStat>;
    type Plan = LayerPlan;
    type Report = LayerReport;
    const TABLE: Table = Table::LayerFiles;

    fn scan(&self) -> Result<Vec<LayerStat>> {
        scan(self.root, self.scope)
    }

    fn plan(&self, disk: &Vec<LayerStat>, known: &HashMap<String, Known>) -> LayerPlan {
        plan(disk, known, self.scope, self.full)
    }

    fn is_empty(plan: &LayerPlan) -> bool {
        plan.is_empty()
    }

    fn apply(&mut self, c: &mut Connection, plan: &LayerPlan, known: &HashMap<String, Known>) -> Result<LayerReport> {
        apply(c, self.root, plan, known, self.staged.as_ref())
    }
}

impl Store {
    /// Brings the index up to date with the files: the layer files of [`LayerScope::Live`]
    /// (hot.md, usage.json; every layer file when `full`), then the cold files
    /// ([`Store::sync_cold`]). Cheap when nothing changed (no lock, no reads). Every query
    /// runs it first, so hand edits are seen by the next query.
    pub fn sync(&self) -> Result<SyncReport> {
        self.sync_with_progress(false, &mut |_| {})
    }

    /// [`Store::sync`] with a progress callback (cold files done) and, when `full`, a re-read
    /// of every file regardless of stats.
    pub fn sync_with_progress(&self, full: bool, progress: &mut dyn FnMut(usize)) -> Result<SyncReport> {
        let scope = if full { LayerScope::All } else { LayerScope::Live };
        let layers = self.sync_layers(scope, full, None)?;
        let cold = self.sync_cold(full, progress)?;
        Ok(SyncReport { layers, ..cold })
    }

    /// Brings the index up to date for a query that reads only `scope`'s day files. A
    /// watching store does what [`Store::sync`] does (its watch covers every file at no cost);
    /// a per-call store syncs the live layer files, then stats only the day files of `scope`
    /// (listing only its month folders) and mirrors the ones changed, added or removed there.
    /// Files outside the scope are left for the query that reads them. Errors: as
    /// [`Store::sync`].
    pub fn sync_days(&self, scope: crate::index::store::SyncScope) -> Result<SyncReport> {
        if self.watching || scope == crate::index::store::SyncScope::All {
            return self.sync();
        }
        let layers = self.sync_layers(LayerScope::Live, false, None)?;
        let cold = self.sync_cold_days(scope)?;
        Ok(SyncReport { layers, ..cold })
    }

    /// The sync of a reader (every query, and opening a handle): as [`Store::sync`], but it
    /// never waits for the writer lock (an answer must not wait for an import or a rebuild). When files need mirroring and
    /// another writer holds the lock (an import, a rebuild), or a writer marked a long write
    /// ([`Store::mark_busy`]), it mirrors nothing and returns `stale: true`; the caller
    /// answers from the index as it is — the last committed state, which WAL readers see
    /// whole — and says so.
    pub(crate) fn sync_reader(&self, full: bool) -> Result<SyncReport> {
        self.sync_reader_scoped(full, crate::index::store::SyncScope::All)
    }

    /// Answers `query` from an up-to-date index, for a query that may read every cold file
    /// (no time window), returning its result and whether the index was stale. A watching
    /// store syncs first (its inotify queue makes that free). A per-call store (the CLI) syncs
    /// the layer files first, then runs `query` while a second thread stats every cold file
    /// and compares them with the index — the stat pass (≈ 3 500 `statx` at 1M entries) costs
    /// as much as a typical query, so on two cores the call pays the longer of the two, not
    /// their sum. Only when a file changed is it mirrored and `query` run again, so
    /// the answer is the one a sync-then-query would give. Errors: those of the sync and of
    /// `query`.
    pub(crate) fn read_synced<T: Send>(&self, query: impl Fn() -> Result<T> + Sync) -> Result<(T, bool)> {
        if self.watching() {
            let stale = self.sync_reader(false)?.stale;
            return Ok((query()?, stale));
        }
        let layers_stale = match self.sync_layers_with(LayerScope::Live, false, None, false) {
            Ok(_) => false,
            Err(e) if crate::index::store::is_busy(&e) => true,
            Err(e) => return Err(e),
        };
        let (first, changed) = std::thread::scope(|s| {
            let check = s.spawn(|| self.cold_changed());
            let first = query();
            // A panicked check thread counts as "changed": the sync below redoes it.
            (first, check.join().unwrap_or(Ok(true)))
        });
        if !changed? {
            return Ok((first?, layers_stale || self.writer_busy()?));
        }
        let stale = self.sync_reader(false)?.stale;
        Ok((query()?, stale))
    }

    /// [`Store::sync_reader`] for a query that reads only `days`' cold files (a per-call store
    /// then stats only those: [`Store::sync_days`]).
    pub(crate) fn sync_reader_scoped(&self, full: bool, days: crate::index::store::SyncScope) -> Result<SyncReport> {
        let scope = if full { LayerScope::All } else { LayerScope::Live };
        let (layers, mut stale) = match self.sync_layers_with(scope, full, None, false) {
            Ok(l) => (l, false),
            Err(e) if crate::index::store::is_busy(&e) => (LayerReport::default(), true),
            Err(e) => return Err(e),
        };
        let cold = match self.sync_cold_reader(full, days) {
            Ok(c) => c,
            Err(e) if crate::index::store::is_busy(&e) => SyncReport { stale: true, ..Default::default() },
            Err(e) => return Err(e),
        };
        stale |= cold.stale || self.writer_busy()?;
        Ok(SyncReport { layers, stale, ..cold })
    }

    /// Brings the `layer_files` rows of `scope` (and the usage table) up to date with the
    /// layer files on disk; the file wins (module docs). Cheap when nothing changed: one stat
    /// per file, no lock. `full` re-reads every file. Pass `lock` when the caller already holds
    /// the writer lock (taking it twice in one process would wait for itself). A corrupt
    /// usage.json is reported as a `log` warning and rewritten by this handle's next flush.
    pub fn sync_layers(&self, scope: LayerScope, full: bool, lock: Option<&WriterLock>) -> Result<LayerReport> {
        self.sync_layers_with(scope, full, lock, true)
    }

    /// [`Store::sync_layers`]; without `wait`, a busy writer lock is the "busy" error
    /// (`store::is_busy`) instead of a wait.
    fn sync_layers_with(
        &self,
        scope: LayerScope,
        full: bool,
        lock: Option<&WriterLock>,
        wait: bool,
    ) -> Result<LayerReport> {
        // A long-lived handle checks hot.md and usage.json only after its watch saw one of them
        // change (index::watch::LayerWatch); a per-call handle, a full check or a caller holding
        // the lock (a write about to change them) always checks.
        let watched = self.watching && scope == LayerScope::Live && !full && lock.is_none();
        if watched {
            let mut w = self.layer_watch.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(files) = w.unchanged(self.root(), &[HOT_FILE, USAGE_FILE]) {
                return Ok(LayerReport { files_scanned: files, ..Default::default() });
            }
        }
        let report = self.check_layers(scope, full, lock, wait)?;
        if watched {
            self.layer_watch.lock().unwrap_or_else(|e| e.into_inner()).checked(report.files_scanned);
        }
        Ok(report)
    }

    /// [`Store::sync_layers_with`] without the watch: stats the files of `scope` and mirrors
    /// the changed ones.
    fn check_layers(
        &self,
        scope: LayerScope,
        full: bool,
        lock: Option<&WriterLock>,
        wait: bool,
    ) -> Result<LayerReport> {
        let mut c = self.conn()?;
        let usage_path = self.root().join(USAGE_FILE);
        let mut tries = 0;
        let done = loop {
            // usage.json is parsed before the lock is taken (module docs), unless the caller
            // holds it already or the file kept changing under us.
            let staged = if lock.is_none() && tries < STAGE_TRIES { self.stage_usage(&c, full, wait)? } else { None };
            let mut m = LayerMirror { root: self.root(), scope, full, staged };
            match mirror::mirror_changes(&mut m, &mut c, lock, || self.mirror_lock(wait)) {
                Err(Error::Changed(p)) if p == usage_path && tries < STAGE_TRIES => tries += 1,
                r => break r,
            }
        };
        let _ = crate::layers::usage::table::drop_stage(&c);
        let done = done?;
        let Some((disk, applied)) = done.applied else {
            return Ok(LayerReport { files_scanned: done.first.len(), ..Default::default() });
        };
        if let Some(why) = &applied.usage_corrupt {
            log::warn!("{USAGE_FILE} could not be read ({why}); rebuilt (weight 50, never hit)");
            self.usage_pending.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(LayerReport { files_scanned: disk.len(), ..applied })
    }

    /// Reads usage.json into `c`'s staging table without the writer lock when its stat
    /// differs from the recorded row (or `full`), for [`apply_usage`] to swap in under the
    /// lock (module docs). A first pass only hashes it: bytes equal to the recorded ones are not
    /// parsed. `None` when there is nothing to stage: no file, an unchanged stat, a file that
    /// changed during both reads of [`STAGE_TRIES`] attempts, or (`!wait`) a writer lock that is
    /// taken now, so the parse could not be swapped in anyway (the reader answers `stale`).
    fn stage_usage(&self, c: &Connection, full: bool, wait: bool) -> Result<Option<Staged>> {
        use crate::layers::usage::table;
        use std::io::{Seek, SeekFrom};
        let path = self.root().join(USAGE_FILE);
        let Some(meta) = std::fs::symlink_metadata(&path).ok().filter(|m| m.is_file()) else { return Ok(None) };
        let row: Option<(FullIdent, String)> = c
            .prepare_cached("SELECT size, mtime_ns, inode, ctime_ns, hash FROM layer_files WHERE path = ?1")?
            .query_row([USAGE_FILE], |r| Ok(((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?), r.get(4)?)))
            .optional()?;
        if !full && row.as_ref().is_some_and(|r| r.0 == full_ident(&meta)) {
            return Ok(None);
        }
        if !wait {
            match self.mirror_lock(false) {
                Ok(probe) => drop(probe),
                Err(e) if crate::index::store::is_busy(&e) => return Ok(None),
                Err(e) => return Err(e),
            }
        }
        for _ in 0..STAGE_TRIES {
            let mut file = match std::fs::File::open(&path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(Error::io(&path, e)),
            };
            let fstat = |f: &std::fs::File| f.metadata().map(|m| full_ident(&m)).map_err(|e| Error::io(&path, e));
            let before = fstat(&file)?;
            let digest = table::digest_of(&file).map_err(|e| Error::io(&path, e))?;
            let staged = if row.as_ref().is_some_and(|r| r.1 == digest.sha1) {
                Staged { ident: before, digest, status: None }
            } else {
                file.seek(SeekFrom::Start(0)).map_err(|e| Error::io(&path, e))?;
                let (status, digest) = table::stage(c, &file)?;
                Staged { ident: before, digest, status: Some(status) }
            };
            // Written to while we read: what we read may be half old, half new.
            if fstat(&file)? == before && staged.digest.size == before.0 {
                return Ok(Some(staged));
            }
        }
        Ok(None)
    }

    /// The mirrored bytes of a layer file (`hot.md`, `summaries/...`), `None` when it has no
    /// row (the file does not exist, as of the last sync). Always `None` for usage.json.
    pub fn layer_body(&self, rel: &str) -> Result<Option<Vec<u8>>> {
        let c = self.conn()?;
        let body: Option<Option<Vec<u8>>> = c
            .prepare_cached("SELECT body FROM layer_files WHERE path = ?1")?
            .query_row([rel], |r| r.get(0))
            .optional()?;
        Ok(body.flatten())
    }

    /// Writes a layer file atomically (temp + fsync + rename), then records its row. The
    /// caller holds the writer lock and computed `bytes` from the mirrored row: if the file is
    /// no longer what the row records (a hand edit since the last sync, or during this write),
    /// nothing is written and the error is [`Error::Changed`] — the caller syncs and redoes, so
    /// a hand edit is never overwritten ([`crate::files::cas`]). Once the file is written, a
    /// failure to record the row (a full disk) is not an error: the row stays behind and the
    /// next sync reads the file. Errors: `rel` is not a layer path (field `path`), I/O before
    /// the file is replaced.
    pub fn write_layer(&self, _lock: &WriterLock, rel: &str, bytes: &[u8]) -> Result<()> {
        let kind = kind_of(rel).ok_or_else(|| Error::bad("path", format!("{rel:?} is not a layer file")))?;
        let path = crate::files::safe_join(self.root(), rel)?;
        if let Some(dir) = path.parent() {
            crate::files::cas::clean_temps(dir);
        }
        let c = self.conn()?;
        let row: Option<String> = c
            .prepare_cached("SELECT hash FROM layer_files WHERE path = ?1")?
            .query_row([rel], |r| r.get(0))
            .optional()?;
        let snap = crate::files::cas::read(&path)?;
        let as_mirrored = match (&row, snap.ident) {
            (None, None) => true,
            (Some(h), Some(_)) => *h == sha1_hex(&snap.bytes),
            _ => false,
        };
        if !as_mirrored || crate::files::cas::replace(&path, &snap, bytes)? == crate::files::cas::Outcome::Changed {
            return Err(Error::Changed(path));
        }
        if let Some((size, mtime_ns, inode, ctime_ns)) = stat_of(&path) {
            let f = LayerStat { rel: rel.to_string(), kind, size, mtime_ns, inode, ctime_ns };
            let _ = upsert_row(&c, &f, bytes);
        }
        Ok(())
    }

    /// Runs `op` (which reads mirrored layer rows and writes layer files under `lock`) until
    /// it does not meet a layer file changed behind its back: on [`Error::Changed`] the layer
    /// rows are synced from the files and `op` runs again (at most
    /// [`crate::files::cas::MAX_REDO`] times).
    pub(crate) fn redo_on_change<T>(&self, lock: &WriterLock, mut op: impl FnMut() -> Result<T>) -> Result<T> {
        let mut last = None;
        for _ in 0..crate::files::cas::MAX_REDO {
            match op() {
                Err(Error::Changed(p)) => {
                    self.sync_layers(LayerScope::Live, false, Some(lock))?;
                    last = Some(p);
                }
                r => return r,
            }
        }
        Err(Error::Changed(last.unwrap_or_default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(rel: &str, size: i64) -> LayerStat {
        LayerStat { rel: rel.into(), kind: kind_of(rel).unwrap(), size, mtime_ns: 5, inode: 9, ctime_ns: 0 }
    }

    #[test]
    fn kinds_of_paths() {
        assert_eq!(kind_of("hot.md"), Some(LayerKind::Hot));
        assert_eq!(kind_of("usage.json"), Some(LayerKind::Usage));
        assert_eq!(kind_of("summaries/week/2026-W43.md"), Some(LayerKind::Week));
        assert_eq!(kind_of("summaries/day/.2026-10-21.md.tmp-1-0"), None);
        assert_eq!(kind_of("summaries/day/notes.txt"), None);
        assert_eq!(kind_of("summaries/year/2026.md"), None);
        assert_eq!(kind_of("cold/2026-10/2026-10-21.md"), None);
    }

    #[test]
    fn plan_finds_new_changed_and_removed() {
        let known: HashMap<String, Known> = [
            ("hot.md".to_string(), Known { size: 10, mtime_ns: 5, inode: 9, ctime_ns: 0, hash: "a".into() }),
            ("usage.json".to_string(), Known { size: 10, mtime_ns: 5, inode: 9, ctime_ns: 0, hash: "b".into() }),
            (
                "summaries/day/2026-10-20.md".to_string(),
                Known { size: 3, mtime_ns: 5, inode: 9, ctime_ns: 0, hash: "c".into() },
            ),
        ]
        .into();
        let disk = vec![st("hot.md", 10), st("usage.json", 11), st("summaries/day/2026-10-21.md", 4)];
        let p = plan(&disk, &known, LayerScope::All, false);
        let check: Vec<&str> = p.check.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(check, ["usage.json", "summaries/day/2026-10-21.md"]);
        assert_eq!(p.removed, vec![("summaries/day/2026-10-20.md".to_string(), LayerKind::Day)]);
        assert_eq!(plan(&disk, &known, LayerScope::All, true).check.len(), 3);
        // The live scope never drops summary rows it did not look at.
        let live = plan(&disk[..2], &known, LayerScope::Live, false);
        assert_eq!(live.check.len(), 1);
        assert!(live.removed.is_empty());
    }
}

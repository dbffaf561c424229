//! [`Memory`]: one open data root — its files, its index and its configuration.
//!
//! Every query first brings the index up to date with the files it reads ([`Memory::sync`]),
//! so hand edits are seen by the next query. A handle from [`Memory::open`] (long-lived: the
//! MCP server, library users) keeps an inotify watch and checks nothing while no event is
//! pending; one from [`Memory::open_per_call`] (one process per call: the CLI) keeps none and
//! stats only the day files of the query's time window (every day file for an unwindowed
//! query). Every write takes the writer lock, writes the canonical
//! file atomically, then mirrors that file into the index.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;

use crate::files::entry::{Entry, Source};
use crate::import::{Format, ImportReport, import};
use crate::index::check::{CheckReport, check};
use crate::index::store::SyncPolicy;
use crate::index::sync::SyncReport;
use crate::index::{OpenState, Store};
use crate::layers::cold::ops::append_entries;
use crate::layers::cold::{Appended, WriteArgs, WriteResult};
use crate::layers::export::{ExportReport, export};
use crate::layers::hot::ops::{hot_doc, hot_get, hot_set};
use crate::layers::hot::set::HotSetResult;
use crate::layers::hot::{HotDoc, HotGetResult};
use crate::layers::session::ops::{SessionEndResult, logged_sessions, session_end};
use crate::layers::stats::Stats;
use crate::layers::stats::ops::stats;
use crate::layers::summary::Period;
use crate::layers::summary::ops::{SummarizeResult, summarize, summarize_period};
use crate::layers::sync::{LayerReport, LayerScope, layer_body, sync, sync_layers};
use crate::layers::usage::Ledger;
use crate::layers::usage::ops::{flush_at_close, flush_usage, record_hits, usage_records};
use crate::layers::write::write;
use crate::query::retrieve::{RetrieveArgs, RetrieveResult};
use crate::query::search::{Mode, RecallResult};
use crate::query::{Answer, Item, ListResult, Reader};
use crate::{Config, Error, Result};

/// Usage hits held back by [`Memory::defer_hits`] and taken by [`Memory::take_deferred_hits`]:
/// per query, the instant it ran (UTC) and the contents of the items it returned.
#[derive(Debug, Default)]
pub(crate) struct DeferredHits(Vec<(DateTime<Utc>, Vec<String>)>);

/// What a handle does with the usage hits of its queries ([`Memory::defer_hits`]): record them
/// as each query returns (`on` false, the default), or hold them back until the caller asks.
#[derive(Debug, Default)]
struct Deferral {
    on: AtomicBool,
    held: Mutex<DeferredHits>,
}

impl Deferral {
    fn held(&self) -> std::sync::MutexGuard<'_, DeferredHits> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// An open data root: a thin facade over the subsystems (listings, search and retrieve in
/// [`crate::query`], the layers in [`crate::layers`], import, the index in [`crate::index`]),
/// which all work on the [`Store`] it holds. Every query goes through one read path
/// (`Memory::read`: sync, read, record the hits); dropping it records the hits it held back
/// and writes what the throttle kept out of usage.json.
#[derive(Debug)]
pub struct Memory {
    store: Store,
    deferral: Deferral,
    open_report: SyncReport,
    warnings: Vec<String>,
}

impl Memory {
    /// Opens the data root `root` (created if missing) with `config`: opens or rebuilds
    /// `index.sqlite3` and mirrors every new or changed cold file. Errors: the root cannot be
    /// created, the index cannot be created, or another writer holds the lock longer than
    /// `lockTimeoutMs` while files need mirroring.
    ///
    /// ```
    /// use memlayers::{Config, Memory};
    /// let dir = tempfile::tempdir()?;
    /// let mem = Memory::open(dir.path(), Config::default())?;
    /// assert!(mem.warnings().is_empty());
    /// assert_eq!(mem.open_report().files_scanned, 0); // an empty data root
    /// assert!(dir.path().join("index.sqlite3").exists());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(root: impl AsRef<Path>, config: Config) -> Result<Memory> {
        let (store, state, warnings) = Store::open(root.as_ref(), config, false)?;
        // A reader's sync: it does not wait for another writer (an import, a rebuild) but
        // reports `stale` (an answer never waits for a writer); writes take the lock themselves.
        let policy = if state == OpenState::Fresh { SyncPolicy::READER.full() } else { SyncPolicy::READER };
        let open_report = sync(&store, policy, &mut |_| {})?;
        Ok(Memory { store, deferral: Deferral::default(), open_report, warnings })
    }

    /// Opens for one call in a short-lived process (the CLI). No sync at open (except the full
    /// mirroring of a new or rebuilt index) and no inotify watch: each query then checks only
    /// the day files it reads — a day window stats one file, an unwindowed query every file —
    /// and mirrors what changed there before it runs, so its answer is the one
    /// [`Memory::open`] would give. Usage hits the throttle holds back stay committed in the
    /// index and are written to usage.json by the first later call past the throttle, not at
    /// drop. Errors: as [`Memory::open`].
    pub fn open_per_call(root: impl AsRef<Path>, config: Config) -> Result<Memory> {
        let (store, state, warnings) = Store::open(root.as_ref(), config, true)?;
        let open_report = match state {
            // A new or rebuilt index: mirror every file, waiting up to `lockTimeoutMs` for a
            // process doing the same (the first call after the index was deleted rebuilds it
            // under the writer lock, for minutes at a million entries). Still busy after that
            // wait: answer from what the rebuild has committed so far, marked `stale` — a query
            // never fails because a rebuild is under way.
            OpenState::Fresh => match sync(&store, SyncPolicy::WRITER.full(), &mut |_| {}) {
                Err(Error::LockTimeout { .. }) => SyncReport { stale: true, ..SyncReport::default() },
                r => r?,
            },
            OpenState::Current => SyncReport::default(),
        };
        Ok(Memory { store, deferral: Deferral::default(), open_report, warnings })
    }

    /// [`Memory::open_per_call`] for a call that queries without a time window (`recall`,
    /// `by-tag`): the stat of every cold file that such a query checks first starts on another
    /// thread before the index is opened, so it overlaps the open as well as the query (issue
    /// 15: the stat of 3 445 files at 1M entries is the longest part of such a call). An edit
    /// made after that stat is seen by the next call, as one made during the query always
    /// was. Errors: as [`Memory::open`].
    pub fn open_per_call_scanning(root: impl AsRef<Path>, config: Config) -> Result<Memory> {
        let root = root.as_ref().to_path_buf();
        let scan = {
            let root = root.clone();
            std::thread::spawn(move || crate::index::sync::scan_disk(&root))
        };
        let mut mem = Memory::open_per_call(&root, config)?;
        mem.store.set_prescan(scan);
        Ok(mem)
    }

    /// Opens without mirroring anything: for `check`, which reports the index as it is.
    pub fn open_unsynced(root: impl AsRef<Path>, config: Config) -> Result<Memory> {
        let (store, _, warnings) = Store::open(root.as_ref(), config, false)?;
        Ok(Memory { store, deferral: Deferral::default(), open_report: SyncReport::default(), warnings })
    }

    /// Runs `f` with "now" pinned to `now` (a UTC instant) for what this thread does through
    /// any handle until `f` returns: one call pinned on a handle that otherwise reads the
    /// clock (`memlayers serve` answering a call made with `--now`). Other threads sharing
    /// the handle are not affected.
    pub fn at_instant<R>(now: DateTime<Utc>, f: impl FnOnce() -> R) -> R {
        crate::index::store::at_instant(now, f)
    }

    /// Pins "now" (UTC) for everything this handle does: writes, `recent`, time expressions.
    /// For tests, demos and `--now`; without it the system clock is read.
    pub fn with_now(mut self, now: DateTime<Utc>) -> Memory {
        self.store.pin_now(now);
        self
    }

    /// What the sync at open did.
    pub fn open_report(&self) -> &SyncReport {
        &self.open_report
    }

    /// Warnings raised while opening (e.g. a corrupt index rebuilt).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Imports an archive folder (`format` or auto-detected) into this data root. `progress`
    /// receives (days done, days total). Errors: the folder cannot be read, or is this data
    /// root's own `cold/` parent with format other than dsh (field `path`); a lock timeout.
    /// Source files are only read, never modified.
    pub fn import(
        &self,
        path: &Path,
        format: Option<Format>,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<ImportReport> {
        import(&self.store, path, format, progress)
    }

    /// Compares index and files without modifying either. Meaningful on a handle opened with
    /// [`Memory::open_unsynced`]; on a synced handle it reports what the sync left.
    pub fn check(&self) -> Result<CheckReport> {
        check(&self.store)
    }

    /// The current instant: the pinned one, or the system clock truncated to milliseconds
    /// (the precision of entry timestamps).
    pub fn now(&self) -> DateTime<Utc> {
        self.store.now()
    }

    /// Today's local date in the zone the root's files are dated in ([`Memory::tz`]).
    pub fn today(&self) -> NaiveDate {
        self.store.today()
    }

    /// The data root.
    pub fn root(&self) -> &Path {
        self.store.root()
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        self.store.config()
    }

    /// The zone the root's files are dated in (recorded in `memlayers.json` at the first open,
    /// else the configured one): it partitions cold files by local date. Time expressions are
    /// framed in the configured zone (config `timezone`, `--tz`) or the call's.
    pub fn tz(&self) -> Tz {
        self.store.tz()
    }

    /// A connection to the index (from this handle's pool; returned to it when dropped), for
    /// read-only SQL of your own: the schema is in `migrations/`. Writing through it bypasses
    /// the files, which are canonical, and is undone by the next rebuild. Errors: the pool
    /// could not open a connection ([`Error::Pool`](crate::Error::Pool)).
    pub fn conn(&self) -> Result<impl std::ops::DerefMut<Target = rusqlite::Connection>> {
        self.store.conn()
    }

    /// `mem_write`: appends one entry to today's cold file (local date in the configured zone).
    /// Same-day identical tag + text → `added: false` (tags compare case-insensitively, as
    /// `by-tag` does; text and tag after NFC); with a different `source`, only that
    /// line's marker is updated (`sourceUpdated: true`). Errors name the field (`text`, `tag`,
    /// `source.*`); a lock timeout or I/O error leaves the file as it was; a month folder or
    /// day file that is a symlink out of the data root is refused ([`Error::OutsideRoot`](crate::Error::OutsideRoot)).
    ///
    /// ```
    /// use memlayers::{Config, Memory, WriteArgs};
    /// let dir = tempfile::tempdir()?;
    /// let cfg = Config { timezone: memlayers::Tz::Asia__Shanghai, ..Config::default() };
    /// // 2026-12-01T02:00:00Z is 10:00 on 2026-12-01 in Shanghai (UTC+8).
    /// let now = "2026-12-01T02:00:00Z".parse()?;
    /// let mem = Memory::open(dir.path(), cfg)?.with_now(now);
    /// let args = WriteArgs { text: "晚饭吃了火锅".into(), tag: Some("饮食".into()), ..Default::default() };
    /// let r = mem.write(&args)?;
    /// assert!(r.added);
    /// assert_eq!(r.date, "2026-12-01");
    /// let day = std::fs::read_to_string(dir.path().join("cold/2026-12/2026-12-01.md"))?;
    /// assert!(day.ends_with("[饮食] 晚饭吃了火锅\n"));
    /// assert!(!mem.write(&args)?.added); // same tag and text the same day: not added again
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write(&self, args: &WriteArgs) -> Result<WriteResult> {
        write(&self.store, args)
    }

    /// Appends entries to the cold file of `day` in one atomic rewrite, skipping any whose tag,
    /// text and source marker together are already in the file or earlier in `entries`, under
    /// the writer lock it takes. Used by imports and by the layers (evicted hot blocks, expired
    /// candidates).
    #[doc(hidden)] // internal: for the repository's tests, not part of the library's API
    pub fn append_entries(&self, day: NaiveDate, entries: &[Entry]) -> Result<Appended> {
        append_entries(&self.store, day, entries)
    }

    /// Writes hot.md, summaries/ and usage.json from the index (module docs). Errors: lock
    /// timeout, I/O, index.
    pub fn export(&self) -> Result<ExportReport> {
        export(&self.store)
    }

    /// The mirrored hot.md, parsed; `None` when there is no hot.md (as of the last sync).
    #[doc(hidden)] // internal: for the repository's tests, not part of the library's API
    pub fn hot_doc(&self) -> Result<Option<HotDoc>> {
        hot_doc(&self.store)
    }

    /// `mem_hot_get()`: the body, its size against `hotLimit`, the candidates and the topics
    /// index. Candidates past `candidateTtlDays`, and the oldest beyond `candidateMax`, sink to
    /// today's cold file first (tag `candidate-expired`, text `[original tag] text`), counted
    /// in `pruned`; if that cold write fails they stay, `pruned` counts nothing and `warnings`
    /// says why. Errors: index or lock failures, or hot.md cannot be rewritten after the sink.
    pub fn hot_get(&self) -> Result<HotGetResult> {
        hot_get(&self.store)
    }

    /// `mem_hot_set(content)`: replaces the body with `content` (empty clears it); candidates
    /// and topics are kept unless `content` carries its own blocks. Blocks new to the body
    /// whose text is in the usage ledger get `+15`. Over `hotLimit` with `autoEvict`, the least
    /// active blocks move to today's cold file (tag `hot-evict`) first, then leave the body
    /// (`evicted`, `charsAfterEvict`, `evictHint`); if the cold write fails the body is written
    /// un-evicted and `evictHint` says why. Errors: lock timeout, I/O, index.
    pub fn hot_set(&self, content: &str) -> Result<HotSetResult> {
        hot_set(&self.store, content)
    }

    /// The `conv#seq` keys of every session already logged (entries tagged `session` with a
    /// source marker).
    pub fn logged_sessions(&self) -> Result<HashSet<String>> {
        logged_sessions(&self.store)
    }

    /// Session end: when `autoLogOnSessionEnd` is on and at least `autoLogMinTurns` non-blank
    /// turns are given, appends one record (tag `session`, the last 3 turns, ≤ 200 code points,
    /// the given source) to today's cold file, at most once per `source` `conv#seq`. Otherwise
    /// `logged: false` with the reason. Errors: invalid source (fields `source.*`), lock
    /// timeout, I/O.
    pub fn session_end(&self, turns: &[String], source: Option<&Source>) -> Result<SessionEndResult> {
        session_end(&self.store, turns, source)
    }

    /// `mem_stats()`: hot chars / limit / candidates / topics; cold files and entries per month
    /// with the latest date; file counts and chars of the three summary levels; usage totals
    /// and `topRecalled` / `weightTop` / `weightBottom` (5 each, text cut to 40 code points).
    /// Read-only. Errors: index failures.
    pub fn stats(&self) -> Result<Stats> {
        stats(&self.store)
    }

    /// `mem_summarize(period="day", date=today, force=false)`: `period` is `day`, `week` or
    /// `month`; `date` a local date `YYYY-MM-DD` inside the period. An existing summary is
    /// returned as it is unless `force`. Errors: bad `period` / `date` (named), lock timeout,
    /// I/O. Adding the top tags to hot.md is best effort (a failure is reported as a `log` warning).
    pub fn summarize(&self, period: Option<&str>, date: Option<&str>, force: bool) -> Result<SummarizeResult> {
        summarize(&self.store, period, date, force)
    }

    /// [`Memory::summarize`] with typed arguments.
    pub fn summarize_period(&self, period: Period, date: NaiveDate, force: bool) -> Result<SummarizeResult> {
        summarize_period(&self.store, period, date, force)
    }

    /// Brings the index up to date with the files: the layer files of [`LayerScope::Live`]
    /// (hot.md, usage.json; every layer file when `full`), then the cold files
    /// (`cold/`). Cheap when nothing changed (no lock, no reads). Every query
    /// runs it first, so hand edits are seen by the next query.
    pub fn sync(&self) -> Result<SyncReport> {
        sync(&self.store, SyncPolicy::WRITER, &mut |_| {})
    }

    /// [`Memory::sync`] with a progress callback (cold files done) and, when `full`, a re-read
    /// of every file regardless of stats.
    pub fn sync_with_progress(&self, full: bool, progress: &mut dyn FnMut(usize)) -> Result<SyncReport> {
        let policy = if full { SyncPolicy::WRITER.full() } else { SyncPolicy::WRITER };
        sync(&self.store, policy, progress)
    }

    /// Brings the `layer_files` rows of `scope` (and the usage table) up to date with the
    /// layer files on disk; the file wins (module docs). Cheap when nothing changed: one stat
    /// per file; the writer lock is taken only when a file needs mirroring. `full` re-reads
    /// every file. A corrupt usage.json is reported as a `log` warning and rewritten by this
    /// handle's next flush.
    #[doc(hidden)] // internal: for the repository's tests, not part of the library's API
    pub fn sync_layers(&self, scope: LayerScope, full: bool) -> Result<LayerReport> {
        let policy = if full { SyncPolicy::WRITER.full() } else { SyncPolicy::WRITER };
        sync_layers(&self.store, scope, policy)
    }

    /// The mirrored bytes of a layer file (`hot.md`, `summaries/...`), `None` when it has no
    /// row (the file does not exist, as of the last sync). Always `None` for usage.json.
    #[doc(hidden)] // internal: for the repository's tests, not part of the library's API
    pub fn layer_body(&self, rel: &str) -> Result<Option<Vec<u8>>> {
        layer_body(&self.store, rel)
    }

    /// Writes pending ledger changes to usage.json now, regardless of the throttle (the
    /// plugin's "进程退出前会把没落盘的命中补写"). A hand edit of usage.json made since this
    /// index last wrote or read it wins (it is loaded first). Returns true when the file was
    /// written. Errors: lock timeout, I/O. Called (errors ignored) when a [`Memory`] with
    /// unwritten hits is dropped.
    pub fn flush_usage(&self) -> Result<bool> {
        self.record_deferred_hits();
        flush_usage(&self.store)
    }

    /// For a server that answers first and records after: with `on`, queries (`recall`,
    /// `retrieve`, `recent`, `by_tag`, `by_date`) hold their usage hits back instead of
    /// committing them before they return (about a third of a day-window `retrieve` at 1M
    /// entries); [`Memory::record_deferred_hits`] records them, each at the instant
    /// its query ran, in query order. The caller records them after sending each reply and
    /// before running the next call, so every call ranks with every earlier call's hits, as
    /// without deferral. [`Memory::flush_usage`] (and so the drop) records them too. Hits still
    /// held back when the process is killed are lost (the plugin's throttled ledger loses its
    /// unwritten hits the same way). Off by default.
    pub fn defer_hits(&self, on: bool) {
        if !on {
            self.record_deferred_hits();
        }
        self.deferral.on.store(on, Ordering::Relaxed);
    }

    /// Records the usage hits held back by [`Memory::defer_hits`] (none: nothing happens).
    /// Never fails: a hit that cannot be recorded (another process holds the writer lock for
    /// over 2 s, an import runs) is reported as a `log` warning, as a query's own would be.
    pub fn record_deferred_hits(&self) {
        let held = std::mem::take(&mut *self.deferral.held());
        for (now, contents) in held.0 {
            record_hits(&self.store, contents.iter().map(String::as_str), now);
        }
    }

    /// Forgets the usage hits held back by [`Memory::defer_hits`], for a server whose reply
    /// could not be delivered: its client gave up and ran the call itself, recording them.
    pub fn discard_deferred_hits(&self) {
        self.deferral.held().0.clear();
    }

    /// Takes the usage hits held back by [`Memory::defer_hits`] so far (those of the call that
    /// just ran, for a server that runs its calls one at a time and takes them right after
    /// each): they are then recorded ([`Memory::record_taken_hits`]) once that call's reply was
    /// delivered, or dropped when it was not, whatever other calls ran meanwhile.
    #[cfg(all(unix, feature = "serve"))]
    pub(crate) fn take_deferred_hits(&self) -> DeferredHits {
        std::mem::take(&mut *self.deferral.held())
    }

    /// Records hits taken by [`Memory::take_deferred_hits`], each at the instant its query ran,
    /// after any still held back. Never fails (as [`Memory::record_deferred_hits`]).
    #[cfg(all(unix, feature = "serve"))]
    pub(crate) fn record_taken_hits(&self, hits: DeferredHits) {
        self.deferral.held().0.extend(hits.0);
        self.record_deferred_hits();
    }

    /// The ledger records of `keys` (as stored, not decayed).
    #[doc(hidden)] // internal: for the repository's tests, not part of the library's API
    pub fn usage_records(&self, keys: &[String]) -> Result<Ledger> {
        usage_records(&self.store, keys)
    }

    /// `mem_recent(days=3, limit=50)`: entries of the last `days` local dates (today included),
    /// newest first. `days` 1–365, `limit` 1–200 (errors name the field).
    pub fn recent(&self, days: Option<i64>, limit: Option<i64>) -> Result<ListResult> {
        self.read(|r| r.recent(days, limit))
    }

    /// `mem_by_date(from, to, limit=50)`: entries of the closed local-date range, newest first.
    /// Errors: invalid dates (field `from`/`to`), from > to, more than 3660 days, limit outside
    /// 1–200.
    pub fn by_date(&self, from: &str, to: &str, limit: Option<i64>) -> Result<ListResult> {
        self.read(|r| r.by_date(from, to, limit))
    }

    /// `mem_by_tag(tag, limit=20)`: exact, case-insensitive tag match (`-` = untagged), newest
    /// first; `limit` 1–200. Errors: empty tag (field `tag`).
    pub fn by_tag(&self, tag: &str, limit: Option<i64>) -> Result<ListResult> {
        self.read(|r| r.by_tag(tag, limit))
    }

    /// Natural-language retrieval, time-gated when the question holds a time expression
    /// (`query::retrieve` module docs): stop words removed, OR-scored BM25, the one score of
    /// `recall`; without a time expression the same search over the whole archive. Errors:
    /// an empty or blank question without an explicit range (field `query`, as `recall` refuses
    /// an empty keyword; with `time_range` a blank question lists the window's newest entries),
    /// `limit` outside 1–50, an
    /// invalid explicit range (field `time_range`), or a question with more than 2048 distinct
    /// probes (field `query`). A question of stop words only returns an empty result (without a
    /// window) or the window's newest entries.
    ///
    /// ```
    /// use memlayers::{Config, Memory, RetrieveArgs, WindowSource, WriteArgs};
    /// let dir = tempfile::tempdir()?;
    /// let cfg = Config { timezone: memlayers::Tz::Asia__Shanghai, ..Config::default() };
    /// let write = |now: &str, text: &str| -> memlayers::Result<()> {
    ///     let mem = Memory::open(dir.path(), cfg.clone())?.with_now(now.parse().unwrap());
    ///     mem.write(&WriteArgs { text: text.into(), ..Default::default() }).map(|_| ())
    /// };
    /// write("2026-11-25T04:00:00Z", "周三定了年会方案")?; // Wed 2026-11-25, Shanghai
    /// write("2026-11-30T04:00:00Z", "周一又改了年会方案")?; // Mon 2026-11-30 (this week)
    /// // Now: Tue 2026-12-01. 上周 ("last week") is the ISO week 2026-11-23 .. 2026-11-29.
    /// let mem = Memory::open(dir.path(), cfg)?.with_now("2026-12-01T04:00:00Z".parse()?);
    /// let r = mem.retrieve(&RetrieveArgs { query: "上周 年会".into(), explain: true, ..Default::default() })?;
    /// assert_eq!(r.items[0].content, "周三定了年会方案"); // in the window, first
    /// assert_eq!(r.items[0].in_window, Some(true));
    /// // The window held fewer matches than the limit: the best match outside it follows.
    /// assert_eq!((r.items[1].content.as_str(), r.items[1].in_window), ("周一又改了年会方案", Some(false)));
    /// assert_eq!(r.explain.unwrap().window_source, WindowSource::Parsed);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn retrieve(&self, args: &RetrieveArgs) -> Result<RetrieveResult> {
        self.read(|r| r.retrieve(args))
    }

    /// `mem_recall(keyword, limit=10, mode="and")` over every month. Terms are separated by
    /// whitespace; a term matches when all its probes occur in the content or tag (Chinese
    /// text by bigrams: 火锅 matches 晚饭吃了火锅). `limit` 1–50; `mode` defaults to
    /// [`Mode::And`] (every term must match). Ranked by BM25. Errors name `keyword` (nothing
    /// searchable, too many probes) or `limit`.
    ///
    /// ```
    /// use memlayers::{Config, Memory, Mode, WriteArgs};
    /// let dir = tempfile::tempdir()?;
    /// let mem = Memory::open(dir.path(), Config::default())?;
    /// for text in ["晚饭吃了火锅", "周末去看海", "火锅店周末排队"] {
    ///     mem.write(&WriteArgs { text: text.into(), ..Default::default() })?;
    /// }
    /// let both = mem.recall("火锅 周末", None, None)?; // and: both terms
    /// assert_eq!(both.items.iter().map(|i| i.content.as_str()).collect::<Vec<_>>(), ["火锅店周末排队"]);
    /// let either = mem.recall("火锅 周末", None, Some(Mode::Or))?;
    /// assert_eq!(either.returned, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn recall(&self, keyword: &str, limit: Option<i64>, mode: Option<Mode>) -> Result<RecallResult> {
        self.read(|r| r.recall(keyword, limit, mode))
    }

    /// [`Memory::recall`] with the mode by name (`and` / `or` / `any`, case-insensitive), as the
    /// CLI and the plugin's tools take it; checked after `limit`. Errors name `keyword`,
    /// `limit` or `mode`.
    #[cfg_attr(not(feature = "cli"), allow(dead_code))] // used by the CLI
    pub(crate) fn recall_named(&self, keyword: &str, limit: Option<i64>, mode: Option<&str>) -> Result<RecallResult> {
        self.read(|r| r.recall_named(keyword, limit, mode))
    }
}

impl Memory {
    /// The one read path of every query (`recent`, `by_date`, `by_tag`, `recall`, `retrieve`):
    /// `query` runs on a [`Reader`], which syncs the files it reads before reading them, and
    /// the items of its answer are then recorded as usage hits ([`Memory::record`]).
    fn read<A: Answer>(&self, query: impl FnOnce(&Reader<'_>) -> Result<A>) -> Result<A> {
        let answer = query(&Reader::new(&self.store))?;
        self.record(answer.items());
        Ok(answer)
    }

    /// Records one usage hit per item a query returned, at the ledger's instant
    /// (`Store::ledger_now`), or holds them back while [`Memory::defer_hits`] is on. Never
    /// fails (`layers::usage::ops::record_hits`).
    fn record(&self, items: &[Item]) {
        // A read-only data root records nothing (the warning at open says so).
        if items.is_empty() || self.store.read_only() {
            return;
        }
        let now = self.store.ledger_now();
        if self.deferral.on.load(Ordering::Relaxed) {
            self.deferral.held().0.push((now, items.iter().map(|i| i.content.clone()).collect()));
            return;
        }
        record_hits(&self.store, items.iter().map(|i| i.content.as_str()), now);
    }
}

impl Drop for Memory {
    /// Records the hits held back ([`Memory::defer_hits`]), then writes what the throttle kept
    /// out of usage.json (`layers::usage::ops::flush_at_close`; errors go to the `log` crate).
    fn drop(&mut self) {
        self.record_deferred_hits();
        flush_at_close(&self.store);
    }
}

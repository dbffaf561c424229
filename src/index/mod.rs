//! The SQLite index: opening, migrations, pragmas, and rebuild on version change or corruption.
//!
//! `index.sqlite3` in the data root is derived from the Markdown files and can always be
//! rebuilt from them. Connections come from an r2d2 pool (a one-call process opens its own:
//! [`pool`](mod@pool)); every connection runs in WAL mode
//! with a busy timeout, so readers never block on the single writer.

pub mod check;
pub mod cold;
pub mod events;
pub mod mirror;
pub mod pool;
pub mod stamp;
pub mod store;
pub mod sync;
pub mod watch;

pub use store::Store;

use std::path::{Path, PathBuf};
use std::time::Duration;

use r2d2::{ManageConnection, Pool};
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::{Connection, OpenFlags, OptionalExtension};

use crate::fts5::segment::TOKENIZER_VERSION;
use crate::{Error, Result};

mod embedded {
    refinery::embed_migrations!("migrations");
}

pub use pool::{Conn, DbPool};

/// File name of the index inside the data root.
pub const INDEX_FILE: &str = "index.sqlite3";

/// Busy timeout of every connection, in milliseconds.
pub const BUSY_TIMEOUT_MS: u64 = 10_000;

/// How an index was opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenState {
    /// Existing index, same schema and tokenizer: only changed files need mirroring.
    Current,
    /// New (or emptied) index: every file must be mirrored.
    Fresh,
}

fn init_conn(c: &mut Connection) -> rusqlite::Result<()> {
    c.busy_timeout(Duration::from_millis(BUSY_TIMEOUT_MS))?;
    c.pragma_update(None, "synchronous", "NORMAL")?;
    // The query planner stability guarantee: plans never depend on bound values. Without it a
    // statement whose plan read a bound value (a `LIMIT ?`, e.g. the ranked candidates) is
    // marked expired by every bind and compiled again at its next step: once per call on a
    // long-lived handle, twice per statement in a one-call process (SQLite's
    // `sqlite3VdbeSetVarmask`, https://sqlite.org/c3ref/c_dbconfig_defensive.html).
    c.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    c.pragma_update(None, "cache_size", -32_000)?; // KiB: 32 MB page cache per connection
    // Prepared statements kept per connection (rusqlite's default is 16): a query uses a
    // dozen of its own (sync check, count, candidates, usage), so 16 evicted and re-parsed
    // them on every call of a long-lived handle.
    c.set_prepared_statement_cache_capacity(64);
    // Every explicit transaction here writes: begin it IMMEDIATE, taking the write lock (and
    // waiting for it through the busy timeout) before reading. A DEFERRED one reads first, and
    // when another process commits or checkpoints the WAL before it upgrades to write, SQLite
    // cannot wait (its snapshot is stale: SQLITE_BUSY_SNAPSHOT) and fails at once with
    // "database is locked": 8 of 160 parallel CLI recalls lost their usage hits once CLI
    // processes truncated the WAL at exit (test
    // `concurrency::parallel_cli_recalls_record_every_usage_hit`;
    // https://sqlite.org/lang_transaction.html, https://sqlite.org/rescode.html#busy_snapshot).
    c.set_transaction_behavior(rusqlite::TransactionBehavior::Immediate);
    #[cfg(all(unix, target_pointer_width = "64"))]
    c.pragma_update(None, "mmap_size", MMAP_BYTES)?;
    crate::fts5::aux_fn::register(c)?;
    Ok(())
}

/// WAL pages after which a per-call connection's commit checkpoints (`wal_autocheckpoint`):
/// bounds the WAL of a long write inside one call. The WAL a call leaves behind is bounded by
/// [`pool::PER_CALL_WAL_FRAMES`] instead (an automatic checkpoint copies pages but cannot
/// restart the WAL of a process that rebuilt its WAL index; the pool's drop truncates it).
pub const PER_CALL_WAL_PAGES: i64 = 128;

/// Bytes of the index a connection reads through a memory map (`PRAGMA mmap_size`,
/// <https://sqlite.org/mmap.html>) instead of `pread` into its page cache: every connection on
/// 64-bit Unix, except while it loads in bulk (`set_mapped`).
///
/// Why: a page not in SQLite's page cache was a `pread` copying 4 KiB from the OS
/// page cache; mapped, it is read in place. A one-call process starts with an empty page
/// cache, and a long-lived handle meets one whenever a query reads pages it has not read
/// before (another time window) or another process committed (SQLite then drops the whole
/// cache). Measured at 1M entries, OS cache warm: a year-window `retrieve` in a one-call
/// process 9.3–9.6 → 7.6–8.0 ms and an unwindowed `recall` 17.4 → 15.4 ms (20 calls each); a
/// library week-window `retrieve`, each call a week earlier than the one before, 0.74–1.64 →
/// 0.56–1.04 ms (150 calls); at 10k and 100k entries no worse. The map is read-only (SQLite
/// writes through `pwrite` as before), and 1 GiB covers the index up to ~5M entries; pages past
/// it are read as before. Mapped pages count in the process's resident size, which is why bulk
/// loads turn it off. Not on Windows, where a file mapped by one process cannot be truncated by
/// another (a checkpoint after VACUUM shrinks the index), nor on 32-bit targets (address space).
pub const MMAP_BYTES: i64 = 1 << 30;

/// Turns [`MMAP_BYTES`] on or off for `c` (outside a transaction). A bulk load (an import's
/// batches, a sync that mirrors files, the compaction after it) reads most of the index: mapped,
/// those pages stayed in the process's resident size (an import of 1M entries peaked at 308 MB
/// against 122 MB unmapped), so it reads through the page cache (`cache_size`) instead and maps
/// again when done. A no-op where the map is not used. Errors: SQLite errors.
pub(crate) fn set_mapped(c: &Connection, on: bool) -> Result<()> {
    #[cfg(all(unix, target_pointer_width = "64"))]
    c.pragma_update(None, "mmap_size", if on { MMAP_BYTES } else { 0 })?;
    #[cfg(not(all(unix, target_pointer_width = "64")))]
    let _ = (c, on);
    Ok(())
}

/// [`init_conn`] for a process that makes one call ([`open`] with `per_call`): also keeps
/// the WAL when the last connection closes (no checkpoint, no delete). Otherwise each such
/// process that records a usage hit recreates the WAL and pays four fsyncs for one small
/// commit: the new WAL and its directory, then the checkpoint's WAL and database (measured:
/// 6–7 fsyncs per `retrieve`). With it, commits in `synchronous=NORMAL` sync nothing, and the
/// checkpoint that [`pool::PerCallPool`] runs when the WAL passes
/// [`pool::PER_CALL_WAL_FRAMES`], or the close of a long-lived handle, syncs many commits at
/// once: batched, not dropped. (The WAL is part of the index: a copy of `index.sqlite3` alone
/// is an older, consistent snapshot, which sync brings up to date like any stale index.)
fn init_conn_per_call(c: &mut Connection) -> rusqlite::Result<()> {
    init_conn(c)?;
    c.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    c.pragma_update(None, "wal_autocheckpoint", PER_CALL_WAL_PAGES)?;
    Ok(())
}

/// Longest wait, in ms, for the writer lock when the index must be created, migrated or
/// rebuilt (another process may be doing exactly that).
pub const PREPARE_LOCK_TIMEOUT_MS: u64 = 60_000;

/// `Some(state)` when the index at `path` exists, is memlayers' (stamped), has every embedded
/// migration applied and the current tokenizer version: opening it then writes nothing, so no
/// lock and no migration run are needed (`state`: `Fresh` when it mirrors no file yet). Any
/// doubt → None.
fn up_to_date(path: &Path, per_call: bool) -> Option<(DbPool, OpenState)> {
    if !path.exists()
        || !(stamp::header_is_ours(path) || stamp::classify(path, first_migration()) == stamp::Verdict::Ours)
    {
        return None;
    }
    if per_call {
        // The check runs on the pool's first connection, which then serves the call: every
        // connection parses the schema once, so a one-call process opens as few as it can.
        let pool = pool(path, per_call).ok()?;
        let state = up_to_date_conn(&*pool.get().ok()?)?;
        return Some((pool, state));
    }
    // A long-lived handle checks on a connection of its own before it builds the r2d2 pool:
    // r2d2's `build` retries a connection that fails (an index damaged past its header fails
    // in `init_conn`, reading the schema) until its connection timeout, 30 s, before it gives
    // up, and every damaged index paid that wait before it was moved aside and rebuilt
    // (test `corrupt_state::an_index_with_overwritten_pages_never_gives_a_wrong_answer`: 5 of
    // its 18 damages took 30.0 s to open).
    let state = up_to_date_conn(&manager(path, false).connect().ok()?)?;
    Some((pool(path, false).ok()?, state))
}

/// The checks of [`up_to_date`] on an open connection.
fn up_to_date_conn(c: &Connection) -> Option<OpenState> {
    // One statement (each one a CLI process compiles costs tens of µs); it fails to compile
    // when a table is missing, which is "not up to date" too.
    let (applied, tokenizer, events, any_file): (Option<i64>, Option<String>, Option<String>, bool) = c
        .query_row(
            "SELECT (SELECT max(version) FROM refinery_schema_history), \
                    (SELECT value FROM meta WHERE key = 'tokenizer_version'), \
                    (SELECT value FROM meta WHERE key = 'events_version'), \
                    EXISTS (SELECT 1 FROM files)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .ok()?;
    if !(applied == Some(LATEST_MIGRATION) && derived_versions_match(tokenizer.as_deref(), events.as_deref())) {
        return None;
    }
    Some(if any_file { OpenState::Current } else { OpenState::Fresh })
}

/// True when the `meta` values `tokenizer_version` and `events_version` of an index are this
/// build's [`TOKENIZER_VERSION`] and [`events::EVENTS_VERSION`]: its derived rows (FTS5 text,
/// token counts, event windows) are what this build would write. Otherwise the index is
/// emptied and rebuilt from the files ([`prepare`]).
fn derived_versions_match(tokenizer: Option<&str>, events: Option<&str>) -> bool {
    tokenizer == Some(TOKENIZER_VERSION.to_string().as_str())
        && events == Some(events::EVENTS_VERSION.to_string().as_str())
}

/// Version of the newest migration in `migrations/` (`V15__entry_events_no_longer_than.sql`). A constant, not
/// asked of refinery: refinery parses every migration name with a regex it compiles at run
/// time, 8 % of a CLI call's CPU (profiled at 1M entries). The unit test
/// `latest_migration_matches_the_embedded_set` fails when a migration is added without
/// raising it.
pub const LATEST_MIGRATION: i64 = 15;

/// The name refinery records for memlayers' first migration (`V1__entries.sql` → `entries`):
/// how an unstamped index of an older memlayers is told from another program's database.
/// A constant for the same reason as [`LATEST_MIGRATION`], checked by the same test.
fn first_migration() -> &'static str {
    "entries"
}

/// Opens (creating, migrating or rebuilding as needed) the index at `path`.
///
/// Only memlayers' own database is opened ([`stamp`]): anything else at the path — another
/// program's SQLite file, a folder — is moved aside to `index.sqlite3.foreign-<n>` with a
/// warning, untouched, and a new index is built; an index of an older memlayers (no stamp) is
/// recognised and stamped.
///
/// Returns the pool, whether the index is fresh, and warnings (e.g. "index was corrupt and was
/// rebuilt"). A corrupt or non-SQLite file is moved aside to `index.sqlite3.corrupt-<n>` and a
/// fresh index is created; a tokenizer-version change empties the derived tables; an index
/// that is a symlink is moved aside the same way (never opened through). Creating,
/// migrating or rebuilding happens under the writer lock of the index's folder (bounded by
/// [`PREPARE_LOCK_TIMEOUT_MS`]): two processes opening a new data root at once must not both
/// run the migrations, or the loser would take "table already exists" for corruption and move
/// the winner's live index aside.
///
/// `per_call`: the process makes one call and exits (the CLI); its connections leave the WAL
/// to be checkpointed later (`init_conn_per_call`).
pub fn open(path: &Path, per_call: bool) -> Result<(DbPool, OpenState, Vec<String>)> {
    let root = path.parent().unwrap_or(Path::new("."));
    if !is_symlink(path)
        && let Some((pool, state)) = up_to_date(path, per_call)
    {
        // The common case: nothing to create, migrate or rebuild (one connection, no lock).
        return Ok((pool, state, Vec::new()));
    }
    let _lock = crate::files::lock::acquire(root, Duration::from_millis(PREPARE_LOCK_TIMEOUT_MS))?;
    let mut warnings = Vec::new();
    // A symlinked index could lead out of the data root: never open through it.
    if is_symlink(path) {
        let aside = aside_name(path);
        warnings.push(format!(
            "index {} is a symbolic link; moved to {} and rebuilt from the files",
            path.display(),
            aside.display()
        ));
        move_aside(path, &aside)?;
    }
    if let stamp::Verdict::Foreign(why) = stamp::classify(path, first_migration()) {
        let aside = free_name(path, "foreign");
        warnings.push(format!(
            "{} is not a memlayers index ({why}); moved to {} untouched, and a new index is built from the files",
            path.display(),
            aside.display()
        ));
        move_aside(path, &aside)?;
    }
    let state = match prepare(path) {
        Ok(s) => s,
        Err(e) if is_corruption(&e) => {
            let aside = aside_name(path);
            warnings.push(format!(
                "index {} could not be opened ({e}); moved to {} and rebuilt from the files",
                path.display(),
                aside.display()
            ));
            move_aside(path, &aside)?;
            prepare(path)?;
            OpenState::Fresh
        }
        // Busy, locked, I/O or permission problems are not corruption: report them as they are
        // and leave the index where it is.
        Err(e) => return Err(e),
    };
    Ok((pool(path, per_call)?, state, warnings))
}

/// The connection manager of the index at `path`: its flags and per-connection set-up.
fn manager(path: &Path, per_call: bool) -> SqliteConnectionManager {
    let init = if per_call { init_conn_per_call } else { init_conn };
    SqliteConnectionManager::file(path).with_flags(open_flags()).with_init(init)
}

fn pool(path: &Path, per_call: bool) -> Result<DbPool> {
    let manager = manager(path, per_call);
    // A long-lived handle keeps one connection ready. A one-call process opens connections on
    // demand only, on its own thread (`pool::PerCallPool`): r2d2 opens a replacement in the
    // background each time one is checked out (a CLI call opened the index 8–10 times, issue
    // 15's strace) and starts three worker threads.
    if per_call {
        let wal = PathBuf::from(format!("{}-wal", path.display()));
        return Ok(DbPool::PerCall(Box::new(pool::PerCallPool::new(manager, wal))));
    }
    shared_pool().build(manager).map(DbPool::Shared).map_err(Error::pool)
}

/// The r2d2 pool of a long-lived handle: up to 8 connections, one kept ready, and no health
/// check at check-out. r2d2 runs `SELECT 1`-style validation (r2d2_sqlite: `execute_batch`) on
/// every `get`, and a query checks a connection out several times: 6 % of a library day-window
/// `retrieve` at 1M entries (profiled at 1M entries). An SQLite connection to a local file does
/// not go stale the way a network connection does; errors still surface from the statement.
fn shared_pool() -> r2d2::Builder<SqliteConnectionManager> {
    Pool::builder().max_size(8).min_idle(Some(1)).test_on_check_out(false)
}

/// Where a read-only data root's index lives.
#[derive(Debug)]
pub enum ReadOnlyIndex {
    /// The data root's own index, opened `immutable` (read only, no `-wal`/`-shm` created):
    /// the files are not re-mirrored; queries say `stale` if they differ from it.
    InPlace,
    /// A temporary index built from the files, in a folder deleted when the handle drops
    /// (the root has no index, or an outdated or foreign one).
    Temporary(tempfile::TempDir),
}

/// Opens the index of a data root that cannot be written (a read-only mount, another
/// user's folder: it is still queried): its own index
/// in place when it is memlayers' and up to date, else a new index in a temporary folder
/// (state [`OpenState::Fresh`]: the caller mirrors the files into it). Nothing is created in
/// the root. Errors: the temporary index cannot be created.
pub fn open_read_only(root: &Path) -> Result<(DbPool, OpenState, ReadOnlyIndex)> {
    let path = root.join(INDEX_FILE);
    if !is_symlink(&path) && stamp::classify(&path, first_migration()) == stamp::Verdict::Ours {
        // A one-call process (the CLI) leaves its last commits in the WAL. `immutable` would
        // read the main file alone, an older snapshot (a newcomer's read-only root answered
        // nothing); read-only without it reads the WAL through the -shm file left beside it
        // (SQLite 3.22+: https://sqlite.org/wal.html#readonly). With no WAL, nothing to read.
        let wal = PathBuf::from(format!("{}-wal", path.display()));
        let in_wal = std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0);
        let mode = if in_wal { "mode=ro" } else { "immutable=1" };
        let uri = format!("file:{}?{mode}", uri_path(&path));
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        if Connection::open_with_flags(&uri, flags).is_ok_and(|c| up_to_date_conn(&c).is_some()) {
            let manager = SqliteConnectionManager::file(&uri).with_flags(flags).with_init(|c| {
                c.pragma_update(None, "cache_size", -32_000)?;
                crate::fts5::aux_fn::register(c)
            });
            let pool = DbPool::Shared(shared_pool().build(manager).map_err(Error::pool)?);
            return Ok((pool, OpenState::Current, ReadOnlyIndex::InPlace));
        }
    }
    let dir = tempfile::Builder::new().prefix("memlayers-ro-index").tempdir().map_err(|e| Error::io(&path, e))?;
    let (pool, _, _) = open(&dir.path().join(INDEX_FILE), false)?;
    Ok((pool, OpenState::Fresh, ReadOnlyIndex::Temporary(dir)))
}

/// A path as the path part of an SQLite `file:` URI (`%`, `?`, `#` escaped).
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

/// True for errors that mean the file is not a usable index: not a database, a malformed
/// image, a failed `quick_check`, or a schema our migrations cannot apply to.
fn is_corruption(e: &Error) -> bool {
    use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
    match e {
        Error::Sqlite(rusqlite::Error::SqliteFailure(f, _)) => matches!(f.code, DatabaseCorrupt | NotADatabase),
        // Another process holding the database (SQLITE_BUSY / SQLITE_LOCKED) is not damage.
        Error::Migration { code, .. } => {
            !matches!(code, Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
        }
        _ => false,
    }
}

fn is_symlink(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Renames the index and its `-wal`/`-shm` companions to `aside` (+ the same suffixes). A
/// symlink is renamed itself, never its target. A file that is gone by the time it is renamed
/// is skipped: SQLite deletes the `-wal` and `-shm` files when the last connection to the
/// index closes, and another connection (another process, or an r2d2 worker thread of a
/// handle just dropped) may close between the check and the rename (seen in CI as
/// `I/O error on …/index.sqlite3-wal: No such file or directory`).
fn move_aside(path: &Path, aside: &Path) -> Result<()> {
    for suffix in ["", "-wal", "-shm"] {
        let p = PathBuf::from(format!("{}{suffix}", path.display()));
        if std::fs::symlink_metadata(&p).is_ok() {
            let to = PathBuf::from(format!("{}{suffix}", aside.display()));
            match std::fs::rename(&p, &to) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                r => r.map_err(|e| Error::io(&p, e))?,
            }
        }
    }
    Ok(())
}

/// Flags of every connection: the defaults plus `NOFOLLOW` (the index file may not be a
/// symlink, so a link planted later cannot lead out of the data root).
fn open_flags() -> OpenFlags {
    OpenFlags::default() | OpenFlags::SQLITE_OPEN_NOFOLLOW
}

fn aside_name(path: &Path) -> PathBuf {
    free_name(path, "corrupt")
}

/// `<path>.<what>-<n>` with the first `n` free for the file and its `-wal`/`-shm` companions.
fn free_name(path: &Path, what: &str) -> PathBuf {
    (0..)
        .map(|n| PathBuf::from(format!("{}.{what}-{n}", path.display())))
        .find(|p| {
            ["", "-wal", "-shm"].iter().all(|s| std::fs::symlink_metadata(format!("{}{s}", p.display())).is_err())
        })
        .expect("some free name")
}

/// Opens once with a plain connection: WAL, integrity smoke test, migrations, tokenizer check.
fn prepare(path: &Path) -> Result<OpenState> {
    let existed = path.exists() && std::fs::metadata(path).map(|m| m.len() > 0).unwrap_or(false);
    let mut c = Connection::open_with_flags(path, open_flags())?;
    init_conn(&mut c)?;
    // journal_mode reads the header: a garbage file fails here with SQLITE_NOTADB.
    let mode: String = c.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if mode.to_lowercase() != "wal" {
        return Err(Error::Migration {
            message: format!("could not switch the index to WAL (got {mode})"),
            code: None,
            source: None,
        });
    }
    if existed {
        // Smoke test of the header and the schema page, O(1). Not `quick_check`: it walks every
        // page and, since SQLite 3.44, runs FTS5's full integrity check as well (3.2 s on every
        // open of a 1M-entry index). Damage deeper in the file surfaces as SQLITE_CORRUPT.
        c.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get::<_, i64>(0))?;
    }
    embedded::migrations::runner().run(&mut c).map_err(Error::migration)?;
    // The stamp: set on a new index, added to an index of an older memlayers (stamp module).
    c.pragma_update(None, "application_id", stamp::APPLICATION_ID)?;
    let meta = |key: &str| -> Result<Option<String>> {
        Ok(c.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).optional()?)
    };
    let (tokenizer, events) = (meta("tokenizer_version")?, meta("events_version")?);
    let fresh = if derived_versions_match(tokenizer.as_deref(), events.as_deref()) {
        let files: i64 = c.query_row("SELECT count(*) FROM files", [], |r| r.get(0))?;
        files == 0
    } else {
        clear(&c)?;
        c.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES('tokenizer_version', ?1), ('events_version', ?2)",
            [TOKENIZER_VERSION.to_string(), events::EVENTS_VERSION.to_string()],
        )?;
        compact(&c)?;
        true
    };
    Ok(if fresh { OpenState::Fresh } else { OpenState::Current })
}

/// Empties every derived table (entries, token counts, event windows, FTS, files, malformed).
pub fn clear(c: &Connection) -> Result<()> {
    c.execute_batch(
        "DELETE FROM entry_rows; DELETE FROM entry_lens; DELETE FROM entry_events; DELETE FROM files;
         DELETE FROM malformed;
         INSERT INTO entries_fts(entries_fts) VALUES('delete-all');",
    )?;
    Ok(())
}

/// Share of free pages above which [`compact`] rewrites the file: 1/4.
pub const COMPACT_FREE_FRACTION: f64 = 0.25;

/// Gives the free pages of an emptied index back to the file system (`VACUUM`), when more
/// than [`COMPACT_FREE_FRACTION`] of the file is free. Run after [`clear`] or a migration
/// that drops the derived tables (V8): only the small live tables (layer files, usage) are
/// copied, so it is quick, and the rebuild that follows grows a file of its own size instead
/// of leaving the old index's pages free inside it (measured at 1M entries: 341 MB of which
/// 340 MB free after V8's drops). Errors: SQLite's (e.g. busy).
pub fn compact(c: &Connection) -> Result<()> {
    let (free, total): (i64, i64) =
        c.query_row("SELECT freelist_count, page_count FROM pragma_freelist_count, pragma_page_count", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    if total > 0 && free as f64 > COMPACT_FREE_FRACTION * total as f64 {
        c.execute_batch("VACUUM")?;
    }
    Ok(())
}

/// Page cache of the `VACUUM` in [`compact_after_bulk`], KiB as `PRAGMA cache_size` takes
/// it (negative = KiB): 2 MB, SQLite's default.
pub const VACUUM_CACHE_KIB: i64 = -2_000;

/// Fewest entries a load must add before [`compact_after_bulk`] rewrites the index (below
/// it the rewrite saves a few pages at most).
pub const BULK_MIN_ENTRIES: usize = 1_000;

/// After a load that indexed `added` entries (a first sync, a full re-sync, an import): when
/// they are at least [`BULK_MIN_ENTRIES`] and at least a quarter of the entries the index
/// holds now, merges the FTS5 segments the load left into one (`optimize`) and rewrites the
/// file (`VACUUM`: the pages the merges freed go back to the file system, and the by_tag
/// index, filled out of order, is packed), then truncates the WAL the rewrite went through.
/// Measured at 1M entries: 215 → 207 MB, 3.4 s. Returns whether it ran. Another
/// connection busy with the database skips it (it is an optimisation); other SQLite errors
/// are returned.
pub fn compact_after_bulk(c: &Connection, added: usize) -> Result<bool> {
    if added < BULK_MIN_ENTRIES {
        return Ok(false);
    }
    let total: i64 = c.query_row("SELECT coalesce(sum(entries), 0) FROM files", [], |r| r.get(0))?;
    if (added as i64) * 4 < total {
        return Ok(false);
    }
    // VACUUM through a small page cache: with the connection's 32 MB it took 71 MB of RSS
    // at 1M entries (a cache for the copy too), with 2 MB 9 MB (sqlite3 shell, 1.6 s vs 2.2 s).
    let cache: i64 = c.query_row("PRAGMA cache_size", [], |r| r.get(0))?;
    c.pragma_update(None, "cache_size", VACUUM_CACHE_KIB)?;
    set_mapped(c, false)?;
    let run = c
        .execute_batch("INSERT INTO entries_fts(entries_fts) VALUES('optimize'); VACUUM;")
        .and_then(|_| c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())));
    c.pragma_update(None, "cache_size", cache)?;
    set_mapped(c, true)?;
    match run {
        Ok(()) => Ok(true),
        Err(rusqlite::Error::SqliteFailure(f, _))
            if matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) =>
        {
            Ok(false)
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latest_migration_matches_the_embedded_set() {
        let ms = embedded::migrations::runner().get_migrations().clone();
        assert_eq!(ms.iter().map(|m| i64::from(m.version())).max(), Some(LATEST_MIGRATION));
        let first = ms.iter().min_by_key(|m| m.version()).unwrap();
        assert_eq!((first.version(), first.name()), (1, first_migration()));
    }

    #[test]
    fn the_header_check_reads_the_stamp_and_refuses_anything_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(INDEX_FILE);
        assert!(!stamp::header_is_ours(&path)); // missing
        let (pool, _, _) = open(&path, false).unwrap();
        drop(pool); // the last connection checkpoints: page 1 with the stamp is in the file
        assert!(stamp::header_is_ours(&path));
        let other = dir.path().join("other.sqlite3");
        Connection::open(&other).unwrap().execute_batch("PRAGMA application_id = 42; CREATE TABLE t(a);").unwrap();
        assert!(!stamp::header_is_ours(&other));
        std::fs::write(
            &other,
            b"not a database at all, but longer than one hundred bytes ........................................",
        )
        .unwrap();
        assert!(!stamp::header_is_ours(&other));
        assert!(!stamp::header_is_ours(dir.path())); // a folder
    }

    #[test]
    fn a_busy_database_during_migration_is_classified_by_its_code_not_as_corruption() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(INDEX_FILE);
        // Another connection holds an exclusive lock (rollback journal: nobody else may read).
        let holder = Connection::open(&path).unwrap();
        holder.execute_batch("CREATE TABLE x(a); BEGIN EXCLUSIVE; INSERT INTO x VALUES(1);").unwrap();
        let mut c = Connection::open(&path).unwrap();
        c.busy_timeout(Duration::ZERO).unwrap();
        let e = embedded::migrations::runner().run(&mut c).map_err(Error::migration).unwrap_err();
        match &e {
            Error::Migration { code, source, .. } => {
                assert_eq!(*code, Some(rusqlite::ErrorCode::DatabaseBusy));
                assert!(source.is_some());
            }
            other => panic!("expected a migration error, got {other:?}"),
        }
        assert!(!is_corruption(&e));
        // A migration failure SQLite did not report (no code), e.g. a schema history our
        // migrations cannot apply to, means the file is not a usable index.
        let foreign = Error::Migration { message: "applied migration V1 differs".into(), code: None, source: None };
        assert!(is_corruption(&foreign));
    }
}

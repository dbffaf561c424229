//! Where the index's connections come from: an r2d2 pool for a long-lived handle, or, for a
//! process that makes one call (the CLI), connections opened on the calling thread.
//!
//! Why two: r2d2 starts three worker threads per pool and opens every connection
//! on one of them, handing it over through a condition variable. A long-lived handle pays that
//! once; a CLI call paid it on every call: pool, open and first query took 0.63–0.91 ms against
//! 0.43–0.57 ms for the same connection opened directly (release build, the 1M-entry index,
//! five runs each).

use std::ops::{Deref, DerefMut};
use std::path::PathBuf;
use std::sync::Mutex;

use r2d2::{ManageConnection, Pool, PooledConnection};
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::Connection;

use crate::{Error, Result};

/// The connections of one index file.
#[derive(Debug)]
pub enum DbPool {
    /// An r2d2 pool (long-lived handles: the MCP server, `serve`, library users).
    Shared(Pool<SqliteConnectionManager>),
    /// Connections opened when needed on the thread that asks, with the manager's flags and
    /// initialisation, and kept for reuse until the pool drops (one-call processes).
    PerCall(Box<PerCallPool>),
}

/// See [`DbPool::PerCall`].
#[derive(Debug)]
pub struct PerCallPool {
    manager: SqliteConnectionManager,
    idle: Mutex<Vec<Connection>>,
    /// The index's `-wal` file.
    wal: PathBuf,
}

impl PerCallPool {
    /// A pool that opens nothing until asked; `wal` is the index's `-wal` file, kept short
    /// when the pool drops (see the `Drop`).
    pub fn new(manager: SqliteConnectionManager, wal: PathBuf) -> PerCallPool {
        PerCallPool { manager, idle: Mutex::new(Vec::new()), wal }
    }
}

/// Most WAL frames a one-call process leaves behind: when the WAL holds more as the pool
/// drops, it is checkpointed and truncated to zero bytes (`wal_checkpoint(TRUNCATE)`).
///
/// Why: a one-call process keeps its commits in the WAL (no checkpoint on close,
/// `index::init_conn_per_call`), and the first connection of the next process, finding no
/// other connection open, rebuilds the WAL index by reading every frame of the WAL. The
/// rebuilt index also forgets what earlier checkpoints copied, so SQLite never restarted the
/// WAL from its start: each `retrieve` added its usage commit (8 frames) and every later
/// call read them all again and checkpointed them all again, measured at 1M entries as a
/// year-window `retrieve` going from 7.9 ms after a checkpoint to 21.8 ms ten calls on, and
/// 36 ms with 1 167 frames. 64 frames (256 KiB of 4 KiB pages) bound that read to about
/// 0.2 ms, and the checkpoint's two fsyncs come once in about eight usage-recording calls.
pub const PER_CALL_WAL_FRAMES: u64 = 64;

impl Drop for PerCallPool {
    fn drop(&mut self) {
        let Ok(len) = std::fs::metadata(&self.wal).map(|m| m.len()) else { return };
        // Shorter than the bound even with SQLite's smallest page (512 bytes): nothing to ask.
        if len <= 32 + PER_CALL_WAL_FRAMES * (24 + 512) {
            return;
        }
        let idle = self.idle.get_mut().unwrap_or_else(|e| e.into_inner());
        let Some(c) = idle.last() else { return };
        let Ok(page) = c.query_row("PRAGMA page_size", [], |r| r.get::<_, u32>(0)) else { return };
        let page = u64::from(page);
        // WAL layout (https://sqlite.org/fileformat2.html#walformat): a 32-byte header, then
        // frames of a 24-byte header and one page.
        if len <= 32 + PER_CALL_WAL_FRAMES * (24 + page) || c.is_readonly("main").unwrap_or(true) {
            return;
        }
        // An optimisation, never a wait: another process reading or writing makes it busy, and
        // the WAL is then left for a later call (or that process's own checkpoint).
        let _ = c.busy_timeout(std::time::Duration::ZERO);
        let _ = c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }
}

impl DbPool {
    /// A connection: an idle one, or a new one. Errors: the index cannot be opened
    /// ([`Error::Pool`] from r2d2, or the SQLite error of the open).
    pub fn get(&self) -> Result<Conn<'_>> {
        match self {
            DbPool::Shared(p) => p.get().map(Conn::Shared).map_err(Error::pool),
            DbPool::PerCall(p) => {
                let idle = p.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
                let conn = match idle {
                    Some(c) => c,
                    None => p.manager.connect()?,
                };
                Ok(Conn::PerCall { conn: Some(conn), pool: p })
            }
        }
    }
}

/// A connection from a [`DbPool`], given back to it when dropped.
#[derive(Debug)]
pub enum Conn<'a> {
    /// From the r2d2 pool.
    Shared(PooledConnection<SqliteConnectionManager>),
    /// From a [`PerCallPool`] (`conn` is `Some` until the drop).
    PerCall {
        /// The connection.
        conn: Option<Connection>,
        /// Where it goes back.
        pool: &'a PerCallPool,
    },
}

impl Deref for Conn<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        match self {
            Conn::Shared(c) => c,
            Conn::PerCall { conn, .. } => conn.as_ref().expect("a connection until the drop"),
        }
    }
}

impl DerefMut for Conn<'_> {
    fn deref_mut(&mut self) -> &mut Connection {
        match self {
            Conn::Shared(c) => c,
            Conn::PerCall { conn, .. } => conn.as_mut().expect("a connection until the drop"),
        }
    }
}

impl Drop for Conn<'_> {
    fn drop(&mut self) {
        if let Conn::PerCall { conn, pool } = self
            && let Some(c) = conn.take()
        {
            pool.idle.lock().unwrap_or_else(|e| e.into_inner()).push(c);
        }
    }
}

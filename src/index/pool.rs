//! Where the index's connections come from: an r2d2 pool for a long-lived handle, or, for a
//! process that makes one call (the CLI), connections opened on the calling thread.
//!
//! Why two (issue 15): r2d2 starts three worker threads per pool and opens every connection
//! on one of them, handing it over through a condition variable. A long-lived handle pays that
//! once; a CLI call paid it on every call: pool, open and first query took 0.63–0.91 ms against
//! 0.43–0.57 ms for the same connection opened directly (release build, the 1M-entry index,
//! five runs each).

use std::ops::{Deref, DerefMut};
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
    PerCall(PerCallPool),
}

/// See [`DbPool::PerCall`].
#[derive(Debug)]
pub struct PerCallPool {
    manager: SqliteConnectionManager,
    idle: Mutex<Vec<Connection>>,
}

impl PerCallPool {
    /// A pool that opens nothing until asked.
    pub fn new(manager: SqliteConnectionManager) -> PerCallPool {
        PerCallPool { manager, idle: Mutex::new(Vec::new()) }
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

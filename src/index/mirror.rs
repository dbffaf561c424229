//! The one mirror of changed files, shared by the cold files (`files` table,
//! [`crate::index::sync`]) and the layer files (`layer_files` table, [`crate::layers::sync`]).
//!
//! Both record, per file relative to the data root, the stat seen when it was mirrored (size,
//! mtime, inode) and the sha1 of its bytes ([`Known`]). Bringing the index up to date is the
//! same four steps for both: scan the disk and plan against the recorded rows without the
//! lock (cheap: nothing to do is the common case); when the plan is not empty take the writer
//! lock, scan and plan again under it (another writer may have mirrored these files
//! meanwhile), and apply that second plan ([`mirror_changes`]).

use std::collections::HashMap;

use rusqlite::Connection;

use crate::Result;
use crate::files::lock::WriterLock;

/// What the index remembers about one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// Size in bytes when mirrored.
    pub size: i64,
    /// mtime when mirrored, ns.
    pub mtime_ns: i64,
    /// Inode when mirrored.
    pub inode: i64,
    /// sha1 of the bytes mirrored.
    pub hash: String,
}

/// A table of mirrored files: `path, size, mtime_ns, inode, hash` columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// `files`: the cold day files.
    Files,
    /// `layer_files`: hot.md, usage.json, the summaries.
    LayerFiles,
}

/// The recorded rows of `table`, by path.
pub fn known(c: &Connection, table: Table) -> Result<HashMap<String, Known>> {
    let sql = match table {
        Table::Files => "SELECT path, size, mtime_ns, inode, hash FROM files",
        Table::LayerFiles => "SELECT path, size, mtime_ns, inode, hash FROM layer_files",
    };
    let mut st = c.prepare_cached(sql)?;
    let rows = st.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, Known { size: r.get(1)?, mtime_ns: r.get(2)?, inode: r.get(3)?, hash: r.get(4)? }))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The steps of one kind of mirror (cold files or layer files).
pub trait Mirror {
    /// The files found on disk.
    type Disk;
    /// What to do: files to re-read, rows to drop.
    type Plan;
    /// What applying a plan changed.
    type Report;
    /// The table of recorded rows.
    const TABLE: Table;
    /// Lists the files on disk (stat only, no reads).
    fn scan(&self) -> Result<Self::Disk>;
    /// Pure change detection: disk against the recorded rows.
    fn plan(&self, disk: &Self::Disk, known: &HashMap<String, Known>) -> Self::Plan;
    /// True when the plan has nothing to do.
    fn is_empty(plan: &Self::Plan) -> bool;
    /// Reads, hashes and mirrors the planned files (the caller holds the writer lock).
    fn apply(&mut self, c: &mut Connection, plan: &Self::Plan, known: &HashMap<String, Known>) -> Result<Self::Report>;
}

/// What [`mirror_changes`] did.
#[derive(Debug)]
pub struct Mirrored<D, R> {
    /// The disk as scanned first, without the lock.
    pub first: D,
    /// The disk as re-scanned under the lock and what applying changed; `None` when the first
    /// plan was empty (nothing read, no lock taken).
    pub applied: Option<(D, R)>,
}

/// Plan → lock → re-plan → apply (module docs). `held` is the writer lock when the caller
/// already holds it (taking it twice in one process would wait for itself); otherwise
/// `acquire` takes it, and its errors (a lock timeout) are returned.
pub fn mirror_changes<M: Mirror>(
    m: &mut M,
    c: &mut Connection,
    held: Option<&WriterLock>,
    acquire: impl FnOnce() -> Result<WriterLock>,
) -> Result<Mirrored<M::Disk, M::Report>> {
    let first = m.scan()?;
    let p = m.plan(&first, &known(c, M::TABLE)?);
    if M::is_empty(&p) {
        return Ok(Mirrored { first, applied: None });
    }
    let own;
    let _lock = match held {
        Some(l) => l,
        None => {
            own = acquire()?;
            &own
        }
    };
    // Re-plan under the lock: another writer may have mirrored these files meanwhile.
    let known = known(c, M::TABLE)?;
    let disk = m.scan()?;
    let p = m.plan(&disk, &known);
    let rep = m.apply(c, &p, &known)?;
    Ok(Mirrored { first, applied: Some((disk, rep)) })
}

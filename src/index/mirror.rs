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

/// What the index remembers about one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    /// Size in bytes when mirrored.
    pub size: i64,
    /// mtime when mirrored, ns.
    pub mtime_ns: i64,
    /// Inode when mirrored.
    pub inode: i64,
    /// ctime when mirrored, ns ([`crate::files::identity::ctime_ns`]). 0 in rows written before
    /// migration V7 (cold files) or V10 (layer files), so such a file is re-hashed once, its
    /// content compared, and the row completed.
    pub ctime_ns: i64,
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
    known_between(c, table, "", "\u{10FFFF}")
}

/// The recorded rows of `table` whose path lies in `[lo, hi]` (byte order; cold paths sort by
/// date, so the paths of two dates bound a date range, served by the primary key).
pub fn known_between(c: &Connection, table: Table, lo: &str, hi: &str) -> Result<HashMap<String, Known>> {
    let sql = match table {
        Table::Files => "SELECT path, size, mtime_ns, inode, ctime_ns, hash FROM files WHERE path BETWEEN ?1 AND ?2",
        Table::LayerFiles => {
            "SELECT path, size, mtime_ns, inode, ctime_ns, hash FROM layer_files WHERE path BETWEEN ?1 AND ?2"
        }
    };
    let mut st = c.prepare_cached(sql)?;
    let rows = st.query_map([lo, hi], |r| {
        let k = Known { size: r.get(1)?, mtime_ns: r.get(2)?, inode: r.get(3)?, ctime_ns: r.get(4)?, hash: r.get(5)? };
        Ok((r.get::<_, String>(0)?, k))
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
    /// The recorded rows the scan is compared with: every row of [`Mirror::TABLE`] unless the
    /// mirror covers only part of it (a per-call check of a time window's day files).
    fn known(&self, c: &Connection) -> Result<HashMap<String, Known>> {
        known(c, Self::TABLE)
    }
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

/// Plan → lock → re-plan → apply (module docs). `lock` takes the writer lock when there is
/// something to mirror (`Store::mirror_guard`: nothing when the caller's session holds it),
/// and its errors (a lock timeout, the "busy" error) are returned; the guard is held until
/// the changes are applied.
pub fn mirror_changes<M: Mirror, G>(
    m: &mut M,
    c: &mut Connection,
    lock: impl FnOnce() -> Result<G>,
) -> Result<Mirrored<M::Disk, M::Report>> {
    let first = m.scan()?;
    let p = m.plan(&first, &m.known(c)?);
    if M::is_empty(&p) {
        return Ok(Mirrored { first, applied: None });
    }
    let _lock = lock()?;
    // Re-plan under the lock: another writer may have mirrored these files meanwhile.
    let known = m.known(c)?;
    let disk = m.scan()?;
    let p = m.plan(&disk, &known);
    // Applying reads and writes the index in bulk: through the page cache, not the map.
    crate::index::set_mapped(c, false)?;
    let rep = m.apply(c, &p, &known);
    crate::index::set_mapped(c, true)?;
    let rep = rep?;
    Ok(Mirrored { first, applied: Some((disk, rep)) })
}

//! `export`: writes the layer state held in the index — hot.md (body, candidates, topics),
//! the summaries and the usage ledger — back to its canonical files (state
//! that lives in the database must reach its file, so the files never lag). Atomic per file, and only files whose bytes differ are written, so running it
//! twice gives the same bytes and touches nothing the second time.
//!
//! Hand edits win: the layer files are synced into the index first (under the writer lock), so
//! an edited hot.md or summary is what gets exported, not overwritten. Since every layer write
//! goes to its file first, in practice export writes usage.json (hits the throttle held back,
//! decay due) and restores any layer file whose bytes were changed between sync and export.

use serde::Serialize;

use crate::Result;
use crate::index::Store;
use crate::index::store::SyncPolicy;
use crate::layers::sync::{LayerScope, USAGE_FILE, sync, sync_layers, write_layer};
use crate::layers::usage::ops::write_usage_file;

/// Result of [`Memory::export`](crate::Memory::export).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportReport {
    /// Files written (relative to the data root), in path order.
    pub written: Vec<String>,
    /// Layer files whose bytes already matched.
    pub unchanged: usize,
}

/// Writes hot.md, summaries/ and usage.json from the index (module docs). Errors: lock
/// timeout, I/O, index.
pub fn export(store: &Store) -> Result<ExportReport> {
    sync(store, SyncPolicy::WRITER, &mut |_| {})?;
    let lock = store.lock()?;
    sync_layers(store, LayerScope::All, SyncPolicy::held(&lock))?;
    let mut rep = ExportReport::default();
    let rows: Vec<(String, Vec<u8>)> = {
        let c = store.conn()?;
        let mut st = c.prepare("SELECT path, body FROM layer_files WHERE body IS NOT NULL ORDER BY path")?;
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?
    };
    for (rel, body) in rows {
        let path = crate::files::safe_join(store.root(), &rel)?;
        if std::fs::read(&path).ok().as_deref() == Some(&body[..]) {
            rep.unchanged += 1;
        } else {
            write_layer(&lock, &rel, &body)?;
            rep.written.push(rel);
        }
    }
    if write_usage_file(&lock)? {
        rep.written.push(USAGE_FILE.to_string());
    } else if store.root().join(USAGE_FILE).exists() {
        rep.unchanged += 1;
    }
    rep.written.sort();
    Ok(rep)
}

//! Importing the layers of another dsh-memory-layers data root besides its `cold/`:
//! the candidates and topics of its `hot.md`, its `summaries/`, and its `usage.json`, merged
//! into this data root so that newer local state is never overwritten:
//!
//! * hot.md: every source candidate whose (tag, text) is not already a local candidate is
//!   appended; every source `topic|YYYY-MM` line not already in the local index is appended;
//!   the source body is taken only when the local body is empty (a body is a whole, written by
//!   one agent; merging two would break the ~600-character budget silently).
//! * summaries/{day,week,month}/*.md: copied when this data root has no file of that name;
//!   an existing local summary is kept as it is.
//! * usage.json: a key the local ledger lacks is added; a key both have keeps the local
//!   record unless the source's `lastHitAt` is later (then the source record, hits and weight
//!   included, replaces it). Re-importing the same root therefore changes nothing.
//!
//! The source is only read. Everything is written under the import's writer lock, each file
//! atomically, then mirrored.

use std::path::Path;

use serde::Serialize;

use crate::Result;
use crate::index::store::{SyncPolicy, WriteSession};
use crate::layers::hot::ops::hot_doc;
use crate::layers::hot::{self, HotDoc};
use crate::layers::sync::{HOT_FILE, LayerScope, USAGE_FILE, kind_of, layer_body, sync_layers, write_layer};
use crate::layers::usage::ops::{put_usage_records_locked, usage_records};
use crate::layers::usage::{Ledger, LoadStatus};

/// What the layer part of a dsh import did (`layers` in the import report).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LayersImported {
    /// Source candidates added to the local hot.md.
    pub candidates_added: usize,
    /// Source topics lines added to the local index.
    pub topics_added: usize,
    /// True when the local hot body was empty and the source body was taken.
    pub hot_body_taken: bool,
    /// Summary files copied (relative paths), in name order.
    pub summaries_copied: Vec<String>,
    /// Source summaries not copied because this data root has its own.
    pub summaries_kept: usize,
    /// Ledger records added (keys the local ledger lacked).
    pub usage_added: usize,
    /// Ledger records replaced by a source record with a later `lastHitAt`.
    pub usage_replaced: usize,
    /// Source layer files that could not be used (unreadable, not UTF-8, corrupt usage.json).
    pub warnings: Vec<String>,
}

fn read_text(path: &Path, warnings: &mut Vec<String>) -> Option<String> {
    match std::fs::read(path) {
        Ok(b) => match String::from_utf8(b) {
            Ok(t) => Some(t),
            Err(_) => {
                warnings.push(format!("{}: not UTF-8, skipped", path.display()));
                None
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            warnings.push(format!("{}: {e}, skipped", path.display()));
            None
        }
    }
}

/// Merges the source hot.md into `local` (module docs). Pure. Returns (candidates added,
/// topics added, body taken).
pub fn merge_hot(local: &mut HotDoc, source: &HotDoc) -> (usize, usize, bool) {
    let mut cands = 0;
    for c in &source.candidates {
        if !local.candidates.iter().any(|l| l.tag == c.tag && l.content == c.content) {
            local.candidates.push(c.clone());
            cands += 1;
        }
    }
    let mut topics = 0;
    for t in &source.topics {
        if !local.topics.contains(t) {
            local.topics.push(t.clone());
            topics += 1;
        }
    }
    let take_body = local.body.trim().is_empty() && !source.body.trim().is_empty();
    if take_body {
        local.body = source.body.clone();
    }
    (cands, topics, take_body)
}

/// Merges the source ledger into `local` (module docs). Pure. Returns the keys added and the
/// keys replaced.
pub fn merge_usage(local: &Ledger, source: &Ledger) -> (Vec<String>, Vec<String>) {
    let (mut added, mut replaced) = (Vec::new(), Vec::new());
    for (k, s) in &source.entries {
        match local.entries.get(k) {
            None => added.push(k.clone()),
            Some(l) if s.last_hit_at > l.last_hit_at => replaced.push(k.clone()),
            Some(_) => {}
        }
    }
    (added, replaced)
}

/// Imports the layers of the dsh data root `src` (module docs) while the caller holds the
/// writer lock. Errors: index or I/O failures writing this data root; problems with the
/// source's files are warnings.
pub(crate) fn import_dsh_layers(lock: &WriteSession<'_>, src: &Path) -> Result<LayersImported> {
    let store = lock.store();
    let mut rep = LayersImported::default();
    sync_layers(store, LayerScope::All, SyncPolicy::held(lock))?;
    if let Some(text) = read_text(&src.join(HOT_FILE), &mut rep.warnings) {
        let source = hot::parse(&text);
        let existing = hot_doc(store)?;
        let mut doc = existing.clone().unwrap_or_default();
        let (c, t, b) = merge_hot(&mut doc, &source);
        (rep.candidates_added, rep.topics_added, rep.hot_body_taken) = (c, t, b);
        if c + t > 0 || b {
            write_layer(lock, HOT_FILE, hot::format(&doc).as_bytes())?;
        }
    }
    for level in ["day", "week", "month"] {
        let dir = src.join("summaries").join(level);
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        let mut names: Vec<String> =
            rd.filter_map(|e| e.ok()).filter_map(|e| e.file_name().into_string().ok()).collect();
        names.sort();
        for name in names {
            let rel = format!("summaries/{level}/{name}");
            if kind_of(&rel).is_none() {
                continue;
            }
            let Some(text) = read_text(&dir.join(&name), &mut rep.warnings) else { continue };
            if layer_body(store, &rel)?.is_some() || store.root().join(&rel).exists() {
                rep.summaries_kept += 1;
                continue;
            }
            write_layer(lock, &rel, text.as_bytes())?;
            rep.summaries_copied.push(rel);
        }
    }
    if let Some(text) = read_text(&src.join(USAGE_FILE), &mut rep.warnings) {
        let (source, status) = Ledger::parse(Some(&text));
        if let LoadStatus::Corrupt(why) = &status {
            rep.warnings.push(format!("{}: {why}, skipped", src.join(USAGE_FILE).display()));
        }
        let keys: Vec<String> = source.entries.keys().cloned().collect();
        let local = usage_records(store, &keys)?;
        let (added, replaced) = merge_usage(&local, &source);
        if !added.is_empty() || !replaced.is_empty() {
            let records: Vec<_> =
                added.iter().chain(&replaced).map(|k| (k.clone(), source.entries[k].clone())).collect();
            put_usage_records_locked(lock, &records)?;
        }
        (rep.usage_added, rep.usage_replaced) = (added.len(), replaced.len());
    }
    Ok(rep)
}

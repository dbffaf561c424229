//! The hot layer on a data root: `hot_get`, `hot_set`, and the candidate / topics additions
//! made by `write(important)` and `summarize` (dsh-memory-layers v1.2 `mem_hot_get`,
//! `mem_hot_set`). The rules live in [`crate::layers::hot`] (pure); this module reads the mirrored
//! hot.md, takes the writer lock, writes the cold file first and hot.md second.
//!
//! * A missing hot.md reads as an empty body with no candidates or topics, and reading creates
//!   nothing (docs/plugin-compatibility.md: "没有 hot.md 时返回空正文，不报错、不创建文件").
//! * Moving text to the cold layer (evicted blocks, tag `hot-evict`; sunk candidates, tag
//!   `candidate-expired`) always writes today's cold file first; only when that succeeded is
//!   the text removed from hot.md. If it fails, hot.md keeps the text (docs/plugin-compatibility.md:
//!   "腾挪先写冷层成功、再从正文移除；写失败就整体保持原样").

use crate::files::entry::Entry;
use crate::index::Store;
use crate::index::store::{SyncPolicy, WriteSession};
use crate::layers::cold::ops::append_entries_locked;
use crate::layers::hot::evict::{block_keys, split_blocks};
use crate::layers::hot::prune::prune_candidates;
use crate::layers::hot::set::{HotSetResult, apply_set};
use crate::layers::hot::{self, HotDoc, HotGetResult, HotStatus, Pruned, Topic};
use crate::layers::sync::{HOT_FILE, LayerScope, layer_body, redo_on_change, sync, sync_layers, write_layer};
use crate::layers::usage::key;
use crate::layers::usage::ops::{promote_locked, usage_records};
use crate::{Error, Result};

/// The mirrored hot.md, parsed; `None` when there is no hot.md (as of the last sync).
pub fn hot_doc(store: &Store) -> Result<Option<HotDoc>> {
    Ok(layer_body(store, HOT_FILE)?.map(|b| hot::parse(&String::from_utf8_lossy(&b))))
}

/// Writes hot.md (layout of [`hot::format`]) atomically and records it. The caller holds
/// the writer lock.
fn write_hot(lock: &WriteSession<'_>, doc: &HotDoc) -> Result<()> {
    write_layer(lock, HOT_FILE, hot::format(doc).as_bytes())
}

/// `mem_hot_get()`: the body, its size against `hotLimit`, the candidates and the topics
/// index. Candidates past `candidateTtlDays`, and the oldest beyond `candidateMax`, sink to
/// today's cold file first (tag `candidate-expired`, text `[original tag] text`), counted
/// in `pruned`; if that cold write fails they stay, `pruned` counts nothing and `warnings`
/// says why. Errors: index or lock failures, or hot.md cannot be rewritten after the sink.
pub fn hot_get(store: &Store) -> Result<HotGetResult> {
    sync(store, SyncPolicy::WRITER, &mut |_| {})?;
    let Some(doc) = hot_doc(store)? else {
        return Ok(hot::get_view(&HotDoc::default(), store.config(), Pruned::none(0)));
    };
    if prune_plan(store, &doc)?.sink.is_empty() {
        let kept = doc.candidates.len();
        return Ok(hot::get_view(&doc, store.config(), Pruned::none(kept)));
    }
    let lock = store.lock()?;
    redo_on_change(&lock, || {
        sync_layers(store, LayerScope::Live, SyncPolicy::held(&lock))?;
        let doc = hot_doc(store)?.unwrap_or_default();
        let plan = prune_plan(store, &doc)?;
        if plan.sink.is_empty() {
            return Ok(hot::get_view(&doc, store.config(), plan.pruned));
        }
        if let Err(e) = append_entries_locked(&lock, store.today(), &plan.sink) {
            let mut view = hot::get_view(&doc, store.config(), Pruned::none(doc.candidates.len()));
            view.warnings.push(format!("候选下沉失败（写冷层出错：{e}），候选保持原样"));
            return Ok(view);
        }
        write_hot(&lock, &plan.doc)?;
        Ok(hot::get_view(&plan.doc, store.config(), plan.pruned))
    })
}

fn prune_plan(store: &Store, doc: &HotDoc) -> Result<hot::prune::PrunePlan> {
    let keys: Vec<String> = doc.candidates.iter().map(|c| key(&c.content)).collect();
    let ledger = usage_records(store, &keys)?;
    Ok(prune_candidates(doc, store.config(), &ledger, store.now()))
}

/// `mem_hot_set(content)`: replaces the body with `content` (empty clears it); candidates
/// and topics are kept unless `content` carries its own blocks. Blocks new to the body
/// whose text is in the usage ledger get `+15`. Over `hotLimit` with `autoEvict`, the least
/// active blocks move to today's cold file (tag `hot-evict`) first, then leave the body
/// (`evicted`, `charsAfterEvict`, `evictHint`); if the cold write fails the body is written
/// un-evicted and `evictHint` says why. Errors: `BadInput` (field `content`) on a control
/// character other than line breaks and tabs; lock timeout, I/O, index.
pub fn hot_set(store: &Store, content: &str) -> Result<HotSetResult> {
    // Line breaks and tabs belong to Markdown; any other control character (NUL, escapes)
    // is refused as `write` refuses it, so hot.md stays plain text.
    if let Some(c) = content.chars().find(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t')) {
        return Err(Error::bad("content", format!("contains control character U+{:04X}", c as u32)));
    }
    sync(store, SyncPolicy::WRITER, &mut |_| {})?;
    let lock = store.lock()?;
    let (plan, result) = redo_on_change(&lock, || {
        sync_layers(store, LayerScope::Live, SyncPolicy::held(&lock))?;
        let old = hot_doc(store)?.unwrap_or_default();
        let keys: Vec<String> = split_blocks(&hot::parse(content).body).iter().flat_map(|b| block_keys(b)).collect();
        let ledger = usage_records(store, &keys)?;
        let plan = apply_set(&old, content, store.config(), &ledger, store.now());
        let (doc, result) = if plan.cold_entries.is_empty() {
            (plan.doc.clone(), plan.result.clone())
        } else {
            match append_entries_locked(&lock, store.today(), &plan.cold_entries) {
                Ok(_) => (plan.doc.clone(), plan.result.clone()),
                Err(e) => plan.cold_write_failed(store.config().hot_limit, &e.to_string()),
            }
        };
        write_hot(&lock, &doc)?;
        Ok((plan, result))
    })?;
    if !plan.promote.is_empty()
        && let Err(e) = promote_locked(&lock, &plan.promote)
    {
        log::warn!("promotion (+15) not recorded: {e}");
    }
    Ok(result)
}

/// Adds `entry` to the candidates (creating hot.md when missing) and returns its 1-based
/// index with the body's size figures; an identical candidate (tag + text) is not added
/// twice. The caller holds the writer lock.
pub(crate) fn add_candidate_locked(lock: &WriteSession<'_>, entry: Entry) -> Result<(usize, HotStatus)> {
    let store = lock.store();
    redo_on_change(lock, || {
        sync_layers(store, LayerScope::Live, SyncPolicy::held(lock))?;
        let mut doc = hot_doc(store)?;
        let existed = doc.is_some();
        let d = doc.get_or_insert_with(HotDoc::default);
        let before = d.candidates.len();
        let index = hot::add_candidate(d, entry.clone());
        if d.candidates.len() != before || !existed {
            write_hot(lock, d)?;
        }
        Ok((index, hot::status(d, store.config())))
    })
}

/// Adds topics lines not yet in the index (never reordering or replacing, docs/plugin-compatibility.md
/// "已存在的行不重复、不覆盖"), creating hot.md when there is something to add; returns how
/// many were added. The caller holds the writer lock.
pub(crate) fn add_topics_locked(lock: &WriteSession<'_>, topics: &[Topic]) -> Result<usize> {
    let store = lock.store();
    if topics.is_empty() {
        return Ok(0);
    }
    redo_on_change(lock, || {
        sync_layers(store, LayerScope::Live, SyncPolicy::held(lock))?;
        let mut doc = hot_doc(store)?.unwrap_or_default();
        let added = hot::add_topics(&mut doc, topics);
        if added > 0 {
            write_hot(lock, &doc)?;
        }
        Ok(added)
    })
}

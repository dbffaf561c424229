//! `mem_stats()` on a data root: gathers the figures from the index (after a sync) and hands
//! them to [`crate::layers::stats::compute`] (pure).
//!
//! Sources: the hot layer from the mirrored hot.md; cold files, entries and latest date per
//! month from the `files` table; summary file counts and code points from `layer_files`; the
//! usage lists from the `usage` table, weights decayed to now. An entry's 40-character preview
//! comes from the text stored with its ledger row; for keys whose text this index never saw
//! (a ledger read from usage.json) the cold entries are hashed until the shown keys are found.

use std::collections::{HashMap, HashSet};

use chrono::NaiveDate;

use crate::Result;
use crate::index::Store;
use crate::index::store::SyncPolicy;
use crate::layers::hot::HotDoc;
use crate::layers::hot::ops::hot_doc;
use crate::layers::stats::{ColdMonthInput, LevelCount, Stats, SummaryStats, compute};
use crate::layers::sync::{sync, sync_layers};
use crate::layers::usage::{Ledger, key};

/// `mem_stats()`: hot chars / limit / candidates / topics; cold files and entries per month
/// with the latest date; file counts and chars of the three summary levels; usage totals
/// and `topRecalled` / `weightTop` / `weightBottom` (5 each, text cut to 40 code points).
/// Read-only. Errors: index failures.
pub fn stats(store: &Store) -> Result<Stats> {
    sync(store, SyncPolicy::WRITER, &mut |_| {})?;
    sync_layers(store, crate::layers::sync::LayerScope::All, SyncPolicy::WRITER)?;
    let hot = hot_doc(store)?.unwrap_or_else(HotDoc::default);
    let c = store.conn()?;
    let mut cold = Vec::new();
    {
        let mut st = c.prepare_cached(
            "SELECT substr(day, 1, 7), count(*), coalesce(sum(entries), 0), max(day) FROM files GROUP BY 1 ORDER BY 1",
        )?;
        let rows = st.query_map([], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?, r.get::<_, String>(3)?))
        })?;
        for row in rows {
            let (month, files, entries, latest) = row?;
            cold.push(ColdMonthInput {
                month,
                files: files as usize,
                entries: entries as usize,
                latest: NaiveDate::parse_from_str(&latest, "%Y-%m-%d").ok(),
            });
        }
    }
    let mut sums = SummaryStats::default();
    {
        let mut st = c.prepare_cached(
            "SELECT kind, count(*), coalesce(sum(chars), 0) FROM layer_files WHERE kind IN ('day', 'week', 'month') GROUP BY kind",
        )?;
        let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)))?;
        for row in rows {
            let (kind, files, chars) = row?;
            let level = LevelCount { files: files as usize, chars: chars as usize };
            match kind.as_str() {
                "day" => sums.day = level,
                "week" => sums.week = level,
                _ => sums.month = level,
            }
        }
    }
    let mut ledger = Ledger::default();
    let mut texts: HashMap<String, String> = HashMap::new();
    for (k, r, text) in crate::layers::usage::table::load_all(&c)? {
        if let Some(t) = text {
            texts.insert(k.clone(), t);
        }
        ledger.entries.insert(k, r);
    }
    let (cfg, now) = (store.config(), store.now());
    let stats = compute(&hot, &cold, sums, &ledger, &texts, cfg, now);
    let mut missing: HashSet<String> = [&stats.top_recalled, &stats.weight_top, &stats.weight_bottom]
        .into_iter()
        .flatten()
        .filter(|i| !texts.contains_key(&i.key))
        .map(|i| i.key.clone())
        .collect();
    if missing.is_empty() {
        return Ok(stats);
    }
    let mut st = c.prepare("SELECT content FROM entry_rows")?;
    let mut rows = st.query([])?;
    while !missing.is_empty()
        && let Some(r) = rows.next()?
    {
        let content: String = r.get(0)?;
        let k = key(&content);
        if missing.remove(&k) {
            texts.insert(k, content);
        }
    }
    Ok(compute(&hot, &cold, sums, &ledger, &texts, cfg, now))
}

//! The write side of an import: a [`ScanReport`](super::ScanReport) becomes canonical cold
//! files in the data root, then index rows.
//!
//! Per day, the planned entries are appended to `cold/YYYY-MM/YYYY-MM-DD.md` under one writer
//! lock for the whole import, with compare-and-swap ([`crate::files::cas`]): with `O_APPEND`
//! to a file that ends with a newline (a hand `>>` at the same instant lands next to the
//! import's lines), else by an atomic rewrite that is done only if the file is still what was
//! read, and a new day file only if none was created meanwhile. A day file edited by hand
//! during the import is read again and its entries decided again: a hand edit is never
//! overwritten. Idempotence is by multiset on
//! (tag, text) within the day: a planned entry is added only when the day file holds fewer
//! copies of that tag + text than the plan does. So importing the same archive twice adds
//! nothing, an archive that gained days or entries adds only those, edits above an entry in
//! the source (which shift its line number in the source marker) do not duplicate it, and
//! entries repeated on purpose within a day are kept as often as the source has them.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::{DayPlan, Format, ScanSummary, scan_each};
use crate::files::cas::{self, Outcome};
use crate::files::entry::Entry;
use crate::files::lock::WriterLock;
use crate::index::Store;
use crate::layers::cold::ops::kept_changing;
use crate::{Error, Result};

/// Days an import writes and mirrors together (files written side by side, one index
/// transaction): the batch size of sync (`BATCH_FILES`).
pub const IMPORT_BATCH_DAYS: usize = crate::index::sync::BATCH_FILES;

/// What an import did (`memlayers import --json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// The format used (given or detected).
    pub format: Format,
    /// The folder imported.
    pub source: String,
    /// Entries found in the source archive.
    pub entries_found: usize,
    /// Entries added to the data root (the rest were already there).
    pub entries_added: usize,
    /// Entries already present (skipped as duplicates).
    pub entries_already_present: usize,
    /// Days that received at least one entry.
    pub days_changed: usize,
    /// What the scan found: days, files read, skipped files by reason, warnings.
    pub scan: ScanSummary,
    /// dsh format only: what was merged from the source's hot.md, summaries/ and usage.json.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layers: Option<super::LayersImported>,
}

impl Store {
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
        if !path.is_dir() {
            return Err(Error::bad("path", format!("{} is not an existing folder", path.display())));
        }
        let format = format.unwrap_or_else(|| Format::detect(path));
        let canon = path.canonicalize().map_err(|e| Error::io(path, e))?;
        let root = self.root().canonicalize().map_err(|e| Error::io(self.root(), e))?;
        if format != Format::Dsh && (canon.starts_with(&root) || root.starts_with(&canon)) {
            return Err(Error::bad("path", "a daily-notes archive must not contain or be inside the data root"));
        }
        // One writer lock for the whole import (held until the end of this function).
        let lock = self.lock()?;
        // An append of `write` torn by a crash is cut off before anything is added after it
        // (the import report has no place for data-root notes: they go to the `log`).
        for w in self.repair_torn_append(&lock) {
            log::warn!("{w}");
        }
        // Readers answering meanwhile say `stale` (the import is half done) until it ends.
        let _busy = self.mark_busy(&lock, "import")?;
        let (mut found, mut added, mut changed, mut done) = (0usize, 0usize, 0usize, 0usize);
        let (mut first, mut last, mut days_with_entries) = (None, None, 0usize);
        // Days arrive from the scan one by one and are written in batches: the files of a batch
        // side by side (fsyncs together, one per folder) and mirrored in one index transaction
        // (one FTS5 flush instead of one per day: a per-day commit made the import 6x slower
        // than sync, issue 15). Each file is still written atomically before the index learns
        // of it, and only one batch of days is in memory at a time.
        let mut batch: Vec<DayPlan> = Vec::with_capacity(IMPORT_BATCH_DAYS);
        let mut flush = |batch: &mut Vec<DayPlan>, total: usize| -> Result<()> {
            let (a, c) = self.import_batch(&lock, batch)?;
            added += a;
            changed += c;
            done += batch.len();
            batch.clear();
            progress(done, total);
            Ok(())
        };
        let mut total_days = 0;
        let mut report = scan_each(path, format, self.tz(), &mut |day, total| {
            found += day.entries.len();
            days_with_entries += 1;
            first.get_or_insert(day.day);
            last = Some(day.day);
            total_days = total;
            batch.push(day);
            if batch.len() == IMPORT_BATCH_DAYS { flush(&mut batch, total) } else { Ok(()) }
        })?;
        flush(&mut batch, total_days)?;
        crate::index::compact_after_bulk(&*self.conn()?, added)?;
        let layers = if format == Format::Dsh { Some(self.import_dsh_layers(&lock, path)?) } else { None };
        let mut summary = report.summary();
        summary.days = days_with_entries;
        summary.entries = found;
        summary.first_day = first.map(|d| d.format("%Y-%m-%d").to_string());
        summary.last_day = last.map(|d| d.format("%Y-%m-%d").to_string());
        report.days.clear();
        Ok(ImportReport {
            format,
            source: path.display().to_string(),
            entries_found: found,
            entries_added: added,
            entries_already_present: found - added,
            days_changed: changed,
            scan: summary,
            layers,
        })
    }

    /// Appends one batch of planned days (module docs: multiset idempotence), writes their
    /// files together with compare-and-swap ([`crate::files::cas::write_all`]) and mirrors
    /// them in one transaction. A day file that changed between its read and its write (a hand
    /// edit during the import) is not written: it is read again and its entries decided again,
    /// in a next round with the other changed days (at most [`cas::MAX_REDO`] rounds). A day
    /// written while someone appended next to it is mirrored from the file as it is now.
    /// Returns (entries added, days changed). The caller holds the writer lock.
    fn import_batch(&self, lock: &WriterLock, days: &[DayPlan]) -> Result<(usize, usize)> {
        let entries: Vec<Vec<Entry>> =
            days.iter().map(|d| d.entries.iter().map(|e| e.entry.clone()).collect()).collect();
        let (mut added, mut changed) = (0, 0);
        let mut todo: Vec<usize> = (0..days.len()).collect();
        for _ in 0..cas::MAX_REDO {
            if todo.is_empty() {
                return Ok((added, changed));
            }
            let mut prepared = Vec::new();
            for &i in &todo {
                let p = self.prepare_append(days[i].day, &entries[i], &mut multiset_keep())?;
                if !p.added.is_empty() {
                    prepared.push((i, p));
                }
            }
            let items: Vec<(&Path, &cas::Snapshot, &[u8])> =
                prepared.iter().map(|(_, p)| (p.path.as_path(), &p.snap, p.bytes.as_slice())).collect();
            let outcomes = cas::write_all(&items)?;
            let mut redo = Vec::new();
            let mut raced = Vec::new();
            let mut c = self.conn()?;
            let tx = c.transaction()?;
            for ((i, p), o) in prepared.iter().zip(outcomes) {
                match o {
                    Outcome::Changed => redo.push(*i),
                    Outcome::Done { raced: r } => {
                        added += p.added.len();
                        changed += 1;
                        if r {
                            raced.push(p.day);
                        } else {
                            self.mirror_appended_in(&tx, p.day, &p.snap.bytes, p.count, &p.bytes, &p.added)?;
                        }
                    }
                }
            }
            tx.commit()?;
            for day in raced {
                self.mirror_day(lock, day)?;
            }
            todo = redo;
        }
        match todo.first() {
            None => Ok((added, changed)),
            Some(&i) => {
                Err(kept_changing(&crate::files::safe_join(self.root(), &crate::files::cold_rel(days[i].day))?))
            }
        }
    }
}

/// The filter of an import (module docs): a planned entry is kept when the day file holds
/// fewer copies of its (tag, text) than the plan has so far. One filter per day and read.
fn multiset_keep() -> impl FnMut(&[Entry], &Entry) -> bool {
    let mut planned: HashMap<(String, String), usize> = HashMap::new();
    let mut existing: Option<HashMap<(String, String), usize>> = None;
    move |have, e| {
        let have = existing.get_or_insert_with(|| {
            let mut m = HashMap::new();
            for x in have {
                *m.entry((x.tag.clone(), x.content.clone())).or_default() += 1;
            }
            m
        });
        let key = (e.tag.clone(), e.content.clone());
        let n = planned.entry(key.clone()).or_default();
        *n += 1;
        *n > have.get(&key).copied().unwrap_or(0)
    }
}

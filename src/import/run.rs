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

use chrono::NaiveDate;

use serde::Serialize;

use super::{DayPlan, Format, ScanSummary, scan_each};
use crate::files::cas::{self, Outcome};
use crate::files::entry::Entry;
use crate::import::dsh_layers::import_dsh_layers;
use crate::index::Store;
use crate::index::cold::{WrittenFile, mirror_day, mirror_written_in};
use crate::index::store::WriteSession;
use crate::index::sync::{Appended, FtsText, sha1_hex};
use crate::layers::cold::ops::{kept_changing, prepare_append, repair_torn_append};
use crate::{Error, Result};

/// Days an import writes and mirrors together (files written side by side, one index
/// transaction): the batch size of sync (`BATCH_FILES`).
pub const IMPORT_BATCH_DAYS: usize = crate::index::sync::BATCH_FILES;

/// Entries that close a batch before [`IMPORT_BATCH_DAYS`] days: a batch in memory holds its
/// entries twice (as planned and segmented for FTS5) and its files' bytes, and at most two
/// batches are in memory, so this bounds the import's memory for days of up to that many
/// entries (peak RSS ≤ 150 MB; 93 MB for 1M entries over 10 years, 290 a day, ~113
/// days a batch). A day is never split (its file is written whole), so a larger day is a batch
/// of its own and the peak grows with the two largest days: two days of 200 000 entries each
/// (23 MB of text apiece) peaked at 341 MB, where sync, which reads one file at a time, peaked
/// at 60 MB.
pub const IMPORT_BATCH_ENTRIES: usize = 32_768;

/// Days of the first batch: the index stage waits for it, so it is small, and the two stages
/// overlap sooner.
pub const IMPORT_FIRST_BATCH_DAYS: usize = 8;

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
    /// Entries not imported because their day would have held more than the most one day
    /// can index ([`crate::index::sync::MAX_ENTRIES_PER_DAY`]): each such day is named in
    /// `warnings`. Omitted when 0.
    #[serde(skip_serializing_if = "is_zero")]
    pub entries_over_limit: usize,
    /// Days that received at least one entry.
    pub days_changed: usize,
    /// What the scan found: days, files read, skipped files by reason, warnings.
    pub scan: ScanSummary,
    /// dsh format only: what was merged from the source's hot.md, summaries/ and usage.json.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layers: Option<super::LayersImported>,
    /// The IANA zone this data root's day files are dated in (`memlayers.json`): the local
    /// date of every imported entry's file is its date in this zone.
    pub zone: String,
    /// True when this import's handle recorded that zone for a new data root: from now on it
    /// dates every day file and cannot be changed in place ([`crate::files::zone`]). Omitted
    /// when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub zone_recorded: bool,
    /// What the caller should know about the import as a whole (the CLI prints each on
    /// stderr): a dsh source that records another zone than this data root's, or a record
    /// that cannot be read. Omitted when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Imports an archive folder (`format` or auto-detected) into this data root. `progress`
/// receives (days done, days total). Errors: the folder cannot be read, or is this data
/// root's own `cold/` parent with format other than dsh (field `path`); a lock timeout.
/// Source files are only read, never modified.
pub fn import(
    store: &Store,
    path: &Path,
    format: Option<Format>,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<ImportReport> {
    let format = super::source_format(path, format)?;
    let canon = path.canonicalize().map_err(|e| Error::io(path, e))?;
    let root = store.root().canonicalize().map_err(|e| Error::io(store.root(), e))?;
    if format != Format::Dsh && (canon.starts_with(&root) || root.starts_with(&canon)) {
        return Err(Error::bad("path", "a daily-notes archive must not contain or be inside the data root"));
    }
    let warnings = source_zone_warning(store, path, format).into_iter().collect();
    // One writer lock for the whole import (held until the end of this function).
    let lock = store.lock()?;
    // An append of `write` torn by a crash is cut off before anything is added after it
    // (the import report has no place for data-root notes: they go to the `log`).
    for w in repair_torn_append(&lock) {
        log::warn!("{w}");
    }
    // Readers answering meanwhile say `stale` (the import is half done) until it ends.
    let _busy = lock.mark_busy("import")?;
    let (mut found, mut added, mut changed, mut done) = (0usize, 0usize, 0usize, 0usize);
    let mut over: OverLimit = Vec::new();
    let (mut first, mut last, mut days_with_entries) = (None, None, 0usize);
    // Days arrive from the scan one by one and are handled in batches: the files of a
    // batch written and fsynced side by side and mirrored in one index
    // transaction (one FTS5 flush instead of one per day: a per-day commit made the import
    // 6x slower than sync). Two stages overlap: a second thread scans the
    // archive, writes each batch's day files, hashes them and segments their new entries
    // for FTS5; this thread only inserts the written batches into the index, handed over
    // one at a time (batch_full: the first small, so the stages overlap soon). A file is on
    // disk before the index learns of it; at most two batches of days are in memory (one
    // being written, one mirrored).
    let tz = store.tz();
    let (tx, rx) = std::sync::mpsc::sync_channel::<WrittenBatch>(0);
    let (scanned, mirrored) = std::thread::scope(|s| {
        let files = s.spawn(move || {
            let mut batch: Vec<DayPlan> = Vec::with_capacity(IMPORT_BATCH_DAYS);
            let send = |batch: &mut Vec<DayPlan>, total: usize| -> Result<()> {
                let written = write_batch(store, std::mem::take(batch), total)?;
                // The receiver is gone only when mirroring failed: its error is reported.
                tx.send(written).map_err(|_| Error::bad("import", "stopped"))
            };
            let (mut total_days, mut entries, mut sent) = (0, 0, false);
            let report = scan_each(path, format, tz, &mut |day, total| {
                total_days = total;
                entries += day.entries.len();
                batch.push(day);
                if batch_full(!sent, batch.len(), entries) {
                    (entries, sent) = (0, true);
                    send(&mut batch, total)
                } else {
                    Ok(())
                }
            })?;
            send(&mut batch, total_days)?;
            Ok::<_, Error>(report)
        });
        let mirrored = (|| -> Result<()> {
            for written in rx {
                for d in &written.days {
                    found += d.entries.len();
                    days_with_entries += 1;
                    first.get_or_insert(d.day);
                    last = Some(d.day);
                }
                let n = written.days.len();
                let (a, c) = mirror_batch(&lock, written.days, &mut over)?;
                added += a;
                changed += c;
                done += n;
                progress(done, written.total);
            }
            Ok(())
        })();
        (files.join().unwrap_or_else(|p| std::panic::resume_unwind(p)), mirrored)
    });
    mirrored?;
    let mut report = scanned?;
    crate::index::compact_after_bulk(&*store.conn()?, added)?;
    let layers = if format == Format::Dsh { Some(import_dsh_layers(&lock, path)?) } else { None };
    let mut summary = report.summary();
    summary.days = days_with_entries;
    summary.entries = found;
    summary.first_day = first.map(|d| d.format("%Y-%m-%d").to_string());
    summary.last_day = last.map(|d| d.format("%Y-%m-%d").to_string());
    report.days.clear();
    let mut warnings: Vec<String> = warnings;
    let not_indexed: usize = over.iter().map(|(_, n)| n).sum();
    for (day, n) in &over {
        warnings.push(over_limit_warning(*day, *n));
    }
    Ok(ImportReport {
        format,
        source: path.display().to_string(),
        entries_found: found,
        entries_added: added,
        entries_over_limit: not_indexed,
        zone: store.tz().name().to_string(),
        zone_recorded: store.take_zone_recorded().is_some(),
        entries_already_present: found - added - not_indexed,
        days_changed: changed,
        scan: summary,
        layers,
        warnings,
    })
}

/// The warning for a dsh source whose `memlayers.json` records another zone than this
/// data root's, or cannot be read: its entries keep their source day files, so those whose
/// instant falls on another local day in this root's zone are reported as misdated. None
/// otherwise (no record, another format, the same zone name).
fn source_zone_warning(store: &Store, path: &Path, format: Format) -> Option<String> {
    use crate::files::zone::{ZONE_FILE, parse};
    if format != Format::Dsh {
        return None;
    }
    let record = path.join(ZONE_FILE);
    let zone = match std::fs::read_to_string(&record) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => Err(e.to_string()),
        Ok(text) => parse(&text),
    };
    let zone = match zone {
        Ok(z) => z,
        Err(why) => {
            return Some(format!(
                "{}: {why}; the zone the source's files are dated in is unknown: entries keep their source \
                 day files, and those whose instant is on another local day in {} are reported as \
                 misdated (check)",
                record.display(),
                store.tz()
            ));
        }
    };
    (zone != store.tz()).then(|| {
        format!(
            "the source {} dates its files in {zone} ({ZONE_FILE}), this data root in {}: entries keep their \
             source day files, and those whose instant is on another local day in {} are reported as \
             misdated (check); to keep {zone}, import into a new data root with --tz {zone}",
            path.display(),
            store.tz(),
            store.tz()
        )
    })
}

/// The file stage of an import: prepares the batch's days (module docs: multiset
/// idempotence) and writes their files together with compare-and-swap
/// ([`crate::files::cas::write_all`]); each day file written is stat'ed at once, so a hand
/// edit after this instant differs from what the index records. The plans are consumed
/// (their entries moved, not copied: a batch of a million-entry archive holds tens of MB).
/// Errors: I/O.
fn write_batch(store: &Store, plans: Vec<DayPlan>, total: usize) -> Result<WrittenBatch> {
    let days = plans.into_iter().map(|d| (d.day, d.entries.into_iter().map(|e| e.entry).collect())).collect();
    Ok(WrittenBatch { days: write_days(store, days)?, total })
}

/// [`write_batch`] on (day, planned entries) pairs: one round of prepare and
/// compare-and-swap writes. Also the round of a day decided again ([`import_batch`]).
fn write_days(store: &Store, days: Vec<(NaiveDate, Vec<Entry>)>) -> Result<Vec<WrittenDay>> {
    let mut days: Vec<WrittenDay> = days
        .into_iter()
        .map(|(day, entries)| WrittenDay { day, entries, state: Written::Unchanged, over: 0 })
        .collect();
    let mut prepared = Vec::new();
    for (i, d) in days.iter().enumerate() {
        let p = prepare_append(store, d.day, &d.entries, &mut multiset_keep())?;
        if !p.added.is_empty() || p.over > 0 {
            prepared.push((i, p));
        }
    }
    let overs: Vec<(usize, usize)> = prepared.iter().map(|(i, p)| (*i, p.over)).collect();
    prepared.retain(|(_, p)| !p.added.is_empty());
    let items: Vec<(&Path, &cas::Snapshot, &[u8])> =
        prepared.iter().map(|(_, p)| (p.path.as_path(), &p.snap, p.bytes.as_slice())).collect();
    let outcomes = cas::write_all(&items)?;
    let mut states = Vec::with_capacity(prepared.len());
    for ((i, p), o) in prepared.into_iter().zip(outcomes) {
        let state = match o {
            Outcome::Changed => Written::Redo,
            Outcome::Done { raced: true } => Written::Raced { added: p.added.len() },
            Outcome::Done { raced: false } => {
                let meta = std::fs::metadata(&p.path).map_err(|e| Error::io(&p.path, e))?;
                // The appended entries are a subsequence of the day's planned entries, in
                // order: found again by address, kept as indices.
                // Their FTS5 columns, event windows and the file's hashes are computed here,
                // on the file stage's thread, beside the index stage's inserts of the batch
                // before.
                let all = &days[i].entries;
                let mut j = 0;
                let mut added = Vec::with_capacity(p.added.len());
                for (line, e) in &p.added {
                    while !std::ptr::eq(&all[j], *e) {
                        j += 1;
                    }
                    added.push((*line, j, FtsText::of(e, store.tz())));
                }
                let (old_hash, hash) = (sha1_hex(&p.snap.bytes), sha1_hex(&p.bytes));
                Written::Done(Box::new(Done { meta, old_hash, count: p.count, added, bytes: p.bytes, hash }))
            }
        };
        states.push((i, state));
    }
    for (i, state) in states {
        days[i].state = state;
    }
    for (i, over) in overs {
        days[i].over = over;
    }
    Ok(days)
}

/// The index stage of an import: mirrors written days in one transaction; a day written
/// while someone appended next to it is mirrored from the file as it is now. Returns
/// (entries added, days changed, the days whose file changed before their write: to be
/// decided again, [`import_batch`]).
fn mirror_days(lock: &WriteSession<'_>, days: Vec<WrittenDay>, over: &mut OverLimit) -> Result<(usize, usize, Redo)> {
    let store = lock.store();
    // Days left short of their plan are reported (a day decided again reports what its
    // next round leaves out).
    for d in &days {
        if d.over > 0 && !matches!(d.state, Written::Redo) {
            over.push((d.day, d.over));
        }
    }
    let mut c = store.conn()?;
    // A bulk load: through the page cache, not the map (index::set_mapped).
    crate::index::set_mapped(&c, false)?;
    let applied = (|| -> Result<_> {
        let (mut added, mut changed) = (0, 0);
        let tx = c.transaction()?;
        let mut raced = Vec::new();
        let mut redo = Vec::new();
        for d in days {
            match d.state {
                Written::Unchanged => {}
                Written::Redo => redo.push((d.day, d.entries)),
                Written::Raced { added: n } => {
                    added += n;
                    changed += 1;
                    raced.push(d.day);
                }
                Written::Done(w) => {
                    let Done { meta, old_hash, count, added: appended, bytes, hash } = *w;
                    added += appended.len();
                    changed += 1;
                    let appended = appended
                        .into_iter()
                        .map(|(line, j, fts)| Appended { line, entry: &d.entries[j], fts })
                        .collect();
                    let file =
                        WrittenFile { day: d.day, meta, old_hash, old_entries: count, bytes: &bytes, hash, appended };
                    mirror_written_in(store, &tx, &file)?;
                }
            }
        }
        tx.commit()?;
        Ok((added, changed, raced, redo))
    })();
    crate::index::set_mapped(&c, true)?;
    let (added, changed, raced, redo) = applied?;
    drop(c);
    for day in raced {
        mirror_day(lock, day)?;
    }
    Ok((added, changed, redo))
}

/// The index stage of an import for one written batch: [`mirror_days`], then the
/// days to decide again ([`import_batch`]). Returns (entries added, days changed).
fn mirror_batch(lock: &WriteSession<'_>, days: Vec<WrittenDay>, over: &mut OverLimit) -> Result<(usize, usize)> {
    let (mut added, mut changed, redo) = mirror_days(lock, days, over)?;
    if !redo.is_empty() {
        let (a, c) = import_batch(lock, redo, over)?;
        added += a;
        changed += c;
    }
    Ok((added, changed))
}

/// Appends one batch of planned days (module docs: multiset idempotence), writes their
/// files together with compare-and-swap ([`crate::files::cas::write_all`]) and mirrors
/// them in one transaction. A day file that changed between its read and its write (a hand
/// edit during the import) is not written: it is read again and its entries decided again,
/// in a next round with the other changed days (at most [`cas::MAX_REDO`] rounds). A day
/// written while someone appended next to it is mirrored from the file as it is now.
/// Returns (entries added, days changed). The caller holds the writer lock.
fn import_batch(lock: &WriteSession<'_>, mut days: Redo, over: &mut OverLimit) -> Result<(usize, usize)> {
    let store = lock.store();
    let (mut added, mut changed) = (0, 0);
    for _ in 0..cas::MAX_REDO {
        if days.is_empty() {
            return Ok((added, changed));
        }
        let (a, c, redo) = mirror_days(lock, write_days(store, days)?, over)?;
        added += a;
        changed += c;
        days = redo;
    }
    match days.first() {
        None => Ok((added, changed)),
        Some((day, _)) => Err(kept_changing(&crate::files::safe_join(store.root(), &crate::files::cold_rel(*day))?)),
    }
}

/// Serde's `skip_serializing_if` for a count shown only when not 0.
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The import warning for `day`, of which `n` planned entries were not written: past
/// [`crate::index::sync::MAX_ENTRIES_PER_DAY`] no query could find them.
fn over_limit_warning(day: NaiveDate, n: usize) -> String {
    format!(
        "{}: {n} entries of {day} not imported: the day would hold more than {}, the most one day can \
         index (the 20 ordinal bits of an entry id); they are still in the source archive",
        crate::files::cold_rel(day),
        crate::index::sync::MAX_ENTRIES_PER_DAY
    )
}

/// True when a batch of `days` days holding `entries` entries is complete: the first batch at
/// [`IMPORT_FIRST_BATCH_DAYS`] days, later ones at [`IMPORT_BATCH_DAYS`], any batch at
/// [`IMPORT_BATCH_ENTRIES`] entries.
fn batch_full(first: bool, days: usize, entries: usize) -> bool {
    days >= if first { IMPORT_FIRST_BATCH_DAYS } else { IMPORT_BATCH_DAYS } || entries >= IMPORT_BATCH_ENTRIES
}

/// Days whose file changed between its read and its write, with their planned entries.
type Redo = Vec<(NaiveDate, Vec<Entry>)>;

/// Days an import left short of their plan, with the number of entries not written: the day
/// would have held more than the index can find ([`crate::index::sync::room_in_day`]).
type OverLimit = Vec<(NaiveDate, usize)>;

/// A batch of days after the file stage of an import ([`write_batch`]).
struct WrittenBatch {
    days: Vec<WrittenDay>,
    /// Days the scan found in all (for progress).
    total: usize,
}

/// One planned day and what its file write did.
struct WrittenDay {
    day: NaiveDate,
    /// The planned entries (moved out of the scan's plan).
    entries: Vec<Entry>,
    state: Written,
    /// Planned entries not written: the day would have held more than the index can find
    /// ([`crate::index::sync::room_in_day`]).
    over: usize,
}

enum Written {
    /// Nothing to add: the file already holds every planned entry.
    Unchanged,
    /// The file changed between its read and its write: nothing written, decide again.
    Redo,
    /// Written while someone appended next to it: mirror the file as it is now.
    Raced { added: usize },
    /// Written as planned.
    Done(Box<Done>),
}

/// A day file written as planned ([`Written::Done`]), with what its mirror needs
/// ([`WrittenFile`]) computed on the file stage's thread.
struct Done {
    /// The file's metadata right after the write.
    meta: std::fs::Metadata,
    /// SHA-1 (hex) of its bytes before, which held `count` entries.
    old_hash: String,
    count: usize,
    /// The appended entries: (line number, index into the day's `entries`, FTS5 columns).
    added: Vec<(i64, usize, FtsText)>,
    /// Its bytes after, and their SHA-1 (hex).
    bytes: Vec<u8>,
    hash: String,
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

#[cfg(test)]
mod tests {
    use super::batch_full;

    #[test]
    fn batches_close_at_eight_days_first_then_256_days_or_32768_entries() {
        // The first batch: 8 days (values of the constants).
        assert!(!batch_full(true, 7, 7 * 290));
        assert!(batch_full(true, 8, 8));
        // Later batches: 256 days…
        assert!(!batch_full(false, 8, 8 * 290));
        assert!(!batch_full(false, 255, 255 * 100));
        assert!(batch_full(false, 256, 256));
        // …or 32 768 entries, whichever comes first: 113 days of 290 entries hold 32 770.
        assert!(!batch_full(false, 112, 112 * 290));
        assert!(batch_full(false, 113, 113 * 290));
        // One day of 40 000 entries is a batch on its own, first or not.
        assert!(batch_full(true, 1, 40_000));
        assert!(batch_full(false, 1, 40_000));
    }
}

//! The write side of an import: a [`ScanReport`](super::ScanReport) becomes canonical cold
//! files in the data root, then index rows.
//!
//! Per day, the planned entries are appended to `cold/YYYY-MM/YYYY-MM-DD.md` in one atomic
//! rewrite, under one writer lock for the whole import. Idempotence is by multiset on
//! (tag, text) within the day: a planned entry is added only when the day file holds fewer
//! copies of that tag + text than the plan does. So importing the same archive twice adds
//! nothing, an archive that gained days or entries adds only those, edits above an entry in
//! the source (which shift its line number in the source marker) do not duplicate it, and
//! entries repeated on purpose within a day are kept as often as the source has them.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::{Format, ScanSummary, scan};
use crate::files::entry::Entry;
use crate::index::Store;
use crate::{Error, Result};

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
    /// Problems after entries were stored in the files (the index could not follow: it catches
    /// up at the next sync). Omitted when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub index_warnings: Vec<String>,
    /// What the scan found: days, files read, skipped files by reason, warnings.
    pub scan: ScanSummary,
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
        let report = scan(path, format, self.tz())?;
        let lock = self.lock()?;
        // Readers answering meanwhile say `stale` (the import is half done) until it ends.
        let _busy = self.mark_busy(&lock, "import")?;
        let mut warnings = Vec::new();
        let total = report.days.len();
        let (mut added, mut changed) = (0usize, 0usize);
        for (i, day) in report.days.iter().enumerate() {
            let entries: Vec<Entry> = day.entries.iter().map(|e| e.entry.clone()).collect();
            let a = self.append_filtered(day.day, &entries, Some(&lock), &mut |have, es| {
                let mut have_n: HashMap<(String, String), usize> = HashMap::new();
                for x in have {
                    *have_n.entry((x.tag.clone(), x.content.clone())).or_default() += 1;
                }
                let mut planned: HashMap<(String, String), usize> = HashMap::new();
                es.iter()
                    .map(|e| {
                        let key = (e.tag.clone(), e.content.clone());
                        let n = planned.entry(key.clone()).or_default();
                        *n += 1;
                        *n > have_n.get(&key).copied().unwrap_or(0)
                    })
                    .collect()
            })?;
            warnings.extend(a.warnings);
            added += a.added;
            changed += usize::from(a.added > 0);
            progress(i + 1, total);
        }
        let found = report.entry_count();
        Ok(ImportReport {
            format,
            source: path.display().to_string(),
            entries_found: found,
            entries_added: added,
            entries_already_present: found - added,
            days_changed: changed,
            scan: report.summary(),
            index_warnings: warnings,
        })
    }
}

//! `check`: compares the index with the files and reports every difference, changing nothing.

use serde::Serialize;

use crate::Result;
use crate::index::Store;
use crate::index::sync::{Malformed, scan_disk, sha1_hex};

/// What `check` found. `clean` is true when the index mirrors the files exactly.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckReport {
    /// True when nothing below is non-empty (malformed lines and temp files do not count:
    /// they are reported, but the index is consistent with them).
    pub clean: bool,
    /// True when nothing under `cold/` needs a person's look: no `malformed` report, nothing
    /// `ignored` and nothing `unreadable`. `clean` can be true while this is false (the index mirrors the files, but
    /// some hand-written text in them is not an entry any query can find, or sits on the
    /// wrong day).
    pub all_read: bool,
    /// Cold files on disk.
    pub files: usize,
    /// Entries in the index.
    pub entries: i64,
    /// Files on disk that the index does not know.
    pub not_indexed: Vec<String>,
    /// Files whose content differs from what was indexed.
    pub stale: Vec<String>,
    /// Files the index knows that are gone from disk.
    pub gone: Vec<String>,
    /// Files whose entry count in the index differs from the files table.
    pub count_mismatch: Vec<String>,
    /// True when the FTS5 table holds a different number of rows than `entries`.
    pub fts_mismatch: bool,
    /// How many entries have stored event windows (`entry_events`) other than the ones their
    /// text gives when parsed again now ([`crate::index::events::event_days`], anchored at
    /// the entry's timestamp in the root's zone), compared as sets; event windows stored for
    /// an id that is no entry count too. A hand edit of the index, or windows written by other
    /// parser rules without a raise of [`crate::index::events::EVENTS_VERSION`]. Deleting
    /// `index.sqlite3` rebuilds them from the files.
    pub events_mismatch: usize,
    /// The lowest ids of those entries, at most [`EVENTS_MISMATCH_IDS`], ascending.
    pub events_mismatch_ids: Vec<i64>,
    /// SQLite's `PRAGMA quick_check` of the index: `ok`, or the first problem found. Opening
    /// checks only the header and schema (a full check costs seconds at a million entries), so
    /// damaged pages deeper in the file are found here; the remedy is to delete
    /// `index.sqlite3`, which the next open rebuilds from the files.
    pub integrity: String,
    /// Entry-looking lines that could not be read.
    pub malformed: Vec<Malformed>,
    /// Text in day files that is not a list item (prose typed between entries,
    /// [`crate::files::entry::is_prose`]): kept as it is and not indexed, so no query finds it;
    /// one report per file. Headings, blank lines and list items are not counted. Does not
    /// make `allRead` false: a day file may hold notes. Omitted when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub prose: Vec<Prose>,
    /// Day files that cannot be read (permissions, I/O errors), as `path: reason`: not in the
    /// index, which answers from the other files. Omitted when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<String>,
    /// Leftover temp files from interrupted writes (never read as data; safe to delete).
    pub temp_files: Vec<String>,
    /// Files and folders under `cold/` that are not read because they do not follow the
    /// layout `cold/YYYY-MM/YYYY-MM-DD.md` (a day file in another month's folder, an
    /// impossible date, notes, symlinks): reported so a misplaced file is not silently lost.
    pub ignored: Vec<String>,
}

/// Text of one day file that is not a list item ([`CheckReport::prose`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Prose {
    /// The day file, relative to the data root.
    pub file: String,
    /// 1-based number of its first such line.
    pub first_line: usize,
    /// How many such lines it holds.
    pub lines: usize,
}

/// The [`Prose`] report of a day file's bytes, `None` when it holds no such text.
fn prose_in(file: &str, bytes: &[u8]) -> Option<Prose> {
    let text = String::from_utf8_lossy(bytes);
    let mut lines = text.split('\n').enumerate().filter(|(_, l)| crate::files::entry::is_prose(l));
    let (first, _) = lines.next()?;
    Some(Prose { file: file.to_string(), first_line: first + 1, lines: 1 + lines.count() })
}

impl Store {
    /// Compares index and files without modifying either. Meaningful on a handle opened with
    /// [`Memory::open_unsynced`]; on a synced handle it reports what the sync left.
    pub fn check(&self) -> Result<CheckReport> {
        let c = self.conn()?;
        let disk = scan_disk(self.root())?;
        let mut rep = CheckReport { files: disk.len(), ..Default::default() };
        rep.integrity = c
            .query_row("PRAGMA quick_check(1)", [], |r| r.get::<_, String>(0))
            .unwrap_or_else(|e| format!("quick_check failed: {e}"));
        if rep.integrity != "ok" {
            // The counts below may fail on a damaged file; the integrity line already says why.
            rep.temp_files = temp_files(self.root());
            rep.ignored = ignored_under_cold(self.root());
            return Ok(rep);
        }
        let known = crate::index::mirror::known(&c, crate::index::mirror::Table::Files)?;
        for f in &disk {
            let path = self.root().join(&f.rel);
            let read = std::fs::read(&path).map(|b| {
                rep.prose.extend(prose_in(&f.rel, &b));
                known.get(&f.rel).map(|k| sha1_hex(&b) != k.hash)
            });
            match read {
                Ok(None) => rep.not_indexed.push(f.rel.clone()),
                Ok(Some(true)) => rep.stale.push(f.rel.clone()),
                Ok(Some(false)) => {}
                // Gone since the scan: as if never listed.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => rep.unreadable.push(format!("{}: {e}", f.rel)),
            }
        }
        let on_disk: std::collections::HashSet<&str> = disk.iter().map(|f| f.rel.as_str()).collect();
        rep.gone = known.keys().filter(|k| !on_disk.contains(k.as_str())).cloned().collect();
        rep.gone.sort();
        // A day whose entry rows or token counts (entry_lens, a 2-byte BLOB value an entry) are
        // not the number of entries its file held when mirrored.
        let mut st = c.prepare(
            "SELECT f.path FROM files f \
             LEFT JOIN (SELECT id >> 20 AS d, count(*) AS n FROM entry_rows GROUP BY d) e \
             ON e.d = CAST(julianday(f.day) - 1721424.5 AS INTEGER) \
             LEFT JOIN entry_lens l ON l.day = CAST(julianday(f.day) - 1721424.5 AS INTEGER) \
             WHERE coalesce(e.n, 0) != f.entries \
                OR coalesce(length(CAST(l.lens AS BLOB)), 0) != 2 * f.entries \
                OR typeof(l.lens) NOT IN ('blob', 'null')",
        )?;
        let mut mismatch: std::collections::BTreeSet<String> =
            st.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
        mismatch.extend(lens_disagreeing(&c)?);
        rep.count_mismatch = mismatch.into_iter().collect();
        rep.entries = c.query_row("SELECT count(*) FROM entry_rows", [], |r| r.get(0))?;
        // FTS5's row count from its averages record (a contentless table without a docsize
        // table cannot be scanned, migration V11); FTS5 adds one per insert, takes one per delete.
        let fts = crate::fts5::bm25::totals(&c)?.rows;
        rep.fts_mismatch = fts != rep.entries;
        let (n, ids) = events_disagreeing(&c, self.tz())?;
        (rep.events_mismatch, rep.events_mismatch_ids) = (n, ids);
        let mut st = c.prepare("SELECT file, line, reason FROM malformed ORDER BY file, line")?;
        rep.malformed = st
            .query_map([], |r| Ok(Malformed { file: r.get(0)?, line: r.get(1)?, reason: r.get(2)? }))?
            .collect::<rusqlite::Result<_>>()?;
        rep.temp_files = temp_files(self.root());
        rep.ignored = ignored_under_cold(self.root());
        rep.clean = rep.integrity == "ok"
            && rep.not_indexed.is_empty()
            && rep.stale.is_empty()
            && rep.gone.is_empty()
            && rep.count_mismatch.is_empty()
            && !rep.fts_mismatch
            && rep.events_mismatch == 0;
        rep.all_read = rep.malformed.is_empty() && rep.ignored.is_empty() && rep.unreadable.is_empty();
        Ok(rep)
    }
}

/// The day files (`cold/…` paths) with an `entry_lens` row but no entries, or holding an
/// entry whose stored token count (`entry_lens`) is not its text counted again ([`crate::fts5::lens::tokens_of`] of its segmented tag and
/// content; 65 535 and more are stored saturated): a hand edit of the index, or a count
/// written under other rules. Queries read such counts as they are; a missing or short row
/// is counted from the text instead (and reported by the count check above). Segments every
/// entry: seconds at a million entries.
fn lens_disagreeing(c: &rusqlite::Connection) -> Result<Vec<String>> {
    use crate::fts5::lens::{DayLens, SATURATED, tokens_of};
    use crate::fts5::segment::segment;
    let mut days = std::collections::BTreeSet::new();
    let mut lens = DayLens::default();
    let mut st = c.prepare("SELECT id, tag, content FROM entries ORDER BY id")?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let id: i64 = r.get(0)?;
        let (tag, content): (String, String) = (r.get(1)?, r.get(2)?);
        let want = tokens_of(&segment(&tag), &segment(&content));
        let stored = crate::fts5::lens::stored_at(&mut lens, c, id)?;
        let agrees = match stored {
            Some(n) if n == usize::from(SATURATED) => want >= n,
            Some(n) => n == want,
            None => false,
        };
        if !agrees {
            days.insert(id >> crate::index::sync::ORDINAL_BITS);
        }
    }
    drop(rows);
    // A row for a day that holds no entries.
    let mut st = c.prepare(
        "SELECT l.day FROM entry_lens l WHERE NOT EXISTS \
         (SELECT 1 FROM entry_rows r WHERE r.id BETWEEN l.day << 20 AND ((l.day + 1) << 20) - 1)",
    )?;
    for d in st.query_map([], |r| r.get::<_, i64>(0))? {
        days.insert(d?);
    }
    Ok(days.into_iter().filter_map(crate::files::day_from_number).map(crate::files::cold_rel).collect())
}

/// Most ids [`CheckReport::events_mismatch_ids`] lists: enough to look at a few entries.
pub const EVENTS_MISMATCH_IDS: usize = 10;

/// The entries whose `entry_events` rows are not the windows [`crate::index::events::event_days`]
/// gives for their text now (`tz`: the zone partitioning the day files), plus ids with rows but
/// no entry: (how many, the lowest [`EVENTS_MISMATCH_IDS`] of them). Parses every entry that
/// may hold a time word ([`crate::temporal::may_hold_time`] skips the rest): seconds at a
/// million entries, as [`lens_disagreeing`].
fn events_disagreeing(c: &rusqlite::Connection, tz: chrono_tz::Tz) -> Result<(usize, Vec<i64>)> {
    use crate::index::events::{EventDays, event_days};
    use std::collections::{BTreeMap, BTreeSet};
    let mut stored: BTreeMap<i64, BTreeSet<EventDays>> = BTreeMap::new();
    let mut st = c.prepare("SELECT id, start_day, end_day FROM entry_events")?;
    for r in st.query_map([], |r| Ok((r.get::<_, i64>(0)?, EventDays { start: r.get(1)?, end: r.get(2)? })))? {
        let (id, ev) = r?;
        stored.entry(id).or_default().insert(ev);
    }
    let mut bad = BTreeSet::new();
    let mut st = c.prepare("SELECT id, ts, content FROM entries ORDER BY id")?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let (id, ts, content): (i64, String, String) = (r.get(0)?, r.get(1)?, r.get(2)?);
        let have = stored.remove(&id).unwrap_or_default();
        let want: BTreeSet<EventDays> = match chrono::DateTime::parse_from_rfc3339(&ts) {
            Ok(ts) => event_days(&content, ts.with_timezone(&chrono::Utc), tz).into_iter().collect(),
            // The view formats every timestamp; one it cannot is a damaged row: reported.
            Err(_) => {
                bad.insert(id);
                continue;
            }
        };
        if have != want {
            bad.insert(id);
        }
    }
    // Rows left belong to no entry.
    bad.extend(stored.into_keys());
    Ok((bad.len(), bad.into_iter().take(EVENTS_MISMATCH_IDS).collect()))
}

/// Temp files left by interrupted atomic writes (`.<name>.tmp-<pid>-<n>`) under the root,
/// two levels deep at most (root, cold/, cold/YYYY-MM/, summaries/*/).
fn temp_files(root: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let ft = e.file_type();
            if ft.as_ref().is_ok_and(|t| t.is_dir()) && depth < 2 {
                stack.push((e.path(), depth + 1));
            } else if name.starts_with('.') && name.contains(".tmp-") {
                let rel = e.path().strip_prefix(root).map(|p| p.display().to_string()).unwrap_or(name);
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// Names under `cold/` that sync does not read (see [`CheckReport::ignored`]); temp files are
/// left to [`temp_files`].
fn ignored_under_cold(root: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(months) = std::fs::read_dir(root.join("cold")) else { return out };
    for m in months.flatten() {
        let name = m.file_name().to_string_lossy().into_owned();
        let is_month_dir = m.file_type().is_ok_and(|t| t.is_dir())
            && chrono::NaiveDate::parse_from_str(&format!("{name}-01"), "%Y-%m-%d").is_ok()
            && name.len() == 7;
        if !is_month_dir {
            out.push(format!("cold/{name}"));
            continue;
        }
        for f in std::fs::read_dir(m.path()).into_iter().flatten().flatten() {
            let fname = f.file_name().to_string_lossy().into_owned();
            let rel = format!("cold/{name}/{fname}");
            let regular = f.file_type().is_ok_and(|t| t.is_file());
            let temp = fname.starts_with('.') && fname.contains(".tmp-");
            if !temp && (!regular || crate::files::day_of_cold_rel(&rel).is_none()) {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

//! Writing the cold layer on a [`Store`]: `write` (one entry, plugin semantics) and
//! `append_entries` (many entries into one day, for imports and layer moves). The rules
//! (normalisation, duplicates, the bytes of the new file) are the pure model in
//! [`crate::layers::cold`].
//!
//! Canonical file first, under the writer lock: a new entry is appended to the day file with
//! `O_APPEND` when the file ends with a newline, otherwise the file is rewritten atomically
//! (temp + fsync + rename); both are compare-and-swap ([`crate::files::cas`]): if the file
//! changed since it was read (a hand edit), it is read again and the write redone, so a hand
//! edit is never overwritten. Only then is the day mirrored into the index; if that fails (a
//! full disk) the write still succeeds, with a warning, and the next sync catches up — an
//! error always means the file was not touched. Existing bytes (headings, notes, odd lines,
//! even invalid UTF-8) are kept as they are. Dates the layout cannot name (years outside
//! 0001–9999) are refused.
//!
//! A torn append: `O_APPEND` is not atomic against a crash — a process
//! killed in the middle of its `write(2)` (the kernel checks for a fatal signal between
//! pages), a file-size limit, or a power cut can leave the first part of a line without its
//! end. Such a line was never acknowledged, but it would stay as a malformed (or, cut at a
//! character boundary, a shortened but valid) entry, and the next write would start a new line
//! after it. So before appending, `write` records the append in the index's `meta` table
//! ([`META_APPEND`]: day file, offset, the bytes), and clears it once the bytes are in the
//! file and synced. The next write of any day (and `append_entries`, and an import), under
//! the writer lock, looks at a record left behind: if the file holds, from that offset to its
//! end, a non-empty proper prefix of those bytes and nothing else
//! ([`crate::layers::cold::torn_append`]), they are cut off (a compare-and-swap rewrite, so a
//! hand append at that instant is kept) and the write reports it in its warnings. Bytes it
//! cannot prove are its own — a hand line after the torn part, anything else — are never
//! touched: they stay, reported as malformed by `check` and `sync`. Until that next write, a
//! torn line is visible to queries as what it is in the file. Imports (which append whole
//! batches of lines) are not recorded: an import killed midway is run again, and its last line,
//! if torn, is reported as malformed.

use std::path::Path;

use chrono::{DateTime, NaiveDate, Utc};

use super::{
    Appended, KeepFn, PreparedDay, WriteArgs, WriteResult, append_line, count_lines, dedupe_key, entries_in,
    find_duplicate, normalize_tag, normalize_text, replace_line,
};
use crate::files::cas::{self, Outcome};
use crate::files::entry::{Entry, format_line, format_ts};
use crate::files::lock::WriterLock;
use crate::files::{cold_rel, local_date};
use crate::index::Store;
use crate::index::sync::{MAX_ENTRIES_PER_DAY, room_in_day};
use crate::{Error, Result};

impl Store {
    /// `mem_write`: appends one entry to today's cold file (local date in the configured zone).
    /// Same-day identical tag + text → `added: false` (tags compare case-insensitively, as
    /// `by-tag` does; text and tag after NFC); with a different `source`, only that
    /// line's marker is updated (`sourceUpdated: true`). Errors name the field (`text`, `tag`,
    /// `source.*`); a lock timeout or I/O error leaves the file as it was; a month folder or
    /// day file that is a symlink out of the data root is refused ([`Error::OutsideRoot`]).
    pub fn write(&self, args: &WriteArgs) -> Result<WriteResult> {
        let text = normalize_text(&args.text)?;
        let tag = normalize_tag(args.tag.as_deref())?;
        if let Some(s) = &args.source {
            s.validate()?;
        }
        let now = self.now();
        let day = local_date(now, self.tz());
        crate::files::check_nameable(day, "now")?;
        let lock = self.lock()?;
        let path = crate::files::safe_join(self.root(), &cold_rel(day))?;
        if let Some(dir) = path.parent() {
            cas::clean_temps(dir);
        }
        let repaired = self.repair_torn_append(&lock);
        for _ in 0..cas::MAX_REDO {
            if let Some(mut result) = self.write_once(&lock, args, &path, day, now, &tag, &text)? {
                result.warnings.splice(0..0, repaired);
                result.zone_recorded = self.take_zone_recorded().map(|z| z.name().to_string());
                return Ok(result);
            }
        }
        Err(kept_changing(&path))
    }

    /// Records, before appending `tail` at byte `at` of the day file `rel`, what is being
    /// appended (module docs). False when it could not be recorded (the index is full, or
    /// another connection holds SQLite's write lock): the append goes on without the record.
    /// Never waits for that lock: the canonical file is written first, whatever the index is
    /// doing (it waited the 10 s busy timeout before appending). The mirror after the append
    /// still waits, and its failure is a warning.
    fn journal_append(&self, day: NaiveDate, at: usize, tail: &[u8]) -> bool {
        let Ok(tail) = std::str::from_utf8(tail) else { return false };
        let v = serde_json::json!({ "date": day.format("%Y-%m-%d").to_string(), "at": at, "tail": tail });
        self.conn()
            .and_then(|c| {
                // The connection's own busy timeout, put back whatever the insert gave.
                let busy_ms: i64 = c.query_row("PRAGMA busy_timeout", [], |r| r.get(0))?;
                c.busy_timeout(std::time::Duration::ZERO)?;
                let ins =
                    c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)", [META_APPEND, &v.to_string()]);
                c.busy_timeout(std::time::Duration::from_millis(busy_ms.max(0) as u64))?;
                ins?;
                Ok(())
            })
            .is_ok()
    }

    fn clear_append(&self) -> Result<()> {
        self.conn()?.execute("DELETE FROM meta WHERE key = ?1", [META_APPEND])?;
        Ok(())
    }

    /// Cuts off an append torn by a crash, if one is recorded and the day file still ends with
    /// it (module docs); the caller holds the writer lock. Returns the warnings to report: what
    /// was cut, from which file. Problems (the index or the file unreadable) are warnings too:
    /// the record then stays for the next write.
    pub(crate) fn repair_torn_append(&self, lock: &WriterLock) -> Vec<String> {
        match self.try_repair_torn_append(lock) {
            Ok(w) => w,
            Err(e) => vec![format!("an interrupted earlier write could not be checked: {e}")],
        }
    }

    fn try_repair_torn_append(&self, lock: &WriterLock) -> Result<Vec<String>> {
        use rusqlite::OptionalExtension;
        let rec: Option<String> =
            self.conn()?.query_row("SELECT value FROM meta WHERE key = ?1", [META_APPEND], |r| r.get(0)).optional()?;
        let Some(rec) = rec else { return Ok(vec![]) };
        let parsed = serde_json::from_str::<serde_json::Value>(&rec).ok().and_then(|v| {
            let day = NaiveDate::parse_from_str(v["date"].as_str()?, "%Y-%m-%d").ok()?;
            Some((day, v["at"].as_u64()? as usize, v["tail"].as_str()?.to_string()))
        });
        let Some((day, at, tail)) = parsed else {
            self.clear_append()?;
            return Ok(vec![]);
        };
        let rel = cold_rel(day);
        let path = crate::files::safe_join(self.root(), &rel)?;
        for _ in 0..cas::MAX_REDO {
            let snap = cas::read(&path)?;
            if snap.ident.is_none() || snap.bytes.len() <= at || !super::torn_append(&snap.bytes[at..], tail.as_bytes())
            {
                self.clear_append()?;
                return Ok(vec![]);
            }
            if cas::replace(&path, &snap, &snap.bytes[..at])? == Outcome::Changed {
                continue;
            }
            self.clear_append()?;
            let mut warnings = vec![format!(
                "removed the unfinished end of an earlier write that was interrupted (never acknowledged) from {rel}: {:?}",
                String::from_utf8_lossy(&snap.bytes[at..])
            )];
            if let Err(e) = self.mirror_day(lock, day) {
                warnings.push(index_lags(&e));
            }
            return Ok(warnings);
        }
        Err(kept_changing(&path))
    }

    /// One attempt of [`Store::write`]: reads the day file, decides, writes with
    /// compare-and-swap. `None` when the file changed under us (read again and redo).
    #[allow(clippy::too_many_arguments)]
    fn write_once(
        &self,
        lock: &WriterLock,
        args: &WriteArgs,
        path: &Path,
        day: NaiveDate,
        now: DateTime<Utc>,
        tag: &str,
        text: &str,
    ) -> Result<Option<WriteResult>> {
        let snap = cas::read(path)?;
        let (count, dup) = find_duplicate(&snap.bytes, tag, text);
        // A new line past the day's limit could not be found by any query: refused before the
        // file is touched.
        if dup.is_none() && room_in_day(count) == 0 {
            return Err(day_full(day, count));
        }
        let mut result = WriteResult {
            added: false,
            date: day.format("%Y-%m-%d").to_string(),
            ts: String::new(),
            tag: tag.to_string(),
            candidate_index: 0,
            source: None,
            source_updated: false,
            summary_created: false,
            day_count: count,
            over_limit: None,
            hint: None,
            warnings: Vec::new(),
            zone_recorded: None,
        };
        if let Some((idx, existing)) = dup {
            // The line as stored: its tag may differ in case from the one asked for.
            result.tag = existing.tag.clone();
            result.ts = format_ts(existing.ts);
            result.source = existing.source.clone();
            if let Some(src) = &args.source
                && existing.source.as_ref() != Some(src)
            {
                let updated = Entry { source: Some(src.clone()), ..existing.clone() };
                let bytes = replace_line(&snap.bytes, idx, &format_line(&updated));
                if cas::replace(path, &snap, &bytes)? == Outcome::Changed {
                    return Ok(None);
                }
                if let Err(e) = self.mirror_day(lock, day) {
                    result.warnings.push(index_lags(&e));
                }
                result.source = Some(src.clone());
                result.source_updated = true;
            }
            let e = Entry { source: result.source.clone(), ..existing };
            self.finish_write(lock, args.important, e, &mut result);
            return Ok(Some(result));
        }
        let e = Entry { ts: now, tag: tag.to_string(), content: text.to_string(), source: args.source.clone() };
        let mut bytes = snap.bytes.clone();
        let lineno = append_line(&mut bytes, &mut count_lines(&snap.bytes), &format_line(&e));
        // A pure append to a whole file goes through O_APPEND (a hand `>>` at the same instant
        // lands next to it, never under it); anything else is a compare-and-swap rewrite.
        let outcome = if snap.ident.is_some() && (snap.bytes.is_empty() || snap.bytes.ends_with(b"\n")) {
            let tail = &bytes[snap.bytes.len()..];
            let journaled = self.journal_append(day, snap.bytes.len(), tail);
            let outcome = cas::append(path, &snap, tail)?;
            // Kept on an error: the file was cut back, and the next write checks it again.
            if journaled {
                let _ = self.clear_append();
            }
            outcome
        } else {
            cas::replace(path, &snap, &bytes)?
        };
        let raced = match outcome {
            Outcome::Changed => return Ok(None),
            Outcome::Done { raced } => raced,
        };
        let indexed = if raced {
            self.mirror_day(lock, day)
        } else {
            self.mirror_appended(lock, day, &snap.bytes, count, &bytes, &[(lineno, &e)])
        };
        if let Err(err) = indexed {
            result.warnings.push(index_lags(&err));
        }
        result.added = true;
        result.ts = format_ts(now);
        result.source = e.source.clone();
        result.day_count = count + 1;
        self.finish_write(lock, args.important, e, &mut result);
        Ok(Some(result))
    }

    /// What `write` does once the entry is in the file (candidate, day summary). The memory is
    /// stored by then, so a failure here is a warning in the result, never an error.
    fn finish_write(&self, lock: &WriterLock, important: bool, e: Entry, result: &mut WriteResult) {
        if let Err(err) = self.after_write(lock, important, e, result) {
            result.warnings.push(format!(
                "the entry is stored in {}, but the hot layer could not be updated: {err}",
                cold_rel(crate::files::parse_date("date", &result.date).unwrap_or_default())
            ));
        }
    }

    /// Appends entries to the cold file of `day` in one atomic rewrite, skipping any whose tag,
    /// text and source marker together are already in the file or earlier in `entries`. Takes the writer lock unless `lock` is given. Used by imports
    /// and by the layers (evicted hot blocks, expired candidates).
    pub fn append_entries(&self, day: NaiveDate, entries: &[Entry], lock: Option<&WriterLock>) -> Result<Appended> {
        self.append_filtered(day, entries, lock, &mut |existing, es| {
            let mut seen: std::collections::HashSet<String> = existing.iter().map(dedupe_key).collect();
            es.iter().map(|e| seen.insert(dedupe_key(e))).collect()
        })
    }

    /// Appends the entries of `entries` that `keep(existing_entries, entries)` accepts (one
    /// flag per entry) to the cold file of `day`, in one compare-and-swap rewrite (redone
    /// from a fresh read if the file changes meanwhile), then indexes them. Takes the writer
    /// lock unless `lock` is given. Errors: `day` outside what the layout can name (field
    /// `date`), lock, I/O before the file is replaced. Once the file is written, an index
    /// failure is a warning in [`Appended::warnings`].
    pub(crate) fn append_filtered(
        &self,
        day: NaiveDate,
        entries: &[Entry],
        lock: Option<&WriterLock>,
        keep: &mut KeepFn<'_>,
    ) -> Result<Appended> {
        crate::files::check_nameable(day, "date")?;
        let own;
        let lock = match lock {
            Some(l) => l,
            None => {
                own = self.lock()?;
                &own
            }
        };
        let path = crate::files::safe_join(self.root(), &cold_rel(day))?;
        if let Some(dir) = path.parent() {
            cas::clean_temps(dir);
        }
        let repaired = self.repair_torn_append(lock);
        for _ in 0..cas::MAX_REDO {
            let snap = cas::read(&path)?;
            let (existing, count) = entries_in(&snap.bytes);
            let mut bytes = snap.bytes.clone();
            let mut added = Vec::new();
            let mut lines = count_lines(&bytes);
            for (e, k) in entries.iter().zip(keep(&existing, entries)) {
                if k {
                    added.push((append_line(&mut bytes, &mut lines, &format_line(e)), e));
                }
            }
            // Refused whole, before the file is touched: the caller (an evicted hot block, an
            // expired candidate) keeps what it would have moved here.
            if added.len() > room_in_day(count) {
                return Err(day_full(day, count));
            }
            let mut warnings = repaired.clone();
            if !added.is_empty() {
                let raced = match cas::replace(&path, &snap, &bytes)? {
                    Outcome::Changed => continue,
                    Outcome::Done { raced } => raced,
                };
                let indexed = if raced {
                    self.mirror_day(lock, day)
                } else {
                    self.mirror_appended(lock, day, &snap.bytes, count, &bytes, &added)
                };
                if let Err(err) = indexed {
                    warnings.push(index_lags(&err));
                }
            }
            return Ok(Appended { added: added.len(), day_count: count + added.len(), warnings });
        }
        Err(kept_changing(&path))
    }

    /// Reads the cold file of `day` and computes its bytes with the accepted entries appended,
    /// writing nothing (see [`PreparedDay`]). The caller holds the writer lock. Errors: `day`
    /// outside what the layout can name (field `date`); a day file that is a symlink or not a
    /// regular file ([`cas::read`]).
    pub(crate) fn prepare_append<'e>(
        &self,
        day: NaiveDate,
        entries: &'e [Entry],
        keep: &mut dyn FnMut(&[Entry], &Entry) -> bool,
    ) -> Result<PreparedDay<'e>> {
        crate::files::check_nameable(day, "date")?;
        let path = crate::files::safe_join(self.root(), &cold_rel(day))?;
        if let Some(dir) = path.parent() {
            cas::clean_temps(dir);
        }
        let snap = cas::read(&path)?;
        let mut bytes = snap.bytes.clone();
        let (existing, count) = entries_in(&bytes);
        let mut added = Vec::new();
        let mut over = 0;
        let mut lines = count_lines(&bytes);
        for e in entries {
            if keep(&existing, e) {
                // Past the day's limit no query could find it: not written, counted in `over`.
                if added.len() >= room_in_day(count) {
                    over += 1;
                    continue;
                }
                added.push((append_line(&mut bytes, &mut lines, &format_line(e)), e));
            }
        }
        Ok(PreparedDay { path, snap, count, bytes, added, over })
    }
}

/// `meta` key of the append in flight of [`Store::write`] (module docs): JSON
/// `{"date": "YYYY-MM-DD", "at": byte offset, "tail": the bytes being appended}`.
pub const META_APPEND: &str = "append_in_flight";

/// The warning of a write whose file is stored but whose index row could not be written (a
/// full disk, a locked or damaged index): the next sync catches up from the file.
fn index_lags(e: &Error) -> String {
    format!("stored in the file, but the index could not be updated ({e}); it catches up at the next sync")
}

/// The error of a write refused because the day file of `day` already holds `count` indexable
/// lines, the most one day can index ([`MAX_ENTRIES_PER_DAY`]): field `date`, so the CLI exits
/// 2. Nothing was written.
pub(crate) fn day_full(day: NaiveDate, count: usize) -> Error {
    Error::bad(
        "date",
        format!(
            "{} already holds {count} entries, the most one day can index ({MAX_ENTRIES_PER_DAY}: the 20 ordinal \
             bits of an entry id); nothing was written",
            cold_rel(day)
        ),
    )
}

/// The error of a write whose file changed under it [`cas::MAX_REDO`] times in a row.
pub(crate) fn kept_changing(path: &Path) -> Error {
    Error::io(
        path,
        std::io::Error::other(format!(
            "the file changed {} times while memlayers tried to write it; nothing was written",
            cas::MAX_REDO
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A day file holding 2^20 − 2 entries has room for exactly one more (the 20 ordinal bits of
    /// an entry id give 2^20 − 1 per day): an import's plan of three new entries writes one and
    /// counts two as over the limit; appending to a full day (evicted hot blocks, expired
    /// candidates) is refused before the file is touched; undated bullets count too.
    #[test]
    fn a_day_takes_entries_up_to_its_limit_and_refuses_the_rest() {
        assert_eq!(MAX_ENTRIES_PER_DAY, 1_048_575);
        assert_eq!((room_in_day(0), room_in_day(1_048_574), room_in_day(2_000_000)), (1_048_575, 1, 0));
        let dir = tempfile::tempdir().unwrap();
        let config = crate::Config { timezone: chrono_tz::UTC, ..crate::Config::default() };
        let (store, _, _) = Store::open(dir.path(), config, true).unwrap();
        let day = NaiveDate::from_ymd_opt(2026, 10, 21).unwrap();
        let path = dir.path().join(cold_rel(day));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        // One bullet without a timestamp and 2^20 − 3 entries: 2^20 − 2 indexable lines.
        let mut text = String::from("- 手写的一条\n");
        for i in 0..MAX_ENTRIES_PER_DAY - 2 {
            text.push_str(&format!("- [2026-10-21T02:00:00.000Z] [-] e{i}\n"));
        }
        std::fs::write(&path, &text).unwrap();
        let new: Vec<Entry> = (0..3)
            .map(|i| Entry {
                ts: "2026-10-21T03:00:00Z".parse().unwrap(),
                tag: "-".into(),
                content: format!("new{i}"),
                source: None,
            })
            .collect();
        let p = store.prepare_append(day, &new, &mut |_, _| true).unwrap();
        assert_eq!((p.count, p.added.len(), p.over), (MAX_ENTRIES_PER_DAY - 1, 1, 2));
        // Filled up to the limit by hand (the refusal of `write` is tested through the CLI in
        // the heavy suite, `heavy::day_limit`).
        text.push_str("- [2026-10-21T02:00:00.000Z] [-] last\n");
        std::fs::write(&path, &text).unwrap();
        // append_entries (evicted hot blocks, expired candidates) is refused whole.
        assert!(matches!(store.append_entries(day, &new[..1], None), Err(Error::BadInput { .. })));
        assert!(std::fs::read(&path).unwrap() == text.as_bytes());
    }
}

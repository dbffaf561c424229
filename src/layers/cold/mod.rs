//! Writing the cold layer: `write` (one entry, plugin semantics) and `append_entries`
//! (many entries into one day, for imports and layer moves).
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

use std::path::Path;

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;

use crate::files::cas::{self, Outcome};
use crate::files::entry::{Entry, LineKind, Source, format_line, format_ts, parse_line};
use crate::files::lock::WriterLock;
use crate::files::{cold_rel, local_date};
use crate::index::Store;
use crate::{Error, Result};

/// Most code points in one entry's text (dsh-memory-layers v1.2 `mem_write`: 单条上限 4000 字).
pub const MAX_TEXT_CHARS: usize = 4000;
/// Most code points in a tag (memlayers; the plugin sets none).
pub const MAX_TAG_CHARS: usize = 64;

/// Arguments of [`Memory::write`](crate::Memory::write), as `mem_write(text, tag?, important?, source?)`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteArgs {
    /// The memory; line breaks and runs of whitespace become one space. 1–4000 code points.
    pub text: String,
    /// Optional tag; `[` and `]` are removed, whitespace collapsed; empty → `-`.
    pub tag: Option<String>,
    /// Also add it to the hot layer's candidates.
    pub important: bool,
    /// Optional provenance, written as `〔src:conv#seq/msgId〕`.
    pub source: Option<Source>,
}

/// Result of [`Memory::write`](crate::Memory::write), with the plugin's field names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteResult {
    /// False when the same tag + text already existed that day (nothing appended).
    pub added: bool,
    /// Local date of the day file, YYYY-MM-DD.
    pub date: String,
    /// UTC timestamp of the entry (of the existing one when `added` is false).
    pub ts: String,
    /// The normalised tag.
    pub tag: String,
    /// 1-based index in the hot layer's candidates when `important`, else 0.
    pub candidate_index: usize,
    /// The source now on the line.
    pub source: Option<Source>,
    /// True when an existing duplicate got the new source marker.
    pub source_updated: bool,
    /// True when this write regenerated the day summary (every 20th entry of a day).
    pub summary_created: bool,
    /// Entries in the day file after the write.
    pub day_count: usize,
    /// `important` only: whether the hot body is over `hotLimit` (plugin `overLimit`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub over_limit: Option<bool>,
    /// `important` only: the trimming hint, empty when within the limit (plugin `hint`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Problems after the entry was stored in the file (the index or the hot layer could not
    /// follow; the index catches up at the next sync). The write succeeded: the memory is in
    /// the canonical file. Omitted when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Collapses all whitespace runs (line breaks included) into single spaces and trims.
pub fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Normalises a tag the way the plugin does: `[`/`]` removed, whitespace collapsed, empty → `-`.
/// Errors (field `tag`) on control characters or more than [`MAX_TAG_CHARS`] code points.
pub fn normalize_tag(tag: Option<&str>) -> Result<String> {
    let t = collapse_ws(&tag.unwrap_or("").replace(['[', ']'], ""));
    if t.chars().any(char::is_control) {
        return Err(Error::bad("tag", "contains a control character"));
    }
    if t.chars().count() > MAX_TAG_CHARS {
        return Err(Error::bad("tag", format!("longer than {MAX_TAG_CHARS} characters")));
    }
    Ok(if t.is_empty() { "-".into() } else { t })
}

/// Normalises entry text: whitespace collapsed; errors (field `text`) when empty, longer than
/// [`MAX_TEXT_CHARS`] code points, holding control characters, or ending in something that
/// would read back as a source marker.
pub fn normalize_text(text: &str) -> Result<String> {
    let t = collapse_ws(text);
    if t.is_empty() {
        return Err(Error::bad("text", "is empty"));
    }
    let n = t.chars().count();
    if n > MAX_TEXT_CHARS {
        return Err(Error::bad("text", format!("is {n} characters; the limit is {MAX_TEXT_CHARS}")));
    }
    if let Some(c) = t.chars().find(|c| c.is_control()) {
        return Err(Error::bad("text", format!("contains control character U+{:04X}", c as u32)));
    }
    let probe = format!("- [2000-01-01T00:00:00.000Z] [-] {t}");
    if let LineKind::Entry(e) = parse_line(&probe)
        && e.source.is_some()
    {
        return Err(Error::bad("text", "ends with a source marker 〔src:…〕; pass it as `source` instead"));
    }
    Ok(t)
}

/// The outcome of appending entries to one day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// How many of the given entries were new and written.
    pub added: usize,
    /// Entries in the day file afterwards.
    pub day_count: usize,
    /// What went wrong after the file was written (the index could not follow: it catches up
    /// at the next sync). Empty normally.
    pub warnings: Vec<String>,
}

impl Store {
    /// `mem_write`: appends one entry to today's cold file (local date in the configured zone).
    /// Same-day identical tag + text → `added: false`; with a different `source`, only that
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
        for _ in 0..cas::MAX_REDO {
            if let Some(result) = self.write_once(&lock, args, &path, day, now, &tag, &text)? {
                return Ok(result);
            }
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
        let text_now = String::from_utf8_lossy(&snap.bytes).into_owned();
        let mut count = 0usize;
        let mut dup: Option<(usize, Entry)> = None;
        for (i, line) in text_now.split('\n').enumerate() {
            if let LineKind::Entry(e) = parse_line(line) {
                count += 1;
                if dup.is_none() && same_text(&e.tag, tag) && same_text(&e.content, text) {
                    dup = Some((i, e));
                }
            }
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
        };
        if let Some((idx, existing)) = dup {
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
            cas::append(path, &snap, &bytes[snap.bytes.len()..])?
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
    pub fn append_entries(
        &self,
        day: NaiveDate,
        entries: &[Entry],
        lock: Option<&crate::files::lock::WriterLock>,
    ) -> Result<Appended> {
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
        lock: Option<&crate::files::lock::WriterLock>,
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
        for _ in 0..cas::MAX_REDO {
            let snap = cas::read(&path)?;
            let existing: Vec<Entry> = String::from_utf8_lossy(&snap.bytes)
                .split('\n')
                .filter_map(|l| match parse_line(l) {
                    LineKind::Entry(e) => Some(e),
                    _ => None,
                })
                .collect();
            let count = existing.len();
            let mut bytes = snap.bytes.clone();
            let mut added = Vec::new();
            let mut lines = count_lines(&bytes);
            for (e, k) in entries.iter().zip(keep(&existing, entries)) {
                if k {
                    added.push((append_line(&mut bytes, &mut lines, &format_line(e)), e));
                }
            }
            let mut warnings = Vec::new();
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
        let mut bytes = cas::read(&path)?.bytes;
        let existing: Vec<Entry> = String::from_utf8_lossy(&bytes)
            .split('\n')
            .filter_map(|l| match parse_line(l) {
                LineKind::Entry(e) => Some(e),
                _ => None,
            })
            .collect();
        let count = existing.len();
        let old = bytes.clone();
        let mut added = Vec::new();
        let mut lines = count_lines(&bytes);
        for e in entries {
            if keep(&existing, e) {
                added.push((append_line(&mut bytes, &mut lines, &format_line(e)), e));
            }
        }
        Ok(PreparedDay { day, path, old, count, bytes, added })
    }
}

/// A day file's next content, computed by [`Store::prepare_append`] but not yet written: an
/// import computes a batch of days, writes their files together
/// ([`crate::files::atomic_write_all`]) and mirrors them in one index transaction.
#[derive(Debug)]
pub(crate) struct PreparedDay<'e> {
    /// The local date.
    pub day: NaiveDate,
    /// The cold file's path.
    pub path: std::path::PathBuf,
    /// Its bytes before (what the index may already mirror).
    pub old: Vec<u8>,
    /// Entries in `old`.
    pub count: usize,
    /// Its bytes after.
    pub bytes: Vec<u8>,
    /// The appended entries with their 1-based line numbers in `bytes`.
    pub added: Vec<(i64, &'e Entry)>,
}

/// The filter of [`Store::append_filtered`]: given the entries already in the day file and the
/// entries to append, one flag per entry to append (true: write it).
pub(crate) type KeepFn<'a> = dyn FnMut(&[Entry], &[Entry]) -> Vec<bool> + 'a;

/// The warning of a write whose file is stored but whose index row could not be written (a
/// full disk, a locked or damaged index): the next sync catches up from the file.
pub(crate) fn index_lags(e: &Error) -> String {
    format!("stored in the file, but the index could not be updated ({e}); it catches up at the next sync")
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

/// Text equality as a reader sees it: the same after Unicode NFC normalisation (an NFD `é`
/// and an NFC `é` are one text). The bytes in the file are never rewritten.
pub fn same_text(a: &str, b: &str) -> bool {
    use unicode_normalization::UnicodeNormalization;
    a == b || a.nfc().eq(b.nfc())
}

/// Identity of an entry for `append_entries`: tag, text and source marker together (a sunk
/// candidate `[tag] text` keeps the source of its original line, yet is a different entry).
fn dedupe_key(e: &Entry) -> String {
    let src = e.source.as_ref().map(Source::marker).unwrap_or_default();
    use unicode_normalization::UnicodeNormalization;
    format!("{}\u{1}{}\u{1}{src}", e.tag.nfc(), e.content.nfc())
}

/// Appends `line` and a newline (adding the missing final newline first) to a buffer that holds
/// `lines` complete lines; returns the 1-based line number of the appended line and counts it.
fn append_line(bytes: &mut Vec<u8>, lines: &mut i64, line: &str) -> i64 {
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
        *lines += 1;
    }
    *lines += 1;
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    *lines
}

/// Number of `\n` in a buffer (complete lines).
fn count_lines(bytes: &[u8]) -> i64 {
    bytes.iter().filter(|b| **b == b'\n').count() as i64
}

/// Replaces line `idx` (0-based, split on `\n`) keeping its `\r` if it had one.
fn replace_line(bytes: &[u8], idx: usize, new: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + 64);
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        if i == idx {
            out.extend_from_slice(new.as_bytes());
            if line.ends_with(b"\r") {
                out.push(b'\r');
            }
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_follows_the_plugin() {
        assert_eq!(normalize_tag(Some(" [翻唱] ")).unwrap(), "翻唱");
        assert_eq!(normalize_tag(Some("[]")).unwrap(), "-");
        assert_eq!(normalize_tag(None).unwrap(), "-");
        assert_eq!(normalize_text("a\n\n b\t c ").unwrap(), "a b c");
        assert!(normalize_text(" \n ").is_err());
        assert!(normalize_text(&"字".repeat(4001)).is_err());
        assert_eq!(normalize_text(&"字".repeat(4000)).unwrap().chars().count(), 4000);
        assert!(normalize_text("x 〔src:a#1〕").is_err());
        assert!(normalize_text("nul \0 here").is_err());
    }

    #[test]
    fn replace_line_keeps_crlf_and_neighbours() {
        assert_eq!(replace_line(b"a\r\nb\r\nc", 1, "X"), b"a\r\nX\r\nc");
        assert_eq!(replace_line(b"a\nb\n", 0, "X"), b"X\nb\n");
    }
}

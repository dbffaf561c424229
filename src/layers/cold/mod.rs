//! The cold layer's model: one Markdown file per local day (`cold/YYYY-MM/YYYY-MM-DD.md`), one
//! entry a line. Pure: the arguments and results of `write` and `append_entries`, the
//! plugin's normalisation of tags and text, and the byte-level edits of a day file (append a
//! line, replace a line, find a same-day duplicate); no files, no index, no clock. The I/O —
//! reading and writing day files under the writer lock, then the index — is in [`ops`].

pub mod ops;

use std::path::PathBuf;

use serde::Serialize;

use crate::files::entry::{Entry, LineKind, Source, parse_line};
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
    /// The first write into a new data root only: the IANA zone this handle recorded for the
    /// root in `memlayers.json`, which dates every day file from now on and cannot be changed
    /// in place ([`crate::files::zone`]). Omitted otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zone_recorded: Option<String>,
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

/// A day file's next content, computed by
/// [`ops::prepare_append`](crate::layers::cold::ops::prepare_append) but not yet written: an
/// import computes a batch of days, writes their files together with compare-and-swap
/// ([`crate::files::cas::write_all`]) and mirrors them in one index transaction.
#[derive(Debug)]
pub(crate) struct PreparedDay<'e> {
    /// The cold file's path.
    pub path: PathBuf,
    /// The file as read: its bytes (what the index may already mirror), its identity and
    /// descriptor (what the compare-and-swap write checks).
    pub snap: crate::files::cas::Snapshot,
    /// Entries in `snap.bytes`.
    pub count: usize,
    /// Its bytes after.
    pub bytes: Vec<u8>,
    /// The appended entries with their 1-based line numbers in `bytes`.
    pub added: Vec<(i64, &'e Entry)>,
    /// Accepted entries not appended because the day would then hold more than the index can
    /// find ([`crate::index::sync::room_in_day`]); the caller reports them.
    pub over: usize,
}

/// The filter of `ops::append_filtered`: given the entries already in the day file and the
/// entries to append, one flag per entry to append (true: write it).
pub(crate) type KeepFn<'a> = dyn FnMut(&[Entry], &[Entry]) -> Vec<bool> + 'a;

/// The entries of a day file's bytes, in file order (lines that are not entries — headings,
/// notes, odd lines — are skipped; invalid UTF-8 is read lossily), and the number of lines the
/// index reads as entries: those plus the bullets without a timestamp
/// ([`crate::files::entry::undated_bullet`]), the count the day's limit applies to
/// ([`crate::index::sync::room_in_day`]) and the index records for the file.
fn entries_in(bytes: &[u8]) -> (Vec<Entry>, usize) {
    let mut undated = 0;
    let mut out = Vec::new();
    for l in String::from_utf8_lossy(bytes).split('\n') {
        match parse_line(l) {
            LineKind::Entry(e) => out.push(e),
            LineKind::Other if crate::files::entry::undated_bullet(l).is_some() => undated += 1,
            _ => {}
        }
    }
    let indexed = out.len() + undated;
    (out, indexed)
}

/// Scans a day file's bytes for `write`: the number of lines the index reads as entries (as
/// [`entries_in`] counts them), and the first entry with the same tag ([`same_tag`]) and text
/// ([`same_text`]) with its 0-based line index (split on `\n`), if any.
fn find_duplicate(bytes: &[u8], tag: &str, text: &str) -> (usize, Option<(usize, Entry)>) {
    let mut count = 0usize;
    let mut dup: Option<(usize, Entry)> = None;
    for (i, line) in String::from_utf8_lossy(bytes).split('\n').enumerate() {
        match parse_line(line) {
            LineKind::Entry(e) => {
                count += 1;
                if dup.is_none() && same_tag(&e.tag, tag) && same_text(&e.content, text) {
                    dup = Some((i, e));
                }
            }
            LineKind::Other if crate::files::entry::undated_bullet(line).is_some() => count += 1,
            _ => {}
        }
    }
    (count, dup)
}

/// Text equality as a reader sees it: the same after Unicode NFC normalisation (an NFD `é`
/// and an NFC `é` are one text). The bytes in the file are never rewritten.
pub fn same_text(a: &str, b: &str) -> bool {
    use unicode_normalization::UnicodeNormalization;
    a == b || a.nfc().eq(b.nfc())
}

/// True when `rest` — a day file's bytes from the offset where an append of `tail` started —
/// is a non-empty proper prefix of `tail`: the append was cut short (the process died in the
/// middle of its `write`, or the machine went down before all of it reached the disk) and
/// nothing else was written after it. Those bytes are memlayers' own, never acknowledged, and
/// can be cut off without touching a byte of anyone else's. Anything else (nothing of it, all
/// of it, other bytes after or instead of it) is not a torn append of `tail`.
pub fn torn_append(rest: &[u8], tail: &[u8]) -> bool {
    !rest.is_empty() && rest.len() < tail.len() && tail.starts_with(rest)
}

/// Tag equality for `write`'s same-day duplicate check: [`same_text`] after Unicode lower-casing,
/// the folding `by-tag` matches with (`[A] x` and `[a] x` are one tag there, so writing the
/// second after the first is a duplicate, not a new entry). The stored tag is never rewritten.
pub fn same_tag(a: &str, b: &str) -> bool {
    same_text(a, b) || same_text(&a.to_lowercase(), &b.to_lowercase())
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

    #[test]
    fn entries_in_skips_non_entry_lines() {
        let day =
            "# 2026-10-21\nnote\n- [2026-10-21T01:00:00.000Z] [a] one\n- 手写\n\n- [2026-10-21T02:00:00.000Z] [-] two";
        let (es, indexed) = entries_in(day.as_bytes());
        // Two entry lines, and the bullet without a timestamp the index reads as a third.
        assert_eq!((es.len(), indexed), (2, 3));
        assert_eq!((es[0].tag.as_str(), es[0].content.as_str()), ("a", "one"));
        assert_eq!((es[1].tag.as_str(), es[1].content.as_str()), ("-", "two"));
    }

    #[test]
    fn find_duplicate_counts_entries_and_finds_the_first_nfc_equal_line() {
        // Line 0 is a heading, lines 1 and 3 are entries; line 3 holds `é` as NFD (e + U+0301).
        let day = "# day\n- [2026-10-21T01:00:00.000Z] [t] cafe\nx\n- [2026-10-21T02:00:00.000Z] [t] cafe\u{301}\n";
        let (count, dup) = find_duplicate(day.as_bytes(), "t", "caf\u{e9}");
        assert_eq!(count, 2);
        let (line, e) = dup.unwrap();
        assert_eq!(line, 3);
        assert_eq!(e.content, "cafe\u{301}");
        assert_eq!(find_duplicate(day.as_bytes(), "u", "cafe"), (2, None));
    }

    #[test]
    fn a_torn_append_is_a_proper_prefix_of_the_tail_and_nothing_else() {
        let tail = b"- [2026-10-21T04:00:00.000Z] [t] x\n";
        assert!(torn_append(b"- [2026-10", tail));
        assert!(torn_append(b"- [2026-10-21T04:00:00.000Z] [t] x", tail), "all but the newline");
        assert!(!torn_append(b"", tail), "nothing written: nothing to cut");
        assert!(!torn_append(tail, tail), "written whole");
        assert!(!torn_append(b"- [2026-10-21T05", tail), "someone else's line");
        assert!(!torn_append(b"- [2026-10- [2026-10-21T05:00:00.000Z] [h] hand\n", tail), "a hand line after it");
    }

    #[test]
    fn tags_of_duplicates_compare_as_by_tag_does() {
        // Case folds (ASCII and beyond: Straße/STRASSE is not a lower-case pair, É/é is), NFC too.
        assert!(same_tag("Work", "work"));
        assert!(same_tag("\u{c9}t\u{e9}", "\u{e9}t\u{e9}"));
        assert!(same_tag("E\u{301}te\u{301}", "\u{e9}t\u{e9}"));
        assert!(!same_tag("Straße", "STRASSE"));
        assert!(!same_tag("work", "works"));
        let day = "- [2026-10-21T01:00:00.000Z] [Work] 周会\n";
        let (count, dup) = find_duplicate(day.as_bytes(), "work", "周会");
        assert_eq!((count, dup.map(|(i, e)| (i, e.tag))), (1, Some((0, "Work".to_string()))));
    }
}

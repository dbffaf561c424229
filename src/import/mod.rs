//! Importing existing daily-note archives (mapping summarised in docs/import.md): Obsidian Daily Notes, Logseq journals,
//! OpenClaw `memory/YYYY-MM-DD.md`, plain day folders, and existing dsh-memory-layers data
//! roots. This module is the pure part: [`scan()`] reads an archive (never writes) into a plan of
//! entries per local day plus a report; writing cold files and indexing belong to the engine.
//!
//! # Mapping
//!
//! ## Which files are days
//!
//! * The day comes from the **file name**, at any folder depth: `YYYY-MM-DD`, `YYYY_MM_DD`,
//!   `YYYYMMDD` or `YYYY年M月D日` at the start of the name, with or without a suffix that starts
//!   with a non-digit (`2026-03-18-1357.md`, `2026-05-05-topic.md`, `2026-05-05 Tuesday.md`).
//!   The date must exist (`2023-02-30.md` is not a day). A digit right after the date is
//!   refused, so Zettelkasten ids like `202203141357.md` are not days. Folder names are not read.
//! * **Several files for one day** (two naming styles, suffixed files, `archive/` copies) all
//!   feed that day, read in byte order of their relative paths (`journal/2022-03-02.md` before
//!   `journal/2022_03_02.md`).
//! * **Skipped, with the reason in the report** (first matching rule wins; see
//!   [`skip_reason`]): files under hidden folders (`.git`, `.obsidian`, `.trash`: listed once
//!   as the folder, not entered); `logseq/bak/` backup copies; empty names (`.md`); hidden files;
//!   `.orig` (merge leftover); `.tmp` (editor temp file); `~`/`.bak` (editor backup);
//!   `*.conflicted*`, `sync-conflict`, `conflicted copy` (sync conflict copies); `_BASE_`,
//!   `_LOCAL_`, `_REMOTE_`, `_BACKUP_` (git mergetool leftovers); anything not ending in `.md` or
//!   `.markdown`; names without a date; symbolic links (not followed); files that are not text;
//!   files that give no entry (`no entries …`). Leftover rules come before the date, so
//!   `2024-03-18.md.orig` is a leftover although it carries a date.
//! * **Formats** ([`Format`], [`Format::detect`]): `daily-notes` walks the whole root;
//!   `logseq` walks only `journals/` when there is one; `dsh` walks only `cold/`. The Markdown
//!   mapping below is the same for `daily-notes` and `logseq`.
//!
//! ## Hygiene (per file, before anything else)
//!
//! * UTF-8, with or without BOM. A UTF-16 BOM (`FF FE`/`FE FF`) → decoded as UTF-16, with a
//!   warning.
//! * **Invalid UTF-8 → decoded lossily with a warning** (each bad sequence becomes U+FFFD; the
//!   warning gives the count and the line of the first). Why: one stray Latin-1 byte pasted
//!   years ago should not drop a whole day, and the U+FFFD stays visible where the report
//!   points. But when more than 10 % of the bytes are invalid the file is **skipped** (`not UTF-8
//!   text …`): it is not text (an image) or in a legacy encoding (GBK), and lossy decoding would
//!   import noise.
//! * A leading BOM is removed; CRLF and lone CR become LF; a missing final newline changes
//!   nothing. NUL and every other control character (Unicode Cc except tab and LF, and U+FEFF
//!   inside the text) are **removed and counted** ([`ScanReport::control_chars_stripped`], plus
//!   a warning with the line of the first one). Line numbers are those of the original file.
//! * Tabs mixed with spaces: a tab is one indent level (it advances to the next multiple of 4
//!   columns), so `\t- x` under `- a` is a child like `  - x`.
//!
//! ## Front matter
//!
//! A line `---` and a later line `---` (or `...`) enclose YAML front matter when the first is
//! the file's first non-blank line and every line between them looks like YAML (`key: value`,
//! indented, `- item`, `# comment`, blank); whitespace around the fences and blank lines before
//! the first are tolerated (both occur in MiracleWong). It is removed. When its top-level
//! `date:` value holds a date (`2022-06-27`, `2022-06-27 06:27`, `2022/6/27`, `2022年6月27日`)
//! that differs from the file name's, the **file name wins** and the report carries a warning
//! at the `date:` line: `front matter date "2022-06-27 06:27" (2022-06-27) disagrees with the
//! file name (2022-06-28); the file name wins`. A `date:` that holds no date is a warning too. A
//! time in `date:` is not used.
//!
//! ## Entries
//!
//! Each file is cut into blocks, line by line (CommonMark where it matters for daily notes):
//!
//! * each **top-level list item** (`-`, `*`, `+`, `1.`, `1)`) is one entry, with all its nested
//!   children (lines indented deeper than the item) folded into it, in order, joined by spaces,
//!   their own list markers, `>` and heading marks removed;
//! * an unindented line right under an item (no blank line between) continues it (CommonMark
//!   lazy continuation, as Obsidian and GitHub render it), unless the item is still empty (a
//!   lone `-`); after a blank line it starts a paragraph; indented lines after a blank line
//!   still belong to the item;
//! * each **paragraph** outside lists (lines up to a blank line, a heading, a list item, a quote
//!   or a separator) is one entry; a **block quote** (`>` lines, `>` removed) is one entry; a
//!   **fenced code block** (```` ``` ```` or `~~~`, fences kept) is one entry, and nothing inside
//!   it is interpreted;
//! * **headings** (`#`…`######`, setext `===`/`---` of three or more under a paragraph, and
//!   Logseq bullets used as headings, `- ### X`) are not entries: they give the tag (and a time,
//!   below) to the entries under them, until the next heading of the same or a higher level. A
//!   heading bullet's own children become entries of their own;
//! * **dropped**: Logseq properties (`key:: value`, `collapsed:: true`, `id:: …`, bullet or
//!   not), `:LOGBOOK:` … `:END:` drawers (an unclosed drawer ends at its first line that is not
//!   blank or `CLOCK:`, with a warning), empty bullets and lone `-`, thematic breaks (`---`,
//!   `***`, `___`, `<hr />`), entries made only of ASCII punctuation (`--`, `|`), and git
//!   conflict marker lines (`<<<<<<<`, `=======`, `>>>>>>>`, `|||||||`: the lines go, both sides'
//!   text is kept, one warning per file);
//! * indentation outside lists means nothing (no indented code blocks: daily notes indent for
//!   outlines, not code).
//!
//! Text of each entry: wikilinks keep their text (`[[x]]` → `x`, `[[x|alias]]` → `alias`,
//! `![[x]]` → `x`, `#[[x y]]` → `#x y`); all other Markdown stays as written (links, emphasis,
//! `TODO`/`DONE`, `{{query}}`); whitespace runs (line breaks, tabs, U+3000, NBSP, zero-width
//! spaces) become one space, so every entry is one line. Text over **4000 code points** (the
//! plugin's limit) is split into several entries: each piece ends after the last `。`, `！`, `？`,
//! or `.`/`!`/`?` followed by a space, within its first 4000 code points, else it is cut hard at
//! 4000; the pieces share tag and source, and a warning says so.
//!
//! ## Tag
//!
//! The entry's first `#tag` (Logseq `#[[two words]]` too; a tag runs to whitespace or
//! punctuation other than `. - _ / + * &`, a trailing `.` dropped; digits-only `#123`, `C#`,
//! `url#frag` are not tags), else the nearest heading above (wikilinks unwrapped, brackets
//! removed, trimmed, trailing `:`/`：` dropped; a leading time is not part of it; a heading
//! that is only a date, like `# 2021-08-01`, gives no tag, nor does a heading that is only a
//! time, and the next heading out is used), else `import`. Every tag is made line-safe: `[` `]`
//! removed, whitespace and line breaks collapsed, at most **32 code points**.
//!
//! ## Time
//!
//! * A time **at the start of an entry** or of a **heading** above it sets the timestamp on the
//!   file's day: `12:00`, `7:00`, `04:03:59`, `(7:00)`, `[7:00]`, `（7:00）`, `12：00`, `4:00 AM`,
//!   `4:00pm`, `04:03 UTC`, `04:03Z`, `04:03 GMT`, `04:03 UTC+8` (see `clock::leading_time`;
//!   `24:00`, `1:2`, `12:000` are not times). The entry's own time wins over its heading's.
//!   The time text stays in the entry.
//! * Without a zone the time is local in the configured zone (`tz`): in a DST fold the earlier
//!   instant, in a DST gap the first wall-clock time after it. With `UTC`/`GMT`/`Z`/an offset,
//!   it is the one instant inside the local day whose clock time in that zone is the written
//!   one (`23:00 UTC` in a Shanghai file of the 18th is 17th 23:00Z = 07:00 on the 18th), so the
//!   entry stays in its day. If no such instant exists (a 23-hour DST day), the ordinal rule
//!   applies, with a warning.
//! * Entries under one timed heading count up from it: the first gets the heading's time, the
//!   next +1 s, and so on, so their order is kept.
//! * Otherwise: **local midnight of the day + n seconds**, n = the entry's ordinal in the day
//!   (0-based, counting every entry of the day, timed or not, across the day's files in the
//!   order above). File order is kept and the timestamp never leaves its day.
//! * Limits: no timestamp goes past the day's last millisecond (next local midnight − 1 ms).
//!   Entries beyond the day's length in seconds (86,400; 82,800 on a spring-forward day) all
//!   get that last instant, their order then kept only by position. A written time and an
//!   ordinal may give two entries the same instant (`00:00:05` written, ordinal 5): both are
//!   kept as they are; timestamps of imported entries are not unique, and ties keep the day's
//!   order.
//!
//! ## Source
//!
//! Every imported entry carries `〔src:import:<relative path>#<line>〕` (1-based line where the
//! entry starts: the item's line, the paragraph's first line), so it traces back to its file
//! and line. In the path, `%`, `#`, `〔`, `〕`, whitespace and control characters are
//! percent-encoded (`%20`, `%23`, `%E3%80%94`, …); `/` and non-ASCII letters stay (see
//! [`marker`]): `〔src:import:journal/my%20notes%232/2022-03-02.md#5〕`.
//!
//! ## `dsh` archives
//!
//! `cold/YYYY-MM/YYYY-MM-DD.md` files (month folder matching the date) are read with
//! `crate::files::entry::parse_line`: entry lines keep their own timestamp, tag, text and source
//! marker (none is added); malformed entry lines are warnings with file and line; other lines
//! are ignored. Entries whose time falls on another local date in `tz` stay in their file's
//! day, with one warning per file. `hot.md`, `summaries/` and `usage.json` are not imported.
//!
//! ## Report
//!
//! [`ScanReport`] holds the days (with entries), the skipped files with reasons, warnings (file,
//! optional line, message: front-matter disagreements, lossy decoding, control characters,
//! conflict markers, unclosed drawers, splits of long text, unplaceable times, and entries with
//! the same day, tag and text, which the plugin's `mem_write` would not write twice), the
//! number of control characters removed and of files read. [`ScanReport::summary`] is its JSON
//! form (camelCase).

mod clock;
mod dsh;
pub mod dsh_layers;
mod filename;
mod format;
mod frontmatter;
mod hygiene;
mod markdown;
pub mod marker;
mod run;
mod scan;
mod skip;
mod split;
mod text;

use std::collections::BTreeMap;

use chrono::NaiveDate;
use serde::Serialize;

pub use clock::{WrittenTime, leading_time};
pub use dsh_layers::LayersImported;
pub use filename::day_from_file_name;
pub use format::{Format, source_format};
pub use hygiene::{Decoded, Normalized, decode, normalize};
pub use run::{ImportReport, import};
pub use scan::{NO_ENTRIES, scan, scan_each};
pub use skip::skip_reason;
pub use split::{DEFAULT_TAG, split_day_file};
pub use text::{MAX_ENTRY_CHARS, MAX_TAG_CHARS};

/// One entry ready to be written to the cold file of its day.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedEntry {
    /// The entry: UTC timestamp, tag, one-line text, source marker
    /// (`import:<escaped rel path>` / `<line>` for Markdown archives; the original one for dsh).
    pub entry: crate::files::entry::Entry,
    /// Path of the source file relative to the archive root, `/`-separated, not escaped.
    pub rel_path: String,
    /// 1-based line where the entry starts in that file.
    pub line: usize,
}

/// All entries of one local day, from all the files of that day, in the order of
/// [`scan()`] (files by relative path, entries in file order).
#[derive(Debug, Clone, PartialEq)]
pub struct DayPlan {
    /// The local date (from the file name).
    pub day: NaiveDate,
    /// Its entries (never empty).
    pub entries: Vec<ImportedEntry>,
}

/// A file (or hidden folder, path ending in `/`) that was not imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    /// Path relative to the archive root.
    pub rel_path: String,
    /// Why, from a small fixed set of phrases (see [`skip_reason`], [`NO_ENTRIES`]).
    pub reason: String,
}

/// Something the user should know about a file that was imported (or partly imported).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Warning {
    /// Path relative to the archive root.
    pub rel_path: String,
    /// 1-based line, when the note is about one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What happened, in words.
    pub message: String,
}

/// What [`split_day_file`] makes of one file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FileSplit {
    /// The file's entries, in file order.
    pub entries: Vec<ImportedEntry>,
    /// Notes for the report.
    pub warnings: Vec<Warning>,
    /// Control characters removed from the file (see [`normalize`]).
    pub control_chars_stripped: usize,
}

/// The plan and report of a [`scan()`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScanReport {
    /// Days with at least one entry, ascending.
    pub days: Vec<DayPlan>,
    /// Files not imported, sorted by path.
    pub skipped: Vec<Skipped>,
    /// Notes, in day order.
    pub warnings: Vec<Warning>,
    /// Control characters removed, all files together.
    pub control_chars_stripped: usize,
    /// Files whose bytes were read (day files, including those that then gave nothing).
    pub files_read: usize,
}

/// The JSON form of a [`ScanReport`] (without the entries themselves).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScanSummary {
    /// Number of days with entries.
    pub days: usize,
    /// Number of entries, all days together.
    pub entries: usize,
    /// First day (`YYYY-MM-DD`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_day: Option<String>,
    /// Last day (`YYYY-MM-DD`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_day: Option<String>,
    /// Files whose bytes were read.
    pub files_read: usize,
    /// Control characters removed.
    pub control_chars_stripped: usize,
    /// Skipped files counted by reason.
    pub skipped_by_reason: BTreeMap<String, usize>,
    /// Skipped files.
    pub skipped: Vec<Skipped>,
    /// Warnings.
    pub warnings: Vec<Warning>,
}

impl ScanReport {
    /// Number of entries, all days together.
    pub fn entry_count(&self) -> usize {
        self.days.iter().map(|d| d.entries.len()).sum()
    }

    /// The plan of one day, if it has entries.
    pub fn day(&self, day: NaiveDate) -> Option<&DayPlan> {
        self.days.binary_search_by_key(&day, |d| d.day).ok().map(|i| &self.days[i])
    }

    /// The report without the entries, for `memlayers import --json`.
    pub fn summary(&self) -> ScanSummary {
        let mut by_reason = BTreeMap::new();
        for s in &self.skipped {
            *by_reason.entry(s.reason.clone()).or_insert(0) += 1;
        }
        ScanSummary {
            days: self.days.len(),
            entries: self.entry_count(),
            first_day: self.days.first().map(|d| d.day.to_string()),
            last_day: self.days.last().map(|d| d.day.to_string()),
            files_read: self.files_read,
            control_chars_stripped: self.control_chars_stripped,
            skipped_by_reason: by_reason,
            skipped: self.skipped.clone(),
            warnings: self.warnings.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_json_shape() {
        let d = NaiveDate::from_ymd_opt(2022, 3, 2).unwrap();
        let split = split_day_file("- a\n- b\n", d, chrono_tz::UTC, "2022-03-02.md", 0);
        let report = ScanReport {
            days: vec![DayPlan { day: d, entries: split.entries }],
            skipped: vec![
                Skipped { rel_path: "a.orig".into(), reason: "merge leftover (.orig)".into() },
                Skipped { rel_path: "b.orig".into(), reason: "merge leftover (.orig)".into() },
            ],
            warnings: vec![Warning { rel_path: "2022-03-02.md".into(), line: None, message: "m".into() }],
            control_chars_stripped: 3,
            files_read: 1,
        };
        assert_eq!(report.entry_count(), 2);
        assert_eq!(report.day(d).map(|p| p.entries.len()), Some(2));
        assert_eq!(report.day(d.succ_opt().unwrap()), None);
        let json = serde_json::to_value(report.summary()).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "days": 1, "entries": 2, "firstDay": "2022-03-02", "lastDay": "2022-03-02",
                "filesRead": 1, "controlCharsStripped": 3,
                "skippedByReason": {"merge leftover (.orig)": 2},
                "skipped": [
                    {"relPath": "a.orig", "reason": "merge leftover (.orig)"},
                    {"relPath": "b.orig", "reason": "merge leftover (.orig)"}
                ],
                "warnings": [{"relPath": "2022-03-02.md", "message": "m"}]
            })
        );
    }
}

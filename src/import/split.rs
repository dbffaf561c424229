//! One day file's text → its entries: hygiene, front matter, blocks, text, tag, time, source
//! (the whole Markdown → entries mapping of docs/import.md, pure).

use std::collections::HashMap;

use chrono::{Duration, NaiveDate};
use chrono_tz::Tz;

use super::clock::{cap_to_day, instant_on_day, leading_time, ordinal_instant};
use super::hygiene::normalize;
use super::marker::import_source;
use super::text::{MAX_ENTRY_CHARS, collapse_ws, first_hashtag, is_separator_only, split_long, unwikilink};
use super::{FileSplit, ImportedEntry, Warning, frontmatter, markdown};
use crate::files::entry::Entry;

/// The tag of an entry with neither a `#tag` nor a heading above it (docs/import.md, "Entries").
pub const DEFAULT_TAG: &str = "import";

/// Maps the text of one day file to entries (see the module docs of `crate::import` for every
/// rule). `day` is the local date from the file name, `tz` the zone local times are read in,
/// `rel_path` the path relative to the archive root (for the source marker and the report),
/// `first_ordinal` how many entries the day already has from files read before this one (0 for
/// the first file), so ordinal timestamps keep counting across the files of one day. Pure: no
/// I/O, never fails; problems come back as warnings.
///
/// ```
/// use chrono::NaiveDate;
/// use memlayers::import::split_day_file;
/// let day = NaiveDate::from_ymd_opt(2022, 3, 2).unwrap();
/// let out = split_day_file("# Work\n- shipped [[v2]]\n\t- late\n", day, chrono_tz::UTC, "2022-03-02.md", 0);
/// let e = &out.entries[0].entry;
/// assert_eq!((e.tag.as_str(), e.content.as_str()), ("Work", "shipped v2 late"));
/// assert_eq!(e.source.as_ref().unwrap().marker(), "〔src:import:2022-03-02.md#2〕");
/// ```
pub fn split_day_file(text: &str, day: NaiveDate, tz: Tz, rel_path: &str, first_ordinal: usize) -> FileSplit {
    let warn = |line: Option<usize>, message: String| Warning { rel_path: rel_path.to_string(), line, message };
    let norm = normalize(text);
    let mut warnings = Vec::new();
    if norm.control_chars > 0 {
        warnings.push(warn(norm.first_control_line, format!("{} control character(s) removed", norm.control_chars)));
    }
    let lines: Vec<&str> = norm.text.lines().collect();
    let fm = frontmatter::find(&lines);
    if let Some(fm) = &fm
        && let Some((line, value)) = &fm.date
    {
        match fm.date_value() {
            Some(d) if d != day => warnings.push(warn(
                Some(*line),
                format!("front matter date {value:?} ({d}) disagrees with the file name ({day}); the file name wins"),
            )),
            Some(_) => {}
            None => warnings.push(warn(Some(*line), format!("front matter date {value:?} is not a date; ignored"))),
        }
    }
    let parsed = markdown::parse(&lines, fm.map_or(0, |f| f.lines));
    warnings.extend(parsed.warnings.into_iter().map(|(line, m)| warn(Some(line), m)));

    let mut entries = Vec::new();
    let mut ordinal = first_ordinal;
    let mut under_heading: HashMap<usize, i64> = HashMap::new();
    for block in parsed.blocks {
        let raw = block.parts.join(" ");
        let text = collapse_ws(&unwikilink(&raw));
        if text.is_empty() || is_separator_only(&text) {
            continue;
        }
        let tag = first_hashtag(&raw).or(block.heading_tag).unwrap_or_else(|| DEFAULT_TAG.to_string());
        let own_time = leading_time(&text);
        let pieces = split_long(&text, MAX_ENTRY_CHARS);
        if pieces.len() > 1 {
            warnings.push(warn(
                Some(block.line),
                format!(
                    "text of {} code points split into {} entries of at most {MAX_ENTRY_CHARS}",
                    text.chars().count(),
                    pieces.len()
                ),
            ));
        }
        for (k, piece) in pieces.into_iter().enumerate() {
            let written = match (own_time, block.heading_time) {
                (Some(t), _) => Some((t, k as i64)),
                (None, Some((id, t))) => {
                    let step = under_heading.entry(id).or_default();
                    *step += 1;
                    Some((t, *step - 1))
                }
                (None, None) => None,
            };
            let placed = written.and_then(|(t, step)| {
                instant_on_day(day, &t, tz).map(|base| cap_to_day(base + Duration::seconds(step), day, tz))
            });
            let ts = match placed {
                Some(ts) => ts,
                None => {
                    if let Some((t, _)) = written
                        && k == 0
                    {
                        warnings.push(warn(
                            Some(block.line),
                            format!("written time {} does not occur on {day} in {tz}; ordinal time used", t.time),
                        ));
                    }
                    ordinal_instant(day, ordinal, tz)
                }
            };
            ordinal += 1;
            entries.push(ImportedEntry {
                entry: Entry {
                    ts,
                    tag: tag.clone(),
                    content: piece,
                    source: Some(import_source(rel_path, block.line)),
                },
                rel_path: rel_path.to_string(),
                line: block.line,
            });
        }
    }
    FileSplit { entries, warnings, control_chars_stripped: norm.control_chars }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::entry::format_ts;
    use chrono_tz::Asia::Shanghai;

    fn day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2022, 3, 2).unwrap()
    }

    /// (ts, tag, content, line) of one entry.
    type Row = (String, String, String, usize);

    fn run(text: &str, tz: Tz, first: usize) -> (Vec<Row>, Vec<Warning>) {
        let out = split_day_file(text, day(), tz, "j/2022-03-02.md", first);
        let rows = out
            .entries
            .iter()
            .map(|e| (format_ts(e.entry.ts), e.entry.tag.clone(), e.entry.content.clone(), e.line))
            .collect();
        (rows, out.warnings)
    }

    fn row(ts: &str, tag: &str, content: &str, line: usize) -> Row {
        (ts.into(), tag.into(), content.into(), line)
    }

    #[test]
    fn ordinals_follow_file_order_from_local_midnight() {
        // Shanghai midnight of 2022-03-02 is 2022-03-01T16:00Z; entries 0, 1, 2 add 0, 1, 2 s.
        let (rows, _) = run("- a\n- b #x\n\npara\n", Shanghai, 0);
        assert_eq!(
            rows,
            vec![
                row("2022-03-01T16:00:00.000Z", "import", "a", 1),
                row("2022-03-01T16:00:01.000Z", "x", "b #x", 2),
                row("2022-03-01T16:00:02.000Z", "import", "para", 4),
            ]
        );
        // A second file of the same day continues the count.
        let (rows, _) = run("- c\n", Shanghai, 3);
        assert_eq!(rows[0].0, "2022-03-01T16:00:03.000Z");
    }

    #[test]
    fn written_times() {
        let text = "## 12:00\n- a\n- b\n- (7:00) c\n## Notes\n- d\n- 04:03 UTC e\n- 4:00 PM f\n";
        let (rows, warnings) = run(text, Shanghai, 0);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            rows,
            vec![
                // 12:00 Shanghai = 04:00Z, then +1 s for the second entry under the heading.
                row("2022-03-02T04:00:00.000Z", "import", "a", 2),
                row("2022-03-02T04:00:01.000Z", "import", "b", 3),
                // Its own time wins over the heading's: 07:00 local = 23:00Z the day before.
                row("2022-03-01T23:00:00.000Z", "import", "(7:00) c", 4),
                // No time: midnight + ordinal 3.
                row("2022-03-01T16:00:03.000Z", "Notes", "d", 6),
                row("2022-03-02T04:03:00.000Z", "Notes", "04:03 UTC e", 7),
                row("2022-03-02T08:00:00.000Z", "Notes", "4:00 PM f", 8),
            ]
        );
    }

    #[test]
    fn tags() {
        let text = "# [[Project]] Alpha\n- no tag here\n- has #own tag and #second\n- #[[two words]] first\n";
        let (rows, _) = run(text, chrono_tz::UTC, 0);
        let tags: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
        assert_eq!(tags, vec!["Project Alpha", "own", "two words"]);
        assert_eq!(rows[2].2, "#two words first");
    }

    #[test]
    fn front_matter_is_removed_and_checked() {
        let text = "---\ntitle: 2022-03-01\ndate: 2022-03-01 09:25\n---\n\n# 我的写作\n正文\n";
        let (rows, warnings) = run(text, Shanghai, 0);
        assert_eq!(rows, vec![row("2022-03-01T16:00:00.000Z", "我的写作", "正文", 7)]);
        assert_eq!(warnings.len(), 1);
        assert_eq!(warnings[0].line, Some(3));
        assert_eq!(
            warnings[0].message,
            "front matter date \"2022-03-01 09:25\" (2022-03-01) disagrees with the file name (2022-03-02); the file name wins"
        );
    }

    #[test]
    fn hygiene_inside_split() {
        let text = "\u{feff}- a\u{0}b\r\n- \tc  d\r\n-\r\n- --\n";
        let out = split_day_file(text, day(), chrono_tz::UTC, "x.md", 0);
        let contents: Vec<&str> = out.entries.iter().map(|e| e.entry.content.as_str()).collect();
        assert_eq!(contents, vec!["ab", "c d"]);
        assert_eq!(out.control_chars_stripped, 1);
        assert_eq!(out.warnings[0].message, "1 control character(s) removed");
        assert_eq!(out.warnings[0].line, Some(1));
    }

    #[test]
    fn tabs_mixed_with_spaces_and_no_final_newline() {
        // A tab and two spaces both indent one level under `- a`; the file ends without `\n`.
        let (rows, _) = run("- a\n\t- b\n  - c\n\t  - d\n- e", chrono_tz::UTC, 0);
        let got: Vec<(&str, usize)> = rows.iter().map(|r| (r.2.as_str(), r.3)).collect();
        assert_eq!(got, vec![("a b c d", 1), ("e", 5)]);
    }

    #[test]
    fn long_text_becomes_several_entries() {
        // 3000 + 1 ("。") + 2000 code points: split after the "。" at code point 3001.
        let text = format!("- {}。{}\n", "甲".repeat(3000), "乙".repeat(2000));
        let (rows, warnings) = run(&text, chrono_tz::UTC, 0);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].2.chars().count(), 3001);
        assert_eq!(rows[1].2, "乙".repeat(2000));
        assert_eq!((rows[0].3, rows[1].3), (1, 1));
        assert_eq!((rows[0].0.as_str(), rows[1].0.as_str()), ("2022-03-02T00:00:00.000Z", "2022-03-02T00:00:01.000Z"));
        assert_eq!(warnings[0].message, "text of 5001 code points split into 2 entries of at most 4000");
    }

    #[test]
    fn impossible_written_time_falls_back() {
        // Zurich 2026-03-29 has 23 hours; 22:30 UTC is not inside it.
        let d = NaiveDate::from_ymd_opt(2026, 3, 29).unwrap();
        let out = split_day_file("- x\n- 22:30 UTC y\n", d, chrono_tz::Europe::Zurich, "2026-03-29.md", 0);
        // Ordinal 1 after local midnight (2026-03-28T23:00Z).
        assert_eq!(format_ts(out.entries[1].entry.ts), "2026-03-28T23:00:01.000Z");
        assert_eq!(
            out.warnings[0].message,
            "written time 22:30:00 does not occur on 2026-03-29 in Europe/Zurich; ordinal time used"
        );
    }

    proptest::proptest! {
        /// Whatever the text, every entry is a line the plugin can read back unchanged, on its
        /// day, with a line-safe tag.
        #[test]
        fn any_text_gives_well_formed_entries(
            text in "[-*+#>:\\[\\]()|`~=_ \t\n\r\u{0}\u{feff}a-c1-9日。.!?:：〔〕src\u{200b}]{0,200}",
            path in "[a-c #%〔〕/]{1,12}",
        ) {
            let d = day();
            let out = split_day_file(&text, d, Shanghai, &path, 0);
            for e in &out.entries {
                let line = crate::files::entry::format_line(&e.entry);
                let crate::files::entry::LineKind::Entry(back) = crate::files::entry::parse_line(&line) else {
                    panic!("unreadable line {line:?}");
                };
                proptest::prop_assert_eq!(&back, &e.entry);
                proptest::prop_assert!(!e.entry.content.is_empty());
                proptest::prop_assert!(!e.entry.content.contains(|c: char| c.is_control()));
                proptest::prop_assert!(!e.entry.tag.contains(['[', ']', '\n']) && e.entry.tag.chars().count() <= 32);
                proptest::prop_assert_eq!(crate::files::local_date(e.entry.ts, Shanghai), d);
                e.entry.source.as_ref().unwrap().validate().unwrap();
            }
        }
    }

    #[test]
    fn source_marker_escapes_the_path() {
        let out = split_day_file("- x\n", day(), chrono_tz::UTC, "my notes/#1/2022-03-02.md", 0);
        assert_eq!(
            out.entries[0].entry.source.as_ref().unwrap().marker(),
            "〔src:import:my%20notes/%231/2022-03-02.md#1〕"
        );
        assert_eq!(out.entries[0].rel_path, "my notes/#1/2022-03-02.md");
    }
}

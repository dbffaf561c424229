//! Reading the cold files of an existing dsh-memory-layers data root (`--format dsh`): entry
//! lines are taken as they are (they are already in the canonical format).

use chrono::NaiveDate;
use chrono_tz::Tz;

use super::hygiene::normalize;
use super::{FileSplit, ImportedEntry, Warning};
use crate::files::entry::{LineKind, parse_line};
use crate::files::local_date;

/// Parses one cold file (`cold/YYYY-MM/YYYY-MM-DD.md`, local date `day`) with
/// [`crate::files::entry::parse_line`]: each entry line keeps its own timestamp, tag, content and source
/// marker (none is added); lines that start like an entry but cannot be read are warnings
/// (`malformed entry line: <reason>`, with the line), and so are bullets without a timestamp
/// (not imported: they would need an invented time); other lines (headings, notes, blanks) are
/// ignored as the plugin ignores them. An entry whose timestamp falls on another local date in
/// `tz` stays in its file's day (the file is what the plugin reads) and gets a warning: the
/// archive was probably written with another zone.
///
/// Lines are those memlayers reads in a cold file (split at `\n`, a `\r` before it dropped): a
/// carriage return inside a line is read as a space and counted in a warning, where
/// [`normalize`] would make it a line break and cut the entry's text there (second newcomer
/// test: `- [ts] [-] cr\rinside` was imported as `cr`, while the index of the source file holds
/// `cr\rinside`).
pub fn parse_cold_file(text: &str, day: NaiveDate, tz: Tz, rel_path: &str) -> FileSplit {
    let warn = |line: Option<usize>, message: String| Warning { rel_path: rel_path.to_string(), line, message };
    let (text, inner_cr) = inner_carriage_returns_as_spaces(text);
    let norm = normalize(&text);
    let mut warnings = Vec::new();
    if let Some((n, line)) = inner_cr {
        warnings.push(warn(Some(line), format!("{n} carriage return(s) inside an entry line read as spaces")));
    }
    if norm.control_chars > 0 {
        warnings.push(warn(norm.first_control_line, format!("{} control character(s) removed", norm.control_chars)));
    }
    let mut entries = Vec::new();
    for (i, line) in norm.text.lines().enumerate() {
        match parse_line(line) {
            LineKind::Entry(entry) => {
                let on = local_date(entry.ts, tz);
                if on != day {
                    warnings.push(warn(
                        Some(i + 1),
                        format!("entry time is on {on} in {tz}, the file is {day}; kept in the file's day"),
                    ));
                }
                entries.push(ImportedEntry { entry, rel_path: rel_path.to_string(), line: i + 1 });
            }
            LineKind::Malformed(reason) => warnings.push(warn(Some(i + 1), format!("malformed entry line: {reason}"))),
            // A hand-written bullet without a timestamp: the source's index reads it as a memory
            // of its day whose time is unknown; written here it would need an invented time.
            LineKind::Other if crate::files::entry::undated_bullet(line).is_some() => warnings.push(warn(
                Some(i + 1),
                "bullet without a timestamp not imported (its time is unknown; copy the line into the day file of \
                 this root to keep it as it is)"
                    .into(),
            )),
            LineKind::Other => {}
        }
    }
    FileSplit { entries, warnings, control_chars_stripped: norm.control_chars }
}

/// `text` with every `\r` that does not end a line (not followed by `\n`) replaced by a space,
/// and (how many, the 1-based line of the first) when there were any.
fn inner_carriage_returns_as_spaces(text: &str) -> (std::borrow::Cow<'_, str>, Option<(usize, usize)>) {
    let inner = |i: usize| text.as_bytes().get(i + 1) != Some(&b'\n');
    let Some(first) = text.match_indices('\r').map(|(i, _)| i).find(|&i| inner(i)) else {
        return (std::borrow::Cow::Borrowed(text), None);
    };
    let line = text[..first].matches('\n').count() + 1;
    let mut n = 0;
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if c == '\r' && inner(i) {
            n += 1;
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    (std::borrow::Cow::Owned(out), Some((n, line)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::entry::{Source, format_ts};

    #[test]
    fn a_carriage_return_inside_a_line_is_a_space_not_a_line_break() {
        let day = NaiveDate::from_ymd_opt(2026, 8, 12).unwrap();
        let text = "- [2026-08-12T04:00:00.000Z] [-] cr\rinside more\r\n- [2026-08-12T05:00:00.000Z] [-] a\rb\rc\n";
        let out = parse_cold_file(text, day, chrono_tz::UTC, "cold/2026-08/2026-08-12.md");
        let rows: Vec<_> = out.entries.iter().map(|e| (e.line, e.entry.content.clone())).collect();
        assert_eq!(rows, vec![(1, "cr inside more".to_string()), (2, "a b c".to_string())]);
        let w: Vec<_> = out.warnings.iter().map(|w| (w.line, w.message.clone())).collect();
        assert_eq!(w, vec![(Some(1), "3 carriage return(s) inside an entry line read as spaces".to_string())]);
        // CRLF alone is a line end: nothing to say.
        let out = parse_cold_file("- [2026-08-12T04:00:00.000Z] [-] x\r\n", day, chrono_tz::UTC, "f");
        assert!(out.warnings.is_empty());
    }

    #[test]
    fn entries_are_kept_as_written() {
        let day = NaiveDate::from_ymd_opt(2026, 4, 12).unwrap();
        let text = "# 2026-04-12\r\n\
                    - [2026-04-11T19:53:00.000Z] [翻唱] 录了一版 〔src:private:12#977〕\r\n\
                    - [2026-04-12T01:00:00.000Z] no tag\n\
                    - [2026-04-12T02:00:00.000Z] [-] 无来源\n\
                    - [2026-04-12T20:00:00.000Z] [x] late";
        let out = parse_cold_file(text, day, chrono_tz::Asia::Shanghai, "cold/2026-04/2026-04-12.md");
        let rows: Vec<_> = out
            .entries
            .iter()
            .map(|e| (e.line, format_ts(e.entry.ts), e.entry.tag.clone(), e.entry.content.clone()))
            .collect();
        assert_eq!(
            rows,
            vec![
                (2, "2026-04-11T19:53:00.000Z".to_string(), "翻唱".to_string(), "录了一版".to_string()),
                (4, "2026-04-12T02:00:00.000Z".to_string(), "-".to_string(), "无来源".to_string()),
                (5, "2026-04-12T20:00:00.000Z".to_string(), "x".to_string(), "late".to_string()),
            ]
        );
        assert_eq!(
            out.entries[0].entry.source,
            Some(Source { conv: "private:12".into(), seq: "977".into(), msg_id: None })
        );
        assert_eq!(out.entries[1].entry.source, None);
        let w: Vec<_> = out.warnings.iter().map(|w| (w.line, w.message.as_str())).collect();
        assert_eq!(
            w,
            vec![
                (Some(3), "malformed entry line: missing ' [tag]' after the timestamp"),
                // 20:00Z is 04:00 on the 13th in Shanghai.
                (
                    Some(5),
                    "entry time is on 2026-04-13 in Asia/Shanghai, the file is 2026-04-12; kept in the file's day"
                ),
            ]
        );
    }
}

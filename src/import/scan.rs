//! Walking an archive folder into a plan: which files are days, what each day's entries are,
//! what was skipped and why. Reads files, never writes.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::Path;

use chrono::NaiveDate;
use chrono_tz::Tz;
use walkdir::WalkDir;

use super::dsh::parse_cold_file;
use super::filename::day_from_file_name;
use super::hygiene::decode;
use super::skip::skip_reason;
use super::split::split_day_file;
use super::{DayPlan, Format, ScanReport, Skipped, Warning};
use crate::files::day_of_cold_rel;
use crate::{Error, Result};

/// Reason for a file that was read but gave no entry.
pub const NO_ENTRIES: &str = "no entries (empty, or only headings, properties or separators)";

/// Scans the archive at `root` (read-only) and plans its import.
///
/// * What is walked: `root` for [`Format::DailyNotes`]; `root/journals` for [`Format::Logseq`]
///   when it exists, else `root`; `root/cold` for [`Format::Dsh`]. Symbolic links are not
///   followed (listed as skipped); hidden folders (`.git`, `.obsidian`, `.trash`) are listed
///   once as skipped and not entered.
/// * Which files are days: [`skip_reason`] for Markdown archives; for `Dsh`, names of the form
///   `cold/YYYY-MM/YYYY-MM-DD.md` (`crate::files::day_of_cold_rel`).
/// * Order: days ascending; the files of one day by relative path (byte order, so
///   `2022-03-02.md` before `2022_03_02.md`); entries in file order, ordinals counting across the
///   day's files. `skipped` is sorted by path; `warnings` come in day order.
/// * A file that cannot be read, or is not text, is skipped with the reason (I/O errors also as
///   a warning with the error); a file that gives no entry is skipped as [`NO_ENTRIES`]; days
///   without entries are not in `days`.
/// * Entries of one day with the same tag and text (what the plugin's `mem_write` would not
///   write twice) get a warning naming the first one; both stay in the plan.
///
/// Errors: `root` missing or unreadable → `Error::Io`; not a folder, or `Dsh` without a `cold/`
/// folder → `Error::BadInput` on field `path`.
pub fn scan(root: &Path, format: Format, tz: Tz) -> Result<ScanReport> {
    let mut days = Vec::new();
    let mut report = scan_each(root, format, tz, &mut |d, _| {
        days.push(d);
        Ok(())
    })?;
    report.days = days;
    Ok(report)
}

/// [`scan`], handing each day's plan to `each` as soon as the day's files are read (in day
/// order, with the number of days that have files: an upper bound of the calls, for
/// progress) instead of keeping them: an import writes a batch of days and drops it before the
/// next is read, so its memory holds a batch, not the archive (390 MB for 1M
/// entries). The returned report has everything but `days`. Errors: as [`scan`], or the
/// first error `each` returns (days after it are not read).
pub fn scan_each(
    root: &Path,
    format: Format,
    tz: Tz,
    each: &mut dyn FnMut(DayPlan, usize) -> Result<()>,
) -> Result<ScanReport> {
    let meta = fs::metadata(root).map_err(|e| Error::io(root, e))?;
    if !meta.is_dir() {
        return Err(Error::bad("path", format!("{} is not a folder", root.display())));
    }
    let walk_root = match format {
        Format::Dsh => {
            let cold = root.join("cold");
            if !cold.is_dir() {
                return Err(Error::bad(
                    "path",
                    format!("{} has no cold/ folder: not a dsh-memory-layers data root", root.display()),
                ));
            }
            cold
        }
        Format::Logseq if root.join("journals").is_dir() => root.join("journals"),
        _ => root.to_path_buf(),
    };
    let mut report = ScanReport::default();
    let mut files = walk(root, &walk_root, &mut report)?;
    files.sort();

    let mut by_day: BTreeMap<NaiveDate, Vec<String>> = BTreeMap::new();
    for rel in files {
        let day = match format {
            Format::Dsh => day_of_cold_rel(&rel)
                .ok_or_else(|| skip_reason(&rel).unwrap_or("not a cold file (cold/YYYY-MM/YYYY-MM-DD.md)")),
            _ => match skip_reason(&rel) {
                Some(reason) => Err(reason),
                None => day_from_file_name(&rel).ok_or("no date at the start of the file name"),
            },
        };
        match day {
            Ok(d) => by_day.entry(d).or_default().push(rel),
            Err(reason) => report.skipped.push(Skipped { rel_path: rel, reason: reason.into() }),
        }
    }

    let day_files = by_day.len();
    for (day, rels) in by_day {
        let mut entries = Vec::new();
        for rel in rels {
            let bytes = match fs::read(root.join(&rel)) {
                Ok(b) => b,
                Err(e) => {
                    report.warnings.push(Warning { rel_path: rel.clone(), line: None, message: e.to_string() });
                    report.skipped.push(Skipped { rel_path: rel, reason: "unreadable file".into() });
                    continue;
                }
            };
            report.files_read += 1;
            let decoded = match decode(&bytes) {
                Ok(d) => d,
                Err(reason) => {
                    report.skipped.push(Skipped { rel_path: rel, reason: reason.into() });
                    continue;
                }
            };
            if let Some((line, message)) = decoded.warning {
                report.warnings.push(Warning { rel_path: rel.clone(), line: Some(line), message });
            }
            let split = match format {
                Format::Dsh => parse_cold_file(&decoded.text, day, tz, &rel),
                _ => split_day_file(&decoded.text, day, tz, &rel, entries.len()),
            };
            report.control_chars_stripped += split.control_chars_stripped;
            report.warnings.extend(split.warnings);
            if split.entries.is_empty() {
                report.skipped.push(Skipped { rel_path: rel, reason: NO_ENTRIES.into() });
            }
            entries.extend(split.entries);
        }
        let mut seen: HashMap<(&str, &str), (&str, usize)> = HashMap::new();
        for e in &entries {
            match seen.get(&(e.entry.tag.as_str(), e.entry.content.as_str())) {
                Some((rel, line)) => report.warnings.push(Warning {
                    rel_path: e.rel_path.clone(),
                    line: Some(e.line),
                    message: format!("same day, tag and text as {rel}:{line}"),
                }),
                None => {
                    seen.insert((&e.entry.tag, &e.entry.content), (&e.rel_path, e.line));
                }
            }
        }
        if !entries.is_empty() {
            each(DayPlan { day, entries }, day_files)?;
        }
    }
    report.skipped.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
    Ok(report)
}

/// `/`-separated path of `path` relative to `root`, if it is UTF-8.
fn rel_of(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

/// Lists the regular files under `walk_root` as paths relative to `root`, recording what is
/// left out in `report.skipped` (hidden folders, symbolic links, special files, names that are
/// not UTF-8) and unreadable folders in `report.warnings`.
fn walk(root: &Path, walk_root: &Path, report: &mut ScanReport) -> Result<Vec<String>> {
    let mut files = Vec::new();
    let mut it = WalkDir::new(walk_root).follow_links(false).sort_by_file_name().into_iter();
    while let Some(next) = it.next() {
        let ent = match next {
            Ok(ent) => ent,
            Err(e) => {
                if e.depth() == 0 {
                    let source = e.into_io_error().unwrap_or_else(|| std::io::Error::other("cannot walk"));
                    return Err(Error::io(walk_root, source));
                }
                let rel = e.path().and_then(|p| rel_of(root, p)).unwrap_or_default();
                report.warnings.push(Warning { rel_path: rel, line: None, message: format!("cannot read: {e}") });
                continue;
            }
        };
        if ent.depth() == 0 {
            continue;
        }
        let ft = ent.file_type();
        let Some(rel) = rel_of(root, ent.path()) else {
            let lossy = ent.path().strip_prefix(root).unwrap_or(ent.path()).to_string_lossy().into_owned();
            report.skipped.push(Skipped { rel_path: lossy, reason: "file name is not valid UTF-8".into() });
            if ft.is_dir() {
                it.skip_current_dir();
            }
            continue;
        };
        if ft.is_dir() {
            if ent.file_name().to_str().is_some_and(|n| n.starts_with('.')) {
                report.skipped.push(Skipped { rel_path: format!("{rel}/"), reason: "hidden folder".into() });
                it.skip_current_dir();
            }
            continue;
        }
        if ft.is_symlink() {
            report.skipped.push(Skipped { rel_path: rel, reason: "symbolic link (not followed)".into() });
        } else if !ft.is_file() {
            report.skipped.push(Skipped { rel_path: rel, reason: "not a regular file".into() });
        } else {
            files.push(rel);
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::entry::format_ts;

    fn write(root: &Path, rel: &str, text: &[u8]) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    #[test]
    fn several_files_feed_one_day_and_ordinals_continue() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(r, "2022_03_02.md", b"- b1\n- b2\n");
        write(r, "2022-03-02.md", b"- a1\n");
        write(r, "archive/2022-03-02-late.md", b"- c1\n");
        write(r, "2022-03-03.md", b"");
        write(r, "notes.md", b"- x\n");
        write(r, ".obsidian/2022-03-04.md", b"- hidden\n");
        let rep = scan(r, Format::DailyNotes, chrono_tz::UTC).unwrap();
        assert_eq!(rep.days.len(), 1);
        // Byte order of the paths: "2022-03-02.md" < "2022_03_02.md" < "archive/…".
        let got: Vec<_> = rep.days[0]
            .entries
            .iter()
            .map(|e| (e.rel_path.as_str(), e.entry.content.as_str(), format_ts(e.entry.ts)))
            .collect();
        assert_eq!(
            got,
            vec![
                ("2022-03-02.md", "a1", "2022-03-02T00:00:00.000Z".to_string()),
                ("2022_03_02.md", "b1", "2022-03-02T00:00:01.000Z".to_string()),
                ("2022_03_02.md", "b2", "2022-03-02T00:00:02.000Z".to_string()),
                ("archive/2022-03-02-late.md", "c1", "2022-03-02T00:00:03.000Z".to_string()),
            ]
        );
        let skipped: Vec<_> = rep.skipped.iter().map(|s| (s.rel_path.as_str(), s.reason.as_str())).collect();
        assert_eq!(
            skipped,
            vec![
                (".obsidian/", "hidden folder"),
                ("2022-03-03.md", NO_ENTRIES),
                ("notes.md", "no date at the start of the file name"),
            ]
        );
        assert_eq!(rep.files_read, 4);
    }

    #[test]
    fn bad_bytes_and_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(r, "2022-01-01.md", b"- same\n- caf\xe9 ok\n- same\n");
        write(r, "2022-01-02.md", b"\xc4\xe3\xba\xc3\xc4\xe3");
        write(r, "2022-01-03.md", b"- a\x00b\x07\n");
        let rep = scan(r, Format::DailyNotes, chrono_tz::UTC).unwrap();
        assert_eq!(rep.days.len(), 2);
        assert_eq!(rep.days[0].entries[1].entry.content, "caf\u{fffd} ok");
        assert_eq!(rep.days[1].entries[0].entry.content, "ab");
        assert_eq!(rep.control_chars_stripped, 2);
        assert_eq!(
            rep.skipped,
            vec![Skipped {
                rel_path: "2022-01-02.md".into(),
                reason: "not UTF-8 text (over 10% of the bytes are invalid)".into()
            }]
        );
        let w: Vec<_> = rep.warnings.iter().map(|w| (w.rel_path.as_str(), w.line, w.message.as_str())).collect();
        assert_eq!(
            w,
            vec![
                ("2022-01-01.md", Some(2), "invalid UTF-8: 1 byte sequence(s) replaced by U+FFFD"),
                ("2022-01-01.md", Some(3), "same day, tag and text as 2022-01-01.md:1"),
                ("2022-01-03.md", Some(1), "2 control character(s) removed"),
            ]
        );
    }

    #[test]
    fn logseq_walks_journals_only_and_dsh_reads_cold() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(r, "journals/2023_01_01.md", b"- j\n");
        write(r, "pages/2023_01_02.md", b"- p\n");
        write(r, "logseq/bak/journals/2023_01_01.md", b"- old\n");
        let rep = scan(r, Format::Logseq, chrono_tz::UTC).unwrap();
        assert_eq!(rep.days.len(), 1);
        assert_eq!(rep.days[0].entries[0].rel_path, "journals/2023_01_01.md");

        let dsh = tempfile::tempdir().unwrap();
        let d = dsh.path();
        write(d, "cold/2026-04/2026-04-12.md", "- [2026-04-12T01:00:00.000Z] [t] x 〔src:c#1〕\n".as_bytes());
        write(d, "cold/2026-04/notes.md", b"- [2026-04-12T01:00:00.000Z] [t] y\n");
        write(d, "hot.md", b"# hot\n");
        let rep = scan(d, Format::Dsh, chrono_tz::UTC).unwrap();
        assert_eq!(rep.days.len(), 1);
        assert_eq!(rep.days[0].entries[0].entry.source.as_ref().unwrap().marker(), "〔src:c#1〕");
        assert_eq!(rep.skipped[0].reason, "no date at the start of the file name");
        assert!(matches!(scan(r, Format::Dsh, chrono_tz::UTC), Err(Error::BadInput { .. })));
    }

    #[test]
    fn root_errors() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f.md");
        fs::write(&file, "x").unwrap();
        assert!(
            matches!(scan(&file, Format::DailyNotes, chrono_tz::UTC), Err(Error::BadInput { ref field, .. }) if field == "path")
        );
        assert!(matches!(scan(&dir.path().join("nope"), Format::DailyNotes, chrono_tz::UTC), Err(Error::Io { .. })));
    }

    #[test]
    #[cfg(unix)]
    fn symlinks_are_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(r, "2022-01-01.md", b"- a\n");
        std::os::unix::fs::symlink(r.join("2022-01-01.md"), r.join("2022-01-05.md")).unwrap();
        let rep = scan(r, Format::DailyNotes, chrono_tz::UTC).unwrap();
        assert_eq!(rep.days.len(), 1);
        assert_eq!(
            rep.skipped,
            vec![Skipped { rel_path: "2022-01-05.md".into(), reason: "symbolic link (not followed)".into() }]
        );
    }
}

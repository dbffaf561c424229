//! Which files of an archive are not day files, and why (docs/import.md, "Days").

use super::filename::{day_from_file_name, invalid_date_in_file_name};

/// Why the file at `rel_path` (relative to the archive root, `/`-separated) is not imported as
/// a day file, or `None` when it is one. The rules, first match wins:
///
/// | rule | reason |
/// |---|---|
/// | a folder on the path starts with `.` (`.git`, `.obsidian`, `.trash`) | `hidden folder` |
/// | the path runs through `logseq/bak/` (Logseq's own backup copies) | `Logseq backup copy (logseq/bak/)` |
/// | the name without its `.md`/`.markdown` extension is empty or blank (`.md`, ` .md`) | `empty file name` |
/// | the name starts with `.` | `hidden file` |
/// | the name ends with `.orig` | `merge leftover (.orig)` |
/// | the name ends with `.tmp` | `editor temp file (.tmp)` |
/// | the name ends with `~` or `.bak` | `editor backup copy (~, .bak)` |
/// | the name contains `.conflicted` | `sync conflict copy (.conflicted)` |
/// | the name contains `sync-conflict` (Syncthing) or `conflicted copy` (Dropbox) | `sync conflict copy` |
/// | the name contains `_BASE_`, `_LOCAL_`, `_REMOTE_` or `_BACKUP_` (git mergetool) | `git mergetool leftover (_BASE_)` … |
/// | the name does not end with `.md` or `.markdown` (any case) | `not a Markdown file (.md)` |
/// | a date that does not exist at the start of the name (`2026-02-30.md`) | `invalid date at the start of the file name (no such day)` |
/// | no date at the start of the name ([`day_from_file_name`]) | `no date at the start of the file name` |
///
/// Leftovers are checked before the extension and the date, so `2024-03-18.md.orig` and
/// `2023-12-11_BASE_277894.md` are reported as leftovers although they carry a date.
///
/// ```
/// use memlayers::import::skip_reason;
/// assert_eq!(skip_reason("journal/2024-03-18.md.orig"), Some("merge leftover (.orig)"));
/// assert_eq!(skip_reason("journal/2024-03-18.md"), None);
/// ```
pub fn skip_reason(rel_path: &str) -> Option<&'static str> {
    let parts: Vec<&str> = rel_path.split('/').collect();
    let (name, folders) = parts.split_last().map(|(n, f)| (*n, f)).unwrap_or(("", &[]));
    if folders.iter().any(|f| f.starts_with('.') && *f != "." && *f != "..") {
        return Some("hidden folder");
    }
    if folders.windows(2).any(|w| w[0].eq_ignore_ascii_case("logseq") && w[1].eq_ignore_ascii_case("bak")) {
        return Some("Logseq backup copy (logseq/bak/)");
    }
    let lower = name.to_lowercase();
    let stem = lower.strip_suffix(".md").or_else(|| lower.strip_suffix(".markdown")).unwrap_or(&lower);
    if stem.trim().is_empty() {
        return Some("empty file name");
    }
    if name.starts_with('.') {
        return Some("hidden file");
    }
    if lower.ends_with(".orig") {
        return Some("merge leftover (.orig)");
    }
    if lower.ends_with(".tmp") {
        return Some("editor temp file (.tmp)");
    }
    if lower.ends_with('~') || lower.ends_with(".bak") {
        return Some("editor backup copy (~, .bak)");
    }
    if lower.contains(".conflicted") {
        return Some("sync conflict copy (.conflicted)");
    }
    if lower.contains("sync-conflict") || lower.contains("conflicted copy") {
        return Some("sync conflict copy");
    }
    for (mark, reason) in [
        ("_BASE_", "git mergetool leftover (_BASE_)"),
        ("_LOCAL_", "git mergetool leftover (_LOCAL_)"),
        ("_REMOTE_", "git mergetool leftover (_REMOTE_)"),
        ("_BACKUP_", "git mergetool leftover (_BACKUP_)"),
    ] {
        if name.contains(mark) {
            return Some(reason);
        }
    }
    if !(lower.ends_with(".md") || lower.ends_with(".markdown")) {
        return Some("not a Markdown file (.md)");
    }
    if day_from_file_name(name).is_none() {
        return Some(invalid_date_in_file_name(name).unwrap_or("no date at the start of the file name"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_files_pass() {
        for p in [
            "2022-03-02.md",
            "journal/2022_03_02.md",
            "a/b/c/20220302.MD",
            "2022年3月2日.markdown",
            "x/2026-03-18-1357.md",
        ] {
            assert_eq!(skip_reason(p), None, "{p}");
        }
    }

    #[test]
    fn leftovers_of_the_flancian_archive() {
        // The nine leftovers found with `ls journal | grep -vE '^[0-9]{4}[-_][0-9]{2}[-_][0-9]{2}\.md$'`.
        let cases = [
            ("journal/2024-07-20.conflicted.1721431903785.md", "sync conflict copy (.conflicted)"),
            ("journal/2023-12-11_REMOTE_277894.md", "git mergetool leftover (_REMOTE_)"),
            ("journal/2023-12-29.md.tmp", "editor temp file (.tmp)"),
            ("journal/2024-03-18.md.orig", "merge leftover (.orig)"),
            ("journal/2023-12-11_BASE_277894.md", "git mergetool leftover (_BASE_)"),
            ("journal/2023-12-11_BACKUP_277894.md", "git mergetool leftover (_BACKUP_)"),
            ("journal/2023-12-11_LOCAL_277894.md", "git mergetool leftover (_LOCAL_)"),
        ];
        for (p, want) in cases {
            assert_eq!(skip_reason(p), Some(want), "{p}");
        }
    }

    #[test]
    fn other_rules() {
        assert_eq!(skip_reason(".obsidian/workspace.md"), Some("hidden folder"));
        assert_eq!(skip_reason("a/.trash/2022-01-01.md"), Some("hidden folder"));
        assert_eq!(
            skip_reason("logseq/bak/journals/2023_01_01/2023-01-01T10_00.md"),
            Some("Logseq backup copy (logseq/bak/)")
        );
        assert_eq!(skip_reason("journal/.md"), Some("empty file name"));
        assert_eq!(skip_reason("journal/ .md"), Some("empty file name"));
        assert_eq!(skip_reason(""), Some("empty file name"));
        assert_eq!(skip_reason(".DS_Store"), Some("hidden file"));
        assert_eq!(skip_reason("2022-01-01.md~"), Some("editor backup copy (~, .bak)"));
        assert_eq!(skip_reason("2022-01-01.sync-conflict-20220101-1.md"), Some("sync conflict copy"));
        assert_eq!(skip_reason("2022-01-01 (conflicted copy).md"), Some("sync conflict copy"));
        assert_eq!(skip_reason("LICENSE"), Some("not a Markdown file (.md)"));
        assert_eq!(skip_reason("2022-01-01.txt"), Some("not a Markdown file (.md)"));
        assert_eq!(skip_reason("README.md"), Some("no date at the start of the file name"));
        assert_eq!(skip_reason("MEMORY.md"), Some("no date at the start of the file name"));
        // Shaped like a date but no such day: said so, not "no date" (2022 is not a leap year).
        let invalid = Some("invalid date at the start of the file name (no such day)");
        assert_eq!(skip_reason("2022-02-30.md"), invalid);
        assert_eq!(skip_reason("2022-02-29.md"), invalid);
        assert_eq!(skip_reason("journal/2022_13_01.md"), invalid);
        assert_eq!(skip_reason("2022年2月30日.md"), invalid);
        assert_eq!(skip_reason("2024-02-29.md"), None);
    }
}

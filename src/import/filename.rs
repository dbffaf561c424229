//! The day a file belongs to, read from its file name (docs/import.md, "Days").

use std::sync::LazyLock;

use chrono::NaiveDate;
use regex::Regex;

/// A date at the very start of a file name, in one of the four accepted spellings, followed by
/// the end of the name or by a character that is not a digit (the suffix: `.md`, `-1357.md`,
/// `-topic.md`, ` Monday.md`).
static NAME_DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:(\d{4})-(\d{2})-(\d{2})|(\d{4})_(\d{2})_(\d{2})|(\d{4})(\d{2})(\d{2})|(\d{4})年(\d{1,2})月(\d{1,2})日)(?:$|[^0-9])",
    )
    .expect("valid regex")
});

/// A date anywhere in a short value (front matter `date:`, a heading): `2022-06-27`,
/// `2022/6/27`, `2022.06.27`, `2022_06_27`, `2022年6月27日`, not followed by a digit.
static ANY_DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[^0-9])(?:(\d{4})[-/._](\d{1,2})[-/._](\d{1,2})|(\d{4})年(\d{1,2})月(\d{1,2})日)(?:$|[^0-9])")
        .expect("valid regex")
});

fn ymd(caps: &regex::Captures<'_>) -> Option<NaiveDate> {
    // Exactly one alternative matched: find its three groups.
    let groups: Vec<&str> = caps.iter().skip(1).flatten().map(|m| m.as_str()).collect();
    let [y, m, d] = groups.as_slice() else { return None };
    NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)
}

/// The local date a day file belongs to, from its file name (the last path component is used
/// when a path is given, so the folder depth does not matter).
///
/// Accepted at the start of the name, per docs/import.md ("Days"): `YYYY-MM-DD`, `YYYY_MM_DD`, `YYYYMMDD`,
/// `YYYY年M月D日` (month and day with one or two digits), with or without a suffix that starts
/// with a non-digit (`2026-03-18-1357.md`, `2026-05-05-topic.md`). The date must exist
/// (`2023-02-30` → `None`). A digit right after the date is refused, so a Zettelkasten id such
/// as `202203141357.md` is not read as 2022-03-14.
///
/// ```
/// use chrono::NaiveDate;
/// use memlayers::import::day_from_file_name;
/// let d = NaiveDate::from_ymd_opt(2022, 3, 2);
/// assert_eq!(day_from_file_name("journal/2022_03_02.md"), d);
/// assert_eq!(day_from_file_name("2022年3月2日.md"), d);
/// assert_eq!(day_from_file_name("202203141357.md"), None);
/// ```
pub fn day_from_file_name(name: &str) -> Option<NaiveDate> {
    let name = name.rsplit('/').next().unwrap_or(name);
    NAME_DATE.captures(name).and_then(|c| ymd(&c))
}

/// Why a skipped file name that starts like a date is not dated: the phrase a skip reason uses
/// when `name` (its last path component) starts with a date in one of the spellings of
/// [`day_from_file_name`] that does not exist (`2026-02-30.md`, `2026-13-01.md`), else `None`.
pub(crate) fn invalid_date_in_file_name(name: &str) -> Option<&'static str> {
    let name = name.rsplit('/').next().unwrap_or(name);
    let caps = NAME_DATE.captures(name)?;
    ymd(&caps).is_none().then_some(INVALID_DATE)
}

/// Skip reason of a file whose name starts with a date that does not exist (one fixed phrase,
/// so `skippedByReason` counts such files together; the path names the date).
pub(crate) const INVALID_DATE: &str = "invalid date at the start of the file name (no such day)";

/// The first valid date written anywhere in `text` (see [`ANY_DATE`] for the spellings).
pub(crate) fn date_in_text(text: &str) -> Option<NaiveDate> {
    ANY_DATE.captures_iter(text).find_map(|c| ymd(&c))
}

/// True when `text` (trimmed) is nothing but a date in one of the file-name spellings, e.g. the
/// `# 2021-08-01` title Foam and Obsidian put at the top of a daily note.
pub(crate) fn is_only_a_date(text: &str) -> bool {
    let t = text.trim();
    day_from_file_name(t).is_some()
        && NAME_DATE
            .find(t)
            .is_some_and(|m| m.end() == t.len() && t.ends_with(|c: char| c.is_ascii_digit() || c == '日'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(y, m, day)
    }

    #[test]
    fn the_four_spellings() {
        assert_eq!(day_from_file_name("2022-03-02.md"), d(2022, 3, 2));
        assert_eq!(day_from_file_name("2022_03_02.md"), d(2022, 3, 2));
        assert_eq!(day_from_file_name("20220302.md"), d(2022, 3, 2));
        assert_eq!(day_from_file_name("2022年3月2日.md"), d(2022, 3, 2));
        assert_eq!(day_from_file_name("2022年03月02日.md"), d(2022, 3, 2));
    }

    #[test]
    fn suffixes_and_depth() {
        assert_eq!(day_from_file_name("2026-03-18-1357.md"), d(2026, 3, 18));
        assert_eq!(day_from_file_name("2026-05-05-topic.md"), d(2026, 5, 5));
        assert_eq!(day_from_file_name("memory/archive/2026-05-05 Tuesday.md"), d(2026, 5, 5));
        assert_eq!(day_from_file_name("2026-05-05"), d(2026, 5, 5));
    }

    #[test]
    fn refusals() {
        assert_eq!(day_from_file_name("2023-02-30.md"), None, "no such day");
        assert_eq!(day_from_file_name("2023-13-01.md"), None, "no such month");
        assert_eq!(day_from_file_name("202203141357.md"), None, "zettel id, digit after the date");
        assert_eq!(day_from_file_name("notes-2022-03-02.md"), None, "date must come first");
        assert_eq!(day_from_file_name("2022-3-2.md"), None, "dashed form needs two digits");
        assert_eq!(day_from_file_name("2022-03_02.md"), None, "mixed separators");
        assert_eq!(day_from_file_name("2022-W10.md"), None);
        assert_eq!(day_from_file_name("README.md"), None);
        assert_eq!(day_from_file_name(""), None);
    }

    #[test]
    fn dates_in_values() {
        assert_eq!(date_in_text("2022-06-27 06:27"), d(2022, 6, 27));
        assert_eq!(date_in_text("'2022/6/7'"), d(2022, 6, 7));
        assert_eq!(date_in_text("2022-06-27T06:27:00+08:00"), d(2022, 6, 27));
        assert_eq!(date_in_text("tomorrow"), None);
        assert!(is_only_a_date("2021-08-01"));
        assert!(is_only_a_date(" 2021年8月1日 "));
        assert!(!is_only_a_date("2021-08-01 retro"));
        assert!(!is_only_a_date("我的写作"));
    }
}

//! YAML front matter at the top of a day file (issue 5, "Mapping": removed; its date checked
//! against the file name).

use chrono::NaiveDate;

use super::filename::date_in_text;

/// Front matter found at the top of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct FrontMatter {
    /// Number of lines it takes, fences included: the body starts on line `lines + 1`.
    pub lines: usize,
    /// The `date:` key: its 1-based line and the value as written (trimmed).
    pub date: Option<(usize, String)>,
}

impl FrontMatter {
    /// The date of the `date:` value (see `filename::date_in_text`), if it holds one.
    pub fn date_value(&self) -> Option<NaiveDate> {
        self.date.as_ref().and_then(|(_, v)| date_in_text(v))
    }
}

/// Finds front matter: the first line is `---`, and a later line is `---` or `...`; leading and
/// trailing whitespace on both fence lines is tolerated (MiracleWong's `07/2022-07-26.md`
/// starts with 121 spaces before `---`). Without a closing fence there is no front matter and
/// the first line is read as Markdown. Only the top-level `date:` key is read, by a line scan
/// rather than a YAML parser: front matter written by hand is often not valid YAML, and one key
/// is all the mapping needs.
pub fn find(lines: &[&str]) -> Option<FrontMatter> {
    if lines.first()?.trim() != "---" {
        return None;
    }
    let close = lines.iter().skip(1).position(|l| matches!(l.trim(), "---" | "..."))? + 1;
    let date = lines[1..close].iter().enumerate().find_map(|(i, l)| {
        let (key, value) = l.split_once(':')?;
        key.eq_ignore_ascii_case("date").then(|| (i + 2, value.trim().to_string()))
    });
    Some(FrontMatter { lines: close + 1, date })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn miraclewong_style() {
        let lines = ["---", "title: 2022-06-27", "date: 2022-06-27 06:27", "", "", "---", "", "# 我的写作"];
        let fm = find(&lines).unwrap();
        assert_eq!(fm.lines, 6);
        assert_eq!(fm.date, Some((3, "2022-06-27 06:27".into())));
        assert_eq!(fm.date_value(), NaiveDate::from_ymd_opt(2022, 6, 27));
    }

    #[test]
    fn padded_fences_and_no_date() {
        let lines = ["      ---", "title: x", "--- ", "body"];
        let fm = find(&lines).unwrap();
        assert_eq!((fm.lines, fm.date), (3, None));
        assert_eq!(find(&["---", "tags: a", "..."]).map(|f| f.lines), Some(3));
    }

    #[test]
    fn not_front_matter() {
        assert_eq!(find(&["---", "no closing fence"]), None);
        assert_eq!(find(&["# title", "---", "x", "---"]), None);
        assert_eq!(find(&[]), None);
        // Indented `date:` belongs to a nested map, not the top level.
        assert_eq!(find(&["---", "meta:", "  date: 2020-01-01", "---"]).unwrap().date, None);
        assert_eq!(find(&["---", "date: soon", "---"]).unwrap().date_value(), None);
    }
}

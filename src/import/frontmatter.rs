//! YAML front matter at the top of a day file (docs/import.md, "Front matter": removed; its date checked
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

/// Finds front matter: a line `---` that is the first non-blank line, and a later line `---` or
/// `...`, with only YAML-looking lines between them (`key: value`, indented lines, `- item`,
/// `# comment`, blank lines). Tolerated, because the real archives do it: whitespace around the
/// fence lines (MiracleWong's `07/2022-07-26.md` starts with 121 spaces before `---`) and blank
/// lines before the opening fence (its `08/2022-08-02.md` starts with an empty line). Without a
/// closing fence, or with a line between the fences that is not YAML-looking, there is no front
/// matter and the text is read as Markdown. Only the top-level `date:` key is read, by a line
/// scan rather than a YAML parser: front matter written by hand is often not valid YAML, and
/// one key is all the mapping needs.
pub fn find(lines: &[&str]) -> Option<FrontMatter> {
    let open = lines.iter().position(|l| !l.trim().is_empty())?;
    if lines[open].trim() != "---" {
        return None;
    }
    let close = lines.iter().skip(open + 1).position(|l| matches!(l.trim(), "---" | "..."))? + open + 1;
    let inner = &lines[open + 1..close];
    if !inner.iter().all(|l| yaml_looking(l)) {
        return None;
    }
    let date = inner.iter().enumerate().find_map(|(i, l)| {
        let (key, value) = l.split_once(':')?;
        key.eq_ignore_ascii_case("date").then(|| (open + i + 2, value.trim().to_string()))
    });
    Some(FrontMatter { lines: close + 1, date })
}

/// A line that can sit inside YAML front matter: blank, indented, a list item, a comment, or
/// `key:` followed by a space or the end of the line.
fn yaml_looking(line: &str) -> bool {
    if line.trim().is_empty() || line.starts_with([' ', '\t']) || line.starts_with("- ") || line.starts_with('#') {
        return true;
    }
    line.split_once(':').is_some_and(|(key, rest)| {
        !key.trim().is_empty()
            && !key.contains(char::is_whitespace)
            && (rest.is_empty() || rest.starts_with([' ', '\t']))
    })
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
    fn padded_fences_leading_blank_lines_and_no_date() {
        let lines = ["      ---", "title: x", "--- ", "body"];
        let fm = find(&lines).unwrap();
        assert_eq!((fm.lines, fm.date), (3, None));
        assert_eq!(find(&["---", "tags: a", "..."]).map(|f| f.lines), Some(3));
        // As in MiracleWong 08/2022-08-02.md: an empty first line; `date:` is then on line 4.
        let fm = find(&["", "---", "title: 2022-08-02", "date: 2022-08-02 08:08", "---", "", "> quote"]).unwrap();
        assert_eq!((fm.lines, fm.date), (5, Some((4, "2022-08-02 08:08".to_string()))));
    }

    #[test]
    fn not_front_matter() {
        assert_eq!(find(&["---", "no closing fence"]), None);
        assert_eq!(find(&["# title", "---", "x", "---"]), None);
        assert_eq!(find(&[]), None);
        // Prose between two thematic breaks is not YAML.
        assert_eq!(find(&["---", "Some prose here.", "---"]), None);
        // Indented `date:` belongs to a nested map, not the top level.
        assert_eq!(find(&["---", "meta:", "  date: 2020-01-01", "---"]).unwrap().date, None);
        assert_eq!(find(&["---", "date: soon", "---"]).unwrap().date_value(), None);
        assert_eq!(find(&["---", "tags:", "- a", "# comment", "url: http://x.y", "---"]).map(|f| f.lines), Some(6));
    }
}

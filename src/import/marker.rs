//! The source marker of an imported entry: `〔src:import:<escaped relative path>#<line>〕`
//! (docs/import.md, "Source").
//!
//! The marker parser (`crate::files::entry`) takes everything between `〔src:` and the LAST `#` as the
//! conversation key, and splits what follows at the first `/` into seq and msgId. So a path
//! may hold `/` (it sits before the last `#`, where `/` means nothing), but the characters
//! below are percent-encoded (`%` + two upper-case hex digits per UTF-8 byte):
//!
//! * `%` itself, so the encoding can be undone;
//! * `#`: a `#` in a file name would not break this parser (the last `#` is ours), but other
//!   readers of the plugin format may split at the first `#`;
//! * `〔` and `〕`: they delimit the marker (`Source::validate` refuses them);
//! * whitespace and control characters (spaces, tabs, line breaks): entry lines are one line,
//!   and a space inside a marker would be mistaken for the end of the text by readers that
//!   tokenise on spaces.
//!
//! Everything else, Chinese and other non-ASCII names included, stays as written, so
//! `〔src:import:journal/2022_03_02.md#5〕` reads like the path it is. (The `percent-encoding`
//! crate encodes every non-ASCII byte, which would turn `日记/2022年3月2日.md` into `%E6…`.)

use crate::files::entry::Source;

fn needs_escape(c: char) -> bool {
    matches!(c, '%' | '#' | '〔' | '〕') || c.is_whitespace() || c.is_control()
}

/// Percent-encodes the characters listed in the module docs.
pub fn escape_path(rel_path: &str) -> String {
    let mut out = String::with_capacity(rel_path.len());
    for c in rel_path.chars() {
        if needs_escape(c) {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Undoes [`escape_path`]: every `%XX` (hex) becomes its byte. `None` when the result is not
/// UTF-8 or a `%` is not followed by two hex digits.
pub fn unescape_path(escaped: &str) -> Option<String> {
    let bytes = escaped.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = escaped.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The conversation-key prefix of imported entries.
pub const CONV_PREFIX: &str = "import:";

/// The source of an entry imported from line `line` (1-based) of `rel_path`:
/// `conv = "import:" + escape_path(rel_path)`, `seq = line`, no msgId.
pub fn import_source(rel_path: &str, line: usize) -> Source {
    Source { conv: format!("{CONV_PREFIX}{}", escape_path(rel_path)), seq: line.to_string(), msg_id: None }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::entry::{LineKind, format_line, parse_line};

    #[test]
    fn plain_paths_stay_readable() {
        assert_eq!(escape_path("journal/2022_03_02.md"), "journal/2022_03_02.md");
        assert_eq!(escape_path("日记/2022年3月2日.md"), "日记/2022年3月2日.md");
        assert_eq!(import_source("03/2022-03-01.md", 8).marker(), "〔src:import:03/2022-03-01.md#8〕");
    }

    #[test]
    fn breaking_characters_are_encoded() {
        assert_eq!(escape_path("a b#c%d〔e〕\n\t"), "a%20b%23c%25d%E3%80%94e%E3%80%95%0A%09");
        assert_eq!(unescape_path("a%20b%23c%25d%E3%80%94e%E3%80%95%0A%09").as_deref(), Some("a b#c%d〔e〕\n\t"));
        assert_eq!(unescape_path("bad%2"), None);
        assert_eq!(unescape_path("bad%zz"), None);
    }

    #[test]
    fn markers_round_trip_through_the_entry_parser() {
        for path in [
            "notes/C# and F#/2022-01-01.md",
            "x/〔src:evil#1〕 2022-01-01.md",
            "100%/a b/2022-01-01.md",
            "a/b/2022-01-01.md",
        ] {
            let src = import_source(path, 12);
            src.validate().unwrap();
            let line = format_line(&crate::files::entry::Entry {
                ts: chrono::DateTime::parse_from_rfc3339("2022-01-01T00:00:00Z").unwrap().to_utc(),
                tag: "import".into(),
                content: "text".into(),
                source: Some(src.clone()),
            });
            let LineKind::Entry(e) = parse_line(&line) else { panic!("{line}") };
            assert_eq!(e.content, "text", "{line}");
            let back = e.source.unwrap();
            assert_eq!((back.seq.as_str(), back.msg_id), ("12", None), "{line}");
            let rel = back.conv.strip_prefix(CONV_PREFIX).and_then(unescape_path);
            assert_eq!(rel.as_deref(), Some(path), "{line}");
        }
    }
}

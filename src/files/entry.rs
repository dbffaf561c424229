//! One cold-layer entry line: parsing (tolerant) and formatting (strict).
//!
//! Format, per dsh-memory-layers v1.2.1 (docs/plugin-compatibility.md, "Data layout"):
//!
//! ```text
//! - [2026-10-21T03:10:00.000Z] [tag] text
//! - [2026-10-21T03:10:00.000Z] [tag] text 〔src:conv#seq〕
//! - [2026-10-21T03:10:00.000Z] [tag] text 〔src:conv#seq/msgId〕
//! ```
//!
//! The timestamp is the UTC write instant with millisecond precision; the tag is `-` when
//! absent; the optional source marker is not part of the content.
//!
//! ```
//! use memlayers::files::entry::{parse_line, LineKind};
//! let LineKind::Entry(e) = parse_line("- [2026-10-21T03:10:00.000Z] [翻唱] 录了一版 〔src:private:12#977〕")
//! else { panic!() };
//! assert_eq!(e.tag, "翻唱");
//! assert_eq!(e.content, "录了一版");
//! assert_eq!(e.source.unwrap().seq, "977");
//! ```

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

/// Where an entry came from: a conversation key, a sequence number and an optional message
/// id, written as `〔src:conv#seq〕` or `〔src:conv#seq/msgId〕` (dsh-memory-layers v1.2
/// `mem_write.source`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// Conversation (session) key, e.g. `private:1234567890`. May contain `#` and `:`.
    pub conv: String,
    /// Sequence number inside the conversation; kept as written (usually digits).
    #[serde(deserialize_with = "de_seq", serialize_with = "ser_seq")]
    pub seq: String,
    /// Optional message id.
    #[serde(rename = "msgId", skip_serializing_if = "Option::is_none", default)]
    pub msg_id: Option<String>,
}

fn de_seq<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match serde_json::Value::deserialize(d)? {
        serde_json::Value::String(s) => Ok(s),
        serde_json::Value::Number(n) => match n.as_u64() {
            Some(u) => Ok(u.to_string()),
            None => Err(serde::de::Error::custom(format!("seq must be a non-negative integer, got {n}"))),
        },
        other => Err(serde::de::Error::custom(format!("seq must be a number or string, got {other}"))),
    }
}

fn ser_seq<S: serde::Serializer>(seq: &str, s: S) -> Result<S::Ok, S::Error> {
    match seq.parse::<u64>() {
        Ok(n) if n.to_string() == seq => s.serialize_u64(n),
        _ => s.serialize_str(seq),
    }
}

impl Source {
    /// The marker text without the leading space: `〔src:conv#seq〕` or `〔src:conv#seq/msgId〕`.
    pub fn marker(&self) -> String {
        format!("〔src:{}〕", self.marker_body())
    }

    /// Parses a marker body `conv#seq` or `conv#seq/msgId` (the text between `〔src:` and
    /// `〕`): `conv` runs to the LAST `#`, `seq` to the first `/` after it. `None` when a part
    /// is missing.
    pub fn from_marker_body(inner: &str) -> Option<Source> {
        let hash = inner.rfind('#')?;
        let conv = &inner[..hash];
        let after = &inner[hash + 1..];
        let (seq, msg_id) = match after.find('/') {
            Some(p) => (&after[..p], Some(after[p + 1..].to_string())),
            None => (after, None),
        };
        if conv.is_empty() || seq.is_empty() {
            return None;
        }
        Some(Source { conv: conv.to_string(), seq: seq.to_string(), msg_id })
    }

    /// The marker body, `conv#seq` or `conv#seq/msgId`.
    pub fn marker_body(&self) -> String {
        match &self.msg_id {
            Some(m) => format!("{}#{}/{}", self.conv, self.seq, m),
            None => format!("{}#{}", self.conv, self.seq),
        }
    }

    /// Checks that the parts can be written into a marker and parsed back unchanged:
    /// no control characters (line breaks, NUL, escapes), no `〔`/`〕`, `seq` non-empty
    /// without spaces, `#` or `/`, `msgId` without `#` (a marker's conv runs to its LAST `#`,
    /// so a `#` in msgId would be read back as part of conv).
    /// Errors name the field (`source.conv`, `source.seq`, `source.msgId`).
    pub fn validate(&self) -> crate::Result<()> {
        let bad = |s: &str| s.contains(['〔', '〕']) || s.contains(char::is_control);
        if self.conv.is_empty() || bad(&self.conv) {
            return Err(crate::Error::bad(
                "source.conv",
                "must be non-empty, one line, without control characters, 〔 or 〕",
            ));
        }
        if self.seq.is_empty()
            || bad(&self.seq)
            || self.seq.contains(['#', '/'])
            || self.seq.contains(char::is_whitespace)
        {
            return Err(crate::Error::bad(
                "source.seq",
                "must be non-empty without spaces, control characters, '#', '/', 〔 or 〕",
            ));
        }
        if let Some(m) = &self.msg_id
            && (m.is_empty() || bad(m) || m.contains('#'))
        {
            return Err(crate::Error::bad(
                "source.msgId",
                "must be non-empty, one line, without control characters, '#', 〔 or 〕",
            ));
        }
        Ok(())
    }
}

/// A parsed entry line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Write instant (UTC).
    pub ts: DateTime<Utc>,
    /// Tag, `-` when the entry has none.
    pub tag: String,
    /// Text without the source marker.
    pub content: String,
    /// Parsed source marker, if the line carries one.
    pub source: Option<Source>,
}

/// What one line of a cold file is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineKind {
    /// A well-formed entry.
    Entry(Entry),
    /// A line that starts like an entry (`- [`) but cannot be read; the reason says why.
    Malformed(String),
    /// Anything else (headings, blank lines, notes): ignored, never an error.
    Other,
}

/// Formats an instant the way the plugin writes it: `2026-10-21T03:10:00.000Z`.
pub fn format_ts(ts: DateTime<Utc>) -> String {
    ts.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Formats an entry as one line, without the trailing newline.
pub fn format_line(e: &Entry) -> String {
    let mut s = format!("- [{}] [{}] {}", format_ts(e.ts), e.tag, e.content);
    if let Some(src) = &e.source {
        s.push(' ');
        s.push_str(&src.marker());
    }
    s
}

/// Parses one line (without its line terminator; a trailing `\r` and a leading BOM are
/// tolerated). Never fails: non-entry lines are [`LineKind::Other`], broken entry-looking
/// lines are [`LineKind::Malformed`] with a reason.
pub fn parse_line(line: &str) -> LineKind {
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    let line = line.strip_suffix('\r').unwrap_or(line);
    let Some(rest) = line.strip_prefix("- [") else {
        return LineKind::Other;
    };
    let Some(close) = rest.find(']') else {
        return LineKind::Malformed("timestamp bracket not closed".into());
    };
    let ts_text = &rest[..close];
    let ts = match DateTime::parse_from_rfc3339(ts_text.trim()) {
        Ok(t) => t.with_timezone(&Utc),
        Err(_) => {
            // `- [ ] todo` and `- [x] done` are Markdown task items, not entries.
            if ts_text.chars().count() <= 1 {
                return LineKind::Other;
            }
            return LineKind::Malformed(format!("bad timestamp {ts_text:?}"));
        }
    };
    let rest = &rest[close + 1..];
    let Some(rest) = rest.strip_prefix(" [") else {
        return LineKind::Malformed("missing ' [tag]' after the timestamp".into());
    };
    let Some(close) = rest.find(']') else {
        return LineKind::Malformed("tag bracket not closed".into());
    };
    let tag = rest[..close].trim();
    let tag = if tag.is_empty() { "-".to_string() } else { tag.to_string() };
    let body = &rest[close + 1..];
    let body = body.strip_prefix(' ').unwrap_or(body);
    let (content, source) = split_source(body);
    LineKind::Entry(Entry { ts, tag, content: content.to_string(), source })
}

/// For a line [`parse_line`] reads as [`LineKind::Other`]: why it looks like an entry that
/// will not be read, or `None`: near misses of the entry format — another bullet (`* [ts]`,
/// `+ [ts]`), extra or missing spaces (`-  [ts]`, `-[ts]`), indentation by spaces or tabs —
/// when what follows the bullet is a bracketed RFC 3339 timestamp.
///
/// A top-level `- ` bullet without a timestamp (`- 买了乌龙茶`) is not a near miss: it is read
/// as a memory whose time is unknown ([`undated_bullet`]). Headings, prose and blank lines are
/// not near misses either ([`is_prose`] tells prose apart).
pub fn near_miss(line: &str) -> Option<String> {
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    let line = line.strip_suffix('\r').unwrap_or(line);
    let body = line.trim_start_matches([' ', '\t']);
    let indent = &line[..line.len() - body.len()];
    let mut chars = body.chars();
    let bullet = chars.next()?;
    if !matches!(bullet, '-' | '*' | '+') {
        return None;
    }
    let after = chars.as_str();
    let gap = &after[..after.len() - after.trim_start_matches([' ', '\t']).len()];
    let rest = &after[gap.len()..];
    if let Some(inner) = rest.strip_prefix('[')
        && let Some(close) = inner.find(']')
        && DateTime::parse_from_rfc3339(inner[..close].trim()).is_ok()
    {
        let what = if !indent.is_empty() {
            "indented"
        } else if bullet != '-' {
            "bullet is not '-'"
        } else {
            "not exactly one space after '-'"
        };
        return Some(format!(
            "near miss of an entry line ({what}); entries start with \"- [\" at the start of the line"
        ));
    }
    None
}

/// The text of a hand-written bullet without a timestamp — a top-level `- ` list item such as
/// `- 买了新的跑鞋` → `买了新的跑鞋` (trimmed) — which the index reads as a memory of its file's
/// local day whose time is unknown ([`crate::index::sync::mirror_file`]). `None` for entry lines
/// (`- [timestamp] [tag] text`, [`parse_line`]), entry-looking lines that cannot be read
/// ([`LineKind::Malformed`]), Markdown task items (`- [ ]`, `- [x]`), indented (nested) items,
/// other bullets (`*`, `+`), an empty `- ` and any text that is not a list item.
pub fn undated_bullet(line: &str) -> Option<&str> {
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    let line = line.strip_suffix('\r').unwrap_or(line);
    let rest = line.strip_prefix("- ")?;
    let task = rest.starts_with("[ ]") || rest.starts_with("[x]") || rest.starts_with("[X]");
    let text = rest.trim();
    if text.is_empty() || task || rest.starts_with([' ', '\t']) || !matches!(parse_line(line), LineKind::Other) {
        return None;
    }
    Some(text)
}

/// True for text a day file holds that is neither a list item nor markup a note keeps around
/// entries: not blank, not a heading (`#`), not a thematic break or front-matter fence
/// (`---`), not a list item of any bullet or indentation (`-`, `*`, `+`, `1.`), not a quote
/// (`>`). `check` reports such lines (kept as they are, not indexed: `CheckReport::prose`), so
/// prose typed into a day file is not silently unsearchable.
pub fn is_prose(line: &str) -> bool {
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    let t = line.trim();
    if t.is_empty() || t.starts_with(['#', '>', '|']) || t.chars().all(|c| matches!(c, '-' | '=' | '*' | '_')) {
        return false;
    }
    let list = t.starts_with(['-', '*', '+'])
        || t.split_once(['.', ')']).is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    !list && !matches!(parse_line(line), LineKind::Entry(_) | LineKind::Malformed(_))
}

/// Splits a trailing ` 〔src:conv#seq[/msgId]〕` marker off an entry body.
fn split_source(body: &str) -> (&str, Option<Source>) {
    let trimmed = body.trim_end();
    if !trimmed.ends_with('〕') {
        return (body, None);
    }
    let Some(open) = trimmed.rfind("〔src:") else {
        return (body, None);
    };
    let inner = &trimmed[open + "〔src:".len()..trimmed.len() - '〕'.len_utf8()];
    let Some(src) = Source::from_marker_body(inner) else {
        return (body, None);
    };
    let content = trimmed[..open].strip_suffix(' ').unwrap_or(&trimmed[..open]);
    (content, Some(src))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_are_named() {
        let ts = "[2026-10-21T04:00:00.000Z] [t] x";
        for l in [format!("* {ts}"), format!("-  {ts}"), format!(" - {ts}"), format!("-{ts}"), format!("\t- {ts}")] {
            assert!(matches!(parse_line(&l), LineKind::Other), "{l:?}");
            assert!(near_miss(&l).is_some_and(|r| r.contains("near miss")), "{l:?}");
        }
        assert_eq!(near_miss("- 买了乌龙茶"), None);
        for l in ["# 2026-10-21", "随手记", "", "- [ ] todo", "- [x] done", "-", "- ", "  - nested note", "---"] {
            assert_eq!(near_miss(l), None, "{l:?}");
        }
    }

    /// Which lines are hand-written bullets (a memory of unknown time) and which are prose:
    /// every case chosen by reading the rule, not the code.
    #[test]
    fn undated_bullets_and_prose() {
        assert_eq!(undated_bullet("- 买了新的跑鞋"), Some("买了新的跑鞋"));
        assert_eq!(undated_bullet("\u{feff}- bought milk  \r"), Some("bought milk"));
        for l in [
            "- [2026-10-21T03:10:00.000Z] [t] x", // an entry
            "- [笔记] 内容",                      // entry-looking, malformed
            "- [ ] todo",
            "- [x] done",
            "-  two spaces",
            "  - nested",
            "* star",
            "- ",
            "-",
            "随手记",
            "# 2026-10-21",
        ] {
            assert_eq!(undated_bullet(l), None, "{l:?}");
        }
        for l in ["随手记：今天下雨", "just a note"] {
            assert!(is_prose(l), "{l:?}");
        }
        for l in [
            "",
            "  ",
            "# 2026-10-21",
            "---",
            "- 买了",
            "* x",
            "1. first",
            "> quote",
            "- [2026-10-21T03:10:00.000Z] [t] x",
        ] {
            assert!(!is_prose(l), "{l:?}");
        }
    }

    fn entry(line: &str) -> Entry {
        match parse_line(line) {
            LineKind::Entry(e) => e,
            other => panic!("{line:?} → {other:?}"),
        }
    }

    #[test]
    fn round_trips_plugin_lines() {
        for line in [
            "- [2026-10-21T03:10:00.000Z] [tag] 正文",
            "- [2026-10-21T03:10:00.000Z] [tag] 正文 〔src:private:1234567890#977〕",
            "- [2026-10-21T03:10:00.000Z] [-] 正文 〔src:a#b#3/msg-9〕",
            "- [2026-10-21T03:10:00.000Z] [my tag] text with [brackets] inside",
        ] {
            assert_eq!(format_line(&entry(line)), line);
        }
    }

    #[test]
    fn source_marker_fields() {
        let e = entry("- [2026-10-21T03:10:00.000Z] [-] x 〔src:a#b#3/msg-9〕");
        assert_eq!(e.content, "x");
        assert_eq!(e.source, Some(Source { conv: "a#b".into(), seq: "3".into(), msg_id: Some("msg-9".into()) }));
    }

    #[test]
    fn tolerant_reading() {
        assert_eq!(entry("\u{feff}- [2026-10-21T03:10:00.000Z] [] hi\r").tag, "-");
        assert_eq!(parse_line("# 2026-10-21"), LineKind::Other);
        assert_eq!(parse_line("- [ ] todo"), LineKind::Other);
        assert_eq!(parse_line(""), LineKind::Other);
        assert!(matches!(parse_line("- [2026-13-45T00:00:00Z] [x] y"), LineKind::Malformed(_)));
        assert!(matches!(parse_line("- [2026-10-21T03:10:00.000Z] no tag"), LineKind::Malformed(_)));
    }

    #[test]
    fn seq_serialises_as_number_when_numeric() {
        let s = Source { conv: "c".into(), seq: "12".into(), msg_id: None };
        assert_eq!(serde_json::to_string(&s).unwrap(), r#"{"conv":"c","seq":12}"#);
        let back: Source = serde_json::from_str(r#"{"conv":"c","seq":12,"msgId":"m"}"#).unwrap();
        assert_eq!(back.msg_id.as_deref(), Some("m"));
        for bad in [r#"{"conv":"c","seq":-5}"#, r#"{"conv":"c","seq":1.5}"#, r#"{"conv":"c","seq":1e30}"#] {
            assert!(serde_json::from_str::<Source>(bad).is_err(), "{bad}");
        }
        let nul = Source { conv: "a\u{0}b".into(), seq: "1".into(), msg_id: None };
        assert!(matches!(nul.validate(), Err(crate::Error::BadInput { field, .. }) if field == "source.conv"));
        let ctl = Source { conv: "a".into(), seq: "1".into(), msg_id: Some("m\u{1}".into()) };
        assert!(matches!(ctl.validate(), Err(crate::Error::BadInput { field, .. }) if field == "source.msgId"));
    }
}

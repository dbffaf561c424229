//! The Markdown splitter: a day file's lines → blocks (one per future entry) with the heading
//! context each block sits under (docs/import.md, "Entries"). Line-based, so line numbers
//! and daily-note habits (Logseq outlines, tabs, properties, drawers, bullets used as
//! headings) are handled exactly as the module docs of `crate::import` describe; block
//! boundaries follow CommonMark where it matters for daily notes (lazy continuation lines,
//! lists interrupting paragraphs, setext headings, fenced code).

use std::sync::LazyLock;

use regex::Regex;

use super::clock::{WrittenTime, leading_time};
use super::filename::is_only_a_date;
use super::text::{clean_tag, unwikilink};

/// One future entry: the text pieces of a top-level list item (children included), a
/// paragraph, a block quote or a fenced code block.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// 1-based line where the block starts.
    pub line: usize,
    /// The block's lines with markers and indentation removed, in order; joined with spaces.
    pub parts: Vec<String>,
    /// Tag given by the nearest heading above (already cleaned), if any.
    pub heading_tag: Option<String>,
    /// Time given by the nearest heading above that has one, with that heading's id (entries
    /// under one timed heading count up from its time).
    pub heading_time: Option<(usize, WrittenTime)>,
}

/// What [`parse`] returns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    /// Blocks in file order (possibly empty ones: the caller drops empty text).
    pub blocks: Vec<Block>,
    /// `(line, message)` notes for the report.
    pub warnings: Vec<(usize, String)>,
}

static ATX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(#{1,6})(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*$").expect("valid regex"));
static THEMATIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,}|(?i:<hr[ \t]*/?>))$").expect("valid regex")
});
static SETEXT: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^(?:={3,}|-{3,})[ \t]*$").expect("valid regex"));
static PROPERTY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:[-*+][ \t]+)?[A-Za-z][A-Za-z0-9_.\-]*::(?:[ \t].*)?$").expect("valid regex"));

/// Indentation width (a tab advances to the next multiple of 4, so one tab is one indent level
/// whatever the spaces around it) and the rest of the line.
fn indent_of(line: &str) -> (usize, &str) {
    let mut width = 0;
    for (i, c) in line.char_indices() {
        match c {
            ' ' => width += 1,
            '\t' => width = (width / 4 + 1) * 4,
            _ => return (width, &line[i..]),
        }
    }
    (width, "")
}

/// The content after a list marker (`-`, `*`, `+`, `1.`, `1)` followed by a space, a tab or the
/// end of the line), or `None` when the line is not a list item.
fn list_content(s: &str) -> Option<&str> {
    let bytes = s.as_bytes();
    let marker_len = match bytes.first()? {
        b'-' | b'*' | b'+' => 1,
        b'0'..=b'9' => {
            let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 9 || !matches!(bytes.get(digits), Some(b'.') | Some(b')')) {
                return None;
            }
            digits + 1
        }
        _ => return None,
    };
    match bytes.get(marker_len) {
        None => Some(""),
        Some(b' ') | Some(b'\t') => Some(s[marker_len..].trim_start()),
        _ => None,
    }
}

/// `(level, text)` of an ATX heading (`## Title`, `## Title ##`, a lone `#`).
fn atx(s: &str) -> Option<(usize, &str)> {
    let c = ATX.captures(s)?;
    Some((c[1].len(), c.get(2).map_or("", |m| m.as_str().trim())))
}

/// `(char, length)` of a code fence opener (three or more backticks or tildes).
fn fence_open(s: &str) -> Option<(char, usize)> {
    let c = s.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = s.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
}

fn fence_closes(s: &str, fence: (char, usize)) -> bool {
    let t = s.trim();
    t.chars().count() >= fence.1 && t.chars().all(|c| c == fence.0)
}

fn strip_quote(s: &str) -> &str {
    let mut t = s.trim_start();
    while let Some(rest) = t.strip_prefix('>') {
        t = rest.trim_start();
    }
    t
}

/// Git's conflict marker lines: `<<<<<<< x`, `|||||||`, `=======`, `>>>>>>> x` at column 0.
fn is_conflict_marker(line: &str) -> bool {
    let l = line.trim_end();
    l == "=======" || ["<<<<<<<", "|||||||", ">>>>>>>"].iter().any(|m| l == *m || l.starts_with(&format!("{m} ")))
}

/// A line folded into an open list item: quote marks, a list marker and heading marks removed.
fn fold_child(s: &str) -> &str {
    let t = strip_quote(s);
    let t = list_content(t).unwrap_or(t);
    atx(t).map_or(t, |(_, text)| text).trim()
}

/// Tag and time a heading gives: a time at its start is the time (and is not part of the tag);
/// the rest, without trailing colons (`## 我的学习：` → `我的学习`), unless it is only a date
/// (`# 2021-08-01`), is the tag.
fn heading_meaning(text: &str) -> (Option<String>, Option<WrittenTime>) {
    let t = unwikilink(text);
    let t = t.trim();
    let time = leading_time(t);
    let rest = match time {
        Some(w) => t[w.len..].trim_start_matches(|c: char| c.is_whitespace() || "-–—:：|·,，".contains(c)),
        None => t,
    };
    let rest = rest.trim_end_matches(|c: char| c == ':' || c == '：' || c.is_whitespace());
    let tag = if is_only_a_date(rest) { None } else { clean_tag(rest) };
    (tag, time)
}

#[derive(Debug, PartialEq)]
enum Kind {
    Item { indent: usize },
    Para,
    Quote,
    Fence,
}

struct Open {
    kind: Kind,
    block: Block,
    blank_seen: bool,
    fence: Option<(char, usize)>,
}

struct Heading {
    level: usize,
    tag: Option<String>,
    time: Option<WrittenTime>,
    id: usize,
}

#[derive(Default)]
struct State {
    out: Parsed,
    cur: Option<Open>,
    headings: Vec<Heading>,
    next_heading_id: usize,
}

impl State {
    fn close(&mut self) {
        if let Some(open) = self.cur.take() {
            self.out.blocks.push(open.block);
        }
    }

    fn open(&mut self, kind: Kind, line: usize, first: &str) {
        self.close();
        let heading_tag = self.headings.iter().rev().find_map(|h| h.tag.clone());
        let heading_time = self.headings.iter().rev().find_map(|h| h.time.map(|t| (h.id, t)));
        let fence = fence_open(first);
        let block = Block { line, parts: vec![first.to_string()], heading_tag, heading_time };
        self.cur = Some(Open { kind, block, blank_seen: false, fence });
    }

    fn push(&mut self, text: &str) {
        if let Some(open) = self.cur.as_mut() {
            if open.fence.is_none() {
                open.fence = fence_open(text);
            }
            open.block.parts.push(text.to_string());
        }
    }

    fn heading(&mut self, level: usize, text: &str) {
        self.close();
        while self.headings.last().is_some_and(|h| h.level >= level) {
            self.headings.pop();
        }
        let (tag, time) = heading_meaning(text);
        self.next_heading_id += 1;
        self.headings.push(Heading { level, tag, time, id: self.next_heading_id });
    }
}

/// Splits `lines[start..]` (front matter already skipped; line numbers stay those of the file)
/// into blocks. Rules, in the order they are tried on each line:
///
/// 1. inside a code fence: the line belongs to the fenced block (trimmed), until the closing
///    fence;
/// 2. `:LOGBOOK:` … `:END:` drawers are dropped (blank and `CLOCK:` lines inside too; any other
///    line ends an unclosed drawer, with a warning);
/// 3. git conflict marker lines are dropped and end the open block (both sides are kept, one
///    warning per file);
/// 4. Logseq property lines `key:: value` (optionally as a bullet) are dropped;
/// 5. a blank line ends a paragraph or quote; a list item stays open for indented lines;
/// 6. a line indented deeper than the open top-level item is one of its children: folded in,
///    with its quote marks, list marker and heading marks removed;
/// 7. `===`/`---` (three or more) under a paragraph turns it into a heading (setext);
/// 8. a thematic break (`---`, `***`, `___`, `<hr>`) ends the open block;
/// 9. an ATX heading (`#`…`######`), or a list item whose text is one (`- ### X`), is a
///    heading: it ends the open block and gives tag and time to what follows, until the next
///    heading of the same or a higher level;
/// 10. a list item starts a new top-level item (any marker, interrupting a paragraph);
/// 11. `>` lines form one block quote (the `>` removed);
/// 12. a fence opener starts a fenced block;
/// 13. any other line continues the open paragraph, quote or item (CommonMark's lazy
///     continuation, unless a blank line came before it under an item or the item is still
///     empty, like a lone `-`), or starts a paragraph.
///
/// Indentation outside list items means nothing (no indented code blocks: daily notes indent
/// for outlines, not for code).
pub fn parse(lines: &[&str], start: usize) -> Parsed {
    let mut st = State::default();
    let mut drawer: Option<usize> = None;
    let mut conflict_warned = false;
    for (idx, raw) in lines.iter().enumerate().skip(start) {
        let lno = idx + 1;
        if let Some(open) = st.cur.as_mut()
            && let Some(fence) = open.fence
        {
            open.block.parts.push(raw.trim().to_string());
            if fence_closes(raw, fence) {
                open.fence = None;
                if open.kind == Kind::Fence {
                    st.close();
                }
            }
            continue;
        }
        let (indent, rest) = indent_of(raw);
        let t = rest.trim_end();
        if let Some(opened) = drawer {
            if t == ":END:" {
                drawer = None;
                continue;
            }
            if t.is_empty() || t.starts_with("CLOCK:") {
                continue;
            }
            drawer = None;
            st.out.warnings.push((opened, format!(":LOGBOOK: drawer not closed by :END: (ended at line {lno})")));
        }
        if t == ":LOGBOOK:" {
            drawer = Some(lno);
            continue;
        }
        if is_conflict_marker(raw) {
            st.close();
            if !conflict_warned {
                conflict_warned = true;
                st.out.warnings.push((
                    lno,
                    "unresolved git conflict markers (<<<<<<< ======= >>>>>>>): marker lines dropped, both sides imported"
                        .into(),
                ));
            }
            continue;
        }
        if PROPERTY.is_match(t) {
            continue;
        }
        if t.is_empty() {
            if let Some(item) = st.cur.as_mut().filter(|o| matches!(o.kind, Kind::Item { .. })) {
                item.blank_seen = true;
            } else {
                st.close();
            }
            continue;
        }
        if let Some(Open { kind: Kind::Item { indent: base }, .. }) = &st.cur
            && indent > *base
        {
            st.push(fold_child(t));
            continue;
        }
        if matches!(st.cur, Some(Open { kind: Kind::Para, .. })) && SETEXT.is_match(t) {
            let para = st.cur.take().map(|o| o.block.parts.join(" ")).unwrap_or_default();
            st.heading(if t.starts_with('=') { 1 } else { 2 }, &para);
            continue;
        }
        if THEMATIC.is_match(t) {
            st.close();
            continue;
        }
        if let Some((level, text)) = atx(t) {
            st.heading(level, text);
            continue;
        }
        if let Some(content) = list_content(t) {
            match atx(content) {
                Some((level, text)) => st.heading(level, text),
                None => st.open(Kind::Item { indent }, lno, content),
            }
            continue;
        }
        if t.starts_with('>') {
            let q = strip_quote(t);
            if matches!(st.cur, Some(Open { kind: Kind::Quote, .. })) {
                st.push(q);
            } else {
                st.open(Kind::Quote, lno, q);
            }
            continue;
        }
        if fence_open(t).is_some() {
            st.open(Kind::Fence, lno, t);
            continue;
        }
        match &st.cur {
            // Lazy continuation needs text to continue: an empty item (`-`) has none, so the
            // line starts a paragraph, as in CommonMark.
            Some(Open { kind: Kind::Item { .. }, blank_seen: false, block, .. })
                if block.parts.iter().any(|p| !p.is_empty()) =>
            {
                st.push(t)
            }
            Some(Open { kind: Kind::Para | Kind::Quote, .. }) => st.push(t),
            _ => st.open(Kind::Para, lno, t),
        }
    }
    if let Some(opened) = drawer {
        st.out.warnings.push((opened, ":LOGBOOK: drawer not closed by :END: (ran to the end of the file)".into()));
    }
    st.close();
    st.out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(text: &str) -> Vec<(usize, String, Option<String>)> {
        let lines: Vec<&str> = text.lines().collect();
        parse(&lines, 0).blocks.into_iter().map(|b| (b.line, b.parts.join(" "), b.heading_tag)).collect()
    }

    fn s(x: &str) -> Option<String> {
        Some(x.to_string())
    }

    #[test]
    fn items_fold_their_children() {
        let text = "- a\n\t- b\n\t\t- c\n  - d\n- e\n";
        assert_eq!(blocks(text), vec![(1, "a b c d".into(), None), (5, "e".into(), None)]);
    }

    #[test]
    fn numbered_and_star_and_plus_items() {
        let text = "1. one\n2) two\n* three\n+ four\n10. ten\n";
        let got: Vec<String> = blocks(text).into_iter().map(|b| b.1).collect();
        assert_eq!(got, vec!["one", "two", "three", "four", "ten"]);
    }

    #[test]
    fn paragraphs_and_headings() {
        let text = "# Day\n\nFirst para\nsame para.\n\nSecond.\n## Sub [[x]]\n- item\n# Other\ntext\n";
        assert_eq!(
            blocks(text),
            vec![
                (3, "First para same para.".into(), s("Day")),
                (6, "Second.".into(), s("Day")),
                (8, "item".into(), s("Sub x")),
                (10, "text".into(), s("Other")),
            ]
        );
    }

    #[test]
    fn bullets_as_headings() {
        let text = "### Tesla\n- a #TSLA\n-\n- ### Tech Industry\n- b\n";
        assert_eq!(
            blocks(text),
            vec![(2, "a #TSLA".into(), s("Tesla")), (3, "".into(), s("Tesla")), (5, "b".into(), s("Tech Industry"))]
        );
        // A heading bullet's children become entries of their own.
        let text = "- ## Work\n\t- x\n\t\t- y\n\t- z\n";
        assert_eq!(blocks(text), vec![(2, "x y".into(), s("Work")), (4, "z".into(), s("Work"))]);
    }

    #[test]
    fn date_and_time_headings_give_no_tag() {
        assert_eq!(blocks("# 2021-08-01\n- a\n"), vec![(2, "a".into(), None)]);
        assert_eq!(blocks("## 我的学习：\n- a\n"), vec![(2, "a".into(), s("我的学习"))]);
        let lines = ["# Log", "## 12:00", "- lunch", "## 18:30 - Dinner", "- soup"];
        let p = parse(&lines, 0);
        let b: Vec<_> =
            p.blocks.iter().map(|b| (b.heading_tag.clone(), b.heading_time.map(|t| t.1.time.to_string()))).collect();
        assert_eq!(b, vec![(s("Log"), s("12:00:00")), (s("Dinner"), s("18:30:00"))]);
    }

    #[test]
    fn lazy_continuation_and_blank_lines() {
        // Unindented text right under an item continues it (CommonMark lazy continuation);
        // after a blank line it is a paragraph of its own.
        let text = "2. first\nhttps://a.b more\n3. second\n\nafter blank\n";
        assert_eq!(
            blocks(text),
            vec![
                (1, "first https://a.b more".into(), None),
                (3, "second".into(), None),
                (5, "after blank".into(), None)
            ]
        );
        // An empty item has no text to continue: the line is a paragraph.
        assert_eq!(blocks("-\n-OOOO|||\n"), vec![(1, "".into(), None), (2, "-OOOO|||".into(), None)]);
        // Indented lines after a blank line still belong to the item.
        assert_eq!(blocks("- a\n\n  more\n- b\n"), vec![(1, "a more".into(), None), (4, "b".into(), None)]);
    }

    #[test]
    fn quotes_and_fences() {
        let text = "lead:\n> q1\n> 1. q2\n\n```\ncode # not a heading\n\n```\nafter\n";
        assert_eq!(
            blocks(text),
            vec![
                (1, "lead:".into(), None),
                (2, "q1 1. q2".into(), None),
                (5, "``` code # not a heading  ```".into(), None),
                (9, "after".into(), None),
            ]
        );
    }

    #[test]
    fn logseq_noise_is_dropped() {
        let text = "- DONE task\n\t  :LOGBOOK:\n\t  CLOCK: [2022-03-02 Wed 08:06:46]\n\t  :END:\n\t  collapsed:: true\n- {{query x}}\n  query-table:: false\nid:: 6206abd1\n";
        assert_eq!(blocks(text), vec![(1, "DONE task".into(), None), (6, "{{query x}}".into(), None)]);
        let p = parse(&["- a", "  :LOGBOOK:", "  CLOCK: x", "- b"], 0);
        assert_eq!(p.warnings, vec![(2, ":LOGBOOK: drawer not closed by :END: (ended at line 4)".to_string())]);
        assert_eq!(p.blocks.len(), 2);
    }

    #[test]
    fn separators_setext_and_conflicts() {
        let text = "Title\n===\n- a\n---\n<hr />\nTopic\n---\n- b\n<<<<<<< HEAD\n- c\n=======\n- d\n>>>>>>> 3c51dca\n";
        let p = parse(&text.lines().collect::<Vec<_>>(), 0);
        let got: Vec<_> = p.blocks.iter().map(|b| (b.line, b.parts.join(" "), b.heading_tag.clone())).collect();
        assert_eq!(
            got,
            vec![
                (3, "a".into(), s("Title")),
                (8, "b".into(), s("Topic")),
                (10, "c".into(), s("Topic")),
                (12, "d".into(), s("Topic"))
            ]
        );
        assert_eq!(p.warnings.len(), 1);
        assert_eq!(p.warnings[0].0, 9);
    }

    #[test]
    fn start_skips_front_matter_lines_but_keeps_numbering() {
        let lines = ["---", "date: x", "---", "", "body"];
        assert_eq!(parse(&lines, 3).blocks.iter().map(|b| b.line).collect::<Vec<_>>(), vec![5]);
    }

    #[test]
    fn not_list_markers() {
        assert_eq!(list_content("-OOOO"), None);
        assert_eq!(list_content("**bold**"), None);
        assert_eq!(list_content("2022. year"), Some("year"));
        assert_eq!(list_content("1234567890. x"), None);
        assert_eq!(list_content("-"), Some(""));
        assert_eq!(indent_of("  \tx"), (4, "x"));
        assert_eq!(indent_of("\t  x"), (6, "x"));
    }
}

//! The hot layer (`hot.md`): body, candidates block and topics block. Pure: text in, text
//! out; no file I/O, no clock.
//!
//! File layout, per dsh-memory-layers v1.2.1 (docs/plugin-compatibility.md, "Data layout"), as
//! [`format()`] writes it:
//!
//! ```text
//! <body, trailing whitespace trimmed>
//!
//! <!-- candidates:start -->
//! - [2026-10-21T03:10:00.000Z] [计划] 周末想去看海
//! <!-- candidates:end -->
//!
//! <!-- topics:start -->
//! 翻唱|2026-10
//! <!-- topics:end -->
//! ```
//!
//! Inferred layout (the seed shows the blocks, not the bytes): LF line ends; the body, one
//! blank line, the candidates block, one blank line, the topics block, a final newline. Both
//! blocks are always written, empty ones as the start marker directly followed by the end
//! marker ("hot.md 里固定保留两个区"). With an empty body the file starts at the candidates
//! marker. Inside the candidates block: one entry line per candidate (the cold line format,
//! [`crate::files::entry::format_line`]); inside the topics block: one `topic|YYYY-MM` line each.
//!
//! Reading ([`parse`]) is tolerant and never loses text: CRLF and a BOM are accepted; marker
//! lines are recognised with any spacing and case (`<!--Candidates:Start-->`); a block that is
//! never closed runs to the next start marker or the end of the file; a second block of the
//! same kind is merged into the first; stray end markers are dropped; body text after the
//! blocks is moved before them; block lines that cannot be read (not an entry line, not a
//! `topic|YYYY-MM` line) are kept verbatim at the end of their block and not counted. Each
//! of these repairs adds a warning.
//!
//! Sub-modules: [`evict`] (auto-evict when over the limit), [`prune`] (candidate TTL and
//! overflow), [`set`] (`mem_hot_set`).

pub mod ops;

pub mod evict;
pub mod prune;
pub mod set;

use std::sync::LazyLock;

use chrono::{DateTime, Duration, Utc};
use regex::Regex;
use serde::Serialize;

use crate::files::entry::{Entry, LineKind, Source, format_line, format_ts, parse_line};
use crate::layers::usage::{Ledger, Record};
use crate::{Config, Error, Result};

pub use prune::Pruned;

/// Start marker of the candidates block.
pub const CANDIDATES_START: &str = "<!-- candidates:start -->";
/// End marker of the candidates block.
pub const CANDIDATES_END: &str = "<!-- candidates:end -->";
/// Start marker of the topics block.
pub const TOPICS_START: &str = "<!-- topics:start -->";
/// End marker of the topics block.
pub const TOPICS_END: &str = "<!-- topics:end -->";

/// One topics-index line `topic|YYYY-MM` (docs/plugin-compatibility.md, "Data layout").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Topic {
    /// The topic (usually a tag); non-empty, one line, without `|`.
    pub topic: String,
    /// The month, `YYYY-MM`.
    pub month: String,
}

impl Topic {
    /// Builds a topic after checking it: `topic` trimmed, non-empty, without `|` or line
    /// breaks (error field `topic`); `month` a real `YYYY-MM` (error field `month`).
    pub fn new(topic: &str, month: &str) -> Result<Topic> {
        let topic = topic.trim();
        if topic.is_empty() || topic.contains(['|', '\n', '\r']) || topic.contains("<!--") {
            return Err(Error::bad("topic", format!("{topic:?} must be non-empty, one line, without '|' or '<!--'")));
        }
        let month = month.trim();
        if !MONTH.is_match(month) {
            return Err(Error::bad("month", format!("{month:?} is not YYYY-MM")));
        }
        Ok(Topic { topic: topic.to_string(), month: month.to_string() })
    }

    /// The index line, `topic|YYYY-MM`.
    pub fn line(&self) -> String {
        format!("{}|{}", self.topic, self.month)
    }
}

static MONTH: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\d{4}-(0[1-9]|1[0-2])$").unwrap());
static MARKER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^\s*<!--\s*(candidates|topics)\s*:\s*(start|end)\s*-->\s*$").unwrap());

/// The parsed hot.md.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HotDoc {
    /// The body: everything outside the two blocks. LF line ends, leading blank lines and
    /// trailing whitespace removed. Only this counts toward `hotLimit`.
    pub body: String,
    /// The candidates, in file order.
    pub candidates: Vec<Entry>,
    /// Lines of the candidates block that are not entry lines, kept verbatim (not counted).
    pub candidate_extras: Vec<String>,
    /// The topics index, in file order, without duplicates.
    pub topics: Vec<Topic>,
    /// Lines of the topics block that are not `topic|YYYY-MM`, kept verbatim (ignored).
    pub topic_extras: Vec<String>,
    /// True when the text had a candidates start marker (used by `mem_hot_set`: content with
    /// its own block replaces the candidates).
    pub has_candidates_block: bool,
    /// True when the text had a topics start marker.
    pub has_topics_block: bool,
    /// What [`parse`] had to repair, in words.
    pub warnings: Vec<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Block {
    Candidates,
    Topics,
}

impl Block {
    fn name(self) -> &'static str {
        match self {
            Block::Candidates => "candidates",
            Block::Topics => "topics",
        }
    }
}

/// Parses hot.md text (tolerant; see the module docs). Never fails.
pub fn parse(text: &str) -> HotDoc {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut doc = HotDoc::default();
    let mut segments: Vec<Vec<&str>> = vec![Vec::new()];
    let mut state: Option<Block> = None;
    let mut seen_block = false;
    let mut body_after_block = false;
    for (n, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let lineno = n + 1;
        if let Some(c) = MARKER.captures(line) {
            let kind = if c[1].eq_ignore_ascii_case("candidates") { Block::Candidates } else { Block::Topics };
            let start = c[2].eq_ignore_ascii_case("start");
            match (start, state) {
                (true, Some(open)) if open == kind => {
                    doc.warnings.push(format!("line {lineno}: repeated {} start marker ignored", kind.name()));
                }
                (true, open) => {
                    if let Some(open) = open {
                        doc.warnings.push(format!(
                            "line {lineno}: {} block not closed before the {} block; closed here",
                            open.name(),
                            kind.name()
                        ));
                    }
                    let seen = match kind {
                        Block::Candidates => &mut doc.has_candidates_block,
                        Block::Topics => &mut doc.has_topics_block,
                    };
                    if *seen {
                        doc.warnings.push(format!("line {lineno}: second {} block merged into the first", kind.name()));
                    }
                    *seen = true;
                    seen_block = true;
                    state = Some(kind);
                    segments.push(Vec::new());
                }
                (false, Some(open)) if open == kind => state = None,
                (false, _) => doc.warnings.push(format!("line {lineno}: stray {} end marker dropped", kind.name())),
            }
            continue;
        }
        match state {
            None => {
                if seen_block && !line.trim().is_empty() {
                    body_after_block = true;
                }
                segments.last_mut().expect("segments is never empty").push(line);
            }
            Some(Block::Candidates) => read_candidate_line(&mut doc, line, lineno),
            Some(Block::Topics) => read_topic_line(&mut doc, line, lineno),
        }
    }
    if let Some(open) = state {
        doc.warnings.push(format!("{} block not closed; read to the end of the file", open.name()));
    }
    if body_after_block {
        doc.warnings.push("body text after the reserved blocks moved before them".into());
    }
    let parts: Vec<String> = segments.iter().map(|s| normalize_body(&s.join("\n"))).filter(|s| !s.is_empty()).collect();
    doc.body = parts.join("\n\n");
    doc
}

fn read_candidate_line(doc: &mut HotDoc, line: &str, lineno: usize) {
    let t = line.trim();
    if t.is_empty() {
        return;
    }
    match parse_line(t) {
        LineKind::Entry(e) => {
            if doc.candidates.iter().any(|c| format_line(c) == format_line(&e)) {
                doc.warnings.push(format!("line {lineno}: duplicate candidate dropped"));
            } else {
                doc.candidates.push(e);
            }
        }
        LineKind::Malformed(why) => {
            doc.warnings.push(format!("line {lineno}: candidate line not readable ({why}); kept as is"));
            doc.candidate_extras.push(line.trim_end().to_string());
        }
        LineKind::Other => {
            doc.warnings.push(format!("line {lineno}: not an entry line; kept in the candidates block"));
            doc.candidate_extras.push(line.trim_end().to_string());
        }
    }
}

fn read_topic_line(doc: &mut HotDoc, line: &str, lineno: usize) {
    let t = line.trim();
    if t.is_empty() {
        return;
    }
    match parse_topic(t) {
        Some(topic) if doc.topics.contains(&topic) => {
            doc.warnings.push(format!("line {lineno}: duplicate topic {} dropped", topic.line()));
        }
        Some(topic) => doc.topics.push(topic),
        None => {
            doc.warnings.push(format!("line {lineno}: {t:?} is not topic|YYYY-MM; kept and ignored"));
            doc.topic_extras.push(line.trim_end().to_string());
        }
    }
}

/// Reads one `topic|YYYY-MM` line (spaces around either part allowed); `None` when it is not
/// one (docs/plugin-compatibility.md: "写错了只会被忽略").
pub fn parse_topic(line: &str) -> Option<Topic> {
    let (topic, month) = line.trim().rsplit_once('|')?;
    Topic::new(topic, month).ok()
}

/// Body normalisation used everywhere: LF line ends (CRs ending a line are dropped, so a
/// body line never ends in CR, which reading would strip), leading blank lines and trailing
/// whitespace removed (inner text, including indentation of the first line, untouched).
pub fn normalize_body(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    let mut lines: Vec<&str> = text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let first = lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(lines.len());
    lines.drain(..first);
    lines.join("\n").trim_end().to_string()
}

/// Writes the document in the layout of the module docs. `format(&parse(t))` is a fixed
/// point: parsing the output gives back the same document (without warnings).
pub fn format(doc: &HotDoc) -> String {
    let mut s = String::new();
    let body = normalize_body(&doc.body);
    // Reading strips one BOM from the start of the file: a body that itself starts with
    // U+FEFF gets a real BOM in front, so the character survives.
    if body.starts_with('\u{feff}') {
        s.push('\u{feff}');
    }
    if !body.is_empty() {
        s.push_str(&body);
        s.push_str("\n\n");
    }
    s.push_str(CANDIDATES_START);
    s.push('\n');
    for c in &doc.candidates {
        s.push_str(&format_line(c));
        s.push('\n');
    }
    for x in &doc.candidate_extras {
        s.push_str(x);
        s.push('\n');
    }
    s.push_str(CANDIDATES_END);
    s.push_str("\n\n");
    s.push_str(TOPICS_START);
    s.push('\n');
    for t in &doc.topics {
        s.push_str(&t.line());
        s.push('\n');
    }
    for x in &doc.topic_extras {
        s.push_str(x);
        s.push('\n');
    }
    s.push_str(TOPICS_END);
    s.push('\n');
    s
}

/// Length of a body in Unicode code points (docs/plugin-compatibility.md: "按 Unicode 码点计").
pub fn chars(body: &str) -> usize {
    body.chars().count()
}

/// The trimming hint for a body of `chars` code points under `limit`: empty when within the
/// limit, otherwise a sentence giving both numbers and what to do.
pub fn hint(chars: usize, limit: usize) -> String {
    if chars <= limit {
        return String::new();
    }
    format!(
        "热层正文 {chars} 字，超过上限 {limit} 字（多 {} 字）：请把细节用 mem_write 移到冷层，再用 mem_hot_set 写一版精简正文。",
        chars - limit
    )
}

/// Size and limit figures returned by `mem_hot_get`, `mem_hot_set` and `mem_write(important)`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HotStatus {
    /// Body length in code points.
    pub chars: usize,
    /// `hotLimit`.
    pub limit: usize,
    /// `chars > limit`.
    pub over_limit: bool,
    /// [`hint`] for these figures.
    pub hint: String,
}

/// The [`HotStatus`] of a document under `cfg.hot_limit`.
pub fn status(doc: &HotDoc, cfg: &Config) -> HotStatus {
    let chars = chars(&doc.body);
    HotStatus { chars, limit: cfg.hot_limit, over_limit: chars > cfg.hot_limit, hint: hint(chars, cfg.hot_limit) }
}

/// A candidate as returned to callers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CandidateView {
    /// 1-based position in the candidates block (the `candidateIndex` of `mem_write`).
    pub index: usize,
    /// Write instant, `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    pub ts: String,
    /// Tag (`-` when none).
    pub tag: String,
    /// Text without the source marker.
    pub content: String,
    /// Source marker, `null` when absent.
    pub source: Option<Source>,
}

/// The result of `mem_hot_get` (docs/plugin-compatibility.md, "Hot layer"), with the plugin's field names.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HotGetResult {
    /// The body (without candidates and topics).
    pub content: String,
    /// Body length in code points.
    pub chars: usize,
    /// `hotLimit`.
    pub limit: usize,
    /// `chars > limit`.
    pub over_limit: bool,
    /// Trimming hint, empty when within the limit.
    pub hint: String,
    /// The candidates (after pruning).
    pub candidates: Vec<CandidateView>,
    /// Number of candidates.
    pub candidate_count: usize,
    /// The topics index.
    pub topics: Vec<Topic>,
    /// Number of topics.
    pub topic_count: usize,
    /// Candidates sunk to cold by this read.
    pub pruned: Pruned,
    /// Repairs made while reading hot.md (omitted when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Candidate views, 1-based.
pub fn candidate_views(doc: &HotDoc) -> Vec<CandidateView> {
    doc.candidates
        .iter()
        .enumerate()
        .map(|(i, c)| CandidateView {
            index: i + 1,
            ts: format_ts(c.ts),
            tag: c.tag.clone(),
            content: c.content.clone(),
            source: c.source.clone(),
        })
        .collect()
}

/// Builds the `mem_hot_get` result for a document (already pruned, see [`prune`]).
pub fn get_view(doc: &HotDoc, cfg: &Config, pruned: Pruned) -> HotGetResult {
    let st = status(doc, cfg);
    HotGetResult {
        content: doc.body.clone(),
        chars: st.chars,
        limit: st.limit,
        over_limit: st.over_limit,
        hint: st.hint,
        candidates: candidate_views(doc),
        candidate_count: doc.candidates.len(),
        topics: doc.topics.clone(),
        topic_count: doc.topics.len(),
        pruned,
        warnings: doc.warnings.clone(),
    }
}

/// Appends a candidate (`mem_write(..., important: true)`) and returns its 1-based
/// `candidateIndex`. A candidate with the same tag and content already present is not added
/// again; its index is returned instead (mirrors mem_write's same-day dedup).
pub fn add_candidate(doc: &mut HotDoc, entry: Entry) -> usize {
    if let Some(i) = doc.candidates.iter().position(|c| c.tag == entry.tag && c.content == entry.content) {
        return i + 1;
    }
    doc.candidates.push(entry);
    doc.candidates.len()
}

/// Adds topics lines that are not there yet, in order, never replacing or reordering the
/// existing ones (docs/plugin-compatibility.md, "Summaries": "已存在的行不重复、不覆盖"). Returns the number
/// added.
pub fn add_topics(doc: &mut HotDoc, topics: &[Topic]) -> usize {
    let mut added = 0;
    for t in topics {
        if !doc.topics.contains(t) {
            doc.topics.push(t.clone());
            added += 1;
        }
    }
    added
}

/// Days after the last hit during which a hot block is protected from eviction
/// (docs/plugin-compatibility.md: "90 天内没被 mem_recall 等查询命中过").
pub const RECENT_HIT_DAYS: i64 = 90;

/// Whether ledger records allow demotion (eviction of a hot block or sinking of a candidate),
/// per docs/plugin-compatibility.md: "只有 weight < demoteThreshold 且够老的条目，才允许被腾挪/下沉".
///
/// No records → allowed. Otherwise every record must have its weight decayed to `now` below
/// `demoteThreshold`, and be "old enough": its first hit (or, when absent, its last hit or
/// last decay) at least `halfLifeDays` before `now` — an entry has to have lived through one
/// half-life in the ledger before it can be demoted. A record without any instant counts as
/// old. Returns `Err(reason)` when not allowed.
pub fn demotable(records: &[&Record], cfg: &Config, now: DateTime<Utc>) -> std::result::Result<(), String> {
    for r in records {
        let w = r.weight_at(now, cfg.half_life_days);
        if w >= cfg.demote_threshold {
            return Err(format!("权重 {} ≥ {}", fmt_num(w), fmt_num(cfg.demote_threshold)));
        }
        if let Some(born) = r.first_hit_at.or(r.last_hit_at).or(r.last_decay_at) {
            let min_age = Duration::milliseconds((cfg.half_life_days * 86_400_000.0) as i64);
            if now - born < min_age {
                return Err(format!("入账不足 {} 天", fmt_num(cfg.half_life_days)));
            }
        }
    }
    Ok(())
}

/// The ledger records matching any of `keys`.
pub(crate) fn records<'a>(ledger: &'a Ledger, keys: &[String]) -> Vec<&'a Record> {
    keys.iter().filter_map(|k| ledger.get(k)).collect()
}

/// A number for messages: integer when whole, else one decimal.
pub(crate) fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 { format!("{x:.0}") } else { format!("{x:.1}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(ts: &str, tag: &str, content: &str) -> Entry {
        Entry {
            ts: DateTime::parse_from_rfc3339(ts).unwrap().with_timezone(&Utc),
            tag: tag.into(),
            content: content.into(),
            source: None,
        }
    }

    const SEED_FILE: &str = "我是小明，在上海。\n\n长期约定：每周日复盘。\n\n<!-- candidates:start -->\n- [2026-10-21T03:10:00.000Z] [计划] 周末想去看海\n<!-- candidates:end -->\n\n<!-- topics:start -->\n翻唱|2026-10\n旅行|2026-09\n<!-- topics:end -->\n";

    #[test]
    fn parses_and_formats_the_seed_layout() {
        let d = parse(SEED_FILE);
        assert_eq!(d.body, "我是小明，在上海。\n\n长期约定：每周日复盘。");
        assert_eq!(d.candidates, vec![e("2026-10-21T03:10:00.000Z", "计划", "周末想去看海")]);
        assert_eq!(
            d.topics,
            vec![Topic::new("翻唱", "2026-10").unwrap(), Topic { topic: "旅行".into(), month: "2026-09".into() }]
        );
        assert!(d.warnings.is_empty(), "{:?}", d.warnings);
        assert!(d.has_candidates_block && d.has_topics_block);
        assert_eq!(format(&d), SEED_FILE);
    }

    #[test]
    fn empty_document_layout() {
        let d = parse("");
        assert_eq!(d, HotDoc::default());
        assert_eq!(
            format(&d),
            "<!-- candidates:start -->\n<!-- candidates:end -->\n\n<!-- topics:start -->\n<!-- topics:end -->\n"
        );
        assert_eq!(format(&parse(&format(&d))), format(&d));
    }

    #[test]
    fn body_only_file_gets_both_blocks() {
        let d = parse("\n\n  缩进的第一行\r\n第二行  \r\n\r\n");
        assert_eq!(d.body, "  缩进的第一行\n第二行");
        assert!(!d.has_candidates_block);
        assert_eq!(
            format(&d),
            "  缩进的第一行\n第二行\n\n<!-- candidates:start -->\n<!-- candidates:end -->\n\n<!-- topics:start -->\n<!-- topics:end -->\n"
        );
    }

    #[test]
    fn tolerant_markers_and_broken_blocks() {
        let text = "正文\n<!--Candidates:Start-->\n- [2026-10-21T03:10:00.000Z] [a] x\n随手记的一行\n- [bad] y\n<!-- topics:start -->\n翻唱|2026-10\n翻唱|2026-9\n<!-- topics:end -->\n<!-- candidates:end -->\n尾巴\n";
        let d = parse(text);
        assert_eq!(d.body, "正文\n\n尾巴");
        assert_eq!(d.candidates.len(), 1);
        assert_eq!(d.candidate_extras, vec!["随手记的一行".to_string(), "- [bad] y".to_string()]);
        assert_eq!(d.topics, vec![Topic::new("翻唱", "2026-10").unwrap()]);
        assert_eq!(d.topic_extras, vec!["翻唱|2026-9".to_string()]);
        // not closed, two unreadable candidate lines, bad topic, stray end, body moved.
        assert_eq!(d.warnings.len(), 6, "{:?}", d.warnings);
        // Nothing is lost on the round trip, and the repaired file is stable.
        let out = format(&d);
        for piece in ["正文", "尾巴", "随手记的一行", "- [bad] y", "翻唱|2026-9", "[a] x"] {
            assert!(out.contains(piece), "{piece} lost");
        }
        let again = parse(&out);
        assert!(again.warnings.iter().all(|w| w.contains("kept")), "{:?}", again.warnings);
        assert_eq!(format(&again), out);
    }

    #[test]
    fn duplicate_blocks_merge_and_dedupe() {
        let text = "<!-- candidates:start -->\n- [2026-10-01T00:00:00.000Z] [a] one\n<!-- candidates:end -->\n<!-- candidates:start -->\n- [2026-10-01T00:00:00.000Z] [a] one\n- [2026-10-02T00:00:00.000Z] [b] two\n<!-- candidates:start -->\n<!-- candidates:end -->\n<!-- topics:start -->\nx|2026-01\nx | 2026-01\n<!-- topics:end -->";
        let d = parse(text);
        assert_eq!(d.candidates.iter().map(|c| c.content.as_str()).collect::<Vec<_>>(), ["one", "two"]);
        assert_eq!(d.topics, vec![Topic::new("x", "2026-01").unwrap()]);
        // merged, duplicate candidate, repeated start, duplicate topic.
        assert_eq!(d.warnings.len(), 4, "{:?}", d.warnings);
        assert_eq!(d.body, "");
    }

    #[test]
    fn chars_are_code_points() {
        assert_eq!(chars("热层"), 2);
        assert_eq!(chars("a😀\n"), 3);
        assert_eq!(chars(""), 0);
    }

    #[test]
    fn hint_only_over_the_limit() {
        assert_eq!(hint(600, 600), "");
        assert_eq!(
            hint(650, 600),
            "热层正文 650 字，超过上限 600 字（多 50 字）：请把细节用 mem_write 移到冷层，再用 mem_hot_set 写一版精简正文。"
        );
        let cfg = Config::default();
        let st = status(&parse(&"字".repeat(601)), &cfg);
        assert_eq!((st.chars, st.limit, st.over_limit), (601, 600, true));
    }

    #[test]
    fn candidate_index_is_one_based_and_deduplicated() {
        let mut d = parse(SEED_FILE);
        assert_eq!(add_candidate(&mut d, e("2026-10-22T00:00:00.000Z", "计划", "买票")), 2);
        assert_eq!(add_candidate(&mut d, e("2026-10-23T00:00:00.000Z", "计划", "周末想去看海")), 1);
        assert_eq!(d.candidates.len(), 2);
        let v = candidate_views(&d);
        assert_eq!((v[1].index, v[1].ts.as_str(), v[1].content.as_str()), (2, "2026-10-22T00:00:00.000Z", "买票"));
    }

    #[test]
    fn topics_add_without_duplicates_or_overwrites() {
        let mut d = parse(SEED_FILE);
        let add = [Topic::new("旅行", "2026-09").unwrap(), Topic::new("旅行", "2026-10").unwrap()];
        assert_eq!(add_topics(&mut d, &add), 1);
        assert_eq!(
            d.topics.iter().map(Topic::line).collect::<Vec<_>>(),
            ["翻唱|2026-10", "旅行|2026-09", "旅行|2026-10"]
        );
        assert!(Topic::new("a|b", "2026-10").is_err());
        assert!(Topic::new("a", "2026-13").is_err());
        assert!(Topic::new(" ", "2026-10").is_err());
        assert_eq!(parse_topic(" 旅行 | 2026-09 "), Some(Topic::new("旅行", "2026-09").unwrap()));
        assert_eq!(parse_topic("旅行2026-09"), None);
    }

    #[test]
    fn get_view_serialises_with_plugin_names() {
        let d = parse(SEED_FILE);
        let v = get_view(&d, &Config::default(), Pruned { expired: 0, overflow: 0, kept: 1 });
        let j = serde_json::to_value(&v).unwrap();
        assert_eq!(j["chars"], 22); // 9 + 2 (blank line) + 11
        assert_eq!(j["limit"], 600);
        assert_eq!(j["overLimit"], false);
        assert_eq!(j["hint"], "");
        assert_eq!(j["candidateCount"], 1);
        assert_eq!(j["topicCount"], 2);
        assert_eq!(j["candidates"][0]["tag"], "计划");
        assert_eq!(j["candidates"][0]["source"], serde_json::Value::Null);
        assert_eq!(j["topics"][1], serde_json::json!({"topic": "旅行", "month": "2026-09"}));
        assert_eq!(j["pruned"], serde_json::json!({"expired": 0, "overflow": 0, "kept": 1}));
        assert!(j.get("warnings").is_none());
    }
}

//! Reading a summary file back (for week-from-days and month-from-weeks).

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::Period;

/// One line of a summary, read back.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryLine {
    /// The tag between the brackets.
    pub tag: String,
    /// The (earliest) first sentence; empty for a `共 N 条` line.
    pub first: String,
    /// The latest first sentence (equal to `first` for a single item); empty for `共 N 条`.
    pub last: String,
    /// How many entries the line stands for.
    pub count: usize,
    /// True for a month line `- [tag] 共 N 条` (a count without text).
    pub total_only: bool,
}

/// A summary file, read back.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ParsedSummary {
    /// The period the caller said the file belongs to.
    pub period: Period,
    /// `原 N 条` from the header, when present.
    pub original: Option<usize>,
    /// `保留 M 行` from the header, when present.
    pub kept: Option<usize>,
    /// `已省略 K 行` from the note, 0 when absent.
    pub omitted: usize,
    /// The item lines, in file order.
    pub lines: Vec<SummaryLine>,
}

static RATIO: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"原\s*(\d+)\s*条\s*→\s*保留\s*(\d+)\s*行").unwrap());
static OMITTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"已省略\s*(\d+)\s*行").unwrap());
static COUNT_SUFFIX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"（(\d+)\s*条）$").unwrap());
static TOTAL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^共\s*(\d+)\s*条$").unwrap());

/// Reads a summary of `period` (tolerant, never fails; hand-edited files welcome). Item lines
/// are lines starting with `- [tag]`; everything else is ignored except the `压缩比` header
/// and the `已省略` note. For weeks and months a trailing `（N 条）` gives the count and the
/// text splits at the first ` … ` into earliest and latest; for months `共 N 条` is a count
/// line. Day lines are read as written (count 1).
pub fn parse(text: &str, period: Period) -> ParsedSummary {
    let mut p = ParsedSummary { period, original: None, kept: None, omitted: 0, lines: Vec::new() };
    for raw in text.lines() {
        let line = raw.trim();
        if let Some(rest) = line.strip_prefix("- [") {
            if let Some(close) = rest.find(']') {
                let tag = rest[..close].trim();
                let tag = if tag.is_empty() { "-" } else { tag };
                p.lines.push(read_item(tag, rest[close + 1..].trim(), period));
            }
            continue;
        }
        if let Some(c) = RATIO.captures(line) {
            p.original = c[1].parse().ok();
            p.kept = c[2].parse().ok();
        } else if let Some(c) = OMITTED.captures(line) {
            p.omitted = c[1].parse().unwrap_or(0);
        }
    }
    p
}

fn read_item(tag: &str, text: &str, period: Period) -> SummaryLine {
    let tag = tag.to_string();
    if period == Period::Month
        && let Some(c) = TOTAL.captures(text)
    {
        let count = c[1].parse().unwrap_or(0);
        return SummaryLine { tag, first: String::new(), last: String::new(), count, total_only: true };
    }
    let mut body = text;
    let mut count = 1;
    if period != Period::Day
        && let Some(c) = COUNT_SUFFIX.captures(text)
    {
        count = c[1].parse().unwrap_or(1);
        body = text[..c.get(0).expect("whole match").start()].trim_end();
    }
    let (first, last) = match body.split_once(" … ") {
        Some((a, b)) if period != Period::Day => (a.to_string(), b.to_string()),
        _ => (body.to_string(), body.to_string()),
    };
    SummaryLine { tag, first, last, count, total_only: false }
}

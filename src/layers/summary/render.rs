//! Budget and file layout of a summary (format documented in the parent module).

use chrono::{DateTime, Utc};

use super::Period;
use crate::files::entry::format_ts;

/// Keeps lines in order while their total length (code points, line breaks not counted)
/// stays within `budget`; returns the kept lines and how many were omitted (the first line
/// that does not fit and everything after it).
pub(super) fn apply_budget(lines: Vec<String>, budget: usize) -> (Vec<String>, usize) {
    let mut used = 0;
    let mut kept = Vec::new();
    let total = lines.len();
    for line in lines {
        let n = line.chars().count();
        if used + n > budget {
            break;
        }
        used += n;
        kept.push(line);
    }
    let omitted = total - kept.len();
    (kept, omitted)
}

/// The whole file text.
#[allow(clippy::too_many_arguments)]
pub(super) fn render(
    period: Period,
    label: &str,
    title_suffix: &str,
    source: &str,
    kept: &[String],
    omitted: usize,
    original: usize,
    now: DateTime<Utc>,
) -> String {
    let mut s = format!("# {} {label}{title_suffix}\n\n", period.title());
    s.push_str(&format!("- 来源：{source}\n"));
    s.push_str(&format!("- 生成时间：{}\n", format_ts(now)));
    s.push_str(&format!("- 压缩比：原 {original} 条 → 保留 {} 行\n\n", kept.len()));
    s.push_str("## 条目\n\n");
    if kept.is_empty() {
        s.push_str("（无条目）\n");
    }
    for line in kept {
        s.push_str(line);
        s.push('\n');
    }
    if omitted > 0 {
        s.push_str(&format!("\n（已省略 {omitted} 行：超出{}预算 {} 字）\n", period.title(), period.budget()));
    }
    s
}

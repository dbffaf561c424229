//! Session auto-log: at session end, one cold record of the last turns the host saw. Pure.
//!
//! Rules per dsh-memory-layers v1.2.1 (docs/plugin-compatibility.md, "Session auto-log": "会话自动落档是尽力而为" and the
//! `autoLogOnSessionEnd` / `autoLogMinTurns` config keys):
//!
//! * Only when `autoLogOnSessionEnd` is true and the session had at least `autoLogMinTurns`
//!   turns (turns that are blank after trimming do not count).
//! * The record is tag `session`, timestamp `now`, the given source, and text made from the
//!   last 3 non-blank turns: each turn's whitespace collapsed to single spaces, joined by
//!   ` / `, at most 200 code points in all ([`compress_turns`]).
//! * Once per session: a source already logged (same `conv#seq`, see [`session_key`]) gives
//!   nothing. The seed keys sessions on `source.seq`; the conversation key is included so two
//!   conversations that reuse a sequence number do not block each other. Without a source
//!   there is nothing to deduplicate on and the record is always produced.

pub mod ops;

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use crate::Config;
use crate::files::entry::{Entry, Source};

/// Tag of session records (docs/plugin-compatibility.md: "tag=session").
pub const SESSION_TAG: &str = "session";
/// Maximum record length, code points (docs/plugin-compatibility.md: "≤200 字").
pub const MAX_CHARS: usize = 200;
/// Turns that go into the record (docs/plugin-compatibility.md: "最后 3 轮").
pub const LAST_TURNS: usize = 3;
const SEP: &str = " / ";

/// The deduplication key of a session: `conv#seq`.
pub fn session_key(source: &Source) -> String {
    format!("{}#{}", source.conv, source.seq)
}

/// Joins the last 3 non-blank turns (whitespace collapsed) with ` / ` into at most 200 code
/// points. When they do not fit, the room is shared fairly: short turns keep their full text, the room left is
/// split evenly among the longer ones, and each cut turn ends with `…` (inside its share).
pub fn compress_turns(turns: &[&str]) -> String {
    let texts: Vec<Vec<char>> = turns
        .iter()
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ").chars().collect())
        .filter(|t: &Vec<char>| !t.is_empty())
        .collect();
    let texts = &texts[texts.len().saturating_sub(LAST_TURNS)..];
    if texts.is_empty() {
        return String::new();
    }
    let seps = SEP.chars().count() * (texts.len() - 1);
    let room = MAX_CHARS.saturating_sub(seps);
    let mut alloc = vec![0; texts.len()];
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|i| (texts[*i].len(), *i));
    let mut left = room;
    for (n, i) in order.iter().enumerate() {
        let share = left / (texts.len() - n);
        alloc[*i] = texts[*i].len().min(share);
        left -= alloc[*i];
    }
    let parts: Vec<String> = texts
        .iter()
        .zip(&alloc)
        .map(|(t, &a)| {
            if t.len() <= a {
                t.iter().collect()
            } else if a == 0 {
                String::new()
            } else {
                t[..a - 1].iter().chain(std::iter::once(&'…')).collect()
            }
        })
        .collect();
    parts.join(SEP)
}

/// The session record to append to today's cold file, or `None` when auto-log is off, the
/// session was too short, it was already logged (`logged` holds [`session_key`]s), or there is
/// no text. After writing it, the caller adds `session_key(source)` to its logged set.
pub fn session_entry(
    turns: &[String],
    cfg: &Config,
    source: Option<&Source>,
    logged: &HashSet<String>,
    now: DateTime<Utc>,
) -> Option<Entry> {
    if !cfg.auto_log_on_session_end {
        return None;
    }
    let real: Vec<&str> = turns.iter().map(String::as_str).filter(|t| !t.trim().is_empty()).collect();
    if real.len() < cfg.auto_log_min_turns {
        return None;
    }
    if source.is_some_and(|s| logged.contains(&session_key(s))) {
        return None;
    }
    let text = compress_turns(&real);
    if text.is_empty() {
        return None;
    }
    Some(Entry { ts: now, tag: SESSION_TAG.into(), content: text, source: source.cloned() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn on() -> Config {
        Config { auto_log_on_session_end: true, auto_log_min_turns: 4, ..Config::default() }
    }

    fn turns(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn src() -> Source {
        Source { conv: "private:1".into(), seq: "977".into(), msg_id: None }
    }

    #[test]
    fn last_three_turns_once_per_session() {
        let now = t("2026-10-21T12:00:00Z");
        let ts = turns(&["你好", "想去看海", "  ", "订了\n周六的票", "好的，记下了"]);
        let mut logged = HashSet::new();
        let e = session_entry(&ts, &on(), Some(&src()), &logged, now).unwrap();
        assert_eq!(e.content, "想去看海 / 订了 周六的票 / 好的，记下了");
        assert_eq!((e.tag.as_str(), e.ts, e.source.clone()), ("session", now, Some(src())));
        logged.insert(session_key(&src()));
        assert_eq!(session_key(&src()), "private:1#977");
        assert_eq!(session_entry(&ts, &on(), Some(&src()), &logged, now), None);
        let other = Source { seq: "978".into(), ..src() };
        assert!(session_entry(&ts, &on(), Some(&other), &logged, now).is_some());
    }

    #[test]
    fn off_or_too_short() {
        let now = t("2026-10-21T12:00:00Z");
        let four = turns(&["a", "b", "c", "d"]);
        assert_eq!(session_entry(&four, &Config::default(), None, &HashSet::new(), now), None);
        // Blank turns do not count: 3 real turns < 4.
        let short = turns(&["a", " ", "b", "c"]);
        assert_eq!(session_entry(&short, &on(), None, &HashSet::new(), now), None);
        assert_eq!(session_entry(&four, &on(), None, &HashSet::new(), now).unwrap().content, "b / c / d");
    }

    #[test]
    fn long_turns_share_the_room() {
        // Room 200 - 2×3 = 194: the 10-char turn keeps all; 184 left split 92 / 92; each cut
        // turn is 91 chars + "…".
        let a = "短".repeat(10);
        let b = "乙".repeat(300);
        let c = "丙".repeat(300);
        let s = compress_turns(&[&a, &b, &c]);
        assert_eq!(s, format!("{a} / {}… / {}…", "乙".repeat(91), "丙".repeat(91)));
        assert_eq!(s.chars().count(), 200);
        assert_eq!(compress_turns(&["x", "y"]), "x / y");
        assert_eq!(compress_turns(&["w", "x", "", "y", "z"]), "x / y / z");
        assert_eq!(compress_turns(&[" ", ""]), "");
    }

    proptest! {
        #[test]
        fn never_over_200(ts in proptest::collection::vec(".{0,400}", 0..80)) {
            let refs: Vec<&str> = ts.iter().map(String::as_str).collect();
            prop_assert!(compress_turns(&refs).chars().count() <= MAX_CHARS);
        }
    }
}

//! Session auto-log on a data root (dsh-memory-layers v1.2 `autoLogOnSessionEnd` /
//! `autoLogMinTurns`): the host calls [`Memory::session_end`](crate::Memory::session_end) with the turns it saw; the record
//! is built by [`crate::layers::session`] (pure) and appended to today's cold file.
//!
//! "Once per session" survives restarts and index rebuilds because the set of logged sessions
//! is not stored anywhere of its own: it is read from the cold layer, as the `conv#seq` of the
//! source markers of the entries tagged `session` (through the `entries_tag` index).

use std::collections::HashSet;

use serde::Serialize;

use crate::Result;
use crate::files::entry::{Source, format_ts};
use crate::index::Store;
use crate::index::store::SyncPolicy;
use crate::layers::cold::ops::append_entries_locked;
use crate::layers::session::{SESSION_TAG, session_entry, session_key};
use crate::layers::sync::sync;

/// Result of [`Memory::session_end`](crate::Memory::session_end).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionEndResult {
    /// True when a session record was appended.
    pub logged: bool,
    /// Why nothing was logged (`null` when `logged`).
    pub reason: Option<String>,
    /// Local date of the cold file written, when logged.
    pub date: Option<String>,
    /// UTC timestamp of the record, when logged.
    pub ts: Option<String>,
    /// The record text (≤ 200 code points), when logged.
    pub content: Option<String>,
    /// The session's source, as given.
    pub source: Option<Source>,
}

/// The `conv#seq` keys of every session already logged (entries tagged `session` with a
/// source marker).
pub fn logged_sessions(store: &Store) -> Result<HashSet<String>> {
    let c = store.conn()?;
    let mut st = c.prepare_cached("SELECT source FROM entries WHERE tag_key = ?1 AND source IS NOT NULL")?;
    let rows = st.query_map([SESSION_TAG], |r| r.get::<_, String>(0))?;
    let mut out = HashSet::new();
    for body in rows {
        if let Some(s) = Source::from_marker_body(&body?) {
            out.insert(session_key(&s));
        }
    }
    Ok(out)
}

/// Session end: when `autoLogOnSessionEnd` is on and at least `autoLogMinTurns` non-blank
/// turns are given, appends one record (tag `session`, the last 3 turns, ≤ 200 code points,
/// the given source) to today's cold file, at most once per `source` `conv#seq`. Otherwise
/// `logged: false` with the reason. Errors: invalid source (fields `source.*`), lock
/// timeout, I/O.
pub fn session_end(store: &Store, turns: &[String], source: Option<&Source>) -> Result<SessionEndResult> {
    if let Some(s) = source {
        s.validate()?;
    }
    let cfg = store.config();
    let not = |reason: String| SessionEndResult {
        logged: false,
        reason: Some(reason),
        date: None,
        ts: None,
        content: None,
        source: source.cloned(),
    };
    if !cfg.auto_log_on_session_end {
        return Ok(not("autoLogOnSessionEnd is off".into()));
    }
    let real = turns.iter().filter(|t| !t.trim().is_empty()).count();
    if real < cfg.auto_log_min_turns {
        return Ok(not(format!("{real} non-blank turns < autoLogMinTurns {}", cfg.auto_log_min_turns)));
    }
    sync(store, SyncPolicy::WRITER, &mut |_| {})?;
    let lock = store.lock()?;
    let logged = logged_sessions(store)?;
    if let Some(s) = source
        && logged.contains(&session_key(s))
    {
        return Ok(not(format!("session {} already logged", session_key(s))));
    }
    let now = store.now();
    let Some(entry) = session_entry(turns, cfg, source, &logged, now) else {
        return Ok(not("the turns hold no text".into()));
    };
    let day = store.today();
    let done = append_entries_locked(&lock, day, std::slice::from_ref(&entry))?;
    if done.added == 0 {
        return Ok(not("an entry with the same source marker or text is already in today's file".into()));
    }
    Ok(SessionEndResult {
        logged: true,
        reason: None,
        date: Some(day.format("%Y-%m-%d").to_string()),
        ts: Some(format_ts(now)),
        content: Some(entry.content),
        source: entry.source,
    })
}

//! `write` (dsh-memory-layers v1.2 `mem_write`): the cold line (`layers::cold::ops::write_line`),
//! then what it does to the other layers once the entry is in its cold file: `important` adds it to the hot candidates (`candidateIndex`, `overLimit`,
//! `hint`), and every time the day's entry count reaches a multiple of 20 the day summary is
//! regenerated with `force` (`summaryCreated`; a failure is only reported as a `log` warning,
//! docs/plugin-compatibility.md: "生成失败只记日志，不影响写入").

use crate::Result;
use crate::files::entry::Entry;
use crate::files::{cas, cold_rel, local_date};
use crate::index::Store;
use crate::index::store::WriteSession;
use crate::layers::cold::ops::{kept_changing, repair_torn_append, write_line};
use crate::layers::cold::{WriteArgs, WriteResult, normalize_tag, normalize_text};
use crate::layers::hot::ops::add_candidate_locked;
use crate::layers::summary::Period;
use crate::layers::summary::ops::summarize_locked;

/// A day summary is regenerated each time the day's entry count reaches a multiple of this.
pub const SUMMARY_EVERY: usize = 20;

/// Runs the layer effects of a write whose cold line (`entry`, the one now in the file) is
/// written; the caller holds the writer lock. A duplicate write (`added: false`) with
/// `important` still makes sure the entry is a candidate and returns its index. Errors:
/// the candidate could not be added (the cold entry stays written; retrying is safe).
pub(crate) fn after_write(
    lock: &WriteSession<'_>,
    important: bool,
    entry: Entry,
    result: &mut WriteResult,
) -> Result<()> {
    if important {
        let (index, status) = add_candidate_locked(lock, entry)?;
        result.candidate_index = index;
        result.over_limit = Some(status.over_limit);
        result.hint = Some(status.hint);
    }
    if result.added && result.day_count > 0 && result.day_count.is_multiple_of(SUMMARY_EVERY) {
        let made = crate::files::parse_date("date", &result.date)
            .and_then(|day| summarize_locked(lock, Period::Day, day, true));
        match made {
            Ok(_) => result.summary_created = true,
            Err(e) => log::warn!("day summary of {} not regenerated: {e}", result.date),
        }
    }
    Ok(())
}

/// `mem_write`: appends one entry to today's cold file (local date in the configured zone).
/// Same-day identical tag + text → `added: false` (tags compare case-insensitively, as
/// `by-tag` does; text and tag after NFC); with a different `source`, only that
/// line's marker is updated (`sourceUpdated: true`). Errors name the field (`text`, `tag`,
/// `source.*`); a lock timeout or I/O error leaves the file as it was; a month folder or
/// day file that is a symlink out of the data root is refused ([`Error::OutsideRoot`](crate::Error::OutsideRoot)).
pub fn write(store: &Store, args: &WriteArgs) -> Result<WriteResult> {
    let text = normalize_text(&args.text)?;
    let tag = normalize_tag(args.tag.as_deref())?;
    if let Some(s) = &args.source {
        s.validate()?;
    }
    let now = store.now();
    let day = local_date(now, store.tz());
    crate::files::check_nameable(day, "now")?;
    let lock = store.lock()?;
    let path = crate::files::safe_join(store.root(), &cold_rel(day))?;
    if let Some(dir) = path.parent() {
        cas::clean_temps(dir);
    }
    let repaired = repair_torn_append(&lock);
    for _ in 0..cas::MAX_REDO {
        if let Some((mut result, e)) = write_line(&lock, args, &path, day, now, &tag, &text)? {
            finish_write(&lock, args.important, e, &mut result);
            result.warnings.splice(0..0, repaired);
            result.zone_recorded = store.take_zone_recorded().map(|z| z.name().to_string());
            return Ok(result);
        }
    }
    Err(kept_changing(&path))
}

/// What `write` does once the entry is in the file (candidate, day summary). The memory is
/// stored by then, so a failure here is a warning in the result, never an error.
fn finish_write(lock: &WriteSession<'_>, important: bool, e: Entry, result: &mut WriteResult) {
    if let Err(err) = after_write(lock, important, e, result) {
        result.warnings.push(format!(
            "the entry is stored in {}, but the hot layer could not be updated: {err}",
            cold_rel(crate::files::parse_date("date", &result.date).unwrap_or_default())
        ));
    }
}

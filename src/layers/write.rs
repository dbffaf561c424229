//! What `write` (dsh-memory-layers v1.2 `mem_write`) does to the other layers once the entry is
//! in its cold file: `important` adds it to the hot candidates (`candidateIndex`, `overLimit`,
//! `hint`), and every time the day's entry count reaches a multiple of 20 the day summary is
//! regenerated with `force` (`summaryCreated`; a failure is only reported as a `log` warning,
//! docs/plugin-compatibility.md: "生成失败只记日志，不影响写入").

use crate::Result;
use crate::files::entry::Entry;
use crate::files::lock::WriterLock;
use crate::index::Store;
use crate::layers::cold::WriteResult;
use crate::layers::summary::Period;

/// A day summary is regenerated each time the day's entry count reaches a multiple of this.
pub const SUMMARY_EVERY: usize = 20;

impl Store {
    /// Runs the layer effects of a write whose cold line (`entry`, the one now in the file) is
    /// written; the caller holds the writer lock. A duplicate write (`added: false`) with
    /// `important` still makes sure the entry is a candidate and returns its index. Errors:
    /// the candidate could not be added (the cold entry stays written; retrying is safe).
    pub(crate) fn after_write(
        &self,
        lock: &WriterLock,
        important: bool,
        entry: Entry,
        result: &mut WriteResult,
    ) -> Result<()> {
        if important {
            let (index, status) = self.add_candidate_locked(lock, entry)?;
            result.candidate_index = index;
            result.over_limit = Some(status.over_limit);
            result.hint = Some(status.hint);
        }
        if result.added && result.day_count > 0 && result.day_count.is_multiple_of(SUMMARY_EVERY) {
            let made = crate::files::parse_date("date", &result.date)
                .and_then(|day| self.summarize_locked(lock, Period::Day, day, true));
            match made {
                Ok(_) => result.summary_created = true,
                Err(e) => log::warn!("day summary of {} not regenerated: {e}", result.date),
            }
        }
        Ok(())
    }
}

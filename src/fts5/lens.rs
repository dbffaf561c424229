//! The token count of every entry (BM25's document length `D`), packed one row per local date
//! in `entry_lens` (migration V11): `lens` holds a little-endian `u16` per entry, at the
//! entry's ordinal (its id's low [`ORDINAL_BITS`](crate::index::sync::ORDINAL_BITS) bits).
//!
//! Why: a windowed query scores every match in its window with BM25, and each
//! match's length came from FTS5's docsize table, one b-tree descent per match (~2 100
//! instructions at 1M entries, a quarter of a week-window query of `今天`, 433 matches). A
//! week's matches fall on 7 dates: 7 row reads, then an array index per match. FTS5's own
//! docsize table is gone (`columnsize=0`), 14.1 MB at 1M entries against ~2 MB here.
//!
//! The count is the number of tokens FTS5 stores for the entry, tag and content together: the
//! space-separated tokens of [`segment`](crate::fts5::segment::segment) of each, as the
//! `unicode61` tokenizer reads them ([`crate::fts5::segment::word_tokens`]: a word with
//! combining marks is several), which `fts5::bm25::Counter` counts the same way when it scans
//! a window's rows; the test `own_bm25_equals_fts5_bm25` checks both against FTS5's `bm25()`. A count of [`SATURATED`] or more is stored as [`SATURATED`], and a reader
//! counts that entry's tokens from its text ([`DayLens::get`] returns `None`).
//!
//! Written by [`crate::index::sync`] in the transaction that writes the entries; a day's row
//! is deleted with its entries. Pure encoding here ([`encode`], [`at`]), the table in
//! [`append`], [`delete_day`] and [`DayLens`].

use rusqlite::{Connection, OptionalExtension, params};

use crate::Result;
use crate::files::ORDINAL_BITS;

/// The stored value of a token count that does not fit a `u16` (65 535 tokens or more: a
/// line of ~300 KB); a reader counts such an entry from its text.
pub const SATURATED: u16 = u16::MAX;

/// The token count of an entry whose FTS5 columns are `tag` and `body` (the segmented text,
/// [`crate::index::sync::FtsText`]): what FTS5's `unicode61` reads in their space-separated
/// tokens ([`crate::fts5::segment::word_tokens`]).
pub fn tokens_of(tag: &str, body: &str) -> usize {
    let count = |s: &str| s.split(' ').map(crate::fts5::segment::word_tokens).sum::<usize>();
    count(tag) + count(body)
}

/// `lens` as the stored bytes: a little-endian `u16` each, [`SATURATED`] for 65 535 or more.
pub fn encode(lens: &[usize]) -> Vec<u8> {
    lens.iter().flat_map(|&n| u16::try_from(n).unwrap_or(SATURATED).to_le_bytes()).collect()
}

/// The stored count at `ordinal` in a day's `lens` BLOB; `None` when the BLOB is shorter
/// (an index written by another version, or damaged) or the count is [`SATURATED`].
pub fn at(blob: &[u8], ordinal: usize) -> Option<usize> {
    raw_at(blob, ordinal).filter(|&n| n != usize::from(SATURATED))
}

/// The stored value at `ordinal`, [`SATURATED`] included; `None` past the BLOB's end.
fn raw_at(blob: &[u8], ordinal: usize) -> Option<usize> {
    let b = blob.get(2 * ordinal..2 * ordinal + 2)?;
    Some(usize::from(u16::from_le_bytes([b[0], b[1]])))
}

/// The value stored for entry `id` as it is ([`SATURATED`] included), through `lens`'s day
/// cache; `None` when the day's row holds none for it (for `check`). Errors: SQLite's.
pub fn stored_at(lens: &mut DayLens, c: &Connection, id: i64) -> Result<Option<usize>> {
    let ordinal = (id & ((1 << ORDINAL_BITS) - 1)) as usize;
    Ok(lens.blob(c, id >> ORDINAL_BITS)?.and_then(|b| raw_at(b, ordinal)))
}

/// Appends the counts `lens` of entries `first_ordinal..` to the row of day number `day`
/// ([`crate::files::day_number`]). The row must hold exactly `first_ordinal` counts (the
/// entries before them); when it holds another number (an index written before a crash of
/// an older version, say) the row is left short and readers count those entries' tokens from
/// their text. Errors: SQLite's.
pub fn append(c: &Connection, day: i64, first_ordinal: usize, lens: &[usize]) -> Result<()> {
    if lens.is_empty() {
        return Ok(());
    }
    let bytes = encode(lens);
    c.prepare_cached(
        // `||` yields TEXT (same bytes): cast back, so `length` counts bytes.
        "INSERT INTO entry_lens(day, lens) VALUES(?1, ?2) ON CONFLICT(day) DO UPDATE \
         SET lens = CAST(lens || excluded.lens AS BLOB) WHERE length(lens) = ?3",
    )?
    .execute(params![day, bytes, 2 * first_ordinal as i64])?;
    Ok(())
}

/// Deletes the counts of day number `day`. Errors: SQLite's.
pub fn delete_day(c: &Connection, day: i64) -> Result<()> {
    c.prepare_cached("DELETE FROM entry_lens WHERE day = ?1")?.execute([day])?;
    Ok(())
}

/// The counts of the days one query touches, each day's row read once when the query's
/// matches come in rowid order (newest or oldest first, as FTS5 walks them): days then arrive
/// in runs, and only the current day's row is kept.
#[derive(Debug, Default)]
pub struct DayLens {
    /// The day number and `lens` BLOB of the day read last (empty when the day has no row).
    day: Option<(i64, Vec<u8>)>,
}

impl DayLens {
    /// The token count of entry `id`, or `None` when the index does not hold it (see
    /// [`at`]): the caller counts the entry's text then. Errors: SQLite's.
    pub fn get(&mut self, c: &Connection, id: i64) -> Result<Option<usize>> {
        let ordinal = (id & ((1 << ORDINAL_BITS) - 1)) as usize;
        Ok(self.blob(c, id >> ORDINAL_BITS)?.and_then(|b| at(b, ordinal)))
    }

    /// The `lens` BLOB of day number `day` (empty when the day has no row, or a value that is
    /// not a BLOB, which a hand edit of the index could leave: its entries are then counted
    /// from their text). Errors: SQLite's.
    fn blob(&mut self, c: &Connection, day: i64) -> Result<Option<&[u8]>> {
        if self.day.as_ref().is_none_or(|(d, _)| *d != day) {
            let blob: Option<Vec<u8>> = c
                .prepare_cached("SELECT lens FROM entry_lens WHERE day = ?1")?
                .query_row([day], |r| Ok(r.get_ref(0)?.as_blob().map(<[u8]>::to_vec).unwrap_or_default()))
                .optional()?;
            self.day = Some((day, blob.unwrap_or_default()));
        }
        Ok(self.day.as_ref().map(|(_, b)| b.as_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_round_trip_and_saturate() {
        let blob = encode(&[0, 1, 300, 65_534, 65_535, 1_000_000]);
        // Little-endian u16s: 300 = 0x012C.
        assert_eq!(&blob[..6], &[0, 0, 1, 0, 0x2C, 0x01]);
        assert_eq!(blob.len(), 12);
        assert_eq!(at(&blob, 0), Some(0));
        assert_eq!(at(&blob, 2), Some(300));
        assert_eq!(at(&blob, 3), Some(65_534));
        // 65 535 and more: not stored, counted from the text.
        assert_eq!(at(&blob, 4), None);
        assert_eq!(at(&blob, 5), None);
        // Past the end.
        assert_eq!(at(&blob, 6), None);
        assert_eq!(at(&[7], 0), None);
    }

    #[test]
    fn tokens_are_the_space_separated_words_of_both_columns() {
        // segment("Token消耗很大, 翻唱!") = "token 消耗 耗很 很大 大 翻唱 唱": 7 tokens; tag "周报": "周报 报".
        assert_eq!(tokens_of("周报 报", "token 消耗 耗很 很大 大 翻唱 唱"), 9);
        assert_eq!(tokens_of("", ""), 0);
        // As FTS5's unicode61 reads them: दृष्टि = द ृ ष ् ट ि (Lo Mn Lo Mn Lo Mc) → द, ष, ट;
        // a lone Tibetan vowel sign O (U+0F7C, Mn) is no token.
        assert_eq!(tokens_of("t", "zebra दृष्टि दृष्टि"), 1 + 1 + 2 * 3);
        assert_eq!(tokens_of("t", "zebra \u{0F7C} \u{0F7C}"), 2);
    }
}

//! Decoding FTS5's internal records: the varint, the averages record (row count and token
//! totals) and the structure record (the index's state). Layouts: FTS5's `fts5_index.c`
//! (<https://sqlite.org/src/file?name=ext/fts5/fts5_index.c>); the canary test
//! (`tests/it/fts5_canary.rs`) fails, naming what changed, if the bundled SQLite writes them
//! differently.

use rusqlite::{Connection, OptionalExtension};

use crate::Result;
use crate::fts5::aux_fn::COLUMNS;

/// Row count and total token count of the index (FTS5's averages record). Both 0 for an
/// empty index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// Rows (entries) in the FTS5 index.
    pub rows: i64,
    /// Tokens over every column of every row.
    pub tokens: i64,
}

impl Totals {
    /// Average tokens per row (`avgdl`), as FTS5 computes it.
    pub fn avgdl(&self) -> f64 {
        self.tokens as f64 / self.rows as f64
    }
}

/// Reads an SQLite/FTS5 varint (big-endian groups of 7 bits, a 9th byte of 8 bits) at `at`;
/// returns the value and the bytes read, or `None` past the end. Also [`crate::fts5::prefix`]'s
/// reader of FTS5's segment pages.
pub(crate) fn varint(b: &[u8], at: usize) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    for i in 0..9 {
        let byte = *b.get(at + i)?;
        if i == 8 {
            return Some(((v << 8) | u64::from(byte), 9));
        }
        v = (v << 7) | u64::from(byte & 0x7f);
        if byte & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

/// The index's [`Totals`] from FTS5's averages record (`entries_fts_data` id 1: N, then the
/// tag and content columns' token totals). An index that never held a row has none: zeros.
/// Errors: SQLite errors.
pub fn totals(c: &Connection) -> Result<Totals> {
    let block: Option<Vec<u8>> =
        c.prepare_cached("SELECT block FROM entries_fts_data WHERE id = 1")?.query_row([], |r| r.get(0)).optional()?;
    // As FTS5 reads it (fts5_index.c, sqlite3Fts5IndexGetAverages): an empty record is all
    // zeros (an index that never held a row, or one emptied), and a value missing from a short
    // record counts 0.
    let b = block.unwrap_or_default();
    let mut at = 0;
    let mut next = || match varint(&b, at) {
        Some((v, n)) => {
            at += n;
            v
        }
        None => 0,
    };
    let rows = next();
    let tokens: u64 = (0..COLUMNS).map(|_| next()).sum();
    Ok(Totals { rows: rows as i64, tokens: tokens as i64 })
}

/// The state of the FTS5 index: its structure record (`entries_fts_data` id 10), which FTS5
/// rewrites whenever the index changes (a new segment, a merge, a delete). Equal keys mean
/// equal document frequencies.
pub fn state_key(c: &Connection) -> Result<Vec<u8>> {
    Ok(c.prepare_cached("SELECT block FROM entries_fts_data WHERE id = 10")?
        .query_row([], |r| r.get(0))
        .optional()?
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_decode_as_sqlite_writes_them() {
        // 0x7f is one byte; 0x81 0x00 = 128; 0x83 0x60 = 3 × 128 + 0x60 = 480.
        assert_eq!(varint(&[0x7f], 0), Some((127, 1)));
        assert_eq!(varint(&[0x81, 0x00], 0), Some((128, 2)));
        assert_eq!(varint(&[0x00, 0x83, 0x60], 1), Some((480, 2)));
        assert_eq!(varint(&[0x81], 0), None);
    }
}

//! `ml_counts(entries_fts)`: an FTS5 auxiliary function that gives, for the row FTS5 is at,
//! the instance count of every phrase of the query in each column: with the row's token count
//! (`entry_lens`, [`crate::index::lens`]) the inputs of BM25 that vary by row (`query::bm25`),
//! read from the position lists FTS5 already decoded to match the row.
//!
//! Why (issue 15): a windowed query ranks every match in its window by BM25. Reading each
//! candidate's text from `entry_rows` and counting its tokens again in Rust cost ~12 000
//! instructions a candidate (a b-tree descent to the row, UTF-8 checks, the token walk); the
//! weeks of `今天` hold 433 candidates at 1M entries. FTS5 holds the same counts: every
//! instance of a phrase is in the position list it steps through to match the row
//! (`detail = full`).
//!
//! Result: a BLOB of the row's id (a native-endian `i64`: the statement then reads one column
//! a row, not two, ~200 instructions a row less, issue 15) then native-endian `u32`s,
//! `[body₀, tag₀, body₁, tag₁, …]`: for each phrase of the FTS5 expression, in its order, the
//! instances in the body (column 0) and in the tag (column 1) ([`split_counts`] splits it,
//! `query::bm25::fold_counts` reads the counts). The row's token count is not in it:
//! FTS5 keeps no docsize table here (`columnsize = 0`, migration V11), so `xColumnSize` would
//! tokenize nothing; memlayers keeps the counts per day ([`crate::index::lens`]). FTS5's API:
//! <https://sqlite.org/fts5.html#custom_auxiliary_functions> (`xPhraseCount`, `xPhraseFirst`,
//! `xPhraseNext`); registered through the `fts5_api`
//! pointer that `SELECT fts5(?1)` hands out (<https://sqlite.org/fts5.html#extending_fts5>).
//!
//! rusqlite exposes FTS5's extension API only as raw bindings, so this module is the one
//! place with `unsafe` code: the registration and the callback, each call checked against
//! SQLite's return codes.
#![allow(unsafe_code)]

use std::ffi::{c_int, c_void};
use std::ptr;

use rusqlite::Connection;
use rusqlite::ffi;

/// The SQL name of the function.
pub const COUNTS_FN: &str = "ml_counts";

/// Columns of `entries_fts`, in order (migration V8: `body, tag`).
pub const COLUMNS: usize = 2;

/// The `u32` words the rowid takes at the start of the result (8 bytes).
const ROWID_WORDS: usize = 2;

/// A result of [`COUNTS_FN`] as the row's id and its counts (the BLOB past the id, which
/// `query::bm25::fold_counts` reads); `None` when it is shorter than an id.
pub fn split_counts(blob: &[u8]) -> Option<(i64, &[u8])> {
    let (id, counts) = blob.split_first_chunk::<8>()?;
    Some((i64::from_ne_bytes(*id), counts))
}

/// Registers [`COUNTS_FN`] on `c` (once per connection; registering again replaces it).
/// Errors: SQLite built without FTS5, or FTS5 refusing the function.
pub fn register(c: &Connection) -> rusqlite::Result<()> {
    let err = |msg: &str| {
        rusqlite::Error::SqliteFailure(ffi::Error::new(ffi::SQLITE_ERROR), Some(format!("{COUNTS_FN}: {msg}")))
    };
    // SAFETY: `db` is the live handle of `c`, used on this thread only while `c` is borrowed.
    // The statement is prepared, stepped and finalized here; the bound pointer outlives it.
    // `fts5_api` is owned by SQLite and valid as long as the connection.
    unsafe {
        let db = c.handle();
        let mut stmt: *mut ffi::sqlite3_stmt = ptr::null_mut();
        let rc = ffi::sqlite3_prepare_v2(db, c"SELECT fts5(?1)".as_ptr(), -1, &mut stmt, ptr::null_mut());
        if rc != ffi::SQLITE_OK {
            return Err(err("SELECT fts5(?1) did not prepare (no FTS5 in this SQLite)"));
        }
        let mut api: *mut ffi::fts5_api = ptr::null_mut();
        ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&mut api as *mut *mut ffi::fts5_api).cast::<c_void>(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        ffi::sqlite3_step(stmt);
        ffi::sqlite3_finalize(stmt);
        if api.is_null() || (*api).iVersion < 2 {
            return Err(err("FTS5 gave no fts5_api (version 2 or later)"));
        }
        let Some(create) = (*api).xCreateFunction else { return Err(err("fts5_api has no xCreateFunction")) };
        let rc = create(api, c"ml_counts".as_ptr(), ptr::null_mut(), Some(counts), None);
        if rc != ffi::SQLITE_OK {
            return Err(err(&format!("xCreateFunction returned {rc}")));
        }
    }
    Ok(())
}

/// The callback of [`COUNTS_FN`]. Takes no SQL arguments beyond the table.
unsafe extern "C" fn counts(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    _n: c_int,
    _args: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 calls this with its own valid `api`, `fts` and `ctx` for the current row.
    unsafe {
        let api = &*api;
        let (Some(rowid), Some(phrase_count), Some(phrase_first), Some(phrase_next)) =
            (api.xRowid, api.xPhraseCount, api.xPhraseFirst, api.xPhraseNext)
        else {
            ffi::sqlite3_result_error(ctx, c"ml_counts: incomplete Fts5ExtensionApi".as_ptr(), -1);
            return;
        };
        let phrases = phrase_count(fts).max(0) as usize;
        // On the stack for up to 8 phrases (no allocation per row, issue 15): the rowid's
        // 8 bytes as two words, then the counts.
        let mut out: smallvec::SmallVec<[u32; 18]> = smallvec::smallvec![0u32; ROWID_WORDS + COLUMNS * phrases];
        let id = rowid(fts).to_ne_bytes();
        out[0] = u32::from_ne_bytes([id[0], id[1], id[2], id[3]]);
        out[1] = u32::from_ne_bytes([id[4], id[5], id[6], id[7]]);
        // Each phrase's position list, walked where FTS5 left it to match the row (empty for
        // a phrase of an OR that this row does not hold): cheaper than `xInstCount`/`xInst`,
        // which merge every phrase's instances into one array FTS5 allocates per row.
        for p in 0..phrases {
            let mut iter = ffi::Fts5PhraseIter { a: ptr::null(), b: ptr::null() };
            let (mut col, mut off): (c_int, c_int) = (0, 0);
            let rc = phrase_first(fts, p as c_int, &mut iter, &mut col, &mut off);
            if rc != ffi::SQLITE_OK {
                ffi::sqlite3_result_error_code(ctx, rc);
                return;
            }
            while col >= 0 {
                if let Some(slot) = out.get_mut(ROWID_WORDS + COLUMNS * p + col as usize) {
                    *slot += 1;
                }
                phrase_next(fts, &mut iter, &mut col, &mut off);
            }
        }
        let bytes = std::mem::size_of_val(out.as_slice());
        ffi::sqlite3_result_blob(ctx, out.as_ptr().cast::<c_void>(), bytes as c_int, ffi::SQLITE_TRANSIENT());
    }
}

//! `ml_collect(entries_fts)`: an FTS5 auxiliary function that gathers, for each row FTS5
//! matches, the instance count of every phrase of the query in each column: with the row's
//! token count (`entry_lens`, [`crate::fts5::lens`]) the inputs of BM25 that vary by row
//! (`fts5::bm25`), read from the position lists FTS5 already decoded to match the row.
//!
//! Why: a windowed query ranks every match in its window by BM25. Reading each
//! candidate's text from `entry_rows` and counting its tokens again in Rust cost ~12 000
//! instructions a candidate (a b-tree descent to the row, UTF-8 checks, the token walk); the
//! weeks of `今天` hold 433 candidates at 1M entries. FTS5 holds the same counts: every
//! instance of a phrase is in the position list it steps through to match the row
//! (`detail = full`).
//!
//! The counts do not come back as a result value per row: the function appends them to a
//! buffer of the thread that steps the statement and returns 1, so the statement aggregates
//! over its matches (`SELECT count(*) FROM (SELECT ml_collect(entries_fts) AS x … LIMIT ?) WHERE x = 0`)
//! and hands its caller one row: the outer `WHERE x = 0` passes no row, so not even an
//! aggregate step a match. That saves ~240 instructions a match over the first form,
//! `ml_counts`, which returned a BLOB a row (a step out of and back into the VDBE, the BLOB
//! copied, the caller's column reads; a week of `今` at 1M entries, 270 matches a query:
//! 1.32M → 1.26M instructions a `retrieve`, callgrind). [`collected`] reads the
//! buffer.
//!
//! Layout, in native-endian `u32` words, one row after another: the row's id (an `i64`, two
//! words), then `[body₀, tag₀, body₁, tag₁, …]`: for each phrase of the FTS5 expression, in its
//! order, the instances in the body (column 0) and in the tag (column 1) ([`rows`] splits it,
//! `fts5::bm25::fold_counts` reads the counts). The row's token count is not in it:
//! FTS5 keeps no docsize table here (`columnsize = 0`, migration V11), so `xColumnSize` would
//! tokenize nothing; memlayers keeps the counts per day ([`crate::fts5::lens`]). FTS5's API:
//! <https://sqlite.org/fts5.html#custom_auxiliary_functions> (`xPhraseCount`, `xPhraseFirst`,
//! `xPhraseNext`); registered through the `fts5_api`
//! pointer that `SELECT fts5(?1)` hands out (<https://sqlite.org/fts5.html#extending_fts5>).
//!
//! rusqlite exposes FTS5's extension API only as raw bindings, so this module is the one
//! place with `unsafe` code: the registration and the callback, each call checked against
//! SQLite's return codes.
#![allow(unsafe_code)]

use std::cell::RefCell;
use std::ffi::{c_int, c_void};
use std::ptr;

use rusqlite::Connection;
use rusqlite::ffi;

/// The SQL name of the function (module docs).
pub const COLLECT_FN: &str = "ml_collect";

/// Columns of `entries_fts`, in order (migration V8: `body, tag`).
pub const COLUMNS: usize = 2;

/// The `u32` words the rowid takes at the start of the result (8 bytes).
const ROWID_WORDS: usize = 2;

/// The rows of a [`collected`] buffer `words` gathered for an FTS5 expression of `phrases`
/// phrases, as (entry id, counts), the counts being what `fts5::bm25::fold_counts` reads;
/// `None` when the words are not whole rows of that width.
pub fn rows(words: &[u32], phrases: usize) -> Option<impl Iterator<Item = (i64, &[u32])>> {
    let width = ROWID_WORDS + COLUMNS * phrases;
    if !words.len().is_multiple_of(width) {
        return None;
    }
    Some(words.chunks_exact(width).map(|row| {
        let (a, b) = (row[0].to_ne_bytes(), row[1].to_ne_bytes());
        let id = i64::from_ne_bytes([a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]);
        (id, &row[ROWID_WORDS..])
    }))
}

/// Registers [`COLLECT_FN`] on `c` (once per connection; registering again replaces it).
/// Errors: SQLite built without FTS5, or FTS5 refusing the function.
pub fn register(c: &Connection) -> rusqlite::Result<()> {
    let err = |msg: &str| {
        rusqlite::Error::SqliteFailure(ffi::Error::new(ffi::SQLITE_ERROR), Some(format!("{COLLECT_FN}: {msg}")))
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
        let rc = create(api, c"ml_collect".as_ptr(), ptr::null_mut(), Some(collect), None);
        if rc != ffi::SQLITE_OK {
            return Err(err(&format!("xCreateFunction returned {rc}")));
        }
    }
    Ok(())
}

/// Sets `words` to the row FTS5 is at, laid out as the module docs say, in `u32` words: the
/// rowid (native-endian, two words), then each phrase's instances in the body and the tag.
/// Errors: the SQLite code of a failed `xPhraseFirst`, or `SQLITE_MISUSE` for an incomplete
/// extension API.
///
/// # Safety
/// `api` and `fts` are what FTS5 passed to an auxiliary function's callback for the current row.
unsafe fn row_counts(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    words: &mut smallvec::SmallVec<[u32; 18]>,
) -> Result<(), c_int> {
    // SAFETY: FTS5 calls the callbacks with its own valid `api` and `fts` for the current row.
    unsafe {
        let api = &*api;
        let (Some(rowid), Some(phrase_count), Some(phrase_first), Some(phrase_next)) =
            (api.xRowid, api.xPhraseCount, api.xPhraseFirst, api.xPhraseNext)
        else {
            return Err(ffi::SQLITE_MISUSE);
        };
        let phrases = phrase_count(fts).max(0) as usize;
        // On the stack for up to 8 phrases (no allocation per row): the rowid's
        // 8 bytes as two words, then the counts.
        words.clear();
        words.resize(ROWID_WORDS + COLUMNS * phrases, 0);
        let id = rowid(fts).to_ne_bytes();
        words[0] = u32::from_ne_bytes([id[0], id[1], id[2], id[3]]);
        words[1] = u32::from_ne_bytes([id[4], id[5], id[6], id[7]]);
        // Each phrase's position list, walked where FTS5 left it to match the row (empty for
        // a phrase of an OR that this row does not hold): cheaper than `xInstCount`/`xInst`,
        // which merge every phrase's instances into one array FTS5 allocates per row.
        for p in 0..phrases {
            let mut iter = ffi::Fts5PhraseIter { a: ptr::null(), b: ptr::null() };
            let (mut col, mut off): (c_int, c_int) = (0, 0);
            let rc = phrase_first(fts, p as c_int, &mut iter, &mut col, &mut off);
            if rc != ffi::SQLITE_OK {
                return Err(rc);
            }
            while col >= 0 {
                if let Some(slot) = words.get_mut(ROWID_WORDS + COLUMNS * p + col as usize) {
                    *slot += 1;
                }
                phrase_next(fts, &mut iter, &mut col, &mut off);
            }
        }
        Ok(())
    }
}

thread_local! {
    /// What [`COLLECT_FN`] gathered on this thread since [`collected`] last emptied it.
    static COLLECTED: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on the rows [`COLLECT_FN`] gathered on this thread (the `u32` words of each, one
/// row after another, as the module docs lay them out), then empties the buffer, keeping its
/// memory for the next statement. Call it after the statement is done, on its thread.
pub fn collected<T>(f: impl FnOnce(&[u32]) -> T) -> T {
    COLLECTED.with_borrow_mut(|words| {
        let r = f(words);
        words.clear();
        r
    })
}

/// Empties this thread's [`COLLECT_FN`] buffer: before a statement, so that rows a failed
/// statement left behind are not read as its.
pub fn clear_collected() {
    COLLECTED.with_borrow_mut(Vec::clear);
}

/// The callback of [`COLLECT_FN`]: the row's words appended to this thread's buffer; returns 1.
unsafe extern "C" fn collect(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    _n: c_int,
    _args: *mut *mut ffi::sqlite3_value,
) {
    let mut words = smallvec::SmallVec::new();
    // SAFETY: FTS5 calls this with its own valid `api`, `fts` and `ctx` for the current row.
    unsafe {
        let done = COLLECTED.with(|c| match c.try_borrow_mut() {
            Ok(mut out) => row_counts(api, fts, &mut words).map(|()| out.extend_from_slice(&words)),
            // `collected` runs between statements, never inside one.
            Err(_) => Err(ffi::SQLITE_MISUSE),
        });
        match done {
            Ok(()) => ffi::sqlite3_result_int(ctx, 1),
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

//! The canary of `src/fts5/`: memlayers reads FTS5's internal records (the averages record, the
//! structure record, the segment b-tree) and hands BM25 the counts of its own auxiliary function;
//! a rusqlite upgrade that bundles an SQLite whose FTS5 writes them otherwise would skew every
//! score without an error. Each check below runs on a three-entry index whose figures were
//! worked out by hand, and fails naming what changed and what to do (`ranker: "sqlite"` ranks
//! without any of it: docs/ranking.md).

use crate::common::{open_at, put};
use memlayers::fts5::{aux_fn, bm25, prefix, record};

/// Three entries of one day (UTC root). Tokens, by the segmenter's rules (a Latin word is one
/// token, and these words are their own English stems): tag `t` 1 + body `alpha beta` 2;
/// tag `t` 1 + body `alpha gamma delta` 3; tag `u` 1 + body `alphabet` 1. So N = 3, 9 tokens,
/// average length 3.
fn index() -> (tempfile::TempDir, memlayers::Memory) {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-11/2026-11-20.md",
        "- [2026-11-20T01:00:00.000Z] [t] alpha beta\n\
         - [2026-11-20T02:00:00.000Z] [t] alpha gamma delta\n\
         - [2026-11-20T03:00:00.000Z] [u] alphabet\n",
    );
    let m = open_at(dir.path(), "2026-11-29T12:00:00Z");
    (dir, m)
}

fn sqlite_version(c: &rusqlite::Connection) -> String {
    c.query_row("SELECT sqlite_version()", [], |r| r.get(0)).unwrap()
}

#[test]
fn the_bundled_fts5_writes_what_src_fts5_reads() {
    let (_dir, m) = index();
    let c = m.conn().unwrap();
    let v = sqlite_version(&c);
    let what = |part: &str, file: &str| {
        format!(
            "the bundled SQLite {v}'s FTS5 no longer writes {part} as src/fts5/{file} reads it: memlayers' BM25 \
             would be skewed. Update src/fts5/{file} (or set the config key ranker to \"sqlite\" meanwhile)"
        )
    };
    // The averages record: a varint N, then one varint per column with its token total.
    let t = record::totals(&c).unwrap();
    assert_eq!((t.rows, t.tokens), (3, 9), "{}", what("the averages record (entries_fts_data id 1)", "record.rs"));
    // The structure record changes with every change of the index (the memo of document
    // frequencies is keyed by it).
    let before = record::state_key(&c).unwrap();
    drop(c);
    let written =
        m.write(&memlayers::WriteArgs { text: "epsilon".into(), tag: Some("u".into()), ..Default::default() });
    written.unwrap();
    let c = m.conn().unwrap();
    let after = record::state_key(&c).unwrap();
    assert!(
        !before.is_empty() && before != after,
        "{}",
        what("the structure record (entries_fts_data id 10) as a new value per change", "record.rs")
    );
    assert_eq!(record::totals(&c).unwrap().rows, 4, "{}", what("the averages record after a write", "record.rs"));
    // The segment b-tree: the index's terms that start with a prefix, in order.
    let listed = prefix::expand(&c, "alph", prefix::MAX_TERMS).unwrap();
    assert_eq!(
        listed,
        Some(vec!["alpha".to_string(), "alphabet".to_string()]),
        "{}",
        what("segment leaves (the terms of the index)", "prefix.rs")
    );
    // The auxiliary function: the instances of each phrase in each column of each matched row,
    // folded with the column weights (tag 2, body 1): `t` is in the tag of two entries.
    for (phrase, want) in [("\"t\"", vec![2.0, 2.0]), ("\"gamma\"", vec![1.0])] {
        let mut st = c.prepare(&memlayers::query::search::ranked_sql(false, false)).unwrap();
        aux_fn::clear_collected();
        let none: i64 = st.query_row(rusqlite::params![phrase, 1000i64], |r| r.get(0)).unwrap();
        assert_eq!(none, 0, "{}", what("auxiliary-function results", "aux_fn.rs"));
        let mut got = Vec::new();
        aux_fn::collected(|words| {
            for (_, counts) in aux_fn::rows(words, 1).expect("whole rows") {
                let mut f = vec![0.0];
                bm25::fold_counts(counts, &[0], &mut f).unwrap();
                got.push(f[0]);
            }
        });
        assert_eq!(got, want, "{phrase}: {}", what("phrase instances per column (xInst)", "aux_fn.rs"));
    }
}

/// SQLite's stock `bm25()` on `entries_fts`, which keeps no column sizes: every row's length
/// term is [`bm25::STOCK_LENGTH`] (−2), what docs/ranking.md says of the `sqlite` ranker.
#[test]
fn stock_bm25_sees_no_row_length() {
    let (_dir, m) = index();
    let c = m.conn().unwrap();
    // `gamma`: N = 3, df = 1, idf = ln(2.5 / 1.5); f = 1 (body); avgdl = 9 / 3 = 3; with
    // D = −2: f + k1 (1 − b + b D / avgdl) = 1 + 1.2 (0.25 − 0.5) = 0.7, so
    // bm25 = −ln(5/3) × 2.2 / 0.7 = −1.605 4520…; with the row's real length D = 4 it would be
    // −ln(5/3) × 2.2 / 2.5 = −0.449 5265….
    let got: f64 = c
        .query_row(
            &format!("SELECT {} FROM entries_fts WHERE entries_fts MATCH '\"gamma\"'", bm25::STOCK_BM25),
            [],
            |r| r.get(0),
        )
        .unwrap();
    let want = -(5.0f64 / 3.0).ln() * 2.2 / 0.7;
    assert!(
        (got - want).abs() < 1e-12,
        "the bundled SQLite {}'s bm25() gives {got} for `gamma`, not {want}: it now sees row lengths (or computes \
         otherwise), and docs/ranking.md's account of the sqlite ranker and bm25::STOCK_LENGTH are out of date",
        sqlite_version(&c)
    );
    assert!((bm25::bm25_at(&[1.0], bm25::STOCK_LENGTH, &[bm25::idf_fts5(3, 1)], 3.0) - want).abs() < 1e-12);
}

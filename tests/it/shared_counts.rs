//! What a query pays for beyond its own work, kept small: the counts a query needs for BM25
//! (document frequencies, match counts) are shared between
//! processes through the index's `fts_counts` table (src/fts5/bm25.rs `DfMemo`), valid only
//! for the FTS5 state they were counted in; a statement is compiled once. Real CLI processes
//! on a real data root.

use std::path::Path;
use std::process::Output;

fn ml(root: &Path, args: &[&str]) -> Output {
    let common = ["--data-root", root.to_str().unwrap(), "--tz", "Asia/Shanghai", "--now", "2026-10-21T03:10:00Z"];
    let out = crate::common::cli().args(common).arg("--json").args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The `fts_counts` rows, sorted by expression.
fn rows(root: &Path) -> Vec<(String, i64)> {
    let c = rusqlite::Connection::open(root.join("index.sqlite3")).unwrap();
    let mut st = c.prepare("SELECT expr, n FROM fts_counts ORDER BY expr").unwrap();
    st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
}

fn own(rows: &[(&str, i64)]) -> Vec<(String, i64)> {
    let mut v: Vec<(String, i64)> = rows.iter().map(|(e, n)| (e.to_string(), *n)).collect();
    v.sort();
    v
}

#[test]
fn a_cli_call_leaves_its_counts_for_the_next_and_a_write_makes_them_stale() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Bigrams: 博物馆 → 博物, 物馆. By hand: 博物 is in lines 1 and 2, 物馆 in lines 1 and 3,
    // both in line 1 only; line 4 has neither (美术馆 → 美术, 术馆).
    for text in ["博物馆周末开门", "博物课本", "物馆两个字", "去了美术馆"] {
        ml(root, &["write", text]);
    }
    let v = json(&ml(root, &["recall", "博物馆"]));
    assert_eq!((v["matched"].as_i64(), v["items"][0]["content"].as_str()), (Some(1), Some("博物馆周末开门")));
    // The term's match count (its FTS5 expression) and each phrase's document frequency.
    let query = r#"("博物" AND "物馆")"#;
    assert_eq!(rows(root), own(&[(r#""博物""#, 2), (r#""物馆""#, 2), (query, 1)]));

    // Another process reads the shared count instead of counting: a row changed by hand
    // (same FTS5 state) is what the next call reports.
    let c = rusqlite::Connection::open(root.join("index.sqlite3")).unwrap();
    c.execute("UPDATE fts_counts SET n = 7 WHERE expr = ?1", [query]).unwrap();
    assert_eq!(json(&ml(root, &["recall", "博物馆"]))["matched"].as_i64(), Some(7));

    // A write changes the FTS5 state: the rows are stale, never read again, and the next
    // query counts afresh and starts the table over.
    ml(root, &["write", "博物馆新展"]);
    let v = json(&ml(root, &["recall", "博物馆"]));
    assert_eq!(v["matched"].as_i64(), Some(2));
    assert_eq!(rows(root), own(&[(r#""博物""#, 3), (r#""物馆""#, 3), (query, 2)]));
}

#[test]
fn a_query_does_not_wait_for_another_writer_to_share_its_counts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for text in ["博物馆周末开门", "考古现场"] {
        ml(root, &["write", text]);
    }
    // Another connection holds SQLite's write lock. The query matches nothing (no usage hit
    // to record, which would wait for the lock): it answers, and its counts are not written.
    let c = rusqlite::Connection::open(root.join("index.sqlite3")).unwrap();
    c.execute_batch("BEGIN IMMEDIATE").unwrap();
    let v = json(&ml(root, &["recall", "博物 考古"]));
    assert_eq!((v["matched"].as_i64(), v["returned"].as_i64()), (Some(0), Some(0)));
    c.execute_batch("COMMIT").unwrap();
    assert_eq!(rows(root), vec![]);
    // Unlocked, the same query leaves its count: no row holds both terms (nothing to rank, so
    // no document frequency was needed).
    ml(root, &["recall", "博物 考古"]);
    assert_eq!(rows(root), own(&[(r#"("博物") AND ("考古")"#, 0)]));
}

#[test]
fn a_statement_is_compiled_once_whatever_values_it_is_bound_to() {
    let dir = tempfile::tempdir().unwrap();
    ml(dir.path(), &["write", "博物馆周末开门"]);
    let m = memlayers::Memory::open(dir.path(), memlayers::Config::default()).unwrap();
    let c = m.conn().unwrap();
    // The ranked candidates' statement: its `LIMIT ?2` is a value SQLite's planner would read,
    // and then compile the statement again after every bind (once per query).
    let mut st = c.prepare(&memlayers::query::search::ranked_sql(true, false)).unwrap();
    for (fts, cap) in [(r#""博物""#, 500i64), (r#""物馆""#, 10)] {
        let n = st.query_map(rusqlite::params![fts, cap, 0i64, i64::MAX], |_| Ok(())).unwrap().count();
        assert_eq!(n, 1);
    }
    assert_eq!(st.get_status(rusqlite::StatementStatus::RePrepare), 0);
}

//! Rule 2 of the time-window specification (corrected): a query without time intent runs
//! exactly as the same natural-language search with the time parser switched off
//! (`RetrieveArgs::no_time`) — identical ids, order, scores and counts — proven on a generated
//! archive (tools/gen_archive.rs).

#[path = "../../tests/it/common.rs"]
mod common;

use memlayers::query::retrieve::{RetrieveArgs, WindowSource};

#[test]
fn no_time_intent_means_the_parser_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let st = std::process::Command::new(env!("CARGO_BIN_EXE_gen-archive"))
        .args(["--entries", "3000", "--years", "1", "--seed", "11", "--out"])
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(st.success());
    // Two identical roots: one runs with the parser off, the other with it on, so usage hits
    // (which feed the ranking) evolve identically in both as long as the results are identical.
    let dir2 = tempfile::tempdir().unwrap();
    common::copy_tree(dir.path(), dir2.path());
    let m = common::open_at(dir.path(), "2026-11-29T12:00:00Z");
    let m2 = common::open_at(dir2.path(), "2026-11-29T12:00:00Z");
    // Queries: fixed ones plus 2-, 3- and 4-character slices and first words of entries.
    let mut queries: Vec<String> = [
        "翻唱",
        "数据库",
        "rust",
        "Token消耗",
        "会议 方案",
        "火锅 饮食",
        "GPT",
        "早报",
        "what did we decide about the database migration?",
        "我们和产品定的灰度计划是怎样的",
        "where did I put the meeting notes",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let sample = m.by_date("2025-12-01", "2026-11-29", Some(200)).unwrap();
    // The listing records usage hits (they feed the ranking): do the same on the twin root.
    m2.by_date("2025-12-01", "2026-11-29", Some(200)).unwrap();
    for (k, item) in sample.items.iter().enumerate() {
        let chars: Vec<char> = item.content.chars().filter(|c| !c.is_whitespace()).collect();
        let n = 2 + k % 3;
        if chars.len() > n + 3 {
            queries.push(chars[3..3 + n].iter().collect());
        }
        if let Some(w) = item.content.split_whitespace().next() {
            queries.push(w.to_string());
        }
    }
    // Keep only texts without time intent (pure parser, no side effects on either root).
    let tz = chrono_tz::Asia::Shanghai;
    let now = common::at("2026-11-29T12:00:00Z");
    queries.retain(|q| memlayers::temporal::parse(q, now, tz).window.is_none());
    let mut compared = 0;
    for q in &queries {
        let args = RetrieveArgs { query: q.clone(), limit: Some(20), explain: true, ..Default::default() };
        let off = m.retrieve(&RetrieveArgs { no_time: true, ..args.clone() }).unwrap();
        let on = m2.retrieve(&args).unwrap();
        let ex = on.explain.as_ref().unwrap();
        if ex.window_source != WindowSource::None {
            panic!("{q:?} parsed as a time expression: pick queries without one");
        }
        if ex.strategy != "bm25-or" {
            continue; // only stop words: nothing to score either way
        }
        let a: Vec<(i64, Option<f64>)> = off.items.iter().map(|i| (i.id, i.score)).collect();
        let b: Vec<(i64, Option<f64>)> = on.items.iter().map(|i| (i.id, i.score)).collect();
        assert_eq!(a, b, "query {q:?}");
        assert_eq!(off.matched, on.matched, "query {q:?}");
        assert!(!b.is_empty() || on.matched == 0, "query {q:?}");
        compared += 1;
    }
    assert!(compared >= 200, "only {compared} queries compared");
}

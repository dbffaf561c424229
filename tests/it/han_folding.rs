//! Traditional and Simplified Chinese are one language to search: the segmenter folds
//! Traditional characters to Simplified at index and at query time (`segment::fold_han`), so a
//! query in either script finds text in either, and results show the text as written.

use memlayers::query::retrieve::RetrieveArgs;

use crate::common::{open_at, put, recall_contents};

/// Entries in both scripts. The expected hits are worked out by reading the lines: 台積電 and
/// 台积电 are the same three characters (積/积, 電/电 a Traditional/Simplified pair each, 台
/// the same in both), 學習筆記 and 学习笔记 likewise (學/学, 習/习, 筆/笔, 記/记); 台风 shares
/// only 台 with them.
const DAY: &str = "\
- [2026-11-20T02:00:00.000Z] [財經] 台積電法說會：3奈米產能滿載
- [2026-11-20T03:00:00.000Z] [学习] 学习笔记：Rust 的所有权
- [2026-11-20T04:00:00.000Z] [學習] 學習筆記：FTS5 的分詞
- [2026-11-20T05:00:00.000Z] [天气] 台风过境，航班取消
";

fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-11/2026-11-20.md", DAY);
    dir
}

#[test]
fn either_script_finds_the_other_and_results_keep_the_text_as_written() {
    let dir = root();
    let m = open_at(dir.path(), "2026-11-29T12:00:00+08:00");
    let tsmc = vec!["台積電法說會：3奈米產能滿載".to_string()];
    assert_eq!(recall_contents(&m, "台积电", None), tsmc);
    assert_eq!(recall_contents(&m, "台積電", None), tsmc);
    let mut notes = recall_contents(&m, "學習筆記", None);
    notes.sort();
    assert_eq!(notes, ["学习笔记：Rust 的所有权", "學習筆記：FTS5 的分詞"]);
    let mut notes = recall_contents(&m, "学习笔记", None);
    notes.sort();
    assert_eq!(notes, ["学习笔记：Rust 的所有权", "學習筆記：FTS5 的分詞"]);
    // A tag in Traditional found by its Simplified spelling; the tag comes back as written.
    let r = m.recall("财经", None, None).unwrap();
    assert_eq!(r.items.len(), 1);
    assert_eq!(r.items[0].tag, "財經");
    // 分詞 (詞 → 词) by its Simplified spelling.
    assert_eq!(recall_contents(&m, "分词", None), ["學習筆記：FTS5 的分詞"]);
    // 颱風 is 台风's Traditional spelling (颱 → 台, 風 → 风).
    assert_eq!(recall_contents(&m, "颱風", None), ["台风过境，航班取消"]);
}

/// retrieve with a Traditional time word (上週: 週 → 周) and a Simplified keyword over a
/// Traditional entry: the time parser reads 上週 as last week (Mon 2026-11-16 .. Sun 11-22 for
/// Sunday 11-29), and the window's scan pre-filter, which reads the text as written, lets 積
/// through for 积.
#[test]
fn retrieve_with_a_time_word_in_either_script() {
    let dir = root();
    let m = open_at(dir.path(), "2026-11-29T12:00:00+08:00");
    for q in ["上週 台积电", "上周 台積電", "上周台积电"] {
        let r = m
            .retrieve(&RetrieveArgs { query: q.into(), limit: Some(10), explain: true, ..Default::default() })
            .unwrap();
        let got: Vec<&str> = r.items.iter().map(|i| i.content.as_str()).collect();
        assert_eq!(got, ["台積電法說會：3奈米產能滿載"], "{q}");
        assert_eq!(r.items[0].date, "2026-11-20", "{q}");
    }
}

/// The index's BM25 token counts (entry_lens) agree with what FTS5 holds for folded text:
/// `check` recounts every stored count from the text and finds nothing to report.
#[test]
fn token_counts_stay_consistent_with_fts5() {
    let dir = root();
    let m = open_at(dir.path(), "2026-11-29T12:00:00+08:00");
    let rep = m.check().unwrap();
    assert!(rep.clean, "{rep:?}");
    assert_eq!(rep.entries, 4);
}

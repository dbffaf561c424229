//! Importing another dsh data root brings its hot.md candidates and topics, its summaries and
//! its usage.json too, merged without overwriting newer local state.

use crate::common::{open_at, put};
use memlayers::Format;

const NOW: &str = "2026-10-30T12:00:00Z";
// Ledger keys are the SHA-1 of an entry's text; any 40-hex string stands for one here.
const K1: &str = "1111111111111111111111111111111111111111";
const K2: &str = "2222222222222222222222222222222222222222";
const K3: &str = "3333333333333333333333333333333333333333";

fn record(hits: u64, last_hit: &str, weight: u64) -> String {
    // lastDecayAt = now, so writing the ledger applies no decay and weights stay as written.
    format!(
        r#"{{"hits": {hits}, "firstHitAt": "2026-01-01T00:00:00.000Z", "lastHitAt": "{last_hit}", "weight": {weight}, "lastDecayAt": "2026-10-30T12:00:00.000Z"}}"#
    )
}

fn source(dir: &std::path::Path) {
    put(dir, "cold/2026-10/2026-10-20.md", "- [2026-10-20T01:00:00.000Z] [计划] 周末想去看海\n");
    put(
        dir,
        "hot.md",
        "我是小明\n\n约定：周日复盘\n\n<!-- candidates:start -->\n\
         - [2026-10-20T00:00:00.000Z] [计划] 周末想去看海\n\
         - [2026-10-21T00:00:00.000Z] [家庭] 给妈妈打电话\n<!-- candidates:end -->\n\n\
         <!-- topics:start -->\n翻唱|2026-10\n旅行|2026-09\n<!-- topics:end -->\n",
    );
    put(dir, "summaries/day/2026-10-20.md", "# 日摘要 2026-10-20\n\n- [计划] 周末想去看海\n");
    put(dir, "summaries/week/2026-W43.md", "# 周摘要 2026-W43 (source)\n");
    put(
        dir,
        "usage.json",
        &format!(
            r#"{{"version": 1, "entries": {{"{K1}": {}, "{K2}": {}, "{K3}": {}}}}}"#,
            record(3, "2026-10-20T00:00:00.000Z", 68),
            record(2, "2026-09-01T00:00:00.000Z", 56),
            record(1, "2026-10-01T00:00:00.000Z", 50),
        ),
    );
}

fn usage(root: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(root.join("usage.json")).unwrap()).unwrap()
}

#[test]
fn layers_are_merged_and_newer_local_state_wins() {
    let src = tempfile::tempdir().unwrap();
    source(src.path());
    let dst = tempfile::tempdir().unwrap();
    let d = dst.path();
    put(
        d,
        "hot.md",
        "本地正文\n\n<!-- candidates:start -->\n- [2026-10-20T00:00:00.000Z] [计划] 周末想去看海\n<!-- candidates:end -->\n\n\
         <!-- topics:start -->\n翻唱|2026-10\n<!-- topics:end -->\n",
    );
    put(d, "summaries/week/2026-W43.md", "local week\n");
    // K1: local hit later (10-25) than the source's (10-20) → local kept.
    // K2: local hit earlier (08-01) than the source's (09-01) → source replaces it.
    put(
        d,
        "usage.json",
        &format!(
            r#"{{"version": 1, "entries": {{"{K1}": {}, "{K2}": {}}}}}"#,
            record(5, "2026-10-25T00:00:00.000Z", 80),
            record(1, "2026-08-01T00:00:00.000Z", 40),
        ),
    );
    let m = open_at(d, NOW);
    let rep = m.import(src.path(), Some(Format::Dsh), &mut |_, _| {}).unwrap();
    assert_eq!(rep.entries_added, 1);
    let l = rep.layers.clone().expect("dsh import reports its layers");
    assert_eq!((l.candidates_added, l.topics_added, l.hot_body_taken), (1, 1, false));
    assert_eq!(l.summaries_copied, vec!["summaries/day/2026-10-20.md".to_string()]);
    assert_eq!((l.summaries_kept, l.usage_added, l.usage_replaced), (1, 1, 1));
    assert!(l.warnings.is_empty(), "{:?}", l.warnings);

    let hot = std::fs::read_to_string(d.join("hot.md")).unwrap();
    assert_eq!(
        hot,
        "本地正文\n\n<!-- candidates:start -->\n- [2026-10-20T00:00:00.000Z] [计划] 周末想去看海\n\
         - [2026-10-21T00:00:00.000Z] [家庭] 给妈妈打电话\n<!-- candidates:end -->\n\n\
         <!-- topics:start -->\n翻唱|2026-10\n旅行|2026-09\n<!-- topics:end -->\n"
    );
    assert_eq!(std::fs::read_to_string(d.join("summaries/week/2026-W43.md")).unwrap(), "local week\n");
    assert_eq!(
        std::fs::read_to_string(d.join("summaries/day/2026-10-20.md")).unwrap(),
        "# 日摘要 2026-10-20\n\n- [计划] 周末想去看海\n"
    );
    let u = usage(d);
    let e = &u["entries"];
    assert_eq!((e[K1]["hits"].as_u64(), e[K1]["lastHitAt"].as_str()), (Some(5), Some("2026-10-25T00:00:00.000Z")));
    assert_eq!((e[K2]["hits"].as_u64(), e[K2]["lastHitAt"].as_str()), (Some(2), Some("2026-09-01T00:00:00.000Z")));
    assert_eq!((e[K3]["hits"].as_u64(), e[K3]["weight"].as_f64()), (Some(1), Some(50.0)));
    // The index sees the merged layers: hot_get lists both candidates and both topics.
    let h = m.hot_get().unwrap();
    assert_eq!((h.content.as_str(), h.candidate_count, h.topic_count), ("本地正文", 2, 2));

    // Importing again changes nothing.
    let before = (hot, std::fs::read(d.join("usage.json")).unwrap());
    let rep = m.import(src.path(), Some(Format::Dsh), &mut |_, _| {}).unwrap();
    let l = rep.layers.unwrap();
    assert_eq!(
        (l.candidates_added, l.topics_added, l.summaries_copied.len(), l.usage_added, l.usage_replaced),
        (0, 0, 0, 0, 0)
    );
    assert_eq!(l.summaries_kept, 2);
    assert_eq!(before.0, std::fs::read_to_string(d.join("hot.md")).unwrap());
    assert_eq!(before.1, std::fs::read(d.join("usage.json")).unwrap());
}

#[test]
fn a_fresh_root_takes_the_hot_body_too() {
    let src = tempfile::tempdir().unwrap();
    source(src.path());
    let dst = tempfile::tempdir().unwrap();
    let m = open_at(dst.path(), NOW);
    let l = m.import(src.path(), None, &mut |_, _| {}).unwrap().layers.unwrap();
    assert_eq!((l.candidates_added, l.topics_added, l.hot_body_taken), (2, 2, true));
    assert_eq!(l.summaries_copied.len(), 2);
    assert_eq!((l.usage_added, l.usage_replaced), (3, 0));
    let h = m.hot_get().unwrap();
    assert_eq!(h.content, "我是小明\n\n约定：周日复盘");
    assert_eq!(h.topics.iter().map(|t| t.line()).collect::<Vec<_>>(), ["翻唱|2026-10", "旅行|2026-09"]);
    assert_eq!(usage(dst.path())["entries"].as_object().unwrap().len(), 3);
}

//! A candidate that overflows on the day it was written keeps its source marker when it sinks
//! to cold as `candidate-expired` — it is a new line, not a duplicate of the original entry.

use crate::common;

use memlayers::files::entry::Source;
use memlayers::layers::cold::WriteArgs;
use memlayers::{Config, Memory};

#[test]
fn overflowing_candidate_with_a_source_sinks_as_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = Config { candidate_max: 1, ..common::config() };
    let m = Memory::open(dir.path(), cfg).unwrap().with_now(common::at("2026-10-21T03:10:00Z"));
    let src = Source { conv: "private:1".into(), seq: "7".into(), msg_id: None };
    let a =
        WriteArgs { text: "周末想去看海".into(), tag: Some("计划".into()), important: true, source: Some(src) };
    assert_eq!(m.write(&a).unwrap().candidate_index, 1);
    let b = WriteArgs { text: "买一双跑鞋".into(), tag: Some("计划".into()), important: true, source: None };
    assert_eq!(m.write(&b).unwrap().candidate_index, 2);
    let got = m.hot_get().unwrap();
    assert_eq!((got.pruned.overflow, got.pruned.kept), (1, 1));
    let cold = std::fs::read_to_string(dir.path().join("cold/2026-10/2026-10-21.md")).unwrap();
    // 03:10Z is 11:10 in Shanghai, still 2026-10-21; three lines: the two writes and the sunk one.
    assert_eq!(
        cold,
        "- [2026-10-21T03:10:00.000Z] [计划] 周末想去看海 〔src:private:1#7〕\n\
         - [2026-10-21T03:10:00.000Z] [计划] 买一双跑鞋\n\
         - [2026-10-21T03:10:00.000Z] [candidate-expired] [计划] 周末想去看海 〔src:private:1#7〕\n"
    );
}

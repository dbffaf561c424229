//! Which hand edits a per-call handle (`Memory::open_per_call`, what the CLI uses)
//! sees, and when. Zone Asia/Shanghai (UTC+8); "now" 2026-10-22T04:00:00Z is 2026-10-22 12:00
//! local. Every expected list below is the file content written by the test itself.

use crate::common;

use std::io::Write;
use std::path::Path;

use common::*;
use memlayers::Memory;

const NOW: &str = "2026-10-22T04:00:00Z";

/// A data root with three day files in two month folders, mirrored once.
fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-09/2026-09-15.md", "# 2026-09-15\n\n- [2026-09-15T01:00:00.000Z] [-] 九月的旧笔记\n");
    put(dir.path(), "cold/2026-10/2026-10-20.md", "# 2026-10-20\n\n- [2026-10-20T01:00:00.000Z] [-] 午饭吃了牛肉面\n");
    put(dir.path(), "cold/2026-10/2026-10-21.md", "# 2026-10-21\n\n- [2026-10-21T01:00:00.000Z] [-] 晚上去跑步\n");
    drop(Memory::open(dir.path(), config()).unwrap());
    dir
}

fn per_call(root: &Path) -> Memory {
    Memory::open_per_call(root, config()).unwrap().with_now(at(NOW))
}

fn day(m: &Memory, d: &str) -> Vec<String> {
    m.by_date(d, d, Some(50)).unwrap().items.into_iter().map(|i| i.content).collect()
}

/// Size the index last recorded for a cold file (what the last check of that file saw).
fn indexed_size(m: &Memory, rel: &str) -> i64 {
    m.conn().unwrap().query_row("SELECT size FROM files WHERE path = ?1", [rel], |r| r.get(0)).unwrap()
}

#[test]
fn an_append_with_shell_redirection_is_seen_by_the_next_call() {
    let dir = root();
    let p = dir.path().join("cold/2026-10/2026-10-21.md");
    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    writeln!(f, "- [2026-10-21T02:00:00.000Z] [-] 追加的一行").unwrap();
    drop(f);
    assert_eq!(day(&per_call(dir.path()), "2026-10-21"), ["追加的一行", "晚上去跑步"]);
}

#[test]
fn an_editor_save_by_rename_is_seen_by_the_next_call() {
    let dir = root();
    let tmp = dir.path().join("cold/2026-10/.2026-10-20.md.swp");
    std::fs::write(&tmp, "# 2026-10-20\n\n- [2026-10-20T01:00:00.000Z] [-] 午饭吃了拉面\n").unwrap();
    std::fs::rename(&tmp, dir.path().join("cold/2026-10/2026-10-20.md")).unwrap();
    assert_eq!(day(&per_call(dir.path()), "2026-10-20"), ["午饭吃了拉面"]);
}

#[test]
// ctime is a Unix `stat` field: without it (portable-fallback, macOS/Windows code paths) such an
// edit is seen only once its size or mtime differs (src/files/identity.rs).
#[cfg(all(unix, not(feature = "portable-fallback")))]
fn a_same_size_edit_with_the_mtime_restored_is_seen_through_the_ctime() {
    let dir = root();
    let p = dir.path().join("cold/2026-10/2026-10-20.md");
    let before = std::fs::metadata(&p).unwrap();
    // 牛 and 羊 are both 3 bytes in UTF-8: same size, same inode (written in place).
    let text = std::fs::read_to_string(&p).unwrap().replace("牛肉面", "羊肉面");
    std::fs::OpenOptions::new().write(true).open(&p).unwrap().write_all(text.as_bytes()).unwrap();
    std::fs::File::options().write(true).open(&p).unwrap().set_modified(before.modified().unwrap()).unwrap();
    let after = std::fs::metadata(&p).unwrap();
    assert_eq!((after.len(), after.modified().unwrap()), (before.len(), before.modified().unwrap()));
    assert_eq!(day(&per_call(dir.path()), "2026-10-20"), ["午饭吃了羊肉面"]);
}

#[test]
fn new_files_new_month_folders_and_deletions_are_seen_by_the_next_call() {
    let dir = root();
    put(dir.path(), "cold/2026-11/2026-11-01.md", "# 2026-11-01\n\n- [2026-11-01T01:00:00.000Z] [-] 十一月第一天\n");
    std::fs::remove_file(dir.path().join("cold/2026-10/2026-10-21.md")).unwrap();
    let m = per_call(dir.path());
    assert_eq!(day(&m, "2026-11-01"), ["十一月第一天"]);
    assert!(day(&m, "2026-10-21").is_empty());
    assert_eq!(recall_contents(&m, "十一月", None), ["十一月第一天"]);
}

#[test]
fn a_windowed_call_checks_only_its_window_and_an_unwindowed_one_checks_everything() {
    let dir = root();
    let p = dir.path().join("cold/2026-09/2026-09-15.md");
    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    writeln!(f, "- [2026-09-15T02:00:00.000Z] [-] 补记的旧事").unwrap();
    drop(f);
    let grown = std::fs::metadata(&p).unwrap().len() as i64;
    let m = per_call(dir.path());
    let old = indexed_size(&m, "cold/2026-09/2026-09-15.md");
    assert!(old < grown);
    // A window elsewhere neither reads nor checks the September file.
    assert_eq!(day(&m, "2026-10-21"), ["晚上去跑步"]);
    assert_eq!(indexed_size(&m, "cold/2026-09/2026-09-15.md"), old);
    // A window that reads it, or an unwindowed query, mirrors it first.
    assert_eq!(recall_contents(&m, "补记", None), ["补记的旧事"]);
    assert_eq!(indexed_size(&m, "cold/2026-09/2026-09-15.md"), grown);
    assert_eq!(day(&m, "2026-09-15"), ["补记的旧事", "九月的旧笔记"]);
    assert!(m.check().unwrap().clean);
}

#[test]
fn retrieve_in_a_time_window_sees_a_new_file_on_a_day_it_widens_to() {
    // 上周 from Thursday 2026-10-22 is Mon 2026-10-12 … Sun 2026-10-18: no entry there, so
    // retrieve widens a week by ±1 day (2026-10-11 … 2026-10-19) and reads 10-19, a file
    // created after the index was built.
    let dir = root();
    put(dir.path(), "cold/2026-10/2026-10-19.md", "# 2026-10-19\n\n- [2026-10-19T02:00:00.000Z] [-] 周日的面条\n");
    let m = per_call(dir.path());
    let args = memlayers::query::retrieve::RetrieveArgs {
        query: "上周 面条".into(),
        time_range: None,
        tz: None,
        limit: Some(10),
        ..Default::default()
    };
    let got: Vec<String> = m.retrieve(&args).unwrap().items.into_iter().map(|i| i.content).collect();
    assert_eq!(got, ["周日的面条"]);
}

#[test]
fn a_per_call_handle_leaves_throttled_hits_to_the_next_call() {
    let dir = root();
    let hits = |root: &Path| -> u64 {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("usage.json")).unwrap()).unwrap();
        let k = memlayers::layers::usage::key("晚上去跑步");
        v["entries"][k.as_str()]["hits"].as_u64().unwrap()
    };
    // First hit: no write yet, so the throttle lets it through at once.
    let m = per_call(dir.path());
    assert_eq!(day(&m, "2026-10-21"), ["晚上去跑步"]);
    drop(m);
    assert_eq!(hits(dir.path()), 1);
    // One second later (usageThrottleMs 5000): committed in the index, not written, and a
    // per-call handle does not flush at drop.
    let m = Memory::open_per_call(dir.path(), config()).unwrap().with_now(at("2026-10-22T04:00:01Z"));
    assert_eq!(day(&m, "2026-10-21"), ["晚上去跑步"]);
    drop(m);
    assert_eq!(hits(dir.path()), 1);
    // The next open, on the real clock (weeks later than the pinned instants), writes it.
    drop(Memory::open_per_call(dir.path(), config()).unwrap());
    assert_eq!(hits(dir.path()), 2);
}

#[test]
fn the_cli_sees_an_append_to_an_old_day_file() {
    let dir = root();
    let p = dir.path().join("cold/2026-09/2026-09-15.md");
    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    writeln!(f, "- [2026-09-15T03:00:00.000Z] [-] 命令行能看到的补记").unwrap();
    drop(f);
    let out = crate::common::cli()
        .args(["--data-root", dir.path().to_str().unwrap(), "--tz", "Asia/Shanghai", "--json", "recall", "命令行"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["items"][0]["content"], "命令行能看到的补记");
    assert_eq!(v["returned"], 1);
}

#[test]
fn unwindowed_retrieve_and_by_tag_see_an_edit_made_before_the_call() {
    // These answer while a second thread checks every cold file; an edit found there is
    // mirrored and the query run again, so the answer includes it.
    let dir = root();
    let p = dir.path().join("cold/2026-09/2026-09-15.md");
    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    writeln!(f, "- [2026-09-15T03:00:00.000Z] [旅行] 订了去大理的机票").unwrap();
    drop(f);
    let m = per_call(dir.path());
    let r =
        m.retrieve(&memlayers::query::retrieve::RetrieveArgs { query: "大理机票".into(), ..Default::default() });
    assert_eq!(r.unwrap().items.into_iter().map(|i| i.content).collect::<Vec<_>>(), ["订了去大理的机票"]);
    drop(m);
    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    writeln!(f, "- [2026-09-15T04:00:00.000Z] [旅行] 订了洱海边的民宿").unwrap();
    drop(f);
    let got: Vec<String> =
        per_call(dir.path()).by_tag("旅行", None).unwrap().items.into_iter().map(|i| i.content).collect();
    assert_eq!(got, ["订了洱海边的民宿", "订了去大理的机票"]);
}

/// hot.md and usage.json edited in place to the same size, their mtime restored: seen through
/// the ctime (migration V10) by a per-call handle and by a long-lived one (whose watch on the
/// data root reports the write; the stat then differs only in ctime).
#[test]
#[cfg(all(unix, not(feature = "portable-fallback")))]
fn same_size_edits_of_hot_md_and_usage_json_with_the_mtime_restored_are_seen() {
    use memlayers::layers::usage::key;
    let dir = root();
    let (hot, usage) = (dir.path().join("hot.md"), dir.path().join("usage.json"));
    let k = key("午饭吃了牛肉面");
    std::fs::write(&hot, "# 关于林舟\n\n喜欢跑步。\n").unwrap();
    let ledger = |w: u32| {
        format!(
            "{{\n  \"version\": 1,\n  \"entries\": {{\n    \"{k}\": {{\n      \"hits\": 3,\n      \"weight\": {w}\n    }}\n  }}\n}}\n"
        )
    };
    std::fs::write(&usage, ledger(12)).unwrap();
    // Rewrites `p` in place with `text` (same size) and puts its mtime back.
    let edit = |p: &Path, text: &str| {
        let before = std::fs::metadata(p).unwrap();
        assert_eq!(before.len(), text.len() as u64);
        std::fs::OpenOptions::new().write(true).open(p).unwrap().write_all(text.as_bytes()).unwrap();
        std::fs::File::options().write(true).open(p).unwrap().set_modified(before.modified().unwrap()).unwrap();
        let after = std::fs::metadata(p).unwrap();
        assert_eq!((after.len(), after.modified().unwrap()), (before.len(), before.modified().unwrap()));
    };
    let weight = |m: &Memory| m.usage_records(std::slice::from_ref(&k)).unwrap().entries[&k].weight;
    let long = Memory::open(dir.path(), config()).unwrap().with_now(at(NOW));
    assert_eq!(long.hot_get().unwrap().content.trim_end(), "# 关于林舟\n\n喜欢跑步。");
    assert_eq!(weight(&long), 12.0);
    // 舟, 洲 and 州 are 3 bytes each in UTF-8; 12 and 13 two digits.
    edit(&hot, "# 关于林洲\n\n喜欢跑步。\n");
    edit(&usage, &ledger(13));
    assert_eq!(long.hot_get().unwrap().content.trim_end(), "# 关于林洲\n\n喜欢跑步。");
    assert_eq!(weight(&long), 13.0);
    edit(&hot, "# 关于林州\n\n喜欢跑步。\n");
    edit(&usage, &ledger(14));
    let pc = per_call(dir.path());
    assert_eq!(pc.hot_get().unwrap().content.trim_end(), "# 关于林州\n\n喜欢跑步。");
    assert_eq!(weight(&pc), 14.0);
}

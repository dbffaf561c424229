//! The per-day entry limit through the CLI: a day file holding 2^20 − 1 entries (the 20
//! ordinal bits of a date-encoded entry id) takes no more. Before, `write` appended the line,
//! said `added: true`, and no query ever found it. ~40 MB written, one child process.

use crate::common::{cli, config, open_at, put};

/// A day file of 2^20 − 1 entry lines (the most one day can index), each `e<i>`.
fn full_day() -> String {
    let max = (1usize << 20) - 1;
    let mut text = String::with_capacity(max * 40);
    for i in 0..max {
        text.push_str(&format!("- [2026-10-21T02:00:00.000Z] [-] e{i}\n"));
    }
    text
}

/// `write` into a full day exits 2 naming the limit and leaves the file byte for byte as it was.
#[test]
#[ignore = "heavy: run by .ci/run"]
fn a_write_into_a_full_day_is_refused_before_the_file_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    // An index that mirrors another day: a per-call write then mirrors nothing before it writes.
    put(dir.path(), "cold/2026-10/2026-10-20.md", "- [2026-10-20T02:00:00.000Z] [-] 前一天\n");
    drop(open_at(dir.path(), "2026-10-21T04:00:00Z"));
    let text = full_day();
    let path = dir.path().join("cold/2026-10/2026-10-21.md");
    put(dir.path(), "cold/2026-10/2026-10-21.md", &text);
    let o = cli()
        .arg("--data-root")
        .arg(dir.path())
        .args(["--tz", "Asia/Shanghai", "--now", "2026-10-21T04:00:00Z", "write", "再多一条"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("date") && err.contains("already holds 1048575 entries"), "{err}");
    assert!(std::fs::read(&path).unwrap() == text.as_bytes(), "the day file was changed");
}

/// An import whose entries would land in a full day writes none of them and says so: not
/// counted as added nor as already present, counted in `entriesOverLimit` and named in a
/// warning. (The day file is left unindexed, and the handle is a per-call one that mirrors
/// nothing at open, so the test costs one read of the 40 MB file, not a million inserts.)
#[test]
#[ignore = "heavy: run by .ci/run"]
fn an_import_into_a_full_day_reports_what_it_did_not_write() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-10/2026-10-20.md", "- [2026-10-20T02:00:00.000Z] [-] 前一天\n");
    drop(open_at(dir.path(), "2026-10-21T04:00:00Z"));
    let text = full_day();
    put(dir.path(), "cold/2026-10/2026-10-21.md", &text);
    let src = tempfile::tempdir().unwrap();
    put(
        src.path(),
        "cold/2026-10/2026-10-21.md",
        "- [2026-10-21T03:00:00.000Z] [-] 多出来的一条\n- [2026-10-21T03:01:00.000Z] [-] 又一条\n",
    );
    let m = memlayers::Memory::open_per_call(dir.path(), config()).unwrap();
    let rep = m.import(src.path(), Some(memlayers::import::Format::Dsh), &mut |_, _| {}).unwrap();
    assert_eq!(
        (rep.entries_found, rep.entries_added, rep.entries_already_present, rep.entries_over_limit),
        (2, 0, 0, 2)
    );
    assert!(
        rep.warnings.iter().any(|w| w.starts_with("cold/2026-10/2026-10-21.md: 2 entries of 2026-10-21 not imported")),
        "{:?}",
        rep.warnings
    );
    let after = std::fs::read(dir.path().join("cold/2026-10/2026-10-21.md")).unwrap();
    assert!(after == text.as_bytes(), "the day file was changed");
}

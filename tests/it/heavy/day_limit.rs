//! The per-day entry limit through the CLI: a day file holding 2^20 − 1 entries (the 20
//! ordinal bits of a date-encoded entry id) takes no more. Before, `write` appended the line,
//! said `added: true`, and no query ever found it. ~40 MB written, one child process.

use crate::common::{cli, open_at, put};

/// `write` into a full day exits 2 naming the limit and leaves the file byte for byte as it was.
#[test]
#[ignore = "heavy: run by .ci/run"]
fn a_write_into_a_full_day_is_refused_before_the_file_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    // An index that mirrors another day: a per-call write then mirrors nothing before it writes.
    put(dir.path(), "cold/2026-10/2026-10-20.md", "- [2026-10-20T02:00:00.000Z] [-] 前一天\n");
    drop(open_at(dir.path(), "2026-10-21T04:00:00Z"));
    let max = (1usize << 20) - 1;
    let mut text = String::with_capacity(max * 40);
    for i in 0..max {
        text.push_str(&format!("- [2026-10-21T02:00:00.000Z] [-] e{i}\n"));
    }
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

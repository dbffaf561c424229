//! The benchmark runner's smoke run (CI): `bench --smoke` on a 10 000-entry archive must finish
//! and write a complete report. Speed is reported, never asserted (a shared CI machine's timings vary
//! too much to fail on).

use std::process::Command;

#[test]
fn smoke_run_writes_a_complete_report() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("report.md");
    let run = Command::new(env!("CARGO_BIN_EXE_bench"))
        .args(["--smoke", "--work", work.path().to_str().unwrap(), "--out", out.to_str().unwrap()])
        .args(["--gen-archive", env!("CARGO_BIN_EXE_gen-archive")])
        .output()
        .expect("run bench");
    assert!(run.status.success(), "bench failed: {}", String::from_utf8_lossy(&run.stderr));
    let md = std::fs::read_to_string(&out).unwrap();
    // The run checks itself that both imports indexed exactly 10 000 entries (else it fails).
    assert!(md.contains("| 10 000 | 1.1 MB, 1718 files |"), "{md}");
    // Smoke iterations: 16 queries of the mix × 2 repeats unwindowed, × 2 anchor days per
    // window kind → 32 calls in every row of the whole-mix table.
    for w in ["none", "day", "week", "month", "year"] {
        assert!(md.contains(&format!("| 10 000 | {w} | 32 |")), "{w}: {md}");
    }
    // 12 natural-language queries and 6 window-only queries, one row each.
    assert_eq!(md.lines().filter(|l| l.starts_with("| `")).count(), 12 + 6, "{md}");
    // Seven targets, each with a verdict.
    let targets = md.split("## Targets").nth(1).expect("targets section");
    assert_eq!(targets.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| target")).count(), 7, "{targets}");
    // The machine line names the cores and the bundled SQLite.
    assert!(md.contains(&format!("SQLite {}", rusqlite::version())), "{md}");
}

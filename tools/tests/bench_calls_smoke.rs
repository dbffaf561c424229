//! The per-call benchmark's smoke run (CI): `bench-calls` on a small synced data root must
//! finish and write a complete report and chart. Speed is reported, never asserted (a shared CI machine's timings vary
//! too much to fail on).

use std::path::PathBuf;
use std::process::Command;

/// The `memlayers` binary of this workspace build (target/<profile>/memlayers, next to the
/// folder of this test's executable); `cargo test --workspace` builds it for the root
/// package's own tests.
fn memlayers_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().and_then(|d| d.parent()).unwrap().join("memlayers");
    assert!(bin.exists(), "{} missing: run `cargo test --workspace` (it builds the CLI)", bin.display());
    bin
}

#[test]
fn smoke_run_writes_a_report_and_a_chart() {
    // ripgrep is a baseline of the benchmark: without it the report has no rg column to check.
    let rg = Command::new("rg").arg("--version").output();
    assert!(
        rg.is_ok_and(|o| o.status.success()),
        "ripgrep (`rg`) must be installed for the benchmark's smoke run (apt-get install ripgrep; .ci/run installs it)"
    );
    let work = tempfile::tempdir().unwrap();
    let root = work.path().join("root");
    let gen_out = Command::new(env!("CARGO_BIN_EXE_gen-archive"))
        .args(["--out", root.to_str().unwrap(), "--entries", "2000", "--years", "1", "--seed", "7"])
        .output()
        .unwrap();
    assert!(gen_out.status.success(), "{}", String::from_utf8_lossy(&gen_out.stderr));
    let cfg = memlayers::Config { timezone: chrono_tz::Asia::Shanghai, ..memlayers::Config::default() };
    let m = memlayers::Memory::open(&root, cfg).unwrap();
    assert_eq!(m.open_report().entries_indexed, 2000);
    drop(m);
    let (md, svg) = (work.path().join("calls.md"), work.path().join("calls.svg"));
    let run = Command::new(env!("CARGO_BIN_EXE_bench-calls"))
        .args(["--root", root.to_str().unwrap(), "--repeats", "1", "--anchors", "1"])
        .arg("--memlayers")
        .arg(memlayers_bin())
        .args(["--out", md.to_str().unwrap(), "--svg", svg.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(run.status.success(), "bench-calls failed: {}", String::from_utf8_lossy(&run.stderr));
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains("## 2 000 entries"), "{md}");
    // 7 query classes × 5 window kinds (none, day, week, month, year), one row each.
    let rows = md.lines().filter(|l| l.starts_with("| zh") || l.starts_with("| latin")).count();
    assert_eq!(rows, 35, "{md}");
    let targets = md.split("## Targets").nth(1).expect("targets section");
    assert!(targets.contains("index ≤ 2.0× the archive"), "{targets}");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("ripgrep, whole archive"), "{svg}");
}

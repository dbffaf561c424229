//! The `gen-archive` binary end to end: its CLI contract (flags, exit codes, messages) and
//! byte-for-byte reproducibility across runs of the built program.

use std::path::Path;
use std::process::Command;

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gen-archive")).args(args).output().expect("run gen-archive")
}

/// Concatenation of (relative path, bytes) of every file under `root`, sorted by path.
fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.strip_prefix(root).unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn two_runs_write_the_same_bytes() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for dir in [&a, &b] {
        let out = run(&[
            "--out",
            dir.path().to_str().unwrap(),
            "--entries",
            "2500",
            "--years",
            "1",
            "--seed",
            "42",
            "--start-date",
            "2025-01-01",
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout).unwrap();
        // 2025-01-01 + 1 year: 365 days, last day 2025-12-31, default zone Asia/Shanghai.
        assert!(stdout.contains("2500 entries in "), "{stdout}");
        assert!(stdout.contains("2025-01-01 … 2025-12-31, Asia/Shanghai"), "{stdout}");
    }
    let (mut sa, sb) = (snapshot(a.path()), snapshot(b.path()));
    assert_eq!(sa, sb);
    // The zone record (last in path order: "cold/…" < "memlayers.json"), and otherwise only day
    // files under cold/YYYY-MM/, each starting with its heading.
    assert_eq!(sa.pop(), Some(("memlayers.json".to_string(), b"{\"timezone\":\"Asia/Shanghai\"}\n".to_vec())));
    assert!(!sa.is_empty());
    for (rel, bytes) in &sa {
        let day = &rel[rel.len() - 13..rel.len() - 3];
        assert_eq!(rel, &format!("cold/{}/{day}.md", &day[..7]));
        assert!(bytes.starts_with(format!("# {day}\n").as_bytes()));
    }
    let lines: usize = sa.iter().map(|(_, b)| b.iter().filter(|&&c| c == b'\n').count()).sum();
    assert_eq!(lines, 2500 + sa.len());
}

#[test]
fn bad_flags_exit_2_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = run(&["--out", d, "--entries", "10", "--years", "1", "--seed", "1", "--tz", "Mars/Olympus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid tz"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(&["--out", d, "--entries", "10", "--years", "0", "--seed", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid years"));
    // Missing required flag: clap's own usage error, also exit code 2.
    let out = run(&["--out", d, "--entries", "10", "--years", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--seed"));
    // Nothing was written by the failed runs.
    assert!(std::fs::read_dir(dir.path()).unwrap().next().is_none());
}

/// The archive records the zone its files are dated in, as memlayers records a data root's,
/// and refuses a folder that records another one (newcomer test: a generated archive imported
/// without --tz on a UTC machine made a UTC root with 12 730 misdated entries).
#[test]
fn the_archive_records_its_zone_and_refuses_a_root_of_another() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = run(&["--out", d, "--entries", "20", "--years", "1", "--seed", "3", "--tz", "Europe/Berlin"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("memlayers.json")).unwrap(),
        "{\"timezone\":\"Europe/Berlin\"}\n"
    );
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("memlayers.json"), "{\"timezone\":\"Asia/Tokyo\"}\n").unwrap();
    let o = other.path().to_str().unwrap();
    let out = run(&["--out", o, "--entries", "20", "--years", "1", "--seed", "3", "--tz", "Europe/Berlin"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tz") && err.contains("Asia/Tokyo"), "{err}");
    assert!(!other.path().join("cold").exists());
    // A record that cannot be read is left as it is, and nothing is written.
    std::fs::write(other.path().join("memlayers.json"), "{\"timezone\":\"Europe/Berlin\",}\n").unwrap();
    let out = run(&["--out", o, "--entries", "20", "--years", "1", "--seed", "3", "--tz", "Europe/Berlin"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not JSON"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        std::fs::read_to_string(other.path().join("memlayers.json")).unwrap(),
        "{\"timezone\":\"Europe/Berlin\",}\n"
    );
    assert!(!other.path().join("cold").exists());
}

//! The size target: the index is at most 2.0× the archive's bytes, on a generated archive of
//! the benchmark's shape (1 000 000 entries over 10 years, `gen-archive`'s mix of Chinese and
//! English text, tags and sources: 104 MB of day files). A ratio, not a timing.
//!
//! Why this size and not a smaller, faster archive: the ratio falls as an archive grows, and
//! 2.0× holds only from a few hundred thousand entries of this shape on. Each FTS5 term costs
//! a dictionary entry plus a doclist whose rowid deltas shrink as entries get denser, so small
//! archives pay more per entry. Measured with this generator at 290 entries a day (the 1M
//! archive's density; index after the compaction a bulk load ends with), before migration V11
//! dropped FTS5's docsize table: 10k entries 2.44×, 30k 2.20×, 100k 2.04×, 300k 2.00×, 500k
//! 1.996×, 1M 1.983×; since V11, 100k 1.92×, 300k 1.88× (274 a day), 1M 1.88×.

use std::path::Path;
use std::process::Command;

fn dir_bytes(dir: &Path) -> u64 {
    let mut total = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let meta = e.metadata().unwrap();
        total += if meta.is_dir() { dir_bytes(&e.path()) } else { meta.len() };
    }
    total
}

#[test]
#[ignore = "heavy: run by .ci/run"]
fn the_index_is_at_most_twice_the_archive_at_a_million_entries() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gen-archive"))
        .args(["--out", dir.path().to_str().unwrap(), "--entries", "1000000", "--years", "10", "--seed", "42"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let config = memlayers::Config { timezone: chrono_tz::Asia::Shanghai, ..memlayers::Config::default() };
    let mem = memlayers::Memory::open(dir.path(), config).unwrap();
    assert_eq!(mem.open_report().entries_indexed, 1_000_000);
    assert!(mem.open_report().malformed.is_empty(), "{:?}", &mem.open_report().malformed[..3]);
    drop(mem);
    let archive = dir_bytes(&dir.path().join("cold"));
    // The index is the database and whatever its WAL still holds.
    let index: u64 = ["index.sqlite3", "index.sqlite3-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(dir.path().join(f)).ok())
        .map(|m| m.len())
        .sum();
    let ratio = index as f64 / archive as f64;
    assert!(archive > 100_000_000, "{archive} bytes of day files");
    assert!(ratio <= 2.0, "index {index} bytes for an archive of {archive} bytes: {ratio:.3}×");
}

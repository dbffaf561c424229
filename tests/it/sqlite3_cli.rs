//! A stock `sqlite3` (Debian's, 3.40+) opens the index and runs every ready query of the
//! README (its `-- query: NAME` blocks). Expected values are computed here from the example
//! archive's files with a naive line reader, independently of the engine. Needs the `sqlite3` binary (CI installs it).

use crate::common;

use std::collections::BTreeMap;
use std::process::Command;

/// The ```sql blocks of README.md, keyed by their `-- query: NAME` line.
fn readme_queries() -> BTreeMap<String, String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let mut out = BTreeMap::new();
    let mut rest = readme.as_str();
    while let Some(start) = rest.find("```sql\n") {
        let body = &rest[start + 7..];
        let end = body.find("```").unwrap();
        let block = &body[..end];
        if let Some(name) = block.lines().next().and_then(|l| l.strip_prefix("-- query: ")) {
            out.insert(name.trim().to_string(), block.to_string());
        }
        rest = &body[end..];
    }
    out
}

/// (day, tag, content) of every entry line of the archive, read naively.
fn naive_entries(root: &std::path::Path) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for month in std::fs::read_dir(root.join("cold")).unwrap() {
        for f in std::fs::read_dir(month.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            let day = p.file_stem().unwrap().to_string_lossy().into_owned();
            for line in std::fs::read_to_string(&p).unwrap().lines() {
                let Some(rest) = line.strip_prefix("- [") else { continue };
                let after_ts = &rest[rest.find("] [").unwrap() + 3..];
                let (tag, text) = after_ts.split_once("] ").unwrap();
                let text = match text.rfind(" 〔src:") {
                    Some(i) if text.ends_with('〕') => &text[..i],
                    _ => text,
                };
                out.push((day.clone(), tag.to_string(), text.to_string()));
            }
        }
    }
    out
}

fn sqlite3_json(db: &std::path::Path, sql: &str) -> Vec<serde_json::Map<String, serde_json::Value>> {
    use std::io::Write;
    let mut child = Command::new("sqlite3")
        .arg("-json")
        .arg("-readonly")
        .arg(db)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the sqlite3 command-line shell must be installed (apt-get install sqlite3)");
    child.stdin.take().unwrap().write_all(sql.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "sqlite3 failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    if text.trim().is_empty() { vec![] } else { serde_json::from_str(&text).unwrap() }
}

/// Asserts that the `content` column of `rows` is, as a multiset, the content of the naive
/// entries that `pick(day, tag, content)` selects (and that there is at least one).
fn assert_same_contents(
    rows: &[serde_json::Map<String, serde_json::Value>],
    naive: &[(String, String, String)],
    pick: impl Fn(&str, &str, &str) -> bool,
) {
    let mut got: Vec<String> = rows.iter().map(|r| r["content"].as_str().unwrap().to_string()).collect();
    let mut want: Vec<String> = naive.iter().filter(|(d, t, c)| pick(d, t, c)).map(|(_, _, c)| c.clone()).collect();
    got.sort();
    want.sort();
    assert!(!want.is_empty());
    assert_eq!(got, want);
}

#[test]
fn stock_sqlite3_runs_the_readme_queries() {
    let dir = tempfile::tempdir().unwrap();
    let archive = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/archive");
    common::copy_tree(&archive, dir.path());
    drop(common::open_at(dir.path(), "2026-11-29T12:00:00Z"));
    let db = dir.path().join("index.sqlite3");
    let naive = naive_entries(dir.path());
    let q = readme_queries();
    assert_eq!(q.keys().collect::<Vec<_>>(), ["keyword-in-month", "tag-counts", "week"]);

    // The week query returns exactly the entries of 2026-11-16 … 2026-11-22.
    let week = |d: &str, _: &str, _: &str| ("2026-11-16"..="2026-11-22").contains(&d);
    assert_same_contents(&sqlite3_json(&db, &q["week"]), &naive, week);
    // The keyword query returns exactly October's entries whose text or tag holds 翻唱.
    let october_covers =
        |d: &str, t: &str, c: &str| d.starts_with("2026-10") && (c.contains("翻唱") || t.contains("翻唱"));
    assert_same_contents(&sqlite3_json(&db, &q["keyword-in-month"]), &naive, october_covers);

    let tags = sqlite3_json(&db, &q["tag-counts"]);
    let got: BTreeMap<String, i64> =
        tags.iter().map(|r| (r["tag"].as_str().unwrap().to_string(), r["n"].as_i64().unwrap())).collect();
    let mut want: BTreeMap<String, i64> = BTreeMap::new();
    for (_, t, _) in &naive {
        *want.entry(t.clone()).or_default() += 1;
    }
    assert_eq!(got, want);
}

//! The bundled example data root (`examples/archive/`) is readable by the crate's own parser
//! and holds the answers `examples/README.md` promises.

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use memlayers::files::entry::{Entry, LineKind, parse_line};
use memlayers::files::{day_of_cold_rel, local_date};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/archive")
}

fn d(m: u32, day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(2026, m, day).unwrap()
}

/// Every entry with its file's date; panics on any line that is neither the heading nor an
/// entry, and on any entry whose Asia/Shanghai local date is not its file's date.
fn entries() -> Vec<(NaiveDate, Entry)> {
    let mut out = Vec::new();
    let mut months: Vec<_> = std::fs::read_dir(root().join("cold")).unwrap().map(|e| e.unwrap().path()).collect();
    months.sort();
    for m in months {
        let mut files: Vec<_> = std::fs::read_dir(&m).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files {
            let rel = f.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/");
            let day = day_of_cold_rel(&rel).unwrap_or_else(|| panic!("not a day file: {rel}"));
            let text = std::fs::read_to_string(&f).unwrap();
            let mut lines = text.lines();
            assert_eq!(lines.next(), Some(format!("# {day}").as_str()));
            for line in lines {
                let LineKind::Entry(e) = parse_line(line) else { panic!("{rel}: {line:?}") };
                assert_eq!(local_date(e.ts, chrono_tz::Asia::Shanghai), day, "{rel}: {line}");
                out.push((day, e));
            }
        }
    }
    out
}

#[test]
fn archive_parses_and_matches_the_readme() {
    let all = entries();
    // examples/README.md: 457 entries, 2026-08-01 … 2026-11-29.
    assert_eq!(all.len(), 457);
    assert_eq!(all.first().unwrap().0, d(8, 1));
    assert_eq!(all.last().unwrap().0, d(11, 29));
    assert!(!root().join("usage.json").exists());

    let tagged_in = |tag: &str, from: NaiveDate, to: NaiveDate| -> Vec<&Entry> {
        all.iter().filter(|(day, e)| e.tag == tag && (from..=to).contains(day)).map(|(_, e)| e).collect()
    };
    // 上周 约定: the three agreements of 2026-11-16 … 22, the first one written at
    // 2026-11-15T23:45Z (a UTC date outside the week).
    let agreed = tagged_in("约定", d(11, 16), d(11, 22));
    assert_eq!(agreed.len(), 3);
    assert!(agreed[0].content.starts_with("和阿雯约定：每周三晚上我不加班"));
    assert_eq!(agreed[0].ts.date_naive(), d(11, 15));
    // 最近7天 开销: seven entries, 64 + 459 + 276 + 186 + 368 + 799 + 213 = 2365 元.
    let spent = tagged_in("开销", d(11, 23), d(11, 29));
    assert_eq!(spent.len(), 7);
    let yuan: u32 = spent
        .iter()
        .map(|e| {
            let before = e.content.split(" 元").next().unwrap();
            before.rsplit(|c: char| !c.is_ascii_digit()).next().unwrap().parse::<u32>().unwrap()
        })
        .sum();
    assert_eq!(yuan, 2365);
    // 前天晚上吃了什么: on 2026-11-27 only the 火锅 dinner mentions 吃.
    let ate: Vec<_> = all.iter().filter(|(day, e)| *day == d(11, 27) && e.content.contains('吃')).collect();
    assert_eq!(ate.len(), 1);
    assert!(ate[0].1.content.starts_with("晚饭吃了火锅"));
    // 10月下旬 读书笔记: three notes.
    let notes = all.iter().filter(|(day, e)| (d(10, 21)..=d(10, 31)).contains(day) && e.content.contains("读书笔记"));
    assert_eq!(notes.count(), 3);
    // 翻唱 by tag: 13 across four months; side-project: 11, in English (two quote a Chinese
    // term: 翻唱 on 08-30, 上周 on 11-08).
    assert_eq!(tagged_in("翻唱", d(8, 1), d(11, 29)).len(), 13);
    let side = tagged_in("side-project", d(8, 1), d(11, 29));
    assert_eq!(side.len(), 11);
    assert_eq!(side.iter().filter(|e| e.content.is_ascii()).count(), 9);
}

/// The example root records its zone (`memlayers.json`), so a copy opened in another zone
/// (here UTC, as on a server) keeps Shanghai's local dates: the 7 entries whose UTC date
/// differs from their file's (examples/README.md, "Time-zone edges") are not reported as
/// misfiled, and the mismatch is named once.
#[test]
fn a_copy_opened_in_another_zone_keeps_the_recorded_zone() {
    let copy = tempfile::tempdir().unwrap();
    crate::common::copy_tree(&root(), copy.path());
    let cfg = memlayers::Config { timezone: chrono_tz::UTC, ..memlayers::Config::default() };
    let m = memlayers::Memory::open(copy.path(), cfg).unwrap();
    assert_eq!(m.tz(), chrono_tz::Asia::Shanghai);
    assert_eq!(m.open_report().entries_indexed, 457);
    assert!(m.open_report().malformed.is_empty(), "{:?}", m.open_report().malformed);
    assert_eq!(m.warnings().len(), 1, "{:?}", m.warnings());
    assert!(m.warnings()[0].contains("dated in Asia/Shanghai"), "{:?}", m.warnings());
}

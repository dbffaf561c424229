//! Hostile input — paths: tags, text, sources and config values can never make the
//! engine read or write outside the data root (`../`, absolute paths, symlinks inside the data
//! root pointing out, NUL in names).
//!
//! Every test puts the data root at `<tmp>/root` and an "outside" folder at `<tmp>/outside`,
//! snapshots the outside folder, runs the engine, and compares: nothing outside may change.

use crate::common;
use crate::rel;

use std::path::Path;

use common::*;
use memlayers::files::entry::Source;
use memlayers::layers::cold::WriteArgs;
use memlayers::{Config, Error, Memory};

struct Sandbox {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    outside: std::path::PathBuf,
}

fn sandbox() -> Sandbox {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("2026-10-20.md"), "- [2026-10-20T01:00:00.000Z] [外部] 外面的秘密\n").unwrap();
    std::fs::write(outside.join("2026-10-21.md"), "- [2026-10-21T01:00:00.000Z] [外部] 外面的另一条\n").unwrap();
    Sandbox { _dir: dir, root, outside }
}

/// (relative path, size, sha1) of every file under `dir`.
fn snapshot(dir: &Path) -> Vec<(String, usize, String)> {
    rel::all_files(dir)
        .into_iter()
        .map(|f| {
            let b = std::fs::read(dir.join(&f)).unwrap_or_default();
            (f, b.len(), memlayers::index::sync::sha1_hex(&b))
        })
        .collect()
}

fn write(m: &Memory, text: &str, tag: Option<&str>, source: Option<Source>) -> memlayers::Result<()> {
    m.write(&WriteArgs { text: text.into(), tag: tag.map(Into::into), source, ..Default::default() }).map(|_| ())
}

fn field(e: Error) -> String {
    match e {
        Error::BadInput { field, .. } => field,
        other => panic!("expected BadInput, got {other}"),
    }
}

#[test]
fn path_like_tags_text_and_sources_stay_text_inside_the_day_file() {
    let s = sandbox();
    let before = snapshot(&s.outside);
    // 2026-10-21T03:00Z is 2026-10-21 11:00 in Shanghai.
    let m = open_at(&s.root, "2026-10-21T03:00:00Z");
    let src = Source { conv: "../../outside".into(), seq: "1".into(), msg_id: Some("/etc/passwd".into()) };
    write(&m, "../../outside/2026-10-20.md", Some("../../outside"), None).unwrap();
    write(&m, "/etc/passwd", Some("/tmp"), Some(src.clone())).unwrap();
    write(&m, "cold/../../x", Some("..\\..\\windows"), None).unwrap();
    assert_eq!(snapshot(&s.outside), before);
    // Only the day file, the index, the lock and the zone record exist in the root.
    let files: Vec<String> = rel::all_files(&s.root)
        .into_iter()
        .filter(|f| !f.starts_with("index.sqlite3") && f != ".lock" && f != "memlayers.json")
        .collect();
    assert_eq!(files, ["cold/2026-10/2026-10-21.md"]);
    let text = std::fs::read_to_string(s.root.join("cold/2026-10/2026-10-21.md")).unwrap();
    assert_eq!(
        text,
        "- [2026-10-21T03:00:00.000Z] [../../outside] ../../outside/2026-10-20.md\n\
         - [2026-10-21T03:00:00.000Z] [/tmp] /etc/passwd 〔src:../../outside#1//etc/passwd〕\n\
         - [2026-10-21T03:00:00.000Z] [..\\..\\windows] cold/../../x\n"
    );
    // Queries read them back as text, source included.
    let r = m.by_tag("../../outside", None).unwrap();
    assert_eq!(r.items[0].content, "../../outside/2026-10-20.md");
    let r = m.recall("passwd", None, None).unwrap();
    assert_eq!(r.items[0].source, Some(src));
    assert!(m.check().unwrap().clean);
}

#[test]
fn nul_and_control_characters_in_any_field_are_refused_before_anything_is_written() {
    let s = sandbox();
    let m = open_at(&s.root, "2026-10-21T03:00:00Z");
    let src = |conv: &str, seq: &str, msg: Option<&str>| {
        Some(Source { conv: conv.into(), seq: seq.into(), msg_id: msg.map(Into::into) })
    };
    assert_eq!(field(write(&m, "a\0b", None, None).unwrap_err()), "text");
    assert_eq!(field(write(&m, "ok", Some("t\0g"), None).unwrap_err()), "tag");
    assert_eq!(field(write(&m, "ok", None, src("c\0d", "1", None)).unwrap_err()), "source.conv");
    assert_eq!(field(write(&m, "ok", None, src("c", "1\0", None)).unwrap_err()), "source.seq");
    assert_eq!(field(write(&m, "ok", None, src("c", "1", Some("m\0"))).unwrap_err()), "source.msgId");
    assert_eq!(field(write(&m, "ok", None, src("c\u{1b}[2J", "1", None)).unwrap_err()), "source.conv");
    assert_eq!(field(write(&m, "ok", None, src("c", "1", Some("m\u{7f}"))).unwrap_err()), "source.msgId");
    assert!(!s.root.join("cold").exists(), "nothing may be written for refused input");
}

#[test]
fn a_source_reads_back_exactly_as_acknowledged_or_is_refused() {
    // A msgId holding '#' would be read back with the conv running to that '#'
    // (markers split conv at the LAST '#'): the acknowledged source would not be the stored one.
    let s = sandbox();
    let m = open_at(&s.root, "2026-10-21T03:00:00Z");
    let src = Source { conv: "c".into(), seq: "1".into(), msg_id: Some("m#2".into()) };
    match write(&m, "y", None, Some(src.clone())) {
        Err(e) => assert_eq!(field(e), "source.msgId"),
        Ok(()) => assert_eq!(m.recall("y", None, None).unwrap().items[0].source, Some(src)),
    }
}

#[test]
fn a_month_folder_symlinked_out_of_the_root_is_never_written_through_nor_read() {
    let s = sandbox();
    std::fs::create_dir_all(s.root.join("cold")).unwrap();
    std::os::unix::fs::symlink(&s.outside, s.root.join("cold/2026-10")).unwrap();
    let before = snapshot(&s.outside);
    let m = open_at(&s.root, "2026-10-21T03:00:00Z");
    // Reading: the outside files are not the archive.
    assert!(m.recall("秘密", None, None).unwrap().items.is_empty());
    assert_eq!(m.by_date("2026-10-01", "2026-10-31", None).unwrap().returned, 0);
    // Writing into 2026-10 would go through the link: refused, with the path named.
    let e = write(&m, "写到外面去", Some("t"), None).unwrap_err();
    assert!(matches!(e, Error::OutsideRoot(_)), "{e}");
    assert!(e.to_string().contains("cold/2026-10"), "{e}");
    // Appends (imports, layer moves) too.
    let day = chrono::NaiveDate::from_ymd_opt(2026, 10, 22).unwrap();
    let entry = memlayers::files::entry::Entry {
        ts: at("2026-10-22T01:00:00Z"),
        tag: "t".into(),
        content: "x".into(),
        source: None,
    };
    assert!(matches!(m.append_entries(day, &[entry]).unwrap_err(), Error::OutsideRoot(_)));
    assert_eq!(snapshot(&s.outside), before);
    // Other months still work.
    let m = m.with_now(at("2026-11-21T03:00:00Z"));
    write(&m, "十一月照常写", None, None).unwrap();
    assert_eq!(m.recall("照常", None, None).unwrap().returned, 1);
    assert!(m.check().unwrap().clean);
}

#[test]
fn a_day_file_symlinked_out_of_the_root_is_never_written_through_nor_read() {
    let s = sandbox();
    std::fs::create_dir_all(s.root.join("cold/2026-10")).unwrap();
    std::os::unix::fs::symlink(s.outside.join("2026-10-21.md"), s.root.join("cold/2026-10/2026-10-21.md")).unwrap();
    let before = snapshot(&s.outside);
    let m = open_at(&s.root, "2026-10-21T03:00:00Z");
    assert!(m.recall("另一条", None, None).unwrap().items.is_empty());
    let e = write(&m, "写到外面去", None, None).unwrap_err();
    assert!(matches!(e, Error::OutsideRoot(_)), "{e}");
    assert_eq!(snapshot(&s.outside), before);
    // The link is still a link: the engine neither followed nor replaced it.
    assert!(std::fs::symlink_metadata(s.root.join("cold/2026-10/2026-10-21.md")).unwrap().file_type().is_symlink());
}

#[test]
fn a_cold_folder_symlinked_out_of_the_root_is_a_clear_error_not_a_read() {
    let s = sandbox();
    std::fs::create_dir_all(s.outside.join("2026-10")).unwrap();
    std::fs::rename(s.outside.join("2026-10-20.md"), s.outside.join("2026-10/2026-10-20.md")).unwrap();
    std::os::unix::fs::symlink(&s.outside, s.root.join("cold")).unwrap();
    let before = snapshot(&s.outside);
    let e = Memory::open(&s.root, config()).unwrap_err();
    assert!(matches!(e, Error::OutsideRoot(_)), "{e}");
    assert!(e.to_string().contains("cold"), "{e}");
    assert_eq!(snapshot(&s.outside), before);
}

#[test]
fn an_index_symlinked_out_of_the_root_is_moved_aside_not_written_through() {
    let s = sandbox();
    // A real SQLite database outside, linked in as the index.
    let foreign = s.outside.join("other.sqlite3");
    {
        let c = rusqlite::Connection::open(&foreign).unwrap();
        c.execute_batch("CREATE TABLE precious(x); INSERT INTO precious VALUES (42);").unwrap();
    }
    std::os::unix::fs::symlink(&foreign, s.root.join("index.sqlite3")).unwrap();
    let before = snapshot(&s.outside);
    let m = open_at(&s.root, "2026-10-21T03:00:00Z");
    assert_eq!(m.warnings().len(), 1, "{:?}", m.warnings());
    assert!(m.warnings()[0].contains("symbolic link"), "{:?}", m.warnings());
    write(&m, "索引在里面", None, None).unwrap();
    assert_eq!(m.recall("索引", None, None).unwrap().returned, 1);
    drop(m);
    assert_eq!(snapshot(&s.outside), before, "the outside database must not be touched");
    let meta = std::fs::symlink_metadata(s.root.join("index.sqlite3")).unwrap();
    assert!(meta.file_type().is_file(), "the index is now a real file inside the root");
}

#[test]
fn a_lock_file_symlinked_out_of_the_root_is_never_followed() {
    // The writer lock is taken on the data root folder itself (a deleted `.lock` let two writers in): a `.lock` left by
    // an older version, even a symlink out of the root, is never opened or created.
    let s = sandbox();
    let target = s.outside.join("lockfile");
    std::os::unix::fs::symlink(&target, s.root.join(".lock")).unwrap();
    let before = snapshot(&s.outside);
    let m = Memory::open(&s.root, config()).unwrap().with_now(at("2026-10-21T03:00:00Z"));
    write(&m, "锁文件是链接", None, None).unwrap();
    assert_eq!(m.recall("锁文件", None, None).unwrap().returned, 1);
    drop(m);
    assert_eq!(snapshot(&s.outside), before);
    assert!(!target.exists());
}

#[test]
fn config_values_that_look_like_paths_are_values_not_paths() {
    let (c, warnings) =
        Config::from_json(r#"{"timezone": "../../../../etc/localtime", "hotLimit": "/etc/passwd"}"#).unwrap();
    assert_eq!(c.timezone, Config::default().timezone);
    assert_eq!(c.hot_limit, 600);
    assert!(warnings.iter().any(|w| w.contains("timezone")), "{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("hotLimit")), "{warnings:?}");
    // The CLI's --tz is checked the same way (exit 2, field named).
    let s = sandbox();
    let out = crate::common::cli()
        .args(["--data-root"])
        .arg(&s.root)
        .args(["--tz", "../../etc/localtime", "recall", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tz"));
}

#[test]
fn an_import_source_with_links_out_is_read_without_following_them() {
    // The import source is the one path a tool takes; it is only read, and links inside it
    // are not followed (a linked day file or folder would pull outside text in).
    let s = sandbox();
    let archive = s._dir.path().join("archive");
    std::fs::create_dir_all(&archive).unwrap();
    std::fs::write(archive.join("2026-03-01.md"), "- 三月一日的笔记\n").unwrap();
    std::os::unix::fs::symlink(s.outside.join("2026-10-20.md"), archive.join("2026-03-02.md")).unwrap();
    std::os::unix::fs::symlink(&s.outside, archive.join("linked")).unwrap();
    let m = open_at(&s.root, "2026-10-21T03:00:00Z");
    let rep = m.import(&archive, None, &mut |_, _| {}).unwrap();
    assert_eq!(rep.entries_added, 1);
    assert!(m.recall("秘密", None, None).unwrap().items.is_empty());
    assert_eq!(m.recall("笔记", None, None).unwrap().returned, 1);
}

#[test]
fn layer_files_symlinked_out_of_the_root_are_neither_read_nor_written_through() {
    let s = sandbox();
    std::fs::write(s.outside.join("hot.md"), "外面的热层正文\n").unwrap();
    std::fs::write(s.outside.join("usage.json"), r#"{"version":1,"entries":{}}"#).unwrap();
    std::os::unix::fs::symlink(s.outside.join("hot.md"), s.root.join("hot.md")).unwrap();
    std::os::unix::fs::symlink(s.outside.join("usage.json"), s.root.join("usage.json")).unwrap();
    let before = snapshot(&s.outside);
    let m = open_at(&s.root, "2026-10-21T03:00:00Z");
    // hot.md: a link is not the hot layer; writing it is refused.
    assert_eq!(m.hot_get().unwrap().content, "");
    assert!(matches!(m.hot_set("新正文").unwrap_err(), Error::OutsideRoot(_)));
    // usage.json: queries still work (hits that cannot be written are reported, not fatal).
    write(&m, "查询照常", None, None).unwrap();
    assert_eq!(m.recall("查询", None, None).unwrap().returned, 1);
    drop(m);
    assert_eq!(snapshot(&s.outside), before);
}

#[test]
fn a_summaries_folder_symlinked_out_of_the_root_is_a_clear_error_not_a_read() {
    let s = sandbox();
    std::fs::create_dir_all(s.outside.join("day")).unwrap();
    std::fs::write(s.outside.join("day/2026-10-20.md"), "# 外面的摘要\n").unwrap();
    // An index with one mirrored file exists before the link appears (an index without any
    // file counts as fresh and re-reads every layer file at open).
    write(&open_at(&s.root, "2026-10-21T03:00:00Z"), "一条", None, None).unwrap();
    std::os::unix::fs::symlink(&s.outside, s.root.join("summaries")).unwrap();
    let before = snapshot(&s.outside);
    let m = open_at(&s.root, "2026-10-21T03:00:00Z");
    let e = m.summarize(Some("day"), Some("2026-10-20"), false).unwrap_err();
    assert!(matches!(e, Error::OutsideRoot(_)), "{e}");
    assert!(e.to_string().contains("summaries"), "{e}");
    assert!(matches!(m.export().unwrap_err(), Error::OutsideRoot(_)));
    assert!(matches!(m.stats().unwrap_err(), Error::OutsideRoot(_)));
    drop(m);
    // A fresh index reads every layer file at open: the same clear error there.
    std::fs::remove_file(s.root.join("index.sqlite3")).unwrap();
    assert!(matches!(Memory::open(&s.root, config()).unwrap_err(), Error::OutsideRoot(_)));
    assert_eq!(snapshot(&s.outside), before);
}

/// A data root reached through a symlink (the root itself, or a folder above it: a symlinked
/// home or data folder, macOS's /tmp → /private/tmp) is the folder it points to: the CLI
/// writes and answers there (the index is opened by its real path; SQLite's NOFOLLOW, which
/// keeps a link planted inside the root refused, refuses a link anywhere in the path).
#[cfg(unix)]
#[test]
fn a_data_root_reached_through_a_symlink_is_the_folder_it_points_to() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    std::fs::create_dir_all(real.join("root")).unwrap();
    std::os::unix::fs::symlink(&real, dir.path().join("up")).unwrap();
    std::os::unix::fs::symlink(real.join("root"), dir.path().join("link")).unwrap();
    let run = |root: &Path, args: &[&str]| {
        let o = cli()
            .args(["--json", "--data-root", root.to_str().unwrap(), "--tz", "Asia/Shanghai"])
            .args(["--now", "2026-11-20T04:00:00Z"])
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap()
    };
    run(&dir.path().join("link"), &["write", "经由链接写入"]);
    run(&dir.path().join("up/root"), &["write", "经由上级链接写入"]);
    // Both lines are in the real folder's day file (2026-11-20 in Shanghai), in order.
    let day = std::fs::read_to_string(real.join("root/cold/2026-11/2026-11-20.md")).unwrap();
    let lines: Vec<&str> = day.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(lines.len(), 2, "{day}");
    assert!(lines[0].ends_with("经由链接写入") && lines[1].ends_with("经由上级链接写入"), "{day}");
    // And each path answers from the same index.
    for root in [dir.path().join("link"), dir.path().join("up/root"), real.join("root")] {
        let v = run(&root, &["recall", "写入", "--mode", "or"]);
        assert_eq!(v["matched"], 2, "{}", root.display());
    }
    assert!(real.join("root/index.sqlite3").is_file());
    assert!(!dir.path().join("link").join("index.sqlite3").symlink_metadata().unwrap().file_type().is_symlink());
}

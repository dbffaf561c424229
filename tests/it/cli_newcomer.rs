//! The command line as a newcomer meets it: a Markdown bullet as `write`'s text, a
//! negative `--limit`, each subcommand's `--help`, where `write` wrote, where `demo` left its
//! data root, `summarize week` as a positional, and summaries of empty or future periods.

use std::process::Output;

fn ml(args: &[&str]) -> Output {
    crate::common::cli().args(args).output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const NOW: &str = "2026-11-29T12:00:00+08:00"; // Sunday 2026-11-29, 04:00Z

fn common(root: &str) -> Vec<&str> {
    vec!["--data-root", root, "--tz", "Asia/Shanghai", "--now", NOW, "--json"]
}

#[test]
fn write_takes_a_markdown_bullet_and_says_where_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let out = ml(&[&common(root)[..], &["write", "- 买了牛奶", "--tag", "购物"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["date"].as_str(), v["added"].as_bool()), (Some("2026-11-29"), Some(true)));
    let file = dir.path().join("cold/2026-11/2026-11-29.md");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "- [2026-11-29T04:00:00.000Z] [购物] - 买了牛奶\n");
    // The first write into a new root also says which zone it recorded for it.
    assert_eq!(
        text(&out.stderr),
        format!(
            "memlayers: wrote {}\n{}\n",
            file.display(),
            zone_line("Asia/Shanghai", &dir.path().display().to_string())
        )
    );
    // The same again: nothing written, and it says so.
    let out = ml(&[&common(root)[..], &["write", "- 买了牛奶", "--tag", "购物"]].concat());
    assert_eq!(text(&out.stderr), format!("memlayers: already in (not written twice) {}\n", file.display()));
}

#[test]
fn write_without_data_root_names_the_default_one() {
    let home = tempfile::tempdir().unwrap();
    let out = crate::common::cli()
        .args(["--tz", "UTC", "--now", "2026-11-29T04:00:00Z", "write", "x"])
        .env("HOME", home.path())
        .env_remove("DSH_HOME")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let file = home.path().join(".dsh/dsh-memory-layers/cold/2026-11/2026-11-29.md");
    assert!(file.exists());
    let root = home.path().join(".dsh/dsh-memory-layers");
    assert_eq!(
        text(&out.stderr),
        format!(
            "memlayers: wrote {} (default data root: pass --data-root DIR to choose another)\n{}\n",
            file.display(),
            zone_line("UTC", &root.display().to_string())
        )
    );
}

/// The stderr line of the first write into a new data root (`root`): the zone it recorded.
fn zone_line(zone: &str, root: &str) -> String {
    format!(
        "memlayers: recorded {zone} as the zone of data root {root} (memlayers.json): it dates every day file and \
         cannot be changed in place (pass --tz on the first call to choose another; to move a root to another \
         zone, import it into a new root made with --tz)"
    )
}

#[test]
fn a_negative_limit_gets_the_tools_range_message() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    for (args, msg) in [
        (vec!["recall", "牛奶", "--limit", "-1"], "invalid limit: -1 is outside 1–50"),
        (vec!["recent", "--days", "-3"], "invalid days: -3 is outside 1–365"),
        (vec!["by-tag", "x", "--limit", "-5"], "invalid limit: -5 is outside 1–200"),
        (vec!["by-date", "2026-11-01", "2026-11-02", "--limit", "-1"], "invalid limit: -1 is outside 1–200"),
        (vec!["retrieve", "上周", "--limit", "-2"], "invalid limit: -2 is outside 1–50"),
    ] {
        let out = ml(&[&["--data-root", root][..], &args[..]].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&out.stderr).trim_end(), format!("error: {msg}"), "{args:?}");
    }
}

#[test]
fn subcommand_help_lists_global_options_apart() {
    let out = ml(&["recall", "--help"]);
    let help = text(&out.stdout);
    let (own, global) = help.split_once("Global options:").expect("a Global options section");
    assert!(own.contains("--limit") && own.contains("--mode"), "{help}");
    for g in ["--data-root", "--config", "--json", "--tz", "--now"] {
        assert!(!own.contains(g), "{g} among recall's own options:\n{help}");
        assert!(global.contains(g), "{g} missing from Global options:\n{help}");
    }
}

#[test]
fn demo_says_where_its_temporary_data_root_is() {
    let tmp = tempfile::tempdir().unwrap();
    let out = crate::common::cli().arg("demo").env("TMPDIR", tmp.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let dirs: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    assert!(dirs[0].file_name().unwrap().to_str().unwrap().starts_with("memlayers-demo-"));
    let report = text(&out.stdout);
    let expected = format!(
        "The demo's data root is a temporary folder, {}: delete it when done (or run the demo with --data-root DIR to choose the folder).",
        dirs[0].display()
    );
    assert!(report.trim_end().ends_with(&expected), "{report}");
}

#[test]
fn summarize_takes_the_period_first_and_skips_empty_or_future_periods() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    assert!(ml(&[&common(root)[..], &["write", "周日复盘", "--tag", "约定"]].concat()).status.success());
    // `summarize week` = `summarize --period week`: ISO week 2026-W48 (Mon 11-23 .. Sun 11-29).
    let out = ml(&[&common(root)[..], &["summarize", "week"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["label"].as_str(), v["created"].as_bool()), (Some("2026-W48"), Some(true)));
    assert!(dir.path().join("summaries/week/2026-W48.md").exists());
    let both = ml(&[&common(root)[..], &["summarize", "week", "--period", "month"]].concat());
    assert_eq!(both.status.code(), Some(2));
    // An empty day and a future month: no file, and a note that says why.
    for (args, file, note) in [
        (
            vec!["summarize", "day", "--date", "2026-11-20"],
            "summaries/day/2026-11-20.md",
            "2026-11-20 没有任何条目，未生成摘要文件",
        ),
        (
            vec!["summarize", "month", "--date", "2026-12-05"],
            "summaries/month/2026-12.md",
            "2026-12 在今天 2026-11-29 之后，未生成摘要文件",
        ),
    ] {
        let out = ml(&[&common(root)[..], &args[..]].concat());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (v["created"].as_bool(), v["note"].as_str(), v["content"].as_str()),
            (Some(false), Some(note), Some(""))
        );
        assert!(!dir.path().join(file).exists(), "{file}");
    }
    assert!(!dir.path().join("summaries/day").exists());
}

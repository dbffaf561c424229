//! The `longmemeval` binary on the hand-written message sets (tools/data/): they load with every
//! answer written by its question's time, and the loader's checks name what is wrong.

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_longmemeval")).args(args).output().expect("run longmemeval")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn new_sets_load_and_run_without_warnings() {
    for set in ["zh-dialogue", "en-conv"] {
        let out = run(&["--set", set, "--limit", "1", "--jobs", "1"]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{set}: {stderr}");
        assert!(!stderr.contains("warning"), "{set}: {stderr}");
        assert!(stdout.contains("| all | retrieve | 1 |"), "{set}: {stdout}");
        assert!(stdout.contains("| all | no-time | 1 |"), "{set}: {stdout}");
    }
}

#[test]
fn a_late_answer_is_warned_about_and_an_unknown_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    let late = dir.path().join("late.txt");
    // Line 4: the question is asked at 10:00; its answer b is written at 20:00 the same day.
    std::fs::write(
        &late,
        "# header\nM\ta\t2026-01-05 09:00\t早上吃了包子\nM\tb\t2026-01-05 20:00\t晚上吃了饺子\nQ\tplain\t2026-01-05 10:00\t晚上吃了什么\tb\n",
    )
    .unwrap();
    let out = run(&["--set", "zh-chat", "--data", late.to_str().unwrap(), "--jobs", "1"]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("late.txt:4: answer \"b\" is written after the question's time 2026-01-05 10:00:00"),
        "{stderr}"
    );
    // The answer is not in the question's root, so neither mode finds it.
    assert!(text(&out.stdout).contains("| all | retrieve | 1 | 0.000 |"), "{}", text(&out.stdout));

    let unknown = dir.path().join("unknown.txt");
    std::fs::write(&unknown, "M\ta\t2026-01-05 09:00\t早上吃了包子\nQ\tplain\t2026-01-05 10:00\t早上吃了什么\tz\n")
        .unwrap();
    let out = run(&["--set", "zh-chat", "--data", unknown.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown.txt:2: answer \"z\" is no message id"), "{}", text(&out.stderr));
}

#[test]
fn an_unknown_set_and_a_padded_message_set_are_refused() {
    let out = run(&["--set", "en"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("expected lme, zh-chat, zh-dialogue or en-conv"), "{}", text(&out.stderr));
    let out = run(&["--set", "en-conv", "--pad", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--pad is for --set lme only (--set en-conv shares one haystack)"));
}

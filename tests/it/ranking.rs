//! One documented score for recall and retrieve (`query::search` module docs):
//! `text + 0.1 × weight/100 + 0.1 × recent (+ 0.1 × exp(-Δt/τ) without a window)`, where text is
//! BM25 min-max normalised over the candidates; ties newest first. Expected scores are worked
//! out by hand from that formula. Now = 2026-11-29 12:00 UTC (20:00 in Shanghai).

use crate::common::*;
use memlayers::Config;
use memlayers::Memory;
use memlayers::query::retrieve::RetrieveArgs;

const NOW: &str = "2026-11-29T12:00:00Z";

fn scores(m: &Memory, kw: &str) -> Vec<(String, f64)> {
    m.recall(kw, Some(10), None).unwrap().items.into_iter().map(|i| (i.content, i.score.unwrap())).collect()
}

#[test]
fn a_memory_hit_many_times_outranks_an_equally_matching_one_never_hit() {
    let dir = tempfile::tempdir().unwrap();
    // Same length, same terms: equal BM25. 乙 is newer, so without usage it comes first.
    put(
        dir.path(),
        "cold/2026-11/2026-11-28.md",
        "- [2026-11-28T01:00:00.000Z] [-] 周报写完了甲\n- [2026-11-28T02:00:00.000Z] [-] 周报写完了乙\n",
    );
    let m = open_at(dir.path(), NOW);
    // Three recalls that return only 甲: weight 50 + 3 × 6 = 68 (no decay: the clock is pinned).
    for _ in 0..3 {
        assert_eq!(m.recall("甲", Some(10), None).unwrap().items.len(), 1);
    }
    // text 1 for both (equal BM25), recent 1 (≤ 30 days):
    // 甲 = 1 + 0.1 × 0.68 + 0.1 = 1.168; 乙 = 1 + 0.1 × 0.50 + 0.1 = 1.15.
    assert_eq!(scores(&m, "周报"), [("周报写完了甲".to_string(), 1.168), ("周报写完了乙".to_string(), 1.15)]);
}

#[test]
fn equal_text_match_goes_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-11/2026-11-20.md", "- [2026-11-20T01:00:00.000Z] [-] 周报写完了丙\n");
    put(dir.path(), "cold/2026-11/2026-11-25.md", "- [2026-11-25T01:00:00.000Z] [-] 周报写完了丁\n");
    put(dir.path(), "cold/2026-11/2026-11-22.md", "- [2026-11-22T01:00:00.000Z] [-] 周报写完了戊\n");
    let m = open_at(dir.path(), NOW);
    // All within 30 days, never hit: 1 + 0.05 + 0.1 = 1.15 each; newest first.
    assert_eq!(
        scores(&m, "周报"),
        [("周报写完了丁".to_string(), 1.15), ("周报写完了戊".to_string(), 1.15), ("周报写完了丙".to_string(), 1.15)]
    );
    // The same order through retrieve (no time expression: the natural-language pipeline).
    let r = m.retrieve(&RetrieveArgs { query: "周报呢".into(), ..Default::default() }).unwrap();
    let got: Vec<&str> = r.items.iter().map(|i| i.content.as_str()).collect();
    assert_eq!(got, ["周报写完了丁", "周报写完了戊", "周报写完了丙"]);
}

#[test]
fn a_much_stronger_text_match_still_beats_usage() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-11/2026-11-27.md",
        "- [2026-11-27T01:00:00.000Z] [周报] 周报：本周周报\n\
         - [2026-11-27T02:00:00.000Z] [-] 今天开了三个会，午饭吃了面，下午顺便提了一句周报，晚上回家陪朵朵画画，其余都是杂事\n",
    );
    let m = open_at(dir.path(), NOW);
    // The long entry is recalled alone 9 times: 50 + 9 × 6 = 104, capped at 100.
    for _ in 0..9 {
        m.recall("朵朵", Some(10), None).unwrap();
    }
    // Two candidates: the strong one has text 1, the weak one 0 (min-max).
    // strong = 1 + 0.1 × 0.5 + 0.1 = 1.15; weak = 0 + 0.1 × 1.0 + 0.1 = 0.2.
    let s = scores(&m, "周报");
    assert_eq!(s[0], ("周报：本周周报".to_string(), 1.15));
    assert_eq!(s[1].1, 0.2);
}

#[test]
fn scores_are_never_all_zero_on_a_homogeneous_archive() {
    let dir = tempfile::tempdir().unwrap();
    // Every entry holds 会议: BM25's IDF is near zero and all entries tie.
    put(
        dir.path(),
        "cold/2026-08/2026-08-01.md",
        "- [2026-08-01T01:00:00.000Z] [-] 会议一\n- [2026-08-01T02:00:00.000Z] [-] 会议二\n",
    );
    put(dir.path(), "cold/2026-11/2026-11-26.md", "- [2026-11-26T01:00:00.000Z] [-] 会议三\n");
    let m = open_at(dir.path(), NOW);
    // text 1 each; recent: 11-26 → 1, 08-01 (120 days) → 0. So 1.15, then 1.05, 1.05 newest first.
    assert_eq!(
        scores(&m, "会议"),
        [("会议三".to_string(), 1.15), ("会议二".to_string(), 1.05), ("会议一".to_string(), 1.05)]
    );
    // The command line prints the same real scores (mem_recall's JSON).
    let out = crate::common::cli()
        .args(["--data-root"])
        .arg(dir.path())
        .args(["--tz", "Asia/Shanghai", "--now", NOW, "--json", "recall", "会议"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s: Vec<f64> = v["items"].as_array().unwrap().iter().map(|i| i["score"].as_f64().unwrap()).collect();
    // The library recall above recorded one hit each (weight 56): 1 + 0.056 + 0.1 = 1.156, then 1.056.
    assert_eq!(s, [1.156, 1.056, 1.056]);
}

#[test]
fn recency_decay_acts_without_a_window_only() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-11/2026-11-28.md",
        "- [2026-11-28T01:00:00.000Z] [-] 周报 写完\n- [2026-11-28T02:00:00.000Z] [-] 别的\n",
    );
    put(
        dir.path(),
        "cold/2026-11/2026-11-02.md",
        "- [2026-11-02T01:00:00.000Z] [-] 周报 写完\n- [2026-11-02T02:00:00.000Z] [-] 其他\n",
    );
    let cfg = Config { recency_tau_days: Some(7.0), ..config() };
    let m = Memory::open(dir.path(), cfg).unwrap().with_now(at(NOW));
    let ask = |q: &str| {
        m.retrieve(&RetrieveArgs { query: q.into(), explain: true, ..Default::default() }).unwrap().explain.unwrap()
    };
    // No window: Δt = 1 d 11 h = 1.4583 d → exp(-1.4583/7) = 0.8119; Δt = 27.4583 d → 0.0198.
    let ex = ask("周报");
    assert_eq!(ex.window, None);
    assert!((ex.hits[0].recency - (-(1.0 + 11.0 / 24.0) / 7.0_f64).exp()).abs() < 1e-9, "{:?}", ex.hits);
    assert!((ex.hits[1].recency - (-(27.0 + 11.0 / 24.0) / 7.0_f64).exp()).abs() < 1e-9, "{:?}", ex.hits);
    // score = 1 + 0.05 + 0.1 + 0.1 × recency
    assert!((ex.hits[0].score - (1.15 + 0.1 * 0.811_9)).abs() < 1e-4, "{:?}", ex.hits);
    // Inside a window ("本月" = November) time never votes: no decay term.
    let ex = ask("本月 周报");
    assert!(ex.window.is_some());
    assert_eq!(ex.hits.len(), 2);
    assert!(ex.hits.iter().all(|h| h.recency == 0.0), "{:?}", ex.hits);
    // recall has no window either: the decay applies.
    let r = m.recall("周报", Some(10), None).unwrap();
    assert_eq!(r.items[0].date, "2026-11-28");
}

/// Writes `n` weak matches of 周报 (long entries, no tag), 100 per day from 2026-11-01 on, the
/// last one newest: `周报 普通记录 第{i}条 ……`.
fn weak_reports(root: &std::path::Path, n: usize) {
    let mut days: std::collections::BTreeMap<u32, String> = Default::default();
    for i in 0..n {
        let day = 1 + (i / 100) as u32;
        let line = format!(
            "- [2026-11-{day:02}T{:02}:{:02}:00.000Z] [-] 周报 普通记录 第{i}条 今天的内容比较长一些没有别的\n",
            (i % 100) / 60,
            (i % 100) % 60
        );
        days.entry(day).or_default().push_str(&line);
    }
    for (day, text) in days {
        put(root, &format!("cold/2026-11/2026-11-{day:02}.md"), &text);
    }
}

#[test]
fn every_match_is_scored_up_to_the_cap_and_only_the_newest_beyond_it() {
    use memlayers::query::search::MAX_SCORED;
    assert_eq!(MAX_SCORED, 500);
    // One strong old match (tag and content 周报, short) and MAX_SCORED − 1 weak newer ones:
    // 500 matches, all scored, so the strong one is first. Its text is 1 (the highest BM25),
    // weight 50 never hit, written 2026-01-01 (> 90 days before now: recent 0):
    // 1 + 0.1 × 0.5 = 1.05.
    let strong_and_weak = |weak: usize| {
        let dir = tempfile::tempdir().unwrap();
        put(dir.path(), "cold/2026-01/2026-01-01.md", "- [2026-01-01T01:00:00.000Z] [周报] 周报\n");
        weak_reports(dir.path(), weak);
        dir
    };
    let dir = strong_and_weak(MAX_SCORED - 1);
    let m = open_at(dir.path(), NOW);
    let r = m.recall("周报", Some(10), None).unwrap();
    assert_eq!(r.matched, 500);
    assert_eq!((r.items[0].content.as_str(), r.items[0].score), ("周报", Some(1.05)));
    // One more weak match (a fresh root: the recall above recorded usage hits): 501 >
    // MAX_SCORED, so BM25 ranks the newest 500 only and the oldest match (the strong one) is
    // not a candidate. Every candidate has the same BM25 (text 1), weight 50, written within
    // 30 days (recent 1): 1 + 0.05 + 0.1 = 1.15 each, newest first: 第499条 (2026-11-05
    // 02:00, after the 99 lines of that day) is the newest.
    let dir = strong_and_weak(MAX_SCORED - 1);
    let p = dir.path().join("cold/2026-11/2026-11-05.md");
    let text = std::fs::read_to_string(&p).unwrap()
        + "- [2026-11-05T02:00:00.000Z] [-] 周报 普通记录 第499条 今天的内容比较长一些没有别的\n";
    put(dir.path(), "cold/2026-11/2026-11-05.md", &text);
    let m = open_at(dir.path(), NOW);
    let r = m.recall("周报", Some(10), None).unwrap();
    assert_eq!(r.matched, 501);
    assert!(r.items.iter().all(|i| i.content != "周报"), "{:?}", r.items);
    assert_eq!(r.items[0].content, "周报 普通记录 第499条 今天的内容比较长一些没有别的");
    assert_eq!(r.items[0].score, Some(1.15));
    // retrieve without a time word takes the same path; with a window that holds every match
    // (2026) as well.
    let r = m.retrieve(&RetrieveArgs { query: "周报".into(), ..Default::default() }).unwrap();
    assert_eq!(r.matched, 501);
    assert!(r.items.iter().all(|i| i.content != "周报"));
    let r = m.retrieve(&RetrieveArgs { query: "2026年的周报".into(), ..Default::default() }).unwrap();
    assert_eq!(r.matched, 501);
    assert_eq!(r.items[0].content, "周报 普通记录 第499条 今天的内容比较长一些没有别的");
    // One character, 周 (every match holds it once, in 周报): the newest rows are read first
    // (a one-character prefix is not expanded over the index), with the same cap.
    let r = m.recall("周", Some(10), None).unwrap();
    assert_eq!(r.matched, 501);
    assert!(r.items.iter().all(|i| i.content != "周报"), "{:?}", r.items);
    assert_eq!(r.items[0].content, "周报 普通记录 第499条 今天的内容比较长一些没有别的");
}

#[test]
fn a_short_window_or_one_nearer_the_oldest_entry_is_walked_oldest_first_with_the_same_cap() {
    use memlayers::query::retrieve::TimeRange;
    let day = |s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
    // The strong old match (2026-01-01), 500 weak ones (2026-11-01 … 11-05) and one entry
    // without 周报 on 2026-11-28, the newest: a window from 2026-01-01 starts 0 days after the
    // oldest entry and, ending 2026-11-05, 23 days before the newest, so FTS5 walks it oldest
    // first (explain shows ASC).
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "cold/2026-01/2026-01-01.md", "- [2026-01-01T01:00:00.000Z] [周报] 周报\n");
    weak_reports(dir.path(), 500);
    put(dir.path(), "cold/2026-11/2026-11-28.md", "- [2026-11-28T01:00:00.000Z] [-] 散步\n");
    let m = open_at(dir.path(), NOW);
    let ask = |from: &str, to: &str| {
        let time_range = Some(TimeRange::Dates { from: day(from), to: day(to) });
        // Limit 1: January's one match fills the list, so no match outside the window is
        // added (rule 5's fill-up) and recorded as a usage hit, which would move the next
        // call's scores.
        let args =
            RetrieveArgs { query: "周报".into(), time_range, explain: true, limit: Some(1), ..Default::default() };
        m.retrieve(&args).unwrap()
    };
    // January alone: one match, walked oldest first; score 1 + 0.05 (recent 0), as above.
    let r = ask("2026-01-01", "2026-01-31");
    assert_eq!((r.matched, r.items[0].content.as_str(), r.items[0].score), (1, "周报", Some(1.05)));
    assert!(r.explain.unwrap().sql.contains("ORDER BY f.rowid ASC"));
    // 2026-01-01 … 11-05: 501 matches, more than MAX_SCORED. The oldest-first walk stops at
    // the cap, so the window is walked again newest first: the newest 500 are the candidates
    // (the strong old match is not one), as in the test above: 第499条, 1.15.
    let r = ask("2026-01-01", "2026-11-05");
    assert_eq!(r.matched, 501);
    assert!(r.items.iter().all(|i| i.content != "周报"), "{:?}", r.items);
    assert_eq!(
        (r.items[0].content.as_str(), r.items[0].score),
        ("周报 普通记录 第499条 今天的内容比较长一些没有别的", Some(1.15))
    );
    assert!(r.explain.unwrap().sql.contains("ORDER BY f.rowid DESC"));
    // A window nearer the newest entry is walked newest first when it spans 8 days or more
    // (ASCENDING_DAYS) ...
    assert_eq!(memlayers::query::search::ASCENDING_DAYS, 8);
    let r = ask("2026-11-05", "2026-11-28");
    assert!(r.explain.unwrap().sql.contains("ORDER BY f.rowid DESC"));
    // ... and oldest first when shorter: 2026-11-02 … 11-08 (7 dates, 400 matches: 100 on
    // each of 11-02 … 11-05). The weak entries' texts are alike (same BM25) and the calls
    // above hit the newest ten: the newest, 第499条, is first.
    let r = ask("2026-11-02", "2026-11-08");
    assert_eq!(r.matched, 400);
    assert_eq!(r.items[0].content.as_str(), "周报 普通记录 第499条 今天的内容比较长一些没有别的");
    assert!(r.explain.unwrap().sql.contains("ORDER BY f.rowid ASC"));
    // 2026-10-30 … 11-05 (7 dates) holds all 500: the oldest-first walk reaches the cap, so
    // the week is walked again newest first.
    let r = ask("2026-10-30", "2026-11-05");
    assert_eq!(r.matched, 500);
    assert_eq!(r.items[0].content.as_str(), "周报 普通记录 第499条 今天的内容比较长一些没有别的");
    assert!(r.explain.unwrap().sql.contains("ORDER BY f.rowid DESC"));
}

/// 2026-11-20: five entries, 猫 in three of them (once only in the tag), one 車 (U+F902, a
/// CJK compatibility ideograph that NFC turns into 車, U+8ECA) and none elsewhere that week;
/// 2026-11-10 holds `extra` after a 猫. Returns the data root and its handle.
fn cats(extra: &str) -> (tempfile::TempDir, Memory) {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "cold/2026-11/2026-11-20.md",
        "- [2026-11-20T01:00:00.000Z] [-] 给猫买了猫粮\n\
         - [2026-11-20T02:00:00.000Z] [猫] 去了宠物医院打疫苗做检查\n\
         - [2026-11-20T03:00:00.000Z] [-] 今天下雨\n\
         - [2026-11-20T04:00:00.000Z] [-] 邻居家的猫很吵\n\
         - [2026-11-20T05:00:00.000Z] [-] 修了車子\n",
    );
    put(dir.path(), "cold/2026-11/2026-11-10.md", &format!("- [2026-11-10T01:00:00.000Z] [-] 猫{extra}\n"));
    let m = open_at(dir.path(), NOW);
    (dir, m)
}

/// A query's items (content, score), matched count and explained SQL.
/// The window's own hits (content, score), the matches counted in it, and the SQL run. Rule
/// 5's fill-up appends the best matches outside the window after them (`in_window:
/// Some(false)`); they are left out here, as these tests check the window's ranking.
fn ask_explained(m: &Memory, q: &str) -> (Vec<(String, f64)>, i64, String) {
    let r = m.retrieve(&RetrieveArgs { query: q.into(), explain: true, ..Default::default() }).unwrap();
    let sql = r.explain.as_ref().unwrap().sql.clone();
    let inside = r.items.into_iter().filter(|i| i.in_window != Some(false));
    (inside.map(|i| (i.content, i.score.unwrap())).collect::<Vec<_>>(), r.matched, sql)
}

#[test]
fn a_one_character_query_in_a_window_counts_and_ranks_every_match() {
    // 猫 starts few index terms: the prefix goes to FTS5 as the OR of them (fts5::prefix).
    let (_dir, m) = cats("");
    // NOW is 2026-11-29 (Sunday): 上周五 = 2026-11-20.
    let (items, matched, sql) = ask_explained(&m, "上周五 猫");
    // Through FTS5, with the counts it decoded (no entry text read for the candidates).
    assert!(sql.starts_with("SELECT count(*) FROM (SELECT ml_collect(entries_fts) AS x FROM entries_fts f"), "{sql}");
    assert_eq!(matched, 3);
    // BM25 by hand: one phrase "猫"* (its IDF a common factor), k1 = 0.9, b = 0.4, tag ×2.
    // Tokens: 给猫买了猫粮 → 给猫 猫买 买了 了猫 猫粮 粮 (D 6; f 2: 猫买, 猫粮); tag 猫 (f 2) +
    // 去了宠物医院打疫苗做检查 (12 characters: 11 bigrams + 1): D 13, f 2; 邻居家的猫很吵 → 7
    // tokens, f 1 (猫很); 今天下雨 4, 修了車子 4, the 10th's 猫 1: avgdl = 35 / 6.
    // g = f × 1.9 / (f + 0.9 × (0.6 + 0.4 × D / avgdl)) = 1.30571, 1.13695, 0.96349;
    // text (min-max) 1, 0.50685, 0; + 0.05 usage (never hit) + 0.1 recent (≤ 30 days):
    // 1.15, 0.6569, 0.15.
    let want = [("给猫买了猫粮", 1.15), ("去了宠物医院打疫苗做检查", 0.6569), ("邻居家的猫很吵", 0.15)];
    assert_eq!(items, want.map(|(c, s)| (c.to_string(), s)));
    let (items, matched, _) = ask_explained(&m, "上周五 車");
    assert_eq!((items.len(), items[0].0.as_str(), matched), (1, "修了車子", 1));
}

#[test]
fn a_candidate_below_the_first_limit_by_text_still_wins_on_usage() {
    // The ranking reads the best `limit` candidates by BM25 first and then only those whose
    // text term plus the largest bonus can still reach the limit-th score. With limit 1 and
    // rankUsageWeight 10, the bonus can reach 10.1 (10 × weight/100 + 0.1 × recent), so the
    // second candidate by text must be read, and its usage makes it the answer.
    let (dir, m) = cats("");
    drop(m);
    let cfg = Config { rank: memlayers::RankWeights { usage: 10.0, ..Default::default() }, ..config() };
    let m = Memory::open(dir.path(), cfg).unwrap().with_now(at(NOW));
    let r = m.retrieve(&RetrieveArgs { query: "上周五 猫".into(), limit: Some(1), ..Default::default() }).unwrap();
    // Texts worked out in a_one_character_query_in_a_window_counts_and_ranks_every_match:
    // 1, 0.50685, 0; no entry hit yet (weight 50). Scores: 给猫买了猫粮 1 + 10 × 0.5 + 0.1 =
    // 6.1; the hospital visit 0.50685 + 10 × 0.5 + 0.1 = 5.60685 — below.
    assert_eq!(r.items.len(), 1);
    assert_eq!((r.items[0].content.as_str(), r.items[0].score), ("给猫买了猫粮", Some(6.1)));
    // That answer was a hit (给猫买了猫粮: 50 + 6 = 56, 1 + 5.6 + 0.1 = 6.7); two recalls that
    // return only the visit (clock pinned): 50 + 6 + 6 = 62, 0.50685 + 6.2 + 0.1 = 6.80685,
    // now above: the second candidate by text is read and wins on usage.
    for _ in 0..2 {
        assert_eq!(m.recall("疫苗", Some(10), None).unwrap().items.len(), 1);
    }
    let r = m.retrieve(&RetrieveArgs { query: "上周五 猫".into(), limit: Some(1), ..Default::default() }).unwrap();
    assert_eq!((r.items[0].content.as_str(), r.items[0].score), ("去了宠物医院打疫苗做检查", Some(6.8069)));
}

#[test]
fn a_one_character_query_starting_many_terms_reads_the_windows_rows() {
    // 猫 then 一, 丁, 丂, … (MAX_TERMS + 1 distinct bigrams 猫X, on the 10th): too many terms
    // to expand, so the window's rows are read (query::search::WINDOW_SCAN_ROWS). Same
    // matches and order as through FTS5 (the scores differ: the 10th's tokens change avgdl,
    // not the order of these three, worked out in the test above: same f, smaller D first;
    // f 2 at D 13 still above f 1 at D 7 for any avgdl).
    let n = memlayers::fts5::prefix::MAX_TERMS + 1;
    let extra: String = (0..n as u32).map(|i| format!(" 猫{}", char::from_u32(0x4E00 + i).unwrap())).collect();
    let (_dir, m) = cats(&extra);
    let (items, matched, sql) = ask_explained(&m, "上周五 猫");
    assert!(
        sql.starts_with("SELECT r.id, r.tag, r.tag_id, r.content, ") && sql.contains(" FROM entry_rows r"),
        "{sql}"
    );
    assert_eq!(matched, 3);
    let got: Vec<&str> = items.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(got, ["给猫买了猫粮", "去了宠物医院打疫苗做检查", "邻居家的猫很吵"]);
    let (items, matched, _) = ask_explained(&m, "上周五 車");
    assert_eq!((items.len(), items[0].0.as_str(), matched), (1, "修了車子", 1));
}

/// memlayers' own BM25 (`fts5::bm25`) against FTS5's `bm25(…, 2.0, 1.0)` on the example
/// archive plus a day of entries written to trip the counting of raw text (`bm25::Counter`):
/// repeated bigrams, one-character runs, the tag column, stems, mixed scripts, a CJK
/// compatibility ideograph and decomposed accents. A reference FTS5 table with positions
/// (`detail=full`) holds the same segmented text as the index, and for every query below the
/// set of matching entries and every BM25 value must be FTS5's (to 1e-9 relative).
#[test]
fn own_bm25_equals_fts5_bm25() {
    use memlayers::fts5::bm25;
    use memlayers::fts5::segment::segment;
    use memlayers::query::search::{Mode, Query};
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/archive"), dir.path());
    put(
        dir.path(),
        "cold/2026-07/2026-07-15.md",
        "# 2026-07-15\n\
         - [2026-07-15T01:00:00.000Z] [-] 哈哈哈哈 哈哈，哈\n\
         - [2026-07-15T02:00:00.000Z] [哈哈] 笑了 哈 周报\n\
         - [2026-07-15T03:00:00.000Z] [Meetings] Meetings meeting MEETINGS painted paints Paint 周报周报 周 报\n\
         - [2026-07-15T04:00:00.000Z] [周报] 修了\u{F902}子 車 猫a猫b猫 ひらがな\n\
         - [2026-07-15T05:00:00.000Z] [-] cafe\u{301} café Cafe running runs ran gpt4o GPT-4o 2026年 今天今天今\n\
         - [2026-07-15T06:00:00.000Z] [rust] ＲＵＳＴ rustfmt Rustacean 吃吃吃 吃\n\
         - [2026-07-15T07:00:00.000Z] [会・议] 周会・预算 会・会・会 ア゛イ゠ウ\u{3099}エ\n\
         - [2026-07-15T08:00:00.000Z] [t] zebra दृष्टि दृष्टि ภาษาไทย العَرَبِيَّة שָׁלוֹם བོད \u{F7C}\n\
         - [2026-07-15T09:00:00.000Z] [t] zebra a1 a2 a3 a4 a5 a6 a7 a8 a9 a10\n\
         - [2026-07-15T10:00:00.000Z] [İ] zebra İstanbul İzmir Ǹ\u{0301}a\u{0301}\n",
    );
    let m = open_at(dir.path(), NOW);
    let c = m.conn().unwrap();
    c.execute_batch(
        "CREATE VIRTUAL TABLE temp.ref USING fts5(tag, body, content='', \
         tokenize='unicode61 remove_diacritics 0', detail=full)",
    )
    .unwrap();
    let rows: Vec<(i64, String, String)> = c
        .prepare("SELECT id, tag, content FROM entries")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(rows.len() > 400, "{}", rows.len());
    for (id, tag, content) in &rows {
        c.execute(
            "INSERT INTO temp.ref(rowid, tag, body) VALUES(?1, ?2, ?3)",
            rusqlite::params![id, segment(tag), segment(content)],
        )
        .unwrap();
    }
    let totals = bm25::totals(&c).unwrap();
    assert_eq!(totals.rows, rows.len() as i64);
    let mut memo = bm25::DfMemo::default();
    let queries = [
        ("周报", Mode::And),
        ("火锅", Mode::And),
        ("吃", Mode::And),
        ("的", Mode::And),
        ("周末计划", Mode::And),
        ("meetings", Mode::And),
        ("rust", Mode::And),
        ("a", Mode::And),
        ("火锅 周末", Mode::Or),
        ("火锅 周末", Mode::And),
        ("跑步 run 周报", Mode::Or),
        ("tag 工作", Mode::Or),
        ("哈哈", Mode::And),
        ("哈", Mode::And),
        ("哈哈 哈 笑", Mode::Or),
        ("周", Mode::And),
        ("報 周报", Mode::Or),
        ("車", Mode::And),
        ("猫", Mode::And),
        ("今天 今", Mode::And),
        ("café", Mode::And),
        ("cafe", Mode::And),
        ("paint run", Mode::Or),
        ("meeting", Mode::And),
        ("ｒｕｓｔ rust", Mode::Or),
        ("gpt4o 2026", Mode::Or),
        ("ひら", Mode::And),
        // Or of a several-probe term and another: a row with only part of the first term.
        ("周末计划 火锅", Mode::Or),
        ("周末计划 周报", Mode::Or),
        // Kana marks and the middle dot, which FTS5's tokenizer reads as separators.
        ("会・ 会", Mode::And),
        ("会", Mode::And),
        ("アイ ウエ", Mode::Or),
        // Words with combining marks (Devanagari, Thai, Arabic, Hebrew, Tibetan), which FTS5's
        // tokenizer splits into several tokens (a newcomer's test: lengths 10 vs 14).
        ("zebra", Mode::And),
        ("दृष्टि", Mode::And),
        ("שָׁלוֹם zebra", Mode::Or),
    ];
    let mut compared = 0;
    let crafted: std::collections::HashSet<i64> = c
        .prepare("SELECT id FROM entries WHERE day = '2026-07-15'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(crafted.len(), 10);
    let mut crafted_seen = std::collections::HashSet::new();
    let text_of: std::collections::HashMap<i64, (String, String)> =
        rows.iter().map(|(id, tag, content)| (*id, (tag.clone(), content.clone()))).collect();
    for (kw, mode) in queries {
        let q = Query::new(kw, mode).unwrap();
        let want: std::collections::HashMap<i64, f64> = c
            .prepare("SELECT rowid, bm25(ref, 2.0, 1.0) FROM temp.ref WHERE ref MATCH ?1")
            .unwrap()
            .query_map([q.fts()], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let phrases = bm25::phrases(&q);
        // FTS5's own IDF here: the test checks that the counts, lengths and averages are FTS5's;
        // memlayers ranks with Lucene's IDF (`bm25::idf`, tested by hand in `query::bm25`).
        let idf: Vec<f64> = memo.df(&c, &phrases).unwrap().iter().map(|&d| bm25::idf_fts5(totals.rows, d)).collect();
        let mut got = std::collections::HashMap::new();
        // What the queries use (counts in the raw text), checked against the segmenter's tokens too.
        let mut counter = bm25::Counter::new(&q);
        for (id, tag, content) in &rows {
            let toks = bm25::tokens(tag, content);
            counter.count(tag, content);
            assert_eq!(counter.matches(), bm25::matches(&q, &toks), "{kw:?} id {id}");
            // The terms an answer reports as matched, from the counts: as the text says.
            assert_eq!(counter.terms_matched(&counter.f), q.matched(tag, content), "{kw:?} id {id}");
            if counter.matches() {
                let b = counter.score(&idf, totals.avgdl());
                assert_eq!(b, bm25::score_tokens(&phrases, &idf, totals.avgdl(), &toks), "{kw:?} id {id}");
                // Against FTS5: the same counts and length with FTS5's k1 and b (memlayers ranks
                // with its own, `bm25::K1` and `bm25::B`).
                got.insert(*id, bm25::bm25_at(&counter.f, counter.len as f64, &idf, totals.avgdl()));
            }
        }
        crafted_seen.extend(got.keys().filter(|id| crafted.contains(id)));
        // The same matches as FTS5, and every value FTS5's to 1e-9 relative.
        let mut same_as_fts5 = |got: &std::collections::HashMap<i64, f64>, how: &str| {
            let mut ids: Vec<_> = got.keys().collect();
            ids.sort();
            let mut want_ids: Vec<_> = want.keys().collect();
            want_ids.sort();
            assert_eq!(ids, want_ids, "matches of {kw:?} ({how})");
            for (id, b) in got {
                let w = want[id];
                assert!((b - w).abs() <= 1e-9 * w.abs().max(1.0), "{kw:?} id {id}: {how} {b} vs FTS5 {w}");
                compared += 1;
            }
        };
        same_as_fts5(&got, "counted in the text");
        // What a query through FTS5 scores with: the counts `ml_collect` gathers from the index's
        // position lists and the token counts of `entry_lens`, for the expression sent
        // (prefixes expanded).
        let ex = memo.expanded_fts(&c, &q).unwrap();
        let mut f = vec![0.0; phrases.len()];
        let mut st = c.prepare(&memlayers::query::search::ranked_sql(false, false)).unwrap();
        memlayers::fts5::aux_fn::clear_collected();
        let none: i64 = st.query_row(rusqlite::params![ex.fts, 1_000_000i64], |r| r.get(0)).unwrap();
        assert_eq!(none, 0, "every match gathered");
        let mut through_index = std::collections::HashMap::new();
        let mut lens = memlayers::fts5::lens::DayLens::default();
        memlayers::fts5::aux_fn::collected(|words| {
            for (id, counts) in memlayers::fts5::aux_fn::rows(words, ex.phrase_of.len()).unwrap() {
                bm25::fold_counts(counts, &ex.phrase_of, &mut f).unwrap();
                // The stored count (entry_lens), never the fallback that counts the text.
                let len = lens.get(&c, id).unwrap().expect("entry_lens holds every entry's count");
                let (tag, content) = &text_of[&id];
                assert_eq!(counter.terms_matched(&f), q.matched(tag, content), "{kw:?} id {id} through the index");
                through_index.insert(id, bm25::bm25_at(&f, len as f64, &idf, totals.avgdl()));
            }
        });
        same_as_fts5(&through_index, "ml_collect");
    }
    // Enough rows compared that a systematic error could not hide (counted independently:
    // 周报 alone matches dozens of the example archive's entries; each row twice).
    assert!(compared > 600, "{compared}");
    // Every crafted entry matched some query and was compared.
    assert_eq!(crafted_seen, crafted);
}

/// A one-phrase query skips the IDF unless `explain` asks for the BM25 values: the answer
/// (ids, order, scores, counts) must be the same either way, with or without a window.
#[test]
fn skipping_the_idf_of_a_one_phrase_query_changes_nothing_but_explain() {
    // Two fresh roots: an answer records usage hits, which would change the next one's scores.
    let fresh = || crate::common::example_at(NOW);
    let ((_a, plain), (_b, explained)) = (fresh(), fresh());
    for q in ["周报", "吃", "火锅", "上个月的周报", "今年 吃", "project"] {
        let ask = |m: &Memory, explain| {
            let r =
                m.retrieve(&RetrieveArgs { query: q.into(), limit: Some(20), explain, ..Default::default() }).unwrap();
            let items: Vec<(i64, Option<f64>)> = r.items.iter().map(|i| (i.id, i.score)).collect();
            (items, r.matched)
        };
        let got = ask(&plain, false);
        assert!(!got.0.is_empty(), "{q}");
        assert_eq!(got, ask(&explained, true), "{q}");
    }
}

#[test]
fn a_one_character_query_of_many_terms_in_a_large_window_is_answered_term_by_term() {
    // 2026-11-20 holds 12 100 entries (more than WINDOW_SCAN_ROWS = 12 000, so the window is
    // not read row by row); every 20th says 猫 then one of 70 characters (一, 丁, 丂, …: more
    // than MAX_TERMS = 64 terms start with 猫, so no OR), 605 matches in all. Each match has
    // the same BM25 (one instance, two tokens, the tag `-` none), the same usage weight and
    // recency: the newest 500 are scored (MAX_SCORED) and the answer is the 10 newest, i =
    // 12 080, 12 060, … 11 900, written one second apart.
    let dir = tempfile::tempdir().unwrap();
    let mut day = String::new();
    for i in 0..12_100u32 {
        let text = if i % 20 == 0 {
            format!("猫{}", char::from_u32(0x4E00 + (i / 20) % 70).unwrap())
        } else {
            format!("记录 {i}")
        };
        let t = 3600 + i;
        day.push_str(&format!("- [2026-11-20T{:02}:{:02}:{:02}.000Z] [-] {text}\n", t / 3600, t / 60 % 60, t % 60));
    }
    put(dir.path(), "cold/2026-11/2026-11-20.md", &day);
    let m = open_at(dir.path(), NOW);
    let (items, matched, sql) = ask_explained(&m, "上周五 猫");
    // explain names the statement that ran: each term's matches in the window.
    assert_eq!(sql, memlayers::query::search::TERM_UNION_SQL);
    assert_eq!(matched, 605);
    let got: Vec<String> = items.iter().map(|(c, _)| c.clone()).collect();
    let want: Vec<String> =
        (0..10u32).map(|k| format!("猫{}", char::from_u32(0x4E00 + (604 - k) % 70).unwrap())).collect();
    assert_eq!(got, want);
    assert!(items.iter().all(|(_, s)| *s == items[0].1), "{items:?}");
}

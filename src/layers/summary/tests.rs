use super::*;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn d(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

fn e(ts: &str, tag: &str, content: &str) -> Entry {
    Entry { ts: t(ts), tag: tag.into(), content: content.into(), source: None }
}

#[test]
fn first_sentences() {
    assert_eq!(first_sentence("今天降温了。穿了外套"), "今天降温了");
    assert_eq!(first_sentence("  。。开头是标点！后面"), "开头是标点");
    assert_eq!(first_sentence("Went home. Then slept"), "Went home");
    assert_eq!(first_sentence("version 1.2 released"), "version 1.2 released");
    assert_eq!(first_sentence("ends with a dot."), "ends with a dot");
    assert_eq!(first_sentence("问一下？好的"), "问一下");
    assert_eq!(first_sentence("a；b"), "a");
    assert_eq!(first_sentence(&"长".repeat(50)), "长".repeat(40));
    assert_eq!(first_sentence("！！！"), "！！！");
    assert_eq!(first_sentence(""), "");
}

const DAY: &str = "# 日摘要 2026-10-21

- 来源：冷层 cold/2026-10/2026-10-21.md
- 生成时间：2026-10-21T15:00:00.000Z
- 压缩比：原 3 条 → 保留 3 行

## 条目

- [计划] 周末想去看海
- [翻唱] 录了一版晴天
- [-] 降温了
";

#[test]
fn day_summary_layout() {
    let entries = [
        e("2026-10-21T03:10:00Z", "翻唱", "录了一版晴天。音准还行"),
        e("2026-10-21T01:00:00Z", "计划", "周末想去看海"),
        e("2026-10-21T05:00:00Z", "-", "降温了！"),
    ];
    let now = t("2026-10-21T15:00:00Z");
    let s = build_day(d("2026-10-21"), &entries, now);
    assert_eq!(s.text, DAY);
    assert_eq!((s.original, s.kept, s.omitted, s.label.as_str()), (3, 3, 0, "2026-10-21"));
    assert_eq!(s.top_tags, ["计划", "翻唱"]);
    assert_eq!(s.topics, vec![Topic::new("计划", "2026-10").unwrap(), Topic::new("翻唱", "2026-10").unwrap()]);
    // Stable: same inputs and time, same bytes.
    assert_eq!(build_day(d("2026-10-21"), &entries, now).text, s.text);
    let p = parse(&s.text, Period::Day);
    assert_eq!((p.original, p.kept, p.omitted, p.lines.len()), (Some(3), Some(3), 0, 3));
    assert_eq!(
        p.lines[2],
        SummaryLine {
            tag: "-".into(), first: "降温了".into(), last: "降温了".into(), count: 1, total_only: false
        }
    );
}

#[test]
fn empty_day() {
    let s = build_day(d("2026-10-21"), &[], t("2026-10-21T15:00:00Z"));
    assert_eq!(
        s.text,
        "# 日摘要 2026-10-21\n\n- 来源：冷层 cold/2026-10/2026-10-21.md\n- 生成时间：2026-10-21T15:00:00.000Z\n- 压缩比：原 0 条 → 保留 0 行\n\n## 条目\n\n（无条目）\n"
    );
    assert!(s.top_tags.is_empty() && s.topics.is_empty());
}

#[test]
fn day_budget_omits_whole_lines_with_a_note() {
    // Each line: "- [t] " (6) + 40 = 46; 32 lines = 1472 ≤ 1500, the 33rd would make 1518.
    let entries: Vec<Entry> = (0..40).map(|i| e(&format!("2026-10-21T00:{i:02}:00Z"), "t", &"字".repeat(50))).collect();
    let s = build_day(d("2026-10-21"), &entries, t("2026-10-21T15:00:00Z"));
    assert_eq!((s.original, s.kept, s.omitted), (40, 32, 8));
    assert!(s.text.contains("- 压缩比：原 40 条 → 保留 32 行\n"));
    assert!(s.text.ends_with(&format!("- [t] {}\n\n（已省略 8 行：超出日摘要预算 1500 字）\n", "字".repeat(40))));
    assert_eq!(parse(&s.text, Period::Day).omitted, 8);
}

const DAY_19: &str = "# 日摘要 2026-10-19

- 来源：冷层 cold/2026-10/2026-10-19.md
- 生成时间：2026-10-19T15:00:00.000Z
- 压缩比：原 3 条 → 保留 2 行

## 条目

- [翻唱] 晴天初版
- [计划] 看海

（已省略 1 行：超出日摘要预算 1500 字）
";

const WEEK: &str = "# 周摘要 2026-W43（2026-10-19 至 2026-10-25）

- 来源：日摘要 2026-10-19；冷层 2026-10-21、2026-10-22
- 生成时间：2026-10-22T15:00:00.000Z
- 压缩比：原 6 条 → 保留 3 行

## 条目

- [翻唱] 晴天初版 … 稻香初录（3 条）
- [计划] 看海
- [约定] 每周日复盘
";

fn week_days_input() -> Vec<(NaiveDate, DaySource)> {
    vec![
        (d("2026-10-22"), DaySource::Cold(vec![e("2026-10-22T02:00:00Z", "翻唱", "稻香初录")])),
        (d("2026-10-19"), DaySource::Summary(parse(DAY_19, Period::Day))),
        (
            d("2026-10-21"),
            DaySource::Cold(vec![
                e("2026-10-21T02:00:00Z", "约定", "每周日复盘"),
                e("2026-10-21T01:00:00Z", "翻唱", "晴天终版。发了"),
            ]),
        ),
    ]
}

#[test]
fn week_merges_tags_earliest_to_latest() {
    let s = build_week(d("2026-10-25"), &week_days_input(), t("2026-10-22T15:00:00Z")).unwrap();
    assert_eq!(s.text, WEEK);
    assert_eq!((s.original, s.kept, s.omitted, s.label.as_str()), (6, 3, 0, "2026-W43"));
    assert_eq!(s.top_tags, ["翻唱", "计划", "约定"]);
    let p = parse(WEEK, Period::Week);
    assert_eq!(
        p.lines[0],
        SummaryLine {
            tag: "翻唱".into(),
            first: "晴天初版".into(),
            last: "稻香初录".into(),
            count: 3,
            total_only: false
        }
    );
    assert_eq!((p.lines[1].count, p.lines[1].first.as_str(), p.lines[1].last.as_str()), (1, "看海", "看海"));
}

#[test]
fn week_input_errors_and_empty_week() {
    let outside = vec![(d("2026-10-26"), DaySource::Cold(vec![]))];
    let err = build_week(d("2026-10-21"), &outside, t("2026-10-22T00:00:00Z")).unwrap_err();
    assert!(err.to_string().starts_with("invalid days: 2026-10-26 is not a day of 2026-W43"), "{err}");
    let twice = vec![(d("2026-10-20"), DaySource::Cold(vec![])), (d("2026-10-20"), DaySource::Cold(vec![]))];
    assert!(build_week(d("2026-10-21"), &twice, t("2026-10-22T00:00:00Z")).is_err());
    let s = build_week(d("2026-10-21"), &[], t("2026-10-22T00:00:00Z")).unwrap();
    assert!(s.text.contains("- 来源：无\n"));
    assert!(s.text.contains("原 0 条 → 保留 0 行"));
}

#[test]
fn month_plan_uses_only_full_weeks() {
    // 2026-10-01 is a Thursday; full weeks start on Oct 5, 12, 19.
    let p = month_plan(d("2026-10-15"));
    assert_eq!(p.full_weeks, ["2026-W41", "2026-W42", "2026-W43"]);
    let loose: Vec<&str> = p.loose_days.iter().map(String::as_str).collect();
    assert_eq!(
        loose,
        [
            "2026-10-01",
            "2026-10-02",
            "2026-10-03",
            "2026-10-04",
            "2026-10-26",
            "2026-10-27",
            "2026-10-28",
            "2026-10-29",
            "2026-10-30",
            "2026-10-31"
        ]
    );
    // June 2026 starts on a Monday: four full weeks, two loose days.
    let p = month_plan(d("2026-06-30"));
    assert_eq!(p.full_weeks, ["2026-W23", "2026-W24", "2026-W25", "2026-W26"]);
    assert_eq!(p.loose_days, ["2026-06-29", "2026-06-30"]);
    assert_eq!(week_days(d("2026-10-21"))[0], d("2026-10-19"));
    assert_eq!(week_monday("2026-W43", "weeks").unwrap(), d("2026-10-19"));
    assert!(week_monday("2026-43", "weeks").is_err());
}

const MONTH: &str = "# 月摘要 2026-10

- 来源：周摘要 2026-W43；冷层 2026-10-02、2026-10-06
- 生成时间：2026-10-31T15:00:00.000Z
- 压缩比：原 9 条 → 保留 4 行

## 条目

- [重要] 护照下月到期
- [翻唱] 晴天初版 … 稻香初录（3 条）
- [约定] 每周日复盘
- [计划] 共 3 条
";

#[test]
fn month_keeps_three_tags_and_counts_the_rest() {
    let weeks = vec![("2026-W43".to_string(), parse(WEEK, Period::Week))];
    let days = vec![
        (d("2026-10-06"), DaySource::Cold(vec![e("2026-10-06T01:00:00Z", "计划", "订酒店")])),
        (
            d("2026-10-02"),
            DaySource::Cold(vec![
                e("2026-10-02T01:00:00Z", "重要", "护照下月到期。记得续"),
                e("2026-10-02T02:00:00Z", "计划", "买票"),
            ]),
        ),
    ];
    let s = build_month(d("2026-10-31"), &weeks, &days, t("2026-10-31T15:00:00Z")).unwrap();
    assert_eq!(s.text, MONTH);
    assert_eq!((s.original, s.kept, s.label.as_str()), (9, 4, "2026-10"));
    // 计划 3 and 翻唱 3 tie: 计划 appeared first (Oct 2); 重要 1 appeared before 约定 1.
    assert_eq!(s.top_tags, ["计划", "翻唱", "重要"]);
    let p = parse(MONTH, Period::Month);
    assert_eq!(
        p.lines[3],
        SummaryLine { tag: "计划".into(), first: "".into(), last: "".into(), count: 3, total_only: true }
    );
    assert_eq!(p.lines[1].count, 3);
}

#[test]
fn month_input_errors() {
    let now = t("2026-10-31T00:00:00Z");
    let straddling = vec![("2026-W44".to_string(), parse(WEEK, Period::Week))];
    let err = build_month(d("2026-10-01"), &straddling, &[], now).unwrap_err();
    assert_eq!(err.to_string(), "invalid weeks: 2026-W44 is not a full ISO week of 2026-10");
    let weeks = vec![("2026-W43".to_string(), parse(WEEK, Period::Week))];
    let inside = vec![(d("2026-10-20"), DaySource::Cold(vec![]))];
    assert!(build_month(d("2026-10-01"), &weeks, &inside, now).unwrap_err().to_string().starts_with("invalid days"));
    let other_month = vec![(d("2026-11-02"), DaySource::Cold(vec![]))];
    assert!(build_month(d("2026-10-01"), &[], &other_month, now).is_err());
}

#[test]
fn month_budget() {
    // Own lines "- [重要] " (7) + 40 = 47: 14 fit in 700 (658), the 15th would make 705.
    let mut entries: Vec<Entry> =
        (0..20).map(|i| e(&format!("2026-10-01T00:{i:02}:00Z"), "重要", &"要".repeat(45))).collect();
    entries.push(e("2026-10-01T01:00:00Z", "计划", "买票"));
    let days = vec![(d("2026-10-01"), DaySource::Cold(entries))];
    let s = build_month(d("2026-10-01"), &[], &days, t("2026-10-31T00:00:00Z")).unwrap();
    assert_eq!((s.original, s.kept, s.omitted), (21, 14, 7));
    assert!(s.text.ends_with("（已省略 7 行：超出月摘要预算 700 字）\n"));
}

#[test]
fn parse_is_tolerant() {
    let p = parse("随手写的\n- [约定] 周日复盘 … 也许\n-[x] 不是条目\n- [] 空标签", Period::Day);
    assert_eq!(p.original, None);
    assert_eq!(p.lines.len(), 2);
    assert_eq!(p.lines[0].first, "周日复盘 … 也许"); // day lines are not split
    assert_eq!(p.lines[1].tag, "-");
    let w = parse("- [a] x（2 条）\n- [b] 共 4 条", Period::Week);
    assert_eq!((w.lines[0].count, w.lines[0].first.as_str(), w.lines[1].total_only), (2, "x", false));
}

#[test]
fn periods() {
    assert_eq!(Period::parse("week").unwrap(), Period::Week);
    assert_eq!(Period::parse("year").unwrap_err().to_string(), "invalid period: \"year\" is not day, week or month");
    assert_eq!(Period::Day.rel_path(d("2026-10-21")), "summaries/day/2026-10-21.md");
    assert_eq!(Period::Week.rel_path(d("2026-10-21")), "summaries/week/2026-W43.md");
    assert_eq!(Period::Month.rel_path(d("2026-10-21")), "summaries/month/2026-10.md");
    assert_eq!((Period::Day.budget(), Period::Week.budget(), Period::Month.budget()), (1500, 1000, 700));
}

#[test]
fn engine_bookkeeping_tags_are_not_topics() {
    let entries = [
        e("2026-10-21T01:00:00Z", "hot-evict", "旧的热层块一"),
        e("2026-10-21T01:01:00Z", "hot-evict", "旧的热层块二"),
        e("2026-10-21T01:02:00Z", "candidate-expired", "[计划] 过期候选"),
        e("2026-10-21T01:03:00Z", "session", "会话记录"),
        e("2026-10-21T02:00:00Z", "读书", "读完一章"),
    ];
    let s = build_day(d("2026-10-21"), &entries, t("2026-10-21T15:00:00Z"));
    assert_eq!(s.top_tags, ["读书"]);
}

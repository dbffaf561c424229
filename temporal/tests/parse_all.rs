//! `parse_all`: every time expression of a note, each with its window and span. Expected
//! windows worked out by hand from the calendar (2026-11-23 is a Monday: 2026-11-22 is the
//! Sunday the table's reference instants name).

use chrono::{DateTime, NaiveDate, Utc};
use memlayers_temporal::{Grain, parse, parse_all};

fn d(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

/// Monday 2026-11-23 00:30 in Shanghai (mon = 11-23).
fn monday() -> DateTime<Utc> {
    "2026-11-22T16:30:00Z".parse().unwrap()
}

/// (startDate, endDate, spans, matched) of one window.
type Row = (NaiveDate, NaiveDate, Vec<(usize, usize)>, String);

/// A [`Row`] per window.
fn summary(text: &str) -> Vec<Row> {
    parse_all(text, monday(), chrono_tz::Asia::Shanghai)
        .into_iter()
        .map(|w| (w.start_date, w.end_date, w.spans, w.matched))
        .collect()
}

#[test]
fn a_note_naming_two_events_gives_both() {
    // 上周六 = Saturday of last week [mon-7, mon) = 11-21; 下周三 = Wednesday of next week
    // [mon+7, mon+14) = 12-02. Spans are char offsets: 上周六 is chars 0..3, 下周三 8..11 (after 去了杭州，).
    let got = summary("上周六去了杭州，下周三交报告");
    assert_eq!(
        got,
        vec![
            (d("2026-11-21"), d("2026-11-22"), vec![(0, 3)], "上周六".to_string()),
            (d("2026-12-02"), d("2026-12-03"), vec![(8, 11)], "下周三".to_string()),
        ]
    );
}

#[test]
fn asides_are_kept_in_notes_but_not_in_questions() {
    // The note's first clause names yesterday (11-22) and its second asks: parse (a question)
    // keeps only the question clause, which names no time; parse_all keeps every clause.
    let text = "昨天去了西湖，你去过吗？";
    assert!(parse(text, monday(), chrono_tz::Asia::Shanghai).window.is_none());
    assert_eq!(summary(text), vec![(d("2026-11-22"), d("2026-11-23"), vec![(0, 2)], "昨天".to_string())]);
}

#[test]
fn union_members_come_one_window_each() {
    // 上周三 = 11-18, 上周五 = 11-20 (last week starts 11-16).
    let got = summary("上周三和上周五都在加班");
    assert_eq!(
        got,
        vec![
            (d("2026-11-18"), d("2026-11-19"), vec![(0, 3)], "上周三".to_string()),
            (d("2026-11-20"), d("2026-11-21"), vec![(4, 7)], "上周五".to_string()),
        ]
    );
    // parse gives the same two as `windows` and their covering window as `window`.
    let p = parse("上周三和上周五都在加班", monday(), chrono_tz::Asia::Shanghai);
    let w = p.window.unwrap();
    assert_eq!((w.start_date, w.end_date, w.grain), (d("2026-11-18"), d("2026-11-21"), Grain::Range));
    assert_eq!((w.spans, w.matched.as_str(), p.rest.as_str()), (vec![(0, 7)], "上周三和上周五", "都在加班"));
    assert_eq!(p.windows.len(), 2);
}

#[test]
fn habits_and_yearly_dates_are_left_out_of_notes_too() {
    // Clause one is a habit (平时 + bare 周一), clause two a birthday date; only 上周一 (11-16)
    // names an event.
    let got = summary("我平时周一健身，她的生日是3月5号，上周一没去");
    assert_eq!(got, vec![(d("2026-11-16"), d("2026-11-17"), vec![(18, 21)], "上周一".to_string())]);
}

#[test]
fn no_expression_no_windows() {
    assert!(summary("本周期的报表，《后天》，每周三开会").is_empty());
}

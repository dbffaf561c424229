//! The Chinese lunisolar calendar and two solar terms, 1900–2100, for the holidays
//! 除夕 春节 元宵 端午 七夕 中秋 重阳 (lunar dates) and 清明 冬至 (solar
//! terms). Pure table look-ups, no astronomy at run time.
//!
//! # Sources
//!
//! * **Lunar months**: [`YEAR_INFO`] is the month-length table published by the Hong Kong
//!   Observatory for 1900–2100 in the compact encoding used by most calendar libraries, copied
//!   verbatim from the PyPI package `borax` 4.1.3 (`borax/calendars/lunardate.py`,
//!   `YEAR_INFOS`). Lunar year 1900 begins on 1900-01-31.
//! * **Solar terms**: [`QINGMING`] and [`DONGZHI`] give the local date (UTC+8, the convention
//!   of Chinese calendars, GB/T 33661-2017) on which the Sun's apparent geocentric ecliptic
//!   longitude reaches 15° (清明) and 270° (冬至), computed with PyEphem 4.2.1 by
//!   `tools/lunar/solar_terms_ephem.py`.
//!
//! Both are checked by a test against an independent astronomical computation (sxtwl 2.0.7,
//! 寿星天文历; `temporal/tests/data/lunar_dates.tsv`, written by `tools/lunar/check_dates_sxtwl.py`)
//! for every year: 春节 and 中秋 1950–2100, 清明 and 冬至 1900–2100. They agree except two
//! instants that fall within minutes of midnight, listed in the test with the reason.

use chrono::NaiveDate;

use super::calendar::add_days;

/// First Gregorian (and lunar) year covered.
const FIRST_YEAR: i32 = 1900;

/// One entry per lunar year 1900..=2100. Bits 0–3: the leap month (0 = none; the leap month
/// follows the regular month of that number); bit 16: the leap month has 30 days (else 29);
/// bits 15 down to 4: months 1 to 12, set = 30 days, clear = 29 days.
const YEAR_INFO: [u32; 201] = [
    0x04bd8, 0x04ae0, 0x0a570, 0x054d5, 0x0d260, 0x0d950, 0x16554, 0x056a0, 0x09ad0, 0x055d2, // 1900–1909
    0x04ae0, 0x0a5b6, 0x0a4d0, 0x0d250, 0x1d255, 0x0b540, 0x0d6a0, 0x0ada2, 0x095b0, 0x14977, // 1910–1919
    0x04970, 0x0a4b0, 0x0b4b5, 0x06a50, 0x06d40, 0x1ab54, 0x02b60, 0x09570, 0x052f2, 0x04970, // 1920–1929
    0x06566, 0x0d4a0, 0x0ea50, 0x16a95, 0x05ad0, 0x02b60, 0x186e3, 0x092e0, 0x1c8d7, 0x0c950, // 1930–1939
    0x0d4a0, 0x1d8a6, 0x0b550, 0x056a0, 0x1a5b4, 0x025d0, 0x092d0, 0x0d2b2, 0x0a950, 0x0b557, // 1940–1949
    0x06ca0, 0x0b550, 0x15355, 0x04da0, 0x0a5b0, 0x14573, 0x052b0, 0x0a9a8, 0x0e950, 0x06aa0, // 1950–1959
    0x0aea6, 0x0ab50, 0x04b60, 0x0aae4, 0x0a570, 0x05260, 0x0f263, 0x0d950, 0x05b57, 0x056a0, // 1960–1969
    0x096d0, 0x04dd5, 0x04ad0, 0x0a4d0, 0x0d4d4, 0x0d250, 0x0d558, 0x0b540, 0x0b6a0, 0x195a6, // 1970–1979
    0x095b0, 0x049b0, 0x0a974, 0x0a4b0, 0x0b27a, 0x06a50, 0x06d40, 0x0af46, 0x0ab60, 0x09570, // 1980–1989
    0x04af5, 0x04970, 0x064b0, 0x074a3, 0x0ea50, 0x06b58, 0x05ac0, 0x0ab60, 0x096d5, 0x092e0, // 1990–1999
    0x0c960, 0x0d954, 0x0d4a0, 0x0da50, 0x07552, 0x056a0, 0x0abb7, 0x025d0, 0x092d0, 0x0cab5, // 2000–2009
    0x0a950, 0x0b4a0, 0x0baa4, 0x0ad50, 0x055d9, 0x04ba0, 0x0a5b0, 0x15176, 0x052b0, 0x0a930, // 2010–2019
    0x07954, 0x06aa0, 0x0ad50, 0x05b52, 0x04b60, 0x0a6e6, 0x0a4e0, 0x0d260, 0x0ea65, 0x0d530, // 2020–2029
    0x05aa0, 0x076a3, 0x096d0, 0x04afb, 0x04ad0, 0x0a4d0, 0x1d0b6, 0x0d250, 0x0d520, 0x0dd45, // 2030–2039
    0x0b5a0, 0x056d0, 0x055b2, 0x049b0, 0x0a577, 0x0a4b0, 0x0aa50, 0x1b255, 0x06d20, 0x0ada0, // 2040–2049
    0x14b63, 0x09370, 0x049f8, 0x04970, 0x064b0, 0x168a6, 0x0ea50, 0x06b20, 0x1a6c4, 0x0aae0, // 2050–2059
    0x092e0, 0x0d2e3, 0x0c960, 0x0d557, 0x0d4a0, 0x0da50, 0x05d55, 0x056a0, 0x0a6d0, 0x055d4, // 2060–2069
    0x052d0, 0x0a9b8, 0x0a950, 0x0b4a0, 0x0b6a6, 0x0ad50, 0x055a0, 0x0aba4, 0x0a5b0, 0x052b0, // 2070–2079
    0x0b273, 0x06930, 0x07337, 0x06aa0, 0x0ad50, 0x14b55, 0x04b60, 0x0a570, 0x054e4, 0x0d260, // 2080–2089
    0x0e968, 0x0d520, 0x0daa0, 0x16aa6, 0x056d0, 0x04ae0, 0x0a9d4, 0x0a4d0, 0x0d150, 0x0f252, // 2090–2099
    0x0d520, // 2100
];

/// 清明, 1900..=2100: the day of April is this digit + 3.
const QINGMING: &str = concat!(
    "22332233223322232223222322232223222322232223222222", // 1900–1949
    "22222222222222222222222222122212221222122212221222", // 1950–1999
    "12221222112211221122112211221122112211221112111211", // 2000–2049
    "12111211121112111211121111111111111111111111111111", // 2050–2099
    "2",                                                  // 2100–2100
);

/// 冬至, 1900..=2100: the day of December is this digit + 20.
const DONGZHI: &str = concat!(
    "22332233223322332223222322232223222322232223222322", // 1900–1949
    "22222222222222222222222222222222222222122212221222", // 1950–1999
    "12221222122212221222112211221122112211221122112211", // 2000–2049
    "22112211121112111211121112111211121112111111111111", // 2050–2099
    "2",                                                  // 2100–2100
);

/// The entry of lunar year `y`, if covered.
fn info(y: i32) -> Option<u32> {
    YEAR_INFO.get(usize::try_from(y - FIRST_YEAR).ok()?).copied()
}

/// Days in regular month `m` (1..=12) of a year with entry `v`.
fn month_days(v: u32, m: u32) -> i64 {
    if v & (0x10000 >> m) != 0 { 30 } else { 29 }
}

/// Days in the leap month of a year with entry `v` (0 without one).
fn leap_days(v: u32) -> i64 {
    match v & 0xf {
        0 => 0,
        _ if v & 0x10000 != 0 => 30,
        _ => 29,
    }
}

/// Days in lunar year `v`.
fn year_days(v: u32) -> i64 {
    (1..=12).map(|m| month_days(v, m)).sum::<i64>() + leap_days(v)
}

/// The Gregorian date of lunar new year (正月初一, 春节) of lunar year `y`, 1900..=2100.
pub(crate) fn new_year(y: i32) -> Option<NaiveDate> {
    info(y)?;
    let days: i64 = (FIRST_YEAR..y).map(|k| info(k).map_or(0, year_days)).sum();
    add_days(NaiveDate::from_ymd_opt(1900, 1, 31)?, days)
}

/// The Gregorian date of lunar month `m` (regular, not leap), day `d` of lunar year `y`;
/// `None` outside 1900..=2100 or for a day the month does not have (30 in a 29-day month).
pub(crate) fn to_solar(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
    let v = info(y)?;
    if !(1..=12).contains(&m) || d == 0 || i64::from(d) > month_days(v, m) {
        return None;
    }
    let leap = v & 0xf;
    let before: i64 =
        (1..m).map(|k| month_days(v, k)).sum::<i64>() + if leap != 0 && leap < m { leap_days(v) } else { 0 };
    add_days(new_year(y)?, before + i64::from(d) - 1)
}

/// A solar term the parser knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Term {
    /// 清明: apparent solar longitude 15°, April 4–6.
    Qingming,
    /// 冬至: apparent solar longitude 270°, December 21–23.
    Dongzhi,
}

/// The local date (UTC+8) of solar term `term` in Gregorian year `y`, 1900..=2100.
pub(crate) fn solar_term(y: i32, term: Term) -> Option<NaiveDate> {
    let k = usize::try_from(y - FIRST_YEAR).ok()?;
    let (digits, month, base) = match term {
        Term::Qingming => (QINGMING, 4, 3),
        Term::Dongzhi => (DONGZHI, 12, 20),
    };
    let digit = digits.as_bytes().get(k)?.checked_sub(b'0')?;
    NaiveDate::from_ymd_opt(y, month, base + u32::from(digit))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the tables and sxtwl disagree: (year, column, ours, sxtwl, why). Both are instants
    /// within minutes of midnight (UTC+8), where the date depends on ΔT and the ephemeris.
    const KNOWN: [(i32, &str, &str, &str); 2] = [
        // 冬至 1951: PyEphem 23:59:57 on Dec 22, JPL DE421 (skyfield) 23:59:49 on Dec 22, sxtwl
        // 00:00:01 on Dec 23. Two of three put it on the 22nd; we keep the PyEphem date.
        (1951, "dongzhi", "1951-12-22", "1951-12-23"),
        // 中秋 2089: the new moon starting lunar month 8 falls at 23:57 (PyEphem) on Sep 4; the
        // Hong Kong Observatory table starts the month on Sep 5, sxtwl on Sep 4. A prediction 63
        // years ahead with a ΔT uncertainty of minutes: we keep the published table.
        (2089, "mid_autumn", "2089-09-19", "2089-09-18"),
    ];

    fn ours(y: i32, column: &str) -> Option<NaiveDate> {
        match column {
            "spring_festival" => new_year(y),
            "mid_autumn" => to_solar(y, 8, 15),
            "qingming" => solar_term(y, Term::Qingming),
            _ => solar_term(y, Term::Dongzhi),
        }
    }

    /// Every year's 春节 and 中秋 in 1950–2100 and 清明 and 冬至 in 1900–2100 against sxtwl 2.0.7
    /// (an astronomical computation independent of both tables: temporal/tests/data/lunar_dates.tsv).
    #[test]
    fn tables_agree_with_an_independent_astronomical_calendar() {
        let data = include_str!("../tests/data/lunar_dates.tsv");
        let columns = ["spring_festival", "mid_autumn", "qingming", "dongzhi"];
        let (mut checked, mut differ) = (0, Vec::new());
        for line in data.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
            let cols: Vec<&str> = line.split('\t').collect();
            let y: i32 = cols[0].parse().unwrap();
            for (k, column) in columns.iter().enumerate() {
                if k < 2 && y < 1950 {
                    continue;
                }
                let want: NaiveDate = cols[k + 1].parse().unwrap();
                let got = ours(y, column).unwrap_or_else(|| panic!("{y} {column}: no date"));
                checked += 1;
                if got != want {
                    differ.push((y, *column, got.to_string(), want.to_string()));
                }
            }
        }
        assert_eq!(checked, 151 * 2 + 201 * 2, "the file must cover 1900–2100");
        let known: Vec<_> = KNOWN.iter().map(|&(y, c, a, b)| (y, c, a.to_string(), b.to_string())).collect();
        assert_eq!(differ, known, "disagreements with sxtwl other than the known midnight cases");
    }

    #[test]
    fn published_dates() {
        // From printed calendars: 春节 2024-02-10, 2025-01-29, 2026-02-17; 除夕 is the day
        // before; 端午 2025-05-31; 中秋 2025-10-06; 重阳 2026-10-18; 清明 2025-04-04; 冬至
        // 2026-12-22. 2025 has a leap 6th month (闰六月), which 中秋 must count.
        let d = |s: &str| s.parse::<NaiveDate>().unwrap();
        assert_eq!(new_year(2024), Some(d("2024-02-10")));
        assert_eq!(new_year(2025), Some(d("2025-01-29")));
        assert_eq!(new_year(2026), Some(d("2026-02-17")));
        assert_eq!(to_solar(2025, 5, 5), Some(d("2025-05-31")));
        assert_eq!(to_solar(2025, 8, 15), Some(d("2025-10-06")));
        assert_eq!(to_solar(2026, 9, 9), Some(d("2026-10-18")));
        assert_eq!(solar_term(2025, Term::Qingming), Some(d("2025-04-04")));
        assert_eq!(solar_term(2026, Term::Dongzhi), Some(d("2026-12-22")));
        assert_eq!(new_year(1899), None);
        assert_eq!(new_year(2101), None);
        assert_eq!(to_solar(2026, 13, 1), None);
    }
}

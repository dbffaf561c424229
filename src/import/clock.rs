//! Timestamps of imported entries: a time written at the start of a heading or an entry, or
//! the day's start plus the entry's ordinal (docs/import.md, "Time").

use chrono::{DateTime, Duration, FixedOffset, NaiveDate, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

use crate::files::{local_date, local_midnight};

/// A clock time read from text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrittenTime {
    /// Time of day.
    pub time: NaiveTime,
    /// `Some` when the text names the zone: `UTC`, `GMT` or `Z` (offset 0), optionally with an
    /// offset such as `UTC+8` or `GMT-05:30`. `None`: local time in the configured zone.
    pub offset: Option<FixedOffset>,
    /// Bytes of the text the time took, brackets and zone included.
    pub len: usize,
}

struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<char> {
        self.s[self.pos..].chars().next()
    }
    fn eat(&mut self, set: &str) -> bool {
        match self.peek() {
            Some(c) if set.contains(c) => {
                self.pos += c.len_utf8();
                true
            }
            _ => false,
        }
    }
    fn spaces(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.pos += 1;
        }
    }
    fn digits(&mut self, min: usize, max: usize) -> Option<u32> {
        let run = self.s[self.pos..].bytes().take_while(u8::is_ascii_digit).count();
        if run < min || run > max {
            return None;
        }
        let v = self.s[self.pos..self.pos + run].parse().ok()?;
        self.pos += run;
        Some(v)
    }
    /// Eats one of `words` (ASCII, case-insensitive) when it is not followed by an ASCII letter
    /// or digit.
    fn word(&mut self, words: &[&str]) -> Option<usize> {
        let rest = &self.s[self.pos..];
        for (i, w) in words.iter().enumerate() {
            if rest.len() >= w.len()
                && rest.is_char_boundary(w.len())
                && rest[..w.len()].eq_ignore_ascii_case(w)
                && !rest[w.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
            {
                self.pos += w.len();
                return Some(i);
            }
        }
        None
    }
}

/// Reads a clock time at the very start of `text`: `12:00`, `7:00`, `04:03:59`, `(7:00)`,
/// `[7:00]`, `（7:00）`, `12：00` (full-width colon), `4:00 AM`, `4:00pm`, `4:00 p.m.`,
/// `04:03 UTC`, `04:03Z`, `04:03 GMT`, `04:03 UTC+8`. Hours 0–23 (1–12 with AM/PM; `12 AM` is
/// midnight; an hour above 12 ignores a stray `PM`), minutes and seconds 0–59, minutes always
/// two digits. The time must not run on into a letter or digit (`12:00abc`, `12:000`, `1:2`
/// are not times), so ratios and version numbers are not read as times.
pub fn leading_time(text: &str) -> Option<WrittenTime> {
    let mut c = Cursor { s: text, pos: 0 };
    let bracket = c.eat("([（【");
    c.spaces();
    let mut hour = c.digits(1, 2)?;
    if !c.eat(":：") {
        return None;
    }
    let minute = c.digits(2, 2)?;
    let mut second = 0;
    let save = c.pos;
    if c.eat(":") {
        match c.digits(2, 2) {
            Some(s) => second = s,
            None => c.pos = save,
        }
    }
    if c.peek().is_some_and(|ch| ch.is_ascii_digit()) {
        return None;
    }
    let save = c.pos;
    c.spaces();
    match c.word(&["am", "a.m.", "pm", "p.m."]) {
        Some(i) => {
            let pm = i >= 2;
            if hour == 0 || hour > 12 {
                if !pm || hour == 0 {
                    return None;
                }
            } else if pm && hour < 12 {
                hour += 12;
            } else if !pm && hour == 12 {
                hour = 0;
            }
        }
        None => c.pos = save,
    }
    let save = c.pos;
    c.spaces();
    let mut offset = None;
    match c.word(&["utc", "gmt", "z"]) {
        Some(_) => {
            let mut secs = 0i32;
            let before_sign = c.pos;
            if let Some(sign) = c.peek().filter(|ch| *ch == '+' || *ch == '-') {
                c.pos += 1;
                match c.digits(1, 2) {
                    Some(h) => {
                        let save_m = c.pos;
                        c.eat(":");
                        let m = c.digits(2, 2).unwrap_or_else(|| {
                            c.pos = save_m;
                            0
                        });
                        secs = (h * 3600 + m * 60) as i32 * if sign == '-' { -1 } else { 1 };
                    }
                    None => c.pos = before_sign,
                }
            }
            offset = Some(FixedOffset::east_opt(secs)?);
        }
        None => c.pos = save,
    }
    if bracket {
        let save = c.pos;
        c.spaces();
        if !c.eat(")]）】") {
            c.pos = save;
        }
    }
    if c.peek().is_some_and(|ch| ch.is_ascii_alphanumeric()) {
        return None;
    }
    if c.s[c.pos..].starts_with(':') && c.s[c.pos + 1..].starts_with(|ch: char| ch.is_ascii_digit()) {
        return None;
    }
    let time = NaiveTime::from_hms_opt(hour, minute, second)?;
    Some(WrittenTime { time, offset, len: c.pos })
}

/// The last instant of `day` in `tz` (the next local midnight minus one millisecond): no
/// timestamp computed here goes past it.
pub fn day_end(day: NaiveDate, tz: Tz) -> DateTime<Utc> {
    let next =
        day.succ_opt().map(|d| local_midnight(d, tz)).unwrap_or_else(|| local_midnight(day, tz) + Duration::days(1));
    next - Duration::milliseconds(1)
}

/// `ts` pulled back to [`day_end`] if it goes past it.
pub fn cap_to_day(ts: DateTime<Utc>, day: NaiveDate, tz: Tz) -> DateTime<Utc> {
    ts.min(day_end(day, tz))
}

/// The instant of the entry with ordinal `n` (0-based, counting every entry of the day) that
/// has no written time: local midnight of `day` in `tz` plus `n` seconds, capped at the day's
/// last millisecond, so entries past the day's length in seconds (86,400, or 82,800 on a
/// day that loses an hour to DST) all share that last instant and keep their order only by
/// position.
pub fn ordinal_instant(day: NaiveDate, n: usize, tz: Tz) -> DateTime<Utc> {
    let secs = i64::try_from(n).unwrap_or(i64::MAX).min(200_000);
    cap_to_day(local_midnight(day, tz) + Duration::seconds(secs), day, tz)
}

/// The instant on `day` of a written time.
///
/// * Local time (no zone in the text): that wall-clock time on `day` in `tz`. In a DST fold
///   the earlier instant; in a DST gap the first existing wall-clock time after it (tried in
///   30-minute steps).
/// * With a zone (`UTC`, `UTC+8`): the one instant inside the local day `day` (in `tz`) whose
///   clock time in that zone is the written time. A note in `2026-03-18.md` (local day) saying
///   `23:00 UTC` in Asia/Shanghai is 2026-03-17T23:00Z = 07:00 local on the 18th, not the
///   evening of the 18th UTC, which would be the 19th locally.
///
/// `None` when no such instant lies inside the local day (a UTC clock time that a 23-hour day
/// skips); the caller then falls back to the ordinal instant.
pub fn instant_on_day(day: NaiveDate, t: &WrittenTime, tz: Tz) -> Option<DateTime<Utc>> {
    match t.offset {
        Some(off) => [day.pred_opt(), Some(day), day.succ_opt()]
            .into_iter()
            .flatten()
            .filter_map(|d| off.from_local_datetime(&d.and_time(t.time)).single())
            .map(|dt| dt.with_timezone(&Utc))
            .find(|ts| local_date(*ts, tz) == day),
        None => {
            let mut naive = day.and_time(t.time);
            for _ in 0..6 {
                if let Some(dt) = tz.from_local_datetime(&naive).earliest() {
                    let ts = dt.with_timezone(&Utc);
                    return (local_date(ts, tz) == day).then_some(ts);
                }
                naive += Duration::minutes(30);
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::{Asia::Shanghai, Europe::Zurich};

    fn hm(h: u32, m: u32) -> NaiveTime {
        NaiveTime::from_hms_opt(h, m, 0).unwrap()
    }

    fn lt(s: &str) -> Option<(NaiveTime, Option<i32>, usize)> {
        leading_time(s).map(|t| (t.time, t.offset.map(|o| o.local_minus_utc()), t.len))
    }

    #[test]
    fn times_the_issue_lists() {
        assert_eq!(lt("12:00"), Some((hm(12, 0), None, 5)));
        assert_eq!(lt("(7:00) woke up"), Some((hm(7, 0), None, 6)));
        assert_eq!(lt("04:03 UTC deploy"), Some((hm(4, 3), Some(0), 9)));
        assert_eq!(lt("4:00 AM run"), Some((hm(4, 0), None, 7)));
    }

    #[test]
    fn more_spellings() {
        assert_eq!(lt("4:00pm"), Some((hm(16, 0), None, 6)));
        assert_eq!(lt("12:30 a.m."), Some((hm(0, 30), None, 10)));
        assert_eq!(lt("12:00 PM"), Some((hm(12, 0), None, 8)));
        assert_eq!(lt("15:23 PM"), Some((hm(15, 23), None, 8)));
        assert_eq!(lt("04:03Z"), Some((hm(4, 3), Some(0), 6)));
        assert_eq!(lt("04:03 UTC+8"), Some((hm(4, 3), Some(8 * 3600), 11)));
        assert_eq!(lt("04:03 GMT-05:30"), Some((hm(4, 3), Some(-(5 * 3600 + 30 * 60)), 15)));
        assert_eq!(lt("22:30 准时睡觉").map(|t| t.0), Some(hm(22, 30)));
        assert_eq!(lt("12:00~12:30 是午饭时间").map(|t| t.0), Some(hm(12, 0)));
        assert_eq!(lt("（7:00）起床"), Some((hm(7, 0), None, 10)));
        assert_eq!(lt("12：00"), Some((hm(12, 0), None, 7)));
        assert_eq!(lt("23:59:59 end").map(|t| t.0), NaiveTime::from_hms_opt(23, 59, 59));
        assert_eq!(lt("12:00 Zoom call").map(|t| (t.1, t.2)), Some((None, 5)));
    }

    #[test]
    fn not_times() {
        for s in [
            "24:00",
            "12:60",
            "1:2 ratio",
            "12:000",
            "12:00abc",
            "v1:30",
            "0:30 AM",
            "13:00 AM",
            "3:00:1x",
            "x 12:00",
            "",
        ] {
            assert_eq!(lt(s), None, "{s:?}");
        }
    }

    #[test]
    fn local_and_utc_instants() {
        let day = NaiveDate::from_ymd_opt(2026, 3, 18).unwrap();
        let t = |s: &str| leading_time(s).unwrap();
        // 12:00 in Shanghai (UTC+8) is 04:00Z.
        assert_eq!(instant_on_day(day, &t("12:00"), Shanghai).unwrap().to_rfc3339(), "2026-03-18T04:00:00+00:00");
        // 04:03 UTC stays 04:03Z (12:03 local, same day).
        assert_eq!(instant_on_day(day, &t("04:03 UTC"), Shanghai).unwrap().to_rfc3339(), "2026-03-18T04:03:00+00:00");
        // 23:00 UTC on local day 03-18 in Shanghai is 03-17 23:00Z (07:00 local on the 18th).
        assert_eq!(instant_on_day(day, &t("23:00 UTC"), Shanghai).unwrap().to_rfc3339(), "2026-03-17T23:00:00+00:00");
    }

    #[test]
    fn dst_days() {
        // Zurich springs forward on 2026-03-29 at 02:00 → 03:00 (UTC+1 → UTC+2).
        let spring = NaiveDate::from_ymd_opt(2026, 3, 29).unwrap();
        let gap = leading_time("02:30").unwrap();
        // 02:30 does not exist; 03:00 CEST = 01:00Z is the first existing time after it.
        assert_eq!(instant_on_day(spring, &gap, Zurich).unwrap().to_rfc3339(), "2026-03-29T01:00:00+00:00");
        // That 23-hour day runs 2026-03-28T23:00Z .. 2026-03-29T22:00Z: 22:30 UTC is not in it.
        assert_eq!(instant_on_day(spring, &leading_time("22:30 UTC").unwrap(), Zurich), None);
        // Falls back on 2026-10-25 at 03:00 → 02:00: 02:30 happens twice, the earlier (CEST) wins.
        let fall = NaiveDate::from_ymd_opt(2026, 10, 25).unwrap();
        assert_eq!(instant_on_day(fall, &gap, Zurich).unwrap().to_rfc3339(), "2026-10-25T00:30:00+00:00");
        // Ordinals past the 23-hour day's 82,800 seconds stop at its last millisecond.
        assert_eq!(ordinal_instant(spring, 82_800, Zurich).to_rfc3339(), "2026-03-29T21:59:59.999+00:00");
        assert_eq!(ordinal_instant(spring, 82_799, Zurich).to_rfc3339(), "2026-03-29T21:59:59+00:00");
    }

    #[test]
    fn ordinals() {
        let day = NaiveDate::from_ymd_opt(2022, 3, 2).unwrap();
        assert_eq!(ordinal_instant(day, 0, Shanghai).to_rfc3339(), "2022-03-01T16:00:00+00:00");
        assert_eq!(ordinal_instant(day, 5, Shanghai).to_rfc3339(), "2022-03-01T16:00:05+00:00");
        assert_eq!(ordinal_instant(day, 86_399, Shanghai).to_rfc3339(), "2022-03-02T15:59:59+00:00");
        assert_eq!(ordinal_instant(day, 86_400, Shanghai).to_rfc3339(), "2022-03-02T15:59:59.999+00:00");
        assert_eq!(ordinal_instant(day, usize::MAX, Shanghai).to_rfc3339(), "2022-03-02T15:59:59.999+00:00");
    }
}

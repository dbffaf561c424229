//! Local-date arithmetic shared by the parser and the engine: local midnights (DST-safe) and
//! Monday-weeks.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use chrono_tz::Tz;

/// The UTC instant of local midnight starting `day` in `tz`. On a day whose midnight does not
/// exist (a DST gap at 00:00) the first existing local instant of that day is used (searched
/// in 30-minute steps, the finest offset change any IANA zone has made at midnight).
pub fn local_midnight(day: NaiveDate, tz: Tz) -> DateTime<Utc> {
    use chrono::TimeZone;
    let mut t = day.and_hms_opt(0, 0, 0).expect("midnight exists");
    for _ in 0..48 {
        if let Some(dt) = tz.from_local_datetime(&t).earliest() {
            return dt.with_timezone(&Utc);
        }
        t += chrono::Duration::minutes(30);
    }
    tz.from_utc_datetime(&day.and_hms_opt(0, 0, 0).unwrap()).with_timezone(&Utc)
}

/// The Monday of the ISO week (weeks start on Monday, ISO 8601) holding `day`.
pub fn monday_of(day: NaiveDate) -> NaiveDate {
    day - chrono::Duration::days(day.weekday().num_days_from_monday() as i64)
}

/// True for characters of scripts written without spaces (CJK ideographs and their extensions,
/// compatibility ideographs, kana, `〇`): the set the engine's segmenter cuts into bigrams.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3007 | 0x3041..=0x3098 | 0x309D..=0x309F | 0x30A1..=0x30FA | 0x30FC..=0x30FF | 0x31F0..=0x31FF
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xFF66..=0xFF9F | 0x20000..=0x2FA1F
        | 0x30000..=0x323AF)
}

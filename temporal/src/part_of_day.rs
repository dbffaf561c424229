//! Parts of day that may follow a day expression: a part of day after a day expression
//! (凌晨 早上 早晨 上午 中午 下午 傍晚 晚上 夜里 半夜 晚) is consumed with it and reported as
//! `part_of_day`, but the window stays the whole day (an entry's time is when it was written,
//! not when what it tells happened).

use super::text::Text;

/// Chinese parts of day: the list above plus 清晨 深夜 夜间 晚间 白天.
const ZH: [&str; 16] = [
    "凌晨", "早上", "早晨", "清晨", "上午", "中午", "下午", "傍晚", "晚上", "夜里", "夜间", "晚间", "半夜", "深夜",
    "白天", "晚",
];

/// English parts of day, after a space (`yesterday evening`, `Monday night`).
const EN: [&str; 4] = ["morning", "afternoon", "evening", "night"];

/// The char spans of every part of day that follows a day expression ending at `i`
/// (Chinese: directly, or after 的 for a two-character part: `前天的晚上`; English: after one
/// to three spaces, only when `latin`). A span is the part of day itself; it ends the hit.
pub(crate) fn after(t: &Text, i: usize, latin: bool) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = ZH.iter().filter_map(|w| t.lit(i, w).map(|e| (i, e))).collect();
    // `前天的晚上`, `三天前的下午`: a 的 between the day and a two-character part of day is
    // consumed with them (not before the one-character 晚: 昨天的晚饭 is about dinner).
    if let Some(j) = t.lit(i, "的") {
        out.extend(ZH.iter().filter(|w| w.chars().count() == 2).filter_map(|w| t.lit(j, w).map(|e| (j, e))));
    }
    if latin && let Some(j) = t.spaces(i) {
        out.extend(EN.iter().filter_map(|w| t.word(j, w).map(|e| (j, e))));
    }
    out
}

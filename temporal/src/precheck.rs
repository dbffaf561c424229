//! A cheap test to run before [`crate::parse`] when very many texts are parsed (every entry of
//! an archive, for its event windows): false means no time expression can be in the text, so
//! the parse would return no window and can be skipped.
//!
//! * A char outside ASCII counts when its normalised form can start an expression: a start
//!   char of one of the scanner's matchers, a range or "since" prefix (从 自), a numeral
//!   (一…十 百 零 两, full-width digits). The set is read from the scanner's own tables
//!   ([`crate::scan::is_start`]), so it follows the parser's rules as they change; a bitmap
//!   over the Basic Multilingual Plane makes the test one bit read per char.
//! * ASCII: a digit counts (ISO dates, `3 days ago`, `Q3`, `the 21st`); a Latin word counts
//!   when it holds a unit or anchor word every English expression holds (`day` — also in
//!   `today`, `monday`, `holiday` —, `night`, `week`, `month`, `year`, `morning`, `afternoon`,
//!   `evening`, `tomorrow`, `now`, `ago`, `recently`, `lately`, `quarter`), starts like a month
//!   name (`jan` … `dec`), or names a holiday without those words (`christmas`, `xmas`,
//!   `halloween`, `thanksgiving`, `festival`, `solstice`). English matchers start at any word,
//!   so words, not start chars, are what can be checked cheaply there.
//!
//! False positives only cost a parse. A false negative would lose a window: the tests parse
//! every row of the parser's case table and random mixes of time words and assert that a text
//! with a window always passes.

use std::sync::LazyLock;

/// Words of 64 letters or more are not checked letter by letter (no time word is that long);
/// they count as passing, to stay on the safe side.
const LONG_WORD: usize = 64;

/// Substrings of a lowercased Latin word that make it count (module docs).
const WORD_PARTS: [&str; 21] = [
    "day",
    "night",
    "week",
    "month",
    "year",
    "morning",
    "afternoon",
    "evening",
    "tomorrow",
    "ago",
    "recent",
    "late",
    "quarter",
    "christmas",
    "xmas",
    "halloween",
    "thanksgiving",
    "festival",
    "solstice",
    "now",
    "noon",
];

/// Month-name beginnings: a word starting with one counts (`mar` also starts `market`: a
/// false positive costs a parse).
const MONTH_STARTS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/// Bit `c` set when the BMP char `c` (not ASCII) normalises to a char an expression can start
/// with.
static NON_ASCII_STARTS: LazyLock<Box<[u64; 1024]>> = LazyLock::new(|| {
    let mut bits = Box::new([0u64; 1024]);
    for cp in 0x80u32..0x1_0000 {
        if let Some(c) = char::from_u32(cp)
            && crate::scan::is_start(crate::text::normalize(c))
        {
            bits[(cp / 64) as usize] |= 1 << (cp % 64);
        }
    }
    bits
});

/// True when `text` may hold a time expression that [`crate::parse`] reads (module docs);
/// false guarantees that `parse(text, now, tz)` has no window for every `now` and `tz`.
/// Linear in the text's bytes, no allocation.
pub fn may_hold_time(text: &str) -> bool {
    let starts = &**NON_ASCII_STARTS;
    let mut word = [0u8; LONG_WORD];
    let mut len = 0usize;
    for c in text.chars() {
        if c.is_ascii_alphabetic() {
            if len < LONG_WORD {
                word[len] = c.to_ascii_lowercase() as u8;
            }
            len += 1;
            continue;
        }
        if len > 0 {
            if latin_word_counts(&word, len) {
                return true;
            }
            len = 0;
        }
        if c.is_ascii_digit() {
            return true;
        }
        let cp = c as u32;
        if (0x80..0x1_0000).contains(&cp) && starts[(cp / 64) as usize] & (1 << (cp % 64)) != 0 {
            return true;
        }
    }
    len > 0 && latin_word_counts(&word, len)
}

/// True when the lowercased Latin word `word[..len]` counts (module docs).
fn latin_word_counts(word: &[u8; LONG_WORD], len: usize) -> bool {
    if len >= LONG_WORD {
        return true;
    }
    let w = &word[..len];
    MONTH_STARTS.iter().any(|m| w.starts_with(m.as_bytes()))
        || WORD_PARTS.iter().any(|p| w.windows(p.len()).any(|x| x == p.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_without_a_start_char_or_time_word_fail() {
        // Worked by hand: no char of these is a start char (the matchers start with 今昨前大明后刚
        // 本这上下 周星礼 最近过 月中年 q第, holiday first chars, numerals, 从自) and no word holds
        // a time word or a digit.
        for s in
            ["吃了火锅", "好吃的火锅店", "the cat sat", "hello world", "", "——！", "猫咪喝水", "Rust borrow checker"]
        {
            assert!(!may_hold_time(s), "{s:?}");
        }
    }

    #[test]
    fn start_chars_digits_and_time_words_pass() {
        for s in [
            "昨天",
            "見過",
            "週三",
            "兩天前",
            "３月",
            "从那以后",
            "自",
            "一",
            "cleaned it last month",
            "3",
            "Q3",
            "MONDAY",
            "x yesterday",
            "in Mar",
            "a fortnight",
            "xmas",
            "just now",
            "recently",
            "ＡＢ",
        ] {
            assert!(may_hold_time(s), "{s:?}");
        }
    }

    #[test]
    fn very_long_words_pass() {
        assert!(may_hold_time(&"z".repeat(200)));
        assert!(!may_hold_time(&"z".repeat(63)));
    }
}

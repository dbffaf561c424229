//! A cheap test to run before [`crate::parse`] and [`crate::parse_all`] when very many texts are
//! parsed (every entry of an archive, for its event windows): false means no time expression
//! can be in the text, so the parse would return no window and can be skipped.
//!
//! * Chinese: an expression needs a char it can start with **and** an anchor, both after
//!   normalisation (traditional folded to simplified). Start chars are read from the scanner's
//!   own tables ([`crate::scan::is_start`]): a matcher's start char, a range or "since" prefix
//!   (从 自), a numeral (一…十 百 零 两 几, full-width digits). Anchors ([`ANCHORS`]) are the
//!   chars of which every reading of a Chinese matcher holds one: the day words' 天 日 早 晨 晚
//!   夜 刚 (今天 昨日 今早 今晨 今晚 昨夜 刚才), the units of `N天前` and of rolling windows
//!   (天 日 周 星期 礼拜 个月 年), week words and weekdays (周 星 礼), 最近 / 近来 (近), years,
//!   months and their parts (年 月 旬), quarters (季), days of a month (日 号); a holiday name
//!   without one of them (元旦, 五一, 中秋, 圣诞 …, from the holiday table) is anchored by its
//!   last two chars. Ranges, "since X" and unions are made of such readings, so they hold an
//!   anchor too. Plain text is full of start chars (一 上 中 大 这 后), far less of anchors.
//! * A char outside ASCII that normalises to an ASCII letter or digit (`３`, `Ｑ`) counts at
//!   once: the English and ISO matchers read it.
//! * ASCII: a digit counts (ISO dates, `3 days ago`, `Q3`, `the 21st`, `3月`); a Latin word
//!   counts when it holds a unit or anchor word every English expression holds (`day` — also
//!   in `today`, `monday`, `holiday` —, `night`, `week`, `month`, `year`, `morning`,
//!   `afternoon`, `evening`, `tomorrow`, `now`, `ago`, `recently`, `lately`, `quarter`), starts
//!   like a month name (`jan` … `dec`), or names a holiday without those words (`christmas`,
//!   `xmas`, `halloween`, `thanksgiving`, `festival`, `solstice`). English matchers start at
//!   any word, so words, not start chars, are what can be checked cheaply there.
//!
//! False positives only cost a parse. A false negative would lose a window: the tests parse
//! every row of the parser's case table, the evaluation questions and archives, and random
//! mixes of time words, and assert that a text with a window always passes. On the seeded 1M
//! archive of `gen-archive` (`--years 10 --seed 42`) 57 % of the entries pass (77 % with start
//! chars alone), and 34 % have a window.

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

/// Normalised chars of which every reading of a Chinese matcher holds one, holidays aside
/// (module docs, which list the matcher each comes from).
const ANCHORS: &str = "天日早晨晚夜刚周星礼年月旬季号近";

/// Flag of a char an expression can start with (after normalisation).
const START: u8 = 1;
/// Flag of an anchor char ([`ANCHORS`]).
const ANCHOR: u8 = 2;
/// Flag of a char that normalises to an ASCII letter or digit.
const LATIN: u8 = 4;
/// Flag of the last char of a holiday name anchored by its last two chars ([`Tables::pairs`]).
const PAIR_END: u8 = 8;

/// The pre-check's tables, built once from the scanner's and the holiday table's own lists.
struct Tables {
    /// Flags of every char of the Basic Multilingual Plane outside ASCII, indexed by code point.
    flags: Box<[u8]>,
    /// The last two chars (normalised) of every Chinese holiday name that holds no anchor and
    /// no ASCII char (`元旦`, `五一`, `中秋`, `劳动节`'s `动节`).
    pairs: Vec<(char, char)>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let mut pairs = Vec::new();
    for name in crate::holiday::zh_names() {
        let chars: Vec<char> = name.chars().map(crate::text::normalize).collect();
        if chars.iter().any(|&c| ANCHORS.contains(c) || c.is_ascii()) {
            continue;
        }
        if let [.., a, b] = chars[..] {
            pairs.push((a, b));
        }
    }
    let mut flags = vec![0u8; 0x1_0000].into_boxed_slice();
    for cp in 0x80u32..0x1_0000 {
        let Some(c) = char::from_u32(cp) else { continue };
        let n = crate::text::normalize(c);
        let mut f = 0;
        if crate::scan::is_start(n) {
            f |= START;
        }
        if ANCHORS.contains(n) {
            f |= ANCHOR;
        }
        if n.is_ascii_alphanumeric() {
            f |= LATIN;
        }
        if pairs.iter().any(|&(_, b)| b == n) {
            f |= PAIR_END;
        }
        flags[cp as usize] = f;
    }
    Tables { flags, pairs }
});

/// True when `text` may hold a time expression that [`crate::parse`] or [`crate::parse_all`]
/// reads (module docs); false guarantees that neither finds a window, for every `now` and
/// `tz`. Linear in the text's chars, no allocation.
pub fn may_hold_time(text: &str) -> bool {
    let t = &*TABLES;
    let mut word = [0u8; LONG_WORD];
    let mut len = 0usize;
    let (mut start, mut anchor) = (false, false);
    let mut prev = '\0';
    for c in text.chars() {
        if c.is_ascii_alphabetic() {
            if len < LONG_WORD {
                word[len] = c.to_ascii_lowercase() as u8;
            }
            len += 1;
            prev = c;
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
        let f = t.flags.get(c as usize).copied().filter(|_| !c.is_ascii()).unwrap_or(0);
        if f & LATIN != 0 {
            return true;
        }
        start |= f & START != 0;
        anchor |= f & ANCHOR != 0
            || (f & PAIR_END != 0 && t.pairs.contains(&(crate::text::normalize(prev), crate::text::normalize(c))));
        if start && anchor {
            return true;
        }
        prev = c;
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
    fn texts_without_a_start_char_and_an_anchor_or_a_time_word_fail() {
        // Worked by hand: no word holds a time word or a digit, and no text has both a start
        // char (今昨前大明后刚 本这上下 周星礼 最近过 月中年 q第, holiday first chars, numerals,
        // 从自) and an anchor (天日早晨晚夜刚周星礼年月旬季号近, or a holiday name's last two
        // chars): 見過 is 见过 (过 starts, nothing anchors), 天 anchors but starts nothing.
        for s in [
            "吃了火锅",
            "好吃的火锅店",
            "the cat sat",
            "hello world",
            "",
            "——！",
            "猫咪喝水",
            "Rust borrow checker",
            "見過",
            "从那以后",
            "自",
            "一",
            "上中下大这后",
            "天",
            "一起吃饭",
            "十二",
        ] {
            assert!(!may_hold_time(s), "{s:?}");
        }
    }

    #[test]
    fn start_chars_with_anchors_digits_and_time_words_pass() {
        for s in [
            "昨天",
            "週三",
            "兩天前",
            "３月",
            "最近",
            "刚才",
            "五一",
            "中秋",
            "圣诞",
            "元旦",
            "除夕",
            "十一长假",
            "國慶",
            "去冬至",
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
    fn holiday_names_without_an_anchor_are_anchored_by_their_last_two_chars() {
        // From the holiday table, worked by hand: names holding none of 天日早晨晚夜刚周星礼年月旬季号近
        // and no ASCII char.
        let pairs = &TABLES.pairs;
        for p in [('元', '旦'), ('五', '一'), ('六', '一'), ('十', '一'), ('庆', '节'), ('国', '庆'), ('秋', '节')]
        {
            assert!(pairs.contains(&p), "{p:?} in {pairs:?}");
        }
        // 平安夜 (夜), 大年三十 (年), 双11 (ASCII) need no pair.
        assert!(!pairs.iter().any(|&(_, b)| b == '夜' || b == '十' || b == '1'), "{pairs:?}");
    }

    #[test]
    fn very_long_words_pass() {
        assert!(may_hold_time(&"z".repeat(200)));
        assert!(!may_hold_time(&"z".repeat(63)));
    }
}

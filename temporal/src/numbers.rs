//! Numbers inside time expressions (docs/time-expressions.md: "Counts N are 1–366"): Arabic digits (full-width
//! ones are already folded by [`super::text`]), Chinese numerals (`一 二 两 三 … 十 百 零`:
//! `两`=2, `十`=10, `十一`, `二十`, `二十一`, `一百零五`, `三百六十六`), English number words
//! `one`…`twelve`, and four-digit years (`2025`, `二〇二五`).
//!
//! Every reader looks at a bounded number of chars (a run longer than the longest valid number is
//! rejected, not scanned to its end), which keeps the parser linear in the input length.

use super::text::{Text, is_latin_word};

/// The largest N a count may have (366: a count covers at most a leap year of days).
pub(crate) const MAX_COUNT: u32 = 366;

/// Longest run of Chinese numeral chars considered (`三百六十六` is 5; `一千…` runs fail).
const MAX_ZH_RUN: usize = 8;

/// Value of a Chinese digit char; `两` only where `liang` allows it.
fn zh_digit(c: char, liang: bool) -> Option<u32> {
    Some(match c {
        '零' | '〇' => 0,
        '一' => 1,
        '二' => 2,
        '两' if liang => 2,
        '三' => 3,
        '四' => 4,
        '五' => 5,
        '六' => 6,
        '七' => 7,
        '八' => 8,
        '九' => 9,
        _ => return None,
    })
}

/// True for any char that writes part of a number: ASCII digits and Chinese numerals
/// (including `十 百 千 万 亿` and the vague `几`). Used by the boundary rules: a time
/// expression never starts right after one.
pub(crate) fn is_numeral(c: char) -> bool {
    c.is_ascii_digit()
        || matches!(
            c,
            '零' | '〇'
                | '一'
                | '二'
                | '两'
                | '三'
                | '四'
                | '五'
                | '六'
                | '七'
                | '八'
                | '九'
                | '十'
                | '百'
                | '千'
                | '万'
                | '亿'
                | '几'
        )
}

/// Reads up to `max` ASCII digits at `i`. Returns (value, end); `None` when there is no digit
/// or the run is longer than `max` (the number is then not any field we read).
pub(crate) fn digits(t: &Text, i: usize, max: usize) -> Option<(u32, usize)> {
    let mut v = 0u32;
    let mut j = i;
    while let Some(d) = t.at(j).and_then(|c| c.to_digit(10)) {
        if j - i == max {
            return None;
        }
        v = v * 10 + d;
        j += 1;
    }
    (j > i).then_some((v, j))
}

/// Parses a complete run of Chinese numeral chars (`十一`, `两百`, `一百零五`, `三百六十六`).
/// Non-standard or ambiguous runs (`十两`, `一百五`, `五六`) are `None`.
fn zh_run_value(r: &[char]) -> Option<u32> {
    let mut idx;
    let mut val;
    let digit = |k: usize, liang: bool| r.get(k).and_then(|&c| zh_digit(c, liang));
    if r.get(1) == Some(&'百') {
        let h = digit(0, true).filter(|&d| d > 0)?;
        val = h * 100;
        idx = 2;
        if idx == r.len() {
            return Some(val);
        }
        if matches!(r[idx], '零' | '〇') {
            let d = digit(idx + 1, false).filter(|&d| d > 0)?;
            return (idx + 2 == r.len()).then_some(val + d);
        }
        // After hundreds the tens need their digit: 一百一十, not 一百十.
        let tens = digit(idx, false).filter(|&d| d > 0)?;
        if r.get(idx + 1) != Some(&'十') {
            return None;
        }
        val += tens * 10;
        idx += 2;
    } else if r[0] == '十' {
        val = 10;
        idx = 1;
    } else if r.get(1) == Some(&'十') {
        val = digit(0, false).filter(|&d| d > 0)? * 10;
        idx = 2;
    } else {
        return (r.len() == 1).then(|| digit(0, true)).flatten();
    }
    match r.len() - idx {
        0 => Some(val),
        1 => Some(val + digit(idx, false).filter(|&d| d > 0)?),
        _ => None,
    }
}

/// Reads a Chinese cardinal at `i` (the whole run of numeral chars must be one number).
pub(crate) fn zh_cardinal(t: &Text, i: usize) -> Option<(u32, usize)> {
    let is_run = |c: char| zh_digit(c, true).is_some() || matches!(c, '十' | '百');
    let mut run = ['\0'; MAX_ZH_RUN];
    let mut n = 0;
    while let Some(c) = t.at(i + n).filter(|&c| is_run(c)) {
        if n == MAX_ZH_RUN {
            return None;
        }
        run[n] = c;
        n += 1;
    }
    if n == 0 || t.at(i + n).is_some_and(|c| matches!(c, '千' | '万' | '亿' | '几')) {
        return None;
    }
    Some((zh_run_value(&run[..n])?, i + n))
}

/// Reads a number at `i`, Arabic or Chinese, with no range check. Arabic runs of more than four
/// digits are rejected.
pub(crate) fn number(t: &Text, i: usize) -> Option<(u32, usize)> {
    match t.at(i)? {
        c if c.is_ascii_digit() => digits(t, i, 4),
        _ => zh_cardinal(t, i),
    }
}

/// Reads a count N in 1..=366 (Arabic or Chinese) at `i`. Outside that range: `None` (the
/// expression is then no time window: a wrong window would hide the memory).
pub(crate) fn count(t: &Text, i: usize) -> Option<(u32, usize)> {
    number(t, i).filter(|&(n, _)| (1..=MAX_COUNT).contains(&n))
}

/// Reads a number in `lo..=hi` at `i`.
pub(crate) fn bounded(t: &Text, i: usize, lo: u32, hi: u32) -> Option<(u32, usize)> {
    number(t, i).filter(|&(n, _)| (lo..=hi).contains(&n))
}

/// Reads a four-digit year at `i`: four ASCII digits (1000..=9999, not followed by a fifth)
/// or four Chinese digit chars (`二〇二五`, `二零二五`).
pub(crate) fn year4(t: &Text, i: usize) -> Option<(i32, usize)> {
    if t.at(i)?.is_ascii_digit() {
        let (v, end) = digits(t, i, 4)?;
        return (end - i == 4 && v >= 1000).then_some((v as i32, end));
    }
    let mut v = 0u32;
    for k in 0..4 {
        v = v * 10 + zh_digit(t.at(i + k)?, false)?;
    }
    let follows_digit = t.at(i + 4).is_some_and(|c| zh_digit(c, true).is_some() || c == '十');
    (v >= 1000 && !follows_digit).then_some((v as i32, i + 4))
}

/// English number words accepted as counts (one…twelve).
const EN_WORDS: [&str; 12] =
    ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];

/// Reads an English count at `i`: digits (1..=366) or a word `one`…`twelve`; with `article`,
/// also `a`/`an` (= 1, as in "a week ago"). The word must end at a word boundary.
pub(crate) fn en_count(t: &Text, i: usize, article: bool) -> Option<(u32, usize)> {
    let bounded_end = |end: usize| !t.at(end).is_some_and(is_latin_word);
    if t.at(i)?.is_ascii_digit() {
        return count(t, i).filter(|&(_, end)| bounded_end(end));
    }
    let words = EN_WORDS.iter().enumerate().map(|(k, w)| (*w, k as u32 + 1));
    let articles = [("a", 1), ("an", 1)].into_iter().filter(|_| article);
    words.chain(articles).find_map(|(w, n)| t.lit(i, w).filter(|&end| bounded_end(end)).map(|end| (n, end)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zh(s: &str) -> Option<u32> {
        let t = Text::new(s);
        zh_cardinal(&t, 0).filter(|&(_, end)| end == t.len()).map(|(v, _)| v)
    }

    #[test]
    fn chinese_numerals_from_the_spec() {
        assert_eq!(zh("两"), Some(2));
        assert_eq!(zh("十"), Some(10));
        assert_eq!(zh("十一"), Some(11));
        assert_eq!(zh("二十"), Some(20));
        assert_eq!(zh("二十一"), Some(21));
        assert_eq!(zh("一百零五"), Some(105));
        assert_eq!(zh("三百六十六"), Some(366));
        assert_eq!(zh("两百"), Some(200));
        assert_eq!(zh("一百一十"), Some(110));
        assert_eq!(zh("零"), Some(0));
    }

    #[test]
    fn ambiguous_or_malformed_numerals_are_rejected() {
        for s in ["十两", "两十", "一百五", "五六", "一百十", "二〇二五", "一千", "十几"] {
            assert_eq!(zh(s), None, "{s}");
        }
    }

    #[test]
    fn counts_are_limited_to_1_to_366() {
        let t = Text::new("366 367 0 12345");
        assert_eq!(count(&t, 0), Some((366, 3)));
        assert_eq!(count(&t, 4), None);
        assert_eq!(count(&t, 8), None);
        assert_eq!(count(&t, 10), None, "five digits are not read");
    }

    #[test]
    fn years_arabic_and_chinese() {
        assert_eq!(year4(&Text::new("2025年"), 0), Some((2025, 4)));
        assert_eq!(year4(&Text::new("二〇二五年"), 0), Some((2025, 4)));
        assert_eq!(year4(&Text::new("二零二五年"), 0), Some((2025, 4)));
        assert_eq!(year4(&Text::new("20251"), 0), None);
        assert_eq!(year4(&Text::new("0999"), 0), None);
    }

    #[test]
    fn english_counts() {
        let t = Text::new("twelve a an tenth 7x");
        assert_eq!(en_count(&t, 0, false), Some((12, 6)));
        assert_eq!(en_count(&t, 7, false), None);
        assert_eq!(en_count(&t, 7, true), Some((1, 8)));
        assert_eq!(en_count(&t, 9, true), Some((1, 11)));
        assert_eq!(en_count(&t, 12, false), None, "tenth is not ten");
        assert_eq!(en_count(&t, 18, false), None, "7x is not a number");
    }
}

//! Things that look like time but are not (docs/time-expressions.md, "Not time": a wrong window would hide the
//! memory), each family a table the scanner reads:
//!
//! * **Titles and quotations** ([`QUOTES`]): nothing inside `《…》 「…」 『…』 “…” "…"` is read
//!   (电影《后天》, 翻唱《去年夏天》); a time expression outside the quotes still counts.
//! * **Recurrence** ([`RECURRENCE`]): an expression right after 每天 每周 每年 天天 年年 …
//!   (optionally with 的 between) is a repeat, not a window (每年的今天, 每年春节, 每月15号).
//! * **Names of people and places** ([`SURNAMES`], [`GIVEN_AFTER_WEEKDAY`], [`PLACE_AFTER`]):
//!   陈明天 and 张国庆 (a surname, then a time word that is also a given name), 周一帆 (the
//!   surname 周, then 一帆), 五一路 and 十一中 (a holiday name, then a street or school), the
//!   Monday Club (an English weekday or holiday before a capitalised word).
//! * **Glued words** ([`GLUED_AFTER_HOLIDAY`]): 中秋月饼 (a product), 清明上河图 (a painting),
//!   春节联欢晚会 (a show held the evening before 春节),
//!   吃元宵 (the food).
//!
//! * **Habitual English weekdays** ([`PLURAL_POD`], [`GENERIC_BEFORE`]): `Saturday mornings`,
//!   `on a Sunday`, `my Sunday rides` are any such day (`on Saturdays` is never read: the
//!   weekday must end at a word boundary).
//!
//! Names of reports and events (周报 月报 日报 年报 早报 晚报 周刊 月刊 年会 周记) need no rule
//! of their own: no expression starts with them, and the boundary lexicon in `glue` keeps a time
//! word from swallowing their first char (本周刊).

use super::hit::{Head, Hit, Kind};
use super::numbers::is_numeral;
use super::text::{Text, is_cjk};

/// Opening and closing quote pairs (after normalisation; full-width `＂` folds to `"`).
pub(crate) const QUOTES: [(char, char); 6] =
    [('《', '》'), ('「', '」'), ('『', '』'), ('“', '”'), ('"', '"'), ('〈', '〉')];

/// Marks every char inside a quote pair (the quotes included). An opening quote without its
/// closing quote marks nothing.
///
/// Linear time: once a closing quote is known to be absent from the rest of the text, later
/// openers of that kind are not searched again.
pub(crate) fn quoted(norm: &[char]) -> Vec<bool> {
    let mut mask = vec![false; norm.len()];
    let mut unclosed = [false; QUOTES.len()];
    let mut i = 0;
    while i < norm.len() {
        if let Some(q) = QUOTES.iter().position(|(open, _)| *open == norm[i])
            && !unclosed[q]
        {
            match norm[i + 1..].iter().position(|&c| c == QUOTES[q].1) {
                Some(k) => {
                    mask[i..=i + 1 + k].iter_mut().for_each(|m| *m = true);
                    i += k + 2;
                    continue;
                }
                None => unclosed[q] = true,
            }
        }
        i += 1;
    }
    mask
}

/// Recurrence words: an expression right after one of them (or after it and 的) repeats.
pub(crate) const RECURRENCE: [&str; 20] = [
    "每天",
    "每日",
    "每周",
    "每星期",
    "每个星期",
    "每礼拜",
    "每个礼拜",
    "每月",
    "每个月",
    "每年",
    "每季度",
    "每个季度",
    "每晚",
    "天天",
    "周周",
    "月月",
    "年年",
    "每逢",
    "逢",
    "每",
];

/// Surnames that make a following 明天 / 今天 / 国庆 a given name (the most common ones, less
/// those that are also prepositions or nouns before a time word: 于 方 程 …; 张 is kept because
/// a measure word 张 follows a numeral or determiner, which [`surname_before`] rules out).
const SURNAMES: &str = "陈李王张刘杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶苏魏吕丁任沈姚卢姜崔钟谭陆汪范金廖贾夏韦邹孟熊秦邱尹薛闫雷侯史陶黎贺顾毛郝龚邵钱严覃戴莫孔汤";

/// Time words that are also common given names.
const GIVEN_NAMES: [&str; 4] = ["明天", "今天", "国庆", "建国"];

/// Chars before a surname that leave it starting a name (besides no char, a space or
/// punctuation): prepositions and verbs that take a person.
const PERSON_LEAD: &str = "跟和与同给问找对让叫被向请帮替把是说告见约";

/// Chars after 周一 … 周日 that make it a person's name (周一帆, 周一鸣): common given-name chars
/// that do not start a word after a weekday.
const GIVEN_AFTER_WEEKDAY: &str =
    "帆鸣凡航诺涵然博舟笑丁楠珂萌彤宸哲铭菲鹏峰琳彬杰婷娜敏静燕芳霞玲萍倩蕾瑶琪璐薇嘉轩浩宇";

/// After a holiday name: chars that make it a street, square, school or other place (五一路,
/// 十一中, 五一广场). Two-char checks are in [`place_after`].
const PLACE_AFTER: &str = "路街巷村桥站园厂楼厦镇";

/// Words glued after a holiday name (a product, a painting, 春节联欢晚会: a show held on 除夕).
const GLUED_AFTER_HOLIDAY: [&str; 4] = ["月饼", "上河", "汤圆", "联欢"];

/// Chars before 元宵 that make it the food (吃元宵).
const FOOD_BEFORE: &str = "吃煮买卖包做碗个颗";

/// Chars a recurrence reaches over to the next expression: weekdays and day numbers joined by
/// 和 、 与 及 或 (每周一和周三, 每月1号、15号).
const RECURRENCE_LIST: &str = "一二三四五六七八九十日天周星期礼拜号0123456789和、与及或跟,， ";

/// True if the expression at `start` is right after a recurrence word (and an optional 的), or
/// in a list that one begins (每周一和周三).
fn after_recurrence(t: &Text, start: usize) -> bool {
    let mut j = t.opt_spaces_before(start);
    if j > 0 && t.at(j - 1) == Some('的') {
        j -= 1;
    }
    if ends_with_recurrence(t, j) {
        return true;
    }
    // A list: walk back over weekdays, numbers and connectors (at most 12 chars).
    let joined = (1..=12.min(j)).take_while(|&k| t.at(j - k).is_some_and(|c| RECURRENCE_LIST.contains(c)));
    joined.clone().any(|k| "和、与及或跟,，".contains(t.at(j - k).unwrap_or(' ')))
        && joined.last().is_some_and(|k| ends_with_recurrence(t, j - k) || ends_with_recurrence(t, j - k + 1))
}

/// True if a word of [`RECURRENCE`] ends at `j`.
fn ends_with_recurrence(t: &Text, j: usize) -> bool {
    RECURRENCE.iter().any(|w| {
        let n = w.chars().count();
        j >= n && t.lit(j - n, w) == Some(j)
    })
}

fn place_after(t: &Text, end: usize) -> bool {
    let (Some(a), b) = (t.at(end), t.at(end + 1)) else { return false };
    let b = b.unwrap_or(' ');
    PLACE_AFTER.contains(a)
        || (a == '中' && !"秋午旬".contains(b))
        || (a == '小' && "学区".contains(b))
        || (a == '广' && b == '场')
        || (a == '大' && "道街桥厦楼学".contains(b))
}

/// True if a surname stands right before `start` and itself starts a word.
fn surname_before(t: &Text, start: usize) -> bool {
    let Some(s) = t.before(start) else { return false };
    if !SURNAMES.contains(s) {
        return false;
    }
    match t.before(start - 1) {
        None => true,
        Some(c) => !is_cjk(c) || PERSON_LEAD.contains(c),
    }
}

/// True if the English word after `end` (after one space) is capitalised in the original text
/// and is not `I`: `the Monday Club`, `Christmas Island`.
fn capitalised_next(t: &Text, end: usize) -> bool {
    let Some(k) = t.spaces(end) else { return false };
    let Some(c) = t.orig_at(k) else { return false };
    c.is_ascii_uppercase() && t.at(k + 1).is_some_and(|c| c.is_ascii_alphabetic())
}

/// English words that may stand capitalised before a weekday or holiday at a sentence start.
const EN_LEADS: [&str; 16] = [
    "on", "last", "this", "next", "since", "from", "by", "until", "before", "after", "every", "the", "at", "in", "and",
    "what",
];

/// True if the English word before `start` is capitalised in the original text and is not a
/// function word or the sentence's first word (`Black Friday`, `Good Friday`, `Cyber Monday`:
/// a name, not the weekday).
fn capitalised_prev(t: &Text, start: usize) -> bool {
    let Some(w) = super::glue::prev_word(t, start).filter(|w| !w.is_empty()) else { return false };
    let first = t.opt_spaces_before(start) - w.chars().count();
    // A capitalised first word of the text or sentence is not a name (`Was Monday busy?`).
    let sentence_start = first == 0 || t.before(first).is_some_and(|c| ".!?。！？\n".contains(c)) || {
        let k = t.opt_spaces_before(first);
        k == 0 || t.before(k).is_some_and(|c| ".!?。！？".contains(c))
    };
    !sentence_start && t.orig_at(first).is_some_and(|c| c.is_ascii_uppercase()) && !EN_LEADS.contains(&w.as_str())
}

/// Plural parts of day after an English weekday: `Saturday mornings` is every Saturday morning.
const PLURAL_POD: [&str; 4] = ["mornings", "afternoons", "evenings", "nights"];

/// English words before a weekday that make it any such day or a kind of thing, not one date:
/// `on a Sunday`, `my Sunday group rides`, `our Friday meetings`.
const GENERIC_BEFORE: [&str; 10] = ["a", "an", "any", "my", "our", "your", "his", "her", "their", "usual"];

/// True if an English weekday is habitual: followed by a plural part of day or led by an
/// article, a possessive or `usual`.
fn habitual_weekday(t: &Text, start: usize, h: &Hit) -> bool {
    let plural = t.spaces(h.end).is_some_and(|k| PLURAL_POD.iter().any(|w| t.word(k, w).is_some()));
    plural || super::glue::prev_word(t, start).is_some_and(|w| GENERIC_BEFORE.contains(&w.as_str()))
}

/// True if the hit at `start` is not time by one of this module's rules.
pub(crate) fn rejects(t: &Text, start: usize, h: &Hit) -> bool {
    if h.head == Head::Latin && h.kind == Kind::Weekday && habitual_weekday(t, start, h) {
        return true;
    }
    if (start..h.end).any(|k| t.is_quoted(k)) || after_recurrence(t, start) {
        return true;
    }
    // A holiday written with numerals (五一 六一 三八 双11) inside a longer number (二十五一).
    if h.holiday && (t.before(start).is_some_and(is_numeral) || t.at(h.end).is_some_and(is_numeral)) {
        return true;
    }
    let text: String = (start..h.end).filter_map(|k| t.at(k)).collect();
    if GIVEN_NAMES.contains(&text.as_str()) && surname_before(t, start) {
        return true;
    }
    let weekday = h.kind == Kind::Weekday && h.head == Head::Headless && t.at(start) == Some('周');
    if weekday && h.end == start + 2 && t.at(h.end).is_some_and(|c| GIVEN_AFTER_WEEKDAY.contains(c)) {
        return true;
    }
    if h.holiday && h.head == Head::Word {
        if place_after(t, h.end) || GLUED_AFTER_HOLIDAY.iter().any(|w| t.has(h.end, w)) {
            return true;
        }
        if text.starts_with("元宵") && t.before(start).is_some_and(|c| FOOD_BEFORE.contains(c)) {
            return true;
        }
    }
    let named = h.holiday || h.kind == Kind::Weekday;
    if h.head == Head::Latin && named && capitalised_prev(t, start) {
        return true;
    }
    let the_before = start == 0 || super::glue::prev_word(t, start).is_some_and(|w| w == "the");
    h.head == Head::Latin && named && the_before && capitalised_next(t, h.end)
}

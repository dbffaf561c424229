//! Word-boundary rules: when a time word is glued into a longer word, it is not a time word.
//!
//! Chinese has no spaces, so `本周期` (period), `去年轻化` (getting younger), `前天津` (… Tianjin),
//! `十周年` (tenth anniversary), `月饼` (mooncake) and `最近邻` (nearest neighbour) contain time
//! characters that belong to another word. One rule covers all of them: **an expression must
//! begin and end at a word boundary.** It is applied to each reading of the text (longest
//! first), so a rejected long reading can fall back to a shorter one (`前天晚饭` → `前天`).
//!
//! * **Right edge.** The char after the expression must not form a word with the expression's
//!   last char ([`RIGHT`]: 周+期, 年+轻, 天+津, 月+饼, 近+邻, 初+步, 底+线 …). The lexicon lists
//!   only compounds that are far more likely than a time word followed by a new word: `昨天才`
//!   (only yesterday), `今天气温`, `上周身体` stay time words. After `月中` only a function word
//!   or punctuation may follow (中 starts too many words: 中国, 中秋, 中午 …).
//!   Also rejected: an expression followed by a relational word that makes it a boundary and not
//!   the window (`以来 以后 之前 前后 至今 …`, 前/后/起 alone: `3月前`, `周三后`, `5月起`); an
//!   expression ending in 年/月 followed by a number and 月/日/号 that could not be read
//!   (`2月30日`, `3月5` with no 日); a Latin word or number running on (`todays`, `2026-11-245`).
//! * **Left edge.** Depends on how the expression begins ([`Head`]):
//!   a number must not follow another numeral, `第`, `年`, `月`, or a Latin letter (`23天前` is not
//!   `3天前`, `明年3月` is not `3月`); a bare unit (`周三`, `周末`, `月底`, `年初`) must not follow
//!   a modifier, numeral or time unit (`下周三`, `每周一`, `两周一次`, `大年初一`, `老周三点`); a
//!   word must not form a compound with the char before it ([`LEFT`]: 日+本周, 如+今天, 之+前天,
//!   将+近3天 …); an English word must start a word and not follow `every`, `next`, `since` ….
//!   An expression after 从/自/至/止/到 (since, until) or a range connector is a boundary or the
//!   end of a range that could not be read, not a window, unless the range grammar (`从X到Y`)
//!   read it.

use super::hit::{Head, Hit, Kind};
use super::numbers::is_numeral;
use super::text::{Text, is_cjk, is_latin_word};

/// Right-edge compounds: (last char of the expression, chars that glue to it).
const RIGHT: &[(char, &str)] = &[
    ('天', "津涯鹅籁堂使坛庭竺蝎蚕棚桥"),
    ('日', "本头游内均元化无"),
    ('周', "期年岁边围遭旋折济详易杰刊"),
    ('年', "轻龄级代"),
    ('月', "球饼亮色宫嫂桂琴蚀晕底初末刊"),
    ('近', "邻距"),
    ('末', "班尾端梢"),
    ('初', "步中级次恋心衷始稿赛版学见一二三四五六七八九十"),
    ('底', "线层部蕴牌细盘稿片"),
    ('号', "码称召角外线楼房床门位院馆车桌机字选球员文电店风口站厅仓库"),
    ('晚', "饭餐宴霞辈"),
    ('早', "餐饭熟恋操"),
    ('夜', "宵市班店景色空猫总"),
    ('午', "饭餐休睡夜后"),
    ('上', "班课网学线"),
    ('晨', "报练曦光"),
    ('里', "程面"),
    ('刚', "好"),
    ('才', "华子艺"),
    ('前', "途辈锋夕奏卫妻夫科"),
    ('季', "节风"),
];

/// Left-edge compounds: (first char of the expression, chars that glue to it from the left).
const LEFT: &[(char, &str)] = &[
    ('本', "日成基根资版课剧样文书账笔原脚范标血读绘话副正底传蓝"),
    ('今', "如至当迄而现古"),
    ('明', "聪光证发文透分声表鲜英精清黎高简失阐查标注申指开昌神严"),
    ('前', "之以提目当面眼空史战生婚饭睡赛考此向往日事胸床窗阵午门跟大的上年月天周"),
    ('后', "午随之以然最背落今先事饭婚产赛课会前幕退往向皇太王身善滞延稍而日此过明"),
    ('上', "早晚马加以向网线路桌床身楼车脸世街会班台墙书纸板爱穿戴关锁合登考赶追遇碰踏走皇无至往上"),
    ('去', "失回出进离除死拿送抹省褪退散逝远"),
    ('近', "最附接靠将亲邻就远贴走逼临浅相凑拉挨趋"),
    ('过', "经度难通不超错路跳越穿放胜闯熬挺躲逃"),
    ('大', "大"),
];

/// Chars that, before a bare unit (`周三`, `周末`, `月底`, `上旬`, `年初`, `上半年`), show it is
/// the tail of a longer expression: modifiers, determiners, time units, and a few words that
/// end in the unit's char (做礼拜, 圆周, 老周, 大年, 正月, 腊月).
const HEADLESS_BLOCK: &str =
    "上下这本每隔同该次前后几数半整全个那哪某当头末首第各逐去今明年月天周大正腊做圆老小西东北商姓";

/// Prepositions and range connectors that make the following expression a boundary
/// (since/until) or the unread end of a range, not the window.
const RELATIONAL_PREV: &str = "从自至止到~—–";

/// Two-char relational words after an expression (`上周以来`, `3月5日前后`).
const RELATIONAL_NEXT: [&str; 12] =
    ["以来", "以后", "之后", "以前", "之前", "前后", "至今", "以内", "之内", "以外", "开外", "左右"];

/// After `月中` only these may follow directly (or any non-CJK char).
const MID_ALLOW: &str = "的我你他她它咱到至和跟与时要在有是就都也还又去来做";

/// English words that make the next expression something other than a past window.
const EN_BLOCK: [&str; 20] = [
    "every",
    "each",
    "per",
    "next",
    "coming",
    "upcoming",
    "following",
    "other",
    "before",
    "after",
    "since",
    "until",
    "till",
    "by",
    "last",
    "through",
    "thru",
    "between",
    "and",
    "or",
];

/// True if the hit starting at `start` stands at word boundaries on both sides.
pub(crate) fn accepts(t: &Text, start: usize, h: &Hit) -> bool {
    left_ok(t, start, h.head) && right_ok(t, h) && !super::traps::rejects(t, start, h)
}

/// True if the hit at `start`, right after a union connector (`和`, `、`, `and`, `or`), stands
/// at word boundaries: as [`accepts`], except that an English member may follow the connector
/// word itself (`January and March`), which [`EN_BLOCK`] otherwise refuses.
pub(crate) fn accepts_member(t: &Text, start: usize, h: &Hit) -> bool {
    (h.head == Head::Latin || left_ok(t, start, h.head)) && right_ok(t, h) && !super::traps::rejects(t, start, h)
}

fn glued(table: &[(char, &str)], key: char, other: char) -> bool {
    table.iter().any(|&(k, set)| k == key && set.contains(other))
}

fn left_ok(t: &Text, start: usize, head: Head) -> bool {
    let (Some(prev), Some(first)) = (t.before(start), t.at(start)) else { return true };
    let relational = RELATIONAL_PREV.contains(prev) && first != '从' && first != '自';
    match head {
        Head::Latin => !is_latin_word(prev) && !prev_word(t, start).is_some_and(|w| EN_BLOCK.contains(&w.as_str())),
        Head::Numeric => {
            let after_number_sep = ".,/:-、~".contains(prev) && t.before(start - 1).is_some_and(is_numeral);
            !(is_numeral(prev) || is_latin_word(prev) || "第年月初每".contains(prev) || after_number_sep || relational)
        }
        Head::Headless => !(HEADLESS_BLOCK.contains(prev) || is_numeral(prev) || relational),
        Head::Word => !(glued(LEFT, first, prev) || relational),
    }
}

fn right_ok(t: &Text, h: &Hit) -> bool {
    let end = h.end;
    let (Some(last), Some(next)) = (t.before(end), t.at(end)) else { return true };
    let next2 = t.at(end + 1);
    if is_latin_word(last) && is_latin_word(next) {
        return false;
    }
    if last.is_ascii_digit() && ".-/:".contains(next) && next2.is_some_and(|c| c.is_ascii_digit()) {
        return false;
    }
    if is_numeral(last) && is_numeral(next) {
        return false;
    }
    // A number followed by a Chinese unit it was not read with (`3月到2月` read as `3月到2`).
    if last.is_ascii_digit() && "年月日号天周".contains(next) {
        return false;
    }
    if unread_date_tail(t, end, last) {
        return false;
    }
    if is_cjk(next) {
        if is_cjk(last) && glued(RIGHT, last, next) {
            return false;
        }
        if last == '中' && !MID_ALLOW.contains(next) {
            return false;
        }
        if relational_next(t, end) {
            return false;
        }
    }
    // An English month followed by a number it could not read (`March 35`).
    if h.head == Head::Latin
        && h.kind == Kind::Month
        && t.spaces(end).and_then(|j| t.at(j)).is_some_and(|c| c.is_ascii_digit())
    {
        return false;
    }
    // An English date followed by a year it did not take (`Jan 1 and Jan 5, 2025`).
    if h.head == Head::Latin && last.is_ascii_alphanumeric() && unread_year(t, end) {
        return false;
    }
    true
}

/// `,` and/or spaces, then exactly four digits: a year that belongs to the expression before.
fn unread_year(t: &Text, end: usize) -> bool {
    let j = if t.at(end) == Some(',') { end + 1 } else { end };
    let Some(k) = t.opt_spaces(j).filter(|&k| k > end) else { return false };
    (0..4).all(|d| t.at(k + d).is_some_and(|c| c.is_ascii_digit())) && !t.at(k + 4).is_some_and(is_latin_word)
}

/// After 年/月: a number followed by 月/日/号 that the grammar did not read (an impossible or
/// malformed date) — the shorter year or month reading would be wrong.
fn unread_date_tail(t: &Text, end: usize, last: char) -> bool {
    match last {
        '月' => t.at(end).is_some_and(is_numeral),
        '年' => {
            let run = (0..8).take_while(|&k| t.at(end + k).is_some_and(is_numeral)).count();
            run > 0 && t.at(end + run).is_some_and(|c| "月日号".contains(c))
        }
        _ => false,
    }
}

/// A relational word right after the expression (see [`RELATIONAL_NEXT`]); 前/后 alone unless
/// they start another time word (前天, 后天, 前年, 前晚, 后来); 起 alone unless it starts 起床 /
/// 起来.
fn relational_next(t: &Text, end: usize) -> bool {
    if RELATIONAL_NEXT.iter().any(|w| t.has(end, w)) {
        return true;
    }
    let next2 = t.at(end + 1);
    match t.at(end) {
        Some('前' | '后') => !next2.is_some_and(|c| "天年晚来".contains(c)),
        Some('起') => !next2.is_some_and(|c| "床来码飞身草诉".contains(c)),
        _ => false,
    }
}

/// True if the hit is followed by a two-char relational word (`之前`, `以后`, `前后` …) or by
/// 前/后 alone: the text names a boundary there, so no shorter reading at the same start may
/// stand in for it (`这周三之前` is not `这周`).
pub(crate) fn boundary_after(t: &Text, h: &Hit) -> bool {
    let end = h.end;
    RELATIONAL_NEXT.iter().any(|w| t.has(end, w))
        || (matches!(t.at(end), Some('前' | '后')) && !t.at(end + 1).is_some_and(|c| "天年晚来".contains(c)))
}

/// English prepositions that belong to the time expression right after them (`notes from
/// March 5`, `what we said at Christmas`): removed with it from the text BM25 scores, so
/// "notes from last Tuesday" scores `notes`.
const EN_PREPOSITIONS: [&str; 7] = ["from", "on", "in", "at", "over", "during", "around"];

/// Words after a time expression that only point back at it (`中秋那天`, `21号当天`, `春节的时候`):
/// removed with it, so BM25 does not score 天 or 时候.
const ZH_FILLERS: [&str; 8] = ["的那一天", "的那天", "那一天", "那天", "当天", "的时候", "那时候", "那会儿"];

/// `end`, moved forward over one filler of [`ZH_FILLERS`].
pub(crate) fn with_filler(t: &Text, end: usize) -> usize {
    ZH_FILLERS.iter().find_map(|w| t.lit(end, w)).unwrap_or(end)
}

/// `start`, moved back over one preposition of [`EN_PREPOSITIONS`] and the spaces after it.
pub(crate) fn with_preposition(t: &Text, start: usize) -> usize {
    let Some(w) = prev_word(t, start).filter(|w| EN_PREPOSITIONS.contains(&w.as_str())) else { return start };
    t.opt_spaces_before(start) - w.chars().count()
}

/// The English word before `start` (after 1–3 spaces), lowercased; at most 12 letters.
pub(crate) fn prev_word(t: &Text, start: usize) -> Option<String> {
    let mut j = start;
    let mut spaces = 0;
    while j > 0 && t.at(j - 1).is_some_and(char::is_whitespace) {
        if spaces == 3 {
            return None;
        }
        spaces += 1;
        j -= 1;
    }
    if spaces == 0 {
        return None;
    }
    let mut w = Vec::new();
    while j > 0 && t.at(j - 1).is_some_and(|c| c.is_ascii_alphabetic()) {
        if w.len() == 12 {
            return None;
        }
        w.push(t.at(j - 1)?);
        j -= 1;
    }
    Some(w.into_iter().rev().collect())
}

//! Which of the expressions found scope *when the thing asked about happened* (宁窄勿误: a
//! window only then).
//!
//! * **Clauses.** The text is cut into clauses at `，,。.!！;；~` and line breaks, never inside an
//!   expression (`3月1日~7日`, `2025.03.05`) nor at a `.` between two digits, and before a
//!   clause opener ([`CLAUSE_OPENERS`]: 话说 对了 顺便问 …, by the way, btw) where small talk
//!   runs into the question without punctuation.
//! * **Habits and typical times.** In a clause with a habit word ([`HABIT_ZH`], [`HABIT_EN`]:
//!   一般 通常 平时 总是 经常 每逢 …, usually always typically normally …), an expression whose
//!   year, month or week the text did not write (`周六早上`, `周末`, `周一`, `3月`, `中秋`, `on
//!   Friday`) names a typical time, not one occurrence: no window from it. Written anchors keep
//!   theirs (`上周我总是加班到几点` → last week). Plural weekdays (`on Saturdays`, `Saturday
//!   mornings`) are refused where they are read (the `traps` module).
//! * **Yearly dates that are the content.** In a clause with a yearly-date word ([`YEARLY_ZH`],
//!   [`YEARLY_EN`]: 生日 纪念日 忌日 诞辰 出生, birthday anniversary born), a date or month is
//!   what the birthday or anniversary *is* (`谁的生日在三月`, `结婚纪念日是不是5月20号`, `whose
//!   birthday is in March`): no window from an expression whose year/month/week was guessed, that
//!   is written with numbers (`2019年3月5日`, `三天前`), or that is an English date or month
//!   (`March 5, 2019`). Relative words keep theirs (`去年生日收到了什么` → last year).
//! * **Asides.** A clause holds the question when it has a question word ([`QUESTION_ZH`]:
//!   什么 哪 几 谁 多少 吗 呢 怎么; [`QUESTION_EN`]: what when where who which how; or `?`/`？`)
//!   outside an expression. If any clause holds the question, only expressions in such clauses
//!   count (`早上好呀今天有点冷，话说我表姐的公司叫什么？` → none; `今天心情不错，我上周买的那本书
//!   叫什么？` → last week). A text with no question word at all (an entry's own text, a keyword
//!   query `上周 火锅`) counts as a whole, as it always did. A clause that recalls what was said
//!   before ([`RECALL_ZH`]: 提到 说过 聊过 …; [`RECALL_EN`]: mentioned told discussed talked),
//!   and a range or "since X" (`自从我三周前开始学吉他，练得怎么样`), name what the question is
//!   about and count with it (`I mentioned visiting a museum two
//!   months ago. Did I go with a friend?` → two months ago).

use super::hit::{Head, Kind};
use super::scan::Group;
use super::text::{Text, is_latin_word};

/// Chars that end a clause (after normalisation: full-width `～` is `~`).
const CLAUSE_END: &str = "，,。.!！;；~\n\r";

/// Chinese habit words.
pub(crate) const HABIT_ZH: [&str; 10] =
    ["一般", "通常", "平时", "平常", "总是", "经常", "常常", "往往", "每逢", "习惯"];

/// English habit words (whole words).
pub(crate) const HABIT_EN: [&str; 8] =
    ["usually", "always", "typically", "normally", "generally", "regularly", "often", "habitually"];

/// Chars before 一般 that make it the adjective "so-so" (`很一般`, `比较一般`), not "usually".
const SO_SO_BEFORE: &str = "很挺太较常别还都得蛮真好";

/// Chars after 一般 that make it an adjective (`一般般`, `一般的`, `一般人`) or end the
/// sentence with it (`感觉一般吧`).
const SO_SO_AFTER: &str = "般的人化性吧啊呀了吗呢嘛";

/// Chinese yearly-date words: a date next to them may be what they are.
pub(crate) const YEARLY_ZH: [&str; 5] = ["生日", "纪念日", "忌日", "诞辰", "出生"];

/// English yearly-date words (whole words).
pub(crate) const YEARLY_EN: [&str; 5] = ["birthday", "birthdays", "anniversary", "anniversaries", "born"];

/// Chinese question words.
pub(crate) const QUESTION_ZH: [&str; 14] =
    ["什么", "哪", "几", "谁", "多少", "吗", "呢", "怎么", "啥", "干嘛", "怎样", "如何", "是否", "多久"];

/// Words holding a question char that do not ask (`几乎` almost, `哪怕` even if, `好几` several,
/// `那几个` those few).
const NOT_QUESTION_ZH: [&str; 8] = ["几乎", "哪怕", "好几", "十几", "几十", "茶几", "那几", "这几"];

/// English question words (whole words).
pub(crate) const QUESTION_EN: [&str; 6] = ["what", "when", "where", "who", "which", "how"];

/// Chinese words by which a clause recalls what was said before (`我提到过上周…`): such a clause
/// names what the question is about, so it counts as part of the question.
pub(crate) const RECALL_ZH: [&str; 7] = ["提到", "提过", "说过", "聊过", "讲过", "告诉过", "跟你说"];

/// English words by which a clause recalls what was said before (`I mentioned visiting a museum
/// two months ago. Did I go with a friend?`): part of the question, as [`RECALL_ZH`].
pub(crate) const RECALL_EN: [&str; 4] = ["mentioned", "told", "discussed", "talked"];

/// Words that open a new clause where no punctuation does (`早上好呀今天有点冷话说我表姐的公司叫
/// 什么`, `today is cold by the way what was…`): the small talk before them is a clause of its
/// own. Chinese ones anywhere; English ones as whole words.
const CLAUSE_OPENERS: [&str; 9] =
    ["话说", "对了", "顺便问", "顺便说", "说起来", "by the way", "btw", "anyway", "oh and"];

/// Verbs whose result 对了 reports (`答对了`, `猜对了`): 对了 after them opens no clause.
const RESULT_VERBS: &str = "答说做猜选写算弄搞找走看听记念读填画押";

/// A clause: chars `[start, end)`.
type Clause = (usize, usize);

/// The clauses of `t`, given which chars are inside an expression (no cut there).
fn clauses(t: &Text, inside: &[bool]) -> Vec<Clause> {
    let inside = |i: usize| inside.get(i).copied().unwrap_or(false);
    let mut out = Vec::new();
    let mut start = 0;
    for i in 0..t.len() {
        let Some(c) = t.at(i) else { break };
        // A clause opener starts a new clause (the text before it, if any, is one).
        if i > start
            && !inside(i)
            && CLAUSE_OPENERS.iter().any(|w| {
                t.lit(i, w).is_some_and(|e| {
                    if w.is_ascii() {
                        return !t.before(i).is_some_and(is_latin_word) && !t.at(e).is_some_and(is_latin_word);
                    }
                    // 答对了 猜对了 (a verb's result) and 说话说得 are no openers.
                    let before = t.before(i);
                    let result = *w == "对了" && before.is_some_and(|p| RESULT_VERBS.contains(p));
                    let speech = *w == "话说" && before == Some('说');
                    !result && !speech
                })
            })
        {
            out.push((start, i));
            start = i;
        }
        if !CLAUSE_END.contains(c) || inside(i) {
            continue;
        }
        if c == '.'
            && t.before(i).is_some_and(|p| p.is_ascii_digit())
            && t.at(i + 1).is_some_and(|n| n.is_ascii_digit())
        {
            continue;
        }
        out.push((start, i + 1));
        start = i + 1;
    }
    if start < t.len() {
        out.push((start, t.len()));
    }
    out
}

/// True if the Chinese word `w` or the English whole word `w` occurs in the clause outside every
/// group (`skip`: words that contain `w` but are not it).
fn has_word(t: &Text, (a, b): Clause, inside: &[bool], words: &[&str], skip: &[&str]) -> bool {
    let inside = |i: usize| inside.get(i).copied().unwrap_or(false);
    (a..b).any(|i| {
        !inside(i)
            && words.iter().any(|w| {
                let Some(e) = t.lit(i, w).filter(|&e| e <= b) else { return false };
                if w.chars().all(|c| c.is_ascii_alphabetic()) {
                    return !t.before(i).is_some_and(is_latin_word) && !t.at(e).is_some_and(is_latin_word);
                }
                // A skipped word covering this occurrence (几 of 好几 starts one char in).
                !skip.iter().any(|s| {
                    let n = s.chars().count();
                    (i.saturating_sub(n - 1)..=i).any(|k| t.lit(k, s).is_some_and(|se| se > i))
                })
            })
    })
}

/// True if the clause holds the question (a question word or `?` outside an expression).
fn is_question(t: &Text, c: Clause, inside: &[bool]) -> bool {
    has_word(t, c, inside, &QUESTION_ZH, &NOT_QUESTION_ZH)
        || has_word(t, c, inside, &QUESTION_EN, &[])
        || has_word(t, c, inside, &["?"], &[])
}

/// True if the clause recalls what was said before ([`RECALL_ZH`], [`RECALL_EN`]): the thing it
/// names is what the question asks about, so its expressions are not asides.
fn is_recall(t: &Text, c: Clause, inside: &[bool]) -> bool {
    has_word(t, c, inside, &RECALL_ZH, &[]) || has_word(t, c, inside, &RECALL_EN, &[])
}

/// True if the clause has a habit word (一般 only where it means "usually").
fn is_habit(t: &Text, c: Clause, inside: &[bool]) -> bool {
    if has_word(t, c, inside, &HABIT_EN, &[]) {
        return true;
    }
    let (a, b) = c;
    (a..b).any(|i| {
        HABIT_ZH.iter().any(|w| {
            let Some(e) = t.lit(i, w).filter(|&e| e <= b) else { return false };
            if *w != "一般" {
                return true;
            }
            let so_so_before = t.before(i).is_some_and(|p| SO_SO_BEFORE.contains(p));
            let so_so_after = e == b || t.at(e).is_some_and(|n| SO_SO_AFTER.contains(n) || CLAUSE_END.contains(n));
            !so_so_before && !so_so_after
        })
    })
}

/// True if the clause has a yearly-date word.
fn is_yearly(t: &Text, c: Clause, inside: &[bool]) -> bool {
    has_word(t, c, inside, &YEARLY_ZH, &[]) || has_word(t, c, inside, &YEARLY_EN, &[])
}

/// True if a question, habit or yearly-date word occurs anywhere in `t` (inside expressions
/// too, and 一般 in any sense): an over-approximation of "some rule may drop an expression".
pub(crate) fn may_drop(t: &Text) -> bool {
    let all = (0, t.len());
    let none = vec![false; 0];
    is_question(t, all, &none)
        || is_yearly(t, all, &none)
        || has_word(t, all, &none, &HABIT_EN, &[])
        || (0..t.len()).any(|i| HABIT_ZH.iter().any(|w| t.has(i, w)))
}

/// The groups that name when something happened, in text order: each keeps only the members
/// that the habit and yearly-date rules leave; a group left with none is dropped. With
/// `questions`, the aside rule applies too (only clauses that hold the question count, when
/// any does).
pub(crate) fn keep(t: &Text, groups: Vec<Group>, questions: bool) -> Vec<Group> {
    if groups.is_empty() {
        // Most texts name no time: no clause work for them.
        return groups;
    }
    // Chars inside an expression (linear: expressions never overlap).
    let mut inside = vec![false; t.len()];
    for f in groups.iter().flatten() {
        inside[f.start.min(t.len())..f.end.min(t.len())].iter_mut().for_each(|x| *x = true);
    }
    let cs = clauses(t, &inside);
    let questioned: Vec<bool> = cs.iter().map(|&c| questions && is_question(t, c, &inside)).collect();
    let any_asked = questioned.iter().any(|&q| q);
    // A clause recalling what was said names the question's subject: it counts with the question.
    let asked: Vec<bool> =
        cs.iter().zip(&questioned).map(|(&c, &q)| q || (any_asked && is_recall(t, c, &inside))).collect();
    // The habit and yearly-date words of a clause, looked up only for the clauses holding an
    // expression whose reading they can drop (most texts have a few clauses and one expression).
    let habit = |k: usize| is_habit(t, cs[k], &inside);
    let yearly = |k: usize| is_yearly(t, cs[k], &inside);
    // Clauses are sorted and cover the text: a binary search finds a char's clause.
    let clause_of = |i: usize| cs.partition_point(|&(_, b)| b <= i).min(cs.len().saturating_sub(1));
    groups
        .into_iter()
        .filter_map(|g| {
            let k = clause_of(g.first()?.start);
            // A range or "since X" scopes what follows it (`since I started guitar three
            // weeks ago, how has practice gone`): it counts with the question, as a recall does.
            if any_asked && !asked[k] && !g.iter().any(|f| f.hit.kind == Kind::Range) {
                return None;
            }
            let g: Group = g
                .into_iter()
                .filter(|f| {
                    let s = f.hit.span;
                    let typical = s.guessed && habit(k);
                    let content = (s.guessed
                        || f.hit.head == Head::Numeric
                        || (f.hit.head == Head::Latin && matches!(f.hit.kind, Kind::Date | Kind::Month)))
                        && yearly(k);
                    !typical && !content
                })
                .collect();
            (!g.is_empty()).then_some(g)
        })
        .collect()
}

//! "Since X": `X以来`, `自X以来`, `自从X以来`, `从X开始`, `从X起`,
//! `since X`, `ever since X`, where X is any day, week, month, year or holiday expression: the window is
//! `[start(X), D+1)`, from X up to and including today. A start after today is no window.
//!
//! Also read, as the same window: `X至今`, `X到现在`, `从X到现在` (X until now), `自从X` alone
//! (自从上周 …), and English `from X on` / `from X onwards`, `ever since X`.
//!
//! Which prefix takes which suffix: with 自 / 自从 the suffix is optional; with 从 it is needed
//! (`从上周开始`; 从X alone is the start of an unread range); with no prefix only 以来 / 至今 /
//! 到现在 make X a start (`上周开始的项目` stays 上周).

use super::Grain;
use super::calendar::{DateSpan, add_days};
use super::hit::{Ctx, Head, Hit, Kind, Out};

/// Chinese prefixes: (prefix, suffix required).
const ZH_PREFIX: [(&str, bool); 3] = [("自从", false), ("自", false), ("从", true)];

/// Suffixes after X, and whether they may follow X without a prefix.
const ZH_SUFFIX: [(&str, bool); 10] = [
    ("以来", true),
    ("至今", true),
    ("到现在", true),
    ("到目前为止", true),
    ("到目前", true),
    ("到如今", true),
    ("开始", false),
    ("起", false),
    ("开始以来", false),
    ("开始到现在", false),
];

/// Every "since X" reading at `i`. `singles` reads X.
pub(crate) fn since(out: &mut Out, i: usize, cx: &Ctx, singles: fn(&mut Out, usize, &Ctx)) {
    let t = out.t;
    let Some(end_today) = add_days(cx.today, 1) else { return };
    // X at `i` itself: the singles the scanner already found there.
    let mut starts: Vec<(Vec<Hit>, bool, Head, bool)> = vec![(out.hits.clone(), true, Head::Word, true)];
    let zh = ZH_PREFIX.iter().filter_map(|&(p, need)| t.lit(i, p).map(|j| (j, need, Head::Word)));
    let en = [(&["ever", "since"][..], false), (&["since"], false), (&["from"], true)].into_iter().filter_map(
        |(ws, need)| super::english::seq(t, i, ws).and_then(|e| t.spaces(e)).map(|j| (j, need, Head::Latin)),
    );
    for (j, need, head) in zh.chain(en) {
        let mut xs = Out::new(t);
        singles(&mut xs, j, cx);
        // `since 2025`: a bare four-digit year counts after since/from.
        if head == Head::Latin
            && let Some((y, e)) = super::english_dates::year_at(t, j)
        {
            xs.push(e, DateSpan::year(y), Grain::Year, Head::Latin, Kind::Calendar);
        }
        starts.push((xs.hits, need, head, false));
    }
    for (xs, need_suffix, head, bare) in starts {
        for x in xs.iter().filter(|h| h.rangeable()) {
            let span = DateSpan::new(x.span.start, end_today);
            let head = if bare { x.head } else { head };
            if head == Head::Latin {
                if !need_suffix && !bare {
                    out.push(x.end, span, Grain::Range, head, Kind::Range);
                }
                for w in ["on", "onwards", "onward"] {
                    if let Some(e) = t.spaces(x.end).and_then(|s| t.word(s, w))
                        && !bare
                    {
                        out.push(e, span, Grain::Range, head, Kind::Range);
                    }
                }
                continue;
            }
            if !need_suffix && !bare {
                out.push(x.end, span, Grain::Range, head, Kind::Range);
            }
            for &(s, alone) in &ZH_SUFFIX {
                let Some(e) = t.opt_spaces(x.end).and_then(|a| t.lit(a, s)) else { continue };
                if s == "起" && t.at(e).is_some_and(|c| "床来码飞身草诉".contains(c)) {
                    continue;
                }
                if bare && !alone {
                    continue;
                }
                out.push(e, span, Grain::Range, head, Kind::Range);
            }
        }
    }
}

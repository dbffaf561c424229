//! Ranges (docs/time-expressions.md, the expression table): `X到Y`, `X至Y`, `从X到Y`, `X~Y`, `X—Y`, `X-Y`, `from X to Y`, `X to Y`,
//! `X through Y`, `between X and Y`, where X and Y are day, week, month, quarter or year
//! expressions. Y may leave out what it shares with X: its year (`3月到5月`), its month
//! (`10月1日至7日`, `March 1-7`), its week (`周一到周三`). The window is `[start(X), end(Y))`;
//! when `end(Y) ≤ start(X)` it is no window.

use super::Grain;
use super::calendar::DateSpan;
use super::english::lead;
use super::hit::{Ctx, Head, Hit, Kind, Out};
use super::text::Text;

/// Chinese and symbol connectors (`–` en dash, `—` em dash; full-width `～` `－` are folded).
const ZH: [&str; 6] = ["到", "至", "~", "-", "—", "–"];

/// English connectors (`and` only after `between`).
const EN: [&str; 5] = ["to", "through", "thru", "until", "till"];

/// A Chinese/symbol connector at `i` with optional spaces around it: the index after it.
pub(crate) fn zh_connector(t: &Text, i: usize) -> Option<usize> {
    let j = t.opt_spaces(i)?;
    ZH.iter().find_map(|c| t.lit(j, c)).and_then(|k| t.opt_spaces(k))
}

/// Every connector after `i` (spaces allowed around it): where Y would start.
pub(crate) fn connectors(t: &Text, i: usize, between: bool) -> Vec<usize> {
    let mut v: Vec<usize> = zh_connector(t, i).into_iter().collect();
    if let Some(j) = t.spaces(i) {
        let words: &[&str] = if between { &["and"] } else { &EN };
        v.extend(words.iter().filter_map(|w| lead(t, j, w)));
    }
    v
}

/// Pushes every range starting at `i`, where `out` already holds the single expressions
/// starting at `i`. `singles` is the matcher for one expression.
pub(crate) fn ranges(out: &mut Out, i: usize, cx: &Ctx, singles: fn(&mut Out, usize, &Ctx)) {
    let t = out.t;
    let mut starts: Vec<(Vec<Hit>, bool, Option<Head>)> = Vec::new();
    if out.hits.iter().any(Hit::rangeable) {
        starts.push((out.hits.clone(), false, None));
    }
    let prefixes = [("从", false, Head::Word), ("自", false, Head::Word)];
    let zh = prefixes.iter().filter_map(|&(p, b, h)| t.lit(i, p).map(|j| (j, b, h)));
    let en = [("from", false), ("between", true)]
        .into_iter()
        .filter_map(|(w, b)| lead(t, i, w).map(|j| (j, b, Head::Latin)));
    for (j, between, head) in zh.chain(en) {
        let mut xs = Out::new(t);
        singles(&mut xs, j, cx);
        starts.push((xs.hits, between, Some(head)));
    }
    for (xs, between, prefix_head) in starts {
        for x in xs.iter().filter(|h| h.rangeable()) {
            let head = prefix_head.unwrap_or(x.head);
            for k in connectors(t, x.end, between) {
                let mut ys = Out::new(t);
                singles(&mut ys, k, &cx.after(x));
                for y in ys.hits.iter().filter(|h| h.rangeable()) {
                    // A range is as guessed as its start (`周一到周五` names no week).
                    let span =
                        DateSpan::new(x.span.start, y.span.end).map(|s| DateSpan { guessed: x.span.guessed, ..s });
                    out.push(y.end, span, Grain::Range, head, Kind::Range);
                }
            }
        }
    }
}

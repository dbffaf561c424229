//! Numeric dates (docs/time-expressions.md): `YYYY-MM-DD`, `YYYY/MM/DD`, `YYYY.MM.DD` (one day; month and
//! day may have one or two digits; impossible dates are no window) and `YYYY-MM` (one month).

use super::Grain;
use super::calendar::DateSpan;
use super::hit::{Ctx, Head, Kind, Out};
use super::numbers::{digits, year4};

/// `YYYY-MM-DD` and friends at `i`.
pub(crate) fn dates(out: &mut Out, i: usize, _cx: &Ctx) {
    let t = out.t;
    let Some((y, j)) = year4(t, i).filter(|&(_, j)| j == i + 4 && t.at(i).is_some_and(|c| c.is_ascii_digit())) else {
        return;
    };
    for sep in ['-', '/', '.'] {
        if t.at(j) != Some(sep) {
            continue;
        }
        let Some((m, k)) = digits(t, j + 1, 2).filter(|&(m, _)| (1..=12).contains(&m)) else { continue };
        if sep == '-' {
            out.push(k, DateSpan::month(y, m), Grain::Month, Head::Numeric, Kind::Month);
        }
        if t.at(k) == Some(sep)
            && let Some((d, e)) = digits(t, k + 1, 2)
        {
            out.push_day(e, DateSpan::ymd(y, m, d), Head::Numeric, Kind::Date);
        }
    }
}

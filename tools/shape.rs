//! The shape of a synthetic archive in time: how many entries each local day gets, and at which
//! local times of day they are written.
//!
//! A real agent memory is not uniform: weekdays are busier than weekends, some days are empty
//! (nothing worth remembering, or the agent was not used), busy stretches come in bursts,
//! holidays are quiet, and use grows as the habit forms. [`day_counts`] draws a weight for
//! every day from those rules and then splits exactly `n` entries over the days in proportion
//! (largest-remainder rounding), so the total is always exactly `n`.

use chrono::{Datelike, NaiveDate, Weekday};
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use rand::{Rng, RngExt};
use rand_distr::LogNormal;

/// Relative activity of a weekday, a Saturday and a Sunday.
pub const WEEKDAY_WEIGHT: f64 = 1.0;
/// Saturday's weight relative to a weekday.
pub const SATURDAY_WEIGHT: f64 = 0.35;
/// Sunday's weight relative to a weekday.
pub const SUNDAY_WEIGHT: f64 = 0.30;
/// Chance that a weekday has no entries at all.
pub const EMPTY_WEEKDAY: f64 = 0.04;
/// Chance that a weekend day has no entries at all.
pub const EMPTY_WEEKEND: f64 = 0.12;
/// Chance that a burst (2.5–4× activity for 1–4 days) starts on a given day.
pub const BURST_START: f64 = 0.02;
/// Chance that a quiet stretch (0.15× activity for 3–10 days: a holiday, an illness) starts.
pub const QUIET_START: f64 = 0.004;
/// Day-to-day noise: the weight is multiplied by a log-normal factor with this sigma.
pub const NOISE_SIGMA: f64 = 0.45;
/// Use grows linearly from this factor on the first day to 1 on the last.
pub const GROWTH_FROM: f64 = 0.6;

/// Relative write activity per local hour 0–23 (per mille of a day, sums to 1000): quiet
/// nights, a morning peak, an afternoon plateau and an evening peak.
pub const HOUR_WEIGHTS: [u32; 24] =
    [12, 6, 2, 1, 1, 2, 10, 30, 55, 75, 80, 70, 50, 55, 70, 72, 68, 50, 40, 45, 55, 60, 45, 46];

/// Splits exactly `n` entries over `days` consecutive local dates starting at `start`.
/// Returns one count per day (same order); their sum is `n`. Deterministic for a given RNG
/// state. Days can get 0 (empty days; every day when `n` is small).
pub fn day_counts<R: Rng + ?Sized>(start: NaiveDate, days: usize, n: u64, rng: &mut R) -> Vec<u64> {
    let noise = LogNormal::new(0.0, NOISE_SIGMA).expect("sigma > 0");
    let mut weights = Vec::with_capacity(days);
    let (mut burst_left, mut burst_factor) = (0u32, 1.0);
    let (mut quiet_left, mut quiet_factor) = (0u32, 1.0);
    for i in 0..days {
        let day = start + chrono::Duration::days(i as i64);
        let (base, p_empty) = match day.weekday() {
            Weekday::Sat => (SATURDAY_WEIGHT, EMPTY_WEEKEND),
            Weekday::Sun => (SUNDAY_WEIGHT, EMPTY_WEEKEND),
            _ => (WEEKDAY_WEIGHT, EMPTY_WEEKDAY),
        };
        if burst_left == 0 && rng.random_bool(BURST_START) {
            burst_left = rng.random_range(1..=4);
            burst_factor = rng.random_range(2.5..4.0);
        }
        if quiet_left == 0 && rng.random_bool(QUIET_START) {
            quiet_left = rng.random_range(3..=10);
            quiet_factor = 0.15;
        }
        let growth = GROWTH_FROM + (1.0 - GROWTH_FROM) * (i as f64 / days.max(2).saturating_sub(1) as f64);
        let mut w = base * growth * noise.sample(rng);
        if burst_left > 0 {
            w *= burst_factor;
            burst_left -= 1;
        }
        if quiet_left > 0 {
            w *= quiet_factor;
            quiet_left -= 1;
        }
        if rng.random_bool(p_empty) {
            w = 0.0;
        }
        weights.push(w);
    }
    split(n, &weights)
}

/// Largest-remainder apportionment: `n` split in proportion to `weights`, summing to exactly
/// `n`. Ties in the remainders go to the earlier day. All-zero weights are treated as equal.
pub fn split(n: u64, weights: &[f64]) -> Vec<u64> {
    if weights.is_empty() {
        return Vec::new();
    }
    let total: f64 = weights.iter().sum();
    let uniform;
    let weights = if total > 0.0 {
        weights
    } else {
        uniform = vec![1.0; weights.len()];
        &uniform[..]
    };
    let total: f64 = weights.iter().sum();
    let mut counts = Vec::with_capacity(weights.len());
    let mut rest = Vec::with_capacity(weights.len());
    for (i, w) in weights.iter().enumerate() {
        let exact = n as f64 * w / total;
        let floor = exact.floor();
        counts.push(floor as u64);
        rest.push((exact - floor, i));
    }
    let assigned: u64 = counts.iter().sum();
    let mut missing = n.saturating_sub(assigned) as usize;
    if missing > 0 {
        // Float rounding can leave a few more than one per day missing only when n is huge;
        // cycle through the days by remainder until all are placed.
        rest.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let candidates: Vec<usize> = rest.iter().filter(|(_, i)| weights[*i] > 0.0).map(|(_, i)| *i).collect();
        let mut k = 0;
        while missing > 0 {
            counts[candidates[k % candidates.len()]] += 1;
            missing -= 1;
            k += 1;
        }
    } else {
        // Float rounding overshot (possible only at the last ulp): take back from the largest.
        let mut extra = assigned - n;
        while extra > 0 {
            let i = (0..counts.len()).max_by_key(|&i| (counts[i], std::cmp::Reverse(i))).expect("non-empty");
            counts[i] -= 1;
            extra -= 1;
        }
    }
    counts
}

/// Local write times for one day: `count` times in milliseconds since local midnight, sorted,
/// hours drawn from [`HOUR_WEIGHTS`], uniform within the hour.
pub fn times_of_day<R: Rng + ?Sized>(count: u64, hours: &WeightedIndex<u32>, rng: &mut R) -> Vec<u32> {
    let mut out: Vec<u32> = (0..count)
        .map(|_| {
            let h = hours.sample(rng) as u32;
            h * 3_600_000 + rng.random_range(0..3_600_000)
        })
        .collect();
    out.sort_unstable();
    out
}

/// The sampler of write hours built from [`HOUR_WEIGHTS`].
pub fn hour_sampler() -> WeightedIndex<u32> {
    WeightedIndex::new(HOUR_WEIGHTS).expect("positive weights")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    #[test]
    fn split_is_exact_and_proportional() {
        // 10 over weights 1:1:2 → exact 2.5, 2.5, 5 → floors 2, 2, 5 (9), the tie of
        // remainders (0.5, 0.5) goes to the earlier day: 3, 2, 5.
        assert_eq!(split(10, &[1.0, 1.0, 2.0]), vec![3, 2, 5]);
        assert_eq!(split(0, &[1.0, 2.0]), vec![0, 0]);
        assert_eq!(split(3, &[0.0, 0.0, 0.0]), vec![1, 1, 1]);
        assert_eq!(split(7, &[0.0, 1.0, 0.0]), vec![0, 7, 0]);
        assert_eq!(split(5, &[]), Vec::<u64>::new());
    }

    #[test]
    fn counts_sum_to_n_with_quiet_weekends_and_empty_days() {
        // 2023-01-02 is a Monday; 3 × 364 days = 156 whole weeks.
        let start = NaiveDate::from_ymd_opt(2023, 1, 2).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(42);
        let counts = day_counts(start, 1092, 200_000, &mut rng);
        assert_eq!(counts.len(), 1092);
        assert_eq!(counts.iter().sum::<u64>(), 200_000);
        let mean = |pick: &dyn Fn(usize) -> bool| {
            let v: Vec<u64> = (0..counts.len()).filter(|&i| pick(i)).map(|i| counts[i]).collect();
            v.iter().sum::<u64>() as f64 / v.len() as f64
        };
        // Day i is a weekend day when i % 7 is 5 (Sat) or 6 (Sun). Expected weekend/weekday
        // ratio ≈ (0.35 + 0.30) / 2 × (1 - 0.12) / (1 - 0.04) ≈ 0.30 (noise and bursts average out).
        let ratio = mean(&|i| i % 7 >= 5) / mean(&|i| i % 7 < 5);
        assert!((0.2..0.42).contains(&ratio), "{ratio}");
        // Expected share of empty days: (5 × 0.04 + 2 × 0.12) / 7 ≈ 6.3 %.
        let empty = counts.iter().filter(|&&c| c == 0).count() as f64 / counts.len() as f64;
        assert!((0.035..0.095).contains(&empty), "{empty}");
        // Bursts: the busiest day is far above the average weekday (≥ 3×).
        assert!(*counts.iter().max().unwrap() as f64 > 3.0 * mean(&|i| i % 7 < 5));
    }

    #[test]
    fn times_are_sorted_within_the_day() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let t = times_of_day(5000, &hour_sampler(), &mut rng);
        assert!(t.windows(2).all(|w| w[0] <= w[1]));
        assert!(*t.last().unwrap() < 86_400_000);
        // 03:00–04:59 carries 2 of 1000 per mille: about 10 of 5000, surely under 40; 10:00–10:59
        // carries 80 per mille: about 400.
        let between = |a: u32, b: u32| t.iter().filter(|&&x| x >= a * 3_600_000 && x < b * 3_600_000).count();
        assert!(between(3, 5) < 40, "{}", between(3, 5));
        assert!((300..500).contains(&between(10, 11)), "{}", between(10, 11));
    }
}

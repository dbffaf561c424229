//! What one synthetic entry looks like: its tag, its text and its optional source.
//!
//! Texts are mostly Chinese sentences built from Zipf-ranked words ([`crate::vocab`]) with
//! English and mixed terms and numbers mixed in the way people type them (`切到 GPT-4o 之后`,
//! `PR #123`, `368 元`); a share of entries is written wholly in English, and a few are long
//! (300+ characters, like reading notes or a retrospective).

use memlayers::files::entry::Source;
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use rand::{Rng, RngExt};

use crate::vocab::Vocab;

/// Tags with their relative frequencies; `-` is the plugin's "no tag". Includes the tags the
/// plugin writes itself (`hot-evict`, `candidate-expired`, `session`).
pub const TAGS: &[(&str, u32)] = &[
    ("-", 250),
    ("工作", 220),
    ("家庭", 70),
    ("早报", 60),
    ("饮食", 60),
    ("开销", 60),
    ("计划", 50),
    ("健康", 40),
    ("读书", 40),
    ("学习", 30),
    ("约定", 30),
    ("翻唱", 30),
    ("重要", 20),
    ("旅行", 20),
    ("side-project", 10),
    ("session", 5),
    ("hot-evict", 3),
    ("candidate-expired", 2),
];

/// Share of entries that carry a `〔src:…〕` marker.
pub const SOURCE_SHARE: f64 = 0.20;
/// Share of sourced entries whose marker also has a message id.
pub const MSG_ID_SHARE: f64 = 0.35;
/// Share of long entries (150–260 tokens, 300+ characters).
pub const LONG_SHARE: f64 = 0.004;
/// Share of entries written wholly in English.
pub const ENGLISH_SHARE: f64 = 0.05;

/// Entry maker: tag, text and source samplers plus the per-conversation sequence counters.
pub struct Synth {
    vocab: Vocab,
    tags: WeightedIndex<u32>,
    convs: Vec<(String, u64)>,
    conv_pick: WeightedIndex<u32>,
}

impl Synth {
    /// A maker whose conversation keys are drawn from `rng`: five private chats and two groups,
    /// the first private chat being the busiest.
    pub fn new<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let mut convs = Vec::new();
        for _ in 0..5 {
            convs.push((format!("private:{}", rng.random_range(1_000_000_000u64..10_000_000_000)), 0));
        }
        for _ in 0..2 {
            convs.push((format!("group:{}", rng.random_range(10_000_000u64..100_000_000)), 0));
        }
        Synth {
            vocab: Vocab::new(),
            tags: WeightedIndex::new(TAGS.iter().map(|t| t.1)).expect("positive weights"),
            convs,
            conv_pick: WeightedIndex::new([60, 10, 8, 6, 4, 8, 4]).expect("positive weights"),
        }
    }

    /// A tag drawn from [`TAGS`].
    pub fn tag<R: Rng + ?Sized>(&self, rng: &mut R) -> &'static str {
        TAGS[self.tags.sample(rng)].0
    }

    /// A source marker for [`SOURCE_SHARE`] of calls, `None` otherwise. Sequence numbers rise
    /// by 1–20 per use within each conversation, as in a chat log read in order.
    pub fn source<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Option<Source> {
        if !rng.random_bool(SOURCE_SHARE) {
            return None;
        }
        let (conv, seq) = &mut self.convs[self.conv_pick.sample(rng)];
        *seq += rng.random_range(1..=20);
        let msg_id = rng.random_bool(MSG_ID_SHARE).then(|| format!("msg-{:06x}", rng.random_range(0..0x100_0000u32)));
        Some(Source { conv: conv.clone(), seq: seq.to_string(), msg_id })
    }

    /// An entry text: one line, non-empty, no leading or trailing space, never containing
    /// `〔`, `〕` or a line break.
    pub fn text<R: Rng + ?Sized>(&self, rng: &mut R) -> String {
        if rng.random_bool(LONG_SHARE) {
            let n = rng.random_range(150..=260);
            return self.chinese(n, true, rng);
        }
        if rng.random_bool(ENGLISH_SHARE) {
            return self.english(rng.random_range(4..=22), rng);
        }
        // 2 + roughly geometric extra words: mostly short notes, some sentences.
        let mut n = 2;
        while n < 40 && rng.random_bool(0.86) {
            n += 1;
        }
        self.chinese(n, false, rng)
    }

    /// A Chinese sentence of `tokens` tokens: Zipf-ranked words, with mixed terms, English
    /// words and numbers spaced as people type them, commas every few words; long texts also
    /// get full stops and semicolons.
    fn chinese<R: Rng + ?Sized>(&self, tokens: usize, long: bool, rng: &mut R) -> String {
        let mut s = String::with_capacity(tokens * 7);
        let mut latin_last = false; // last token was Latin/number: a space goes before the next
        let mut since_punct = 0;
        for i in 0..tokens {
            let r: f64 = rng.random();
            if r < 0.06 {
                push_latin(&mut s, self.vocab.mixed(rng));
                latin_last = true;
            } else if r < 0.08 {
                push_latin(&mut s, self.vocab.en(rng));
                latin_last = true;
            } else if r < 0.11 {
                let number = number_term(rng);
                push_latin(&mut s, &number);
                latin_last = true;
            } else {
                if latin_last {
                    s.push(' ');
                }
                s.push_str(self.vocab.zh(rng));
                latin_last = false;
            }
            since_punct += 1;
            let last = i + 1 == tokens;
            if !last && since_punct >= 3 && rng.random_bool(0.22) {
                s.push_str(if long && rng.random_bool(0.3) {
                    if rng.random_bool(0.5) { "。" } else { "；" }
                } else {
                    "，"
                });
                since_punct = 0;
                latin_last = false;
            }
        }
        if long {
            s.push('。');
        }
        s
    }

    /// An English sentence of `words` words, first letter capitalised.
    fn english<R: Rng + ?Sized>(&self, words: usize, rng: &mut R) -> String {
        let mut s = String::with_capacity(words * 7);
        for i in 0..words {
            if i > 0 {
                s.push(' ');
            }
            let w = self.vocab.en(rng);
            if i == 0 {
                let mut c = w.chars();
                if let Some(first) = c.next() {
                    s.extend(first.to_uppercase());
                    s.push_str(c.as_str());
                }
            } else {
                s.push_str(w);
            }
        }
        s
    }
}

/// Appends a Latin/number token with a separating space unless at the start.
fn push_latin(s: &mut String, token: &str) {
    if !s.is_empty() && !s.ends_with(['，', '。', '；']) {
        s.push(' ');
    }
    s.push_str(token);
}

/// A number with a unit, as journal entries carry them.
fn number_term<R: Rng + ?Sized>(rng: &mut R) -> String {
    match rng.random_range(0..6) {
        0 => format!("PR #{}", rng.random_range(1..2000)),
        1 => format!("{} 元", rng.random_range(5..3000)),
        2 => format!("{} 点", rng.random_range(1..13)),
        3 => format!("{} 分钟", rng.random_range(5..120)),
        4 => format!("{}%", rng.random_range(1..100)),
        _ => format!("{}", rng.random_range(2..500)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::Xoshiro256PlusPlus;

    #[test]
    fn texts_are_one_clean_line() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let synth = Synth::new(&mut rng);
        let (mut long, mut english, mut mixed) = (0, 0, 0);
        for _ in 0..50_000 {
            let t = synth.text(&mut rng);
            assert!(!t.is_empty() && t.trim() == t, "{t:?}");
            assert!(!t.contains(['\n', '\r', '〔', '〕']) && !t.contains("  "), "{t:?}");
            long += usize::from(t.chars().count() >= 300);
            english += usize::from(t.is_ascii());
            mixed += usize::from(!t.is_ascii() && t.chars().any(|c| c.is_ascii_alphabetic()));
        }
        // Long: 0.4 % of 50 000 = 200 expected. English-only: 5 % = 2 500 expected.
        assert!((120..300).contains(&long), "{long}");
        assert!((2_200..2_800).contains(&english), "{english}");
        // Chinese texts holding Latin letters: most multi-word sentences with a 8 % chance per
        // token; at least a fifth of all texts.
        assert!(mixed > 10_000, "{mixed}");
    }

    #[test]
    fn sources_share_and_rising_seq() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut synth = Synth::new(&mut rng);
        let mut last: std::collections::HashMap<String, u64> = Default::default();
        let (mut with, mut with_msg) = (0, 0);
        for _ in 0..20_000 {
            if let Some(src) = synth.source(&mut rng) {
                src.validate().unwrap();
                let seq: u64 = src.seq.parse().unwrap();
                assert!(seq > *last.get(&src.conv).unwrap_or(&0));
                last.insert(src.conv.clone(), seq);
                with += 1;
                with_msg += usize::from(src.msg_id.is_some());
            }
        }
        // 20 % of 20 000 = 4 000 expected; 35 % of those carry a message id (1 400).
        assert!((3_700..4_300).contains(&with), "{with}");
        assert!((1_200..1_600).contains(&with_msg), "{with_msg}");
        assert_eq!(last.len(), 7);
    }
}

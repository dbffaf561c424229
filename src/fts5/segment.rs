//! The one text segmenter used at index time and at query time.
//!
//! SQLite's stock `unicode61` tokenizer splits on non-alphanumerics only, so a Chinese sentence
//! (no spaces) would be one giant token. memlayers therefore segments in Rust and stores the
//! result as space-separated tokens, which `unicode61` then reads back unchanged:
//!
//! * a run of letters/digits outside CJK scripts → one lowercased word (`Token` → `token`),
//!   followed by its Snowball English stem when that differs (`meetings` → `meetings meet`,
//!   `painted` → `painted paint`; [`stem`]), so inflections of one word meet while the
//!   surface form keeps the plugin's prefix matching (`tok` finds `tokens`);
//! * a run of CJK characters (Han, kana) → its overlapping bigrams plus the run's last
//!   character as a unigram: `翻唱权重` → `翻唱 唱权 权重 重`. A 1-character query `X` is then
//!   the prefix query `X*` (every occurrence of X either starts a bigram or ends a run);
//! * everything else (spaces, punctuation, symbols) separates runs, so no bigram ever spans a
//!   space or punctuation;
//! * a Traditional Chinese character is folded to its Simplified form first ([`fold_han`]:
//!   `台積電` is indexed as `台积电`), at index and at query time alike, so either script finds
//!   the other. Only the index and the probes are folded: the stored text, and so every result,
//!   keeps the characters as written.
//!
//! [`TOKENIZER_VERSION`] is stored in the index; changing these rules must bump it, which
//! forces a rebuild on the next open.

use unicode_normalization::UnicodeNormalization;

/// Version of the segmentation rules; stored in the index's `meta` table. 2: Latin words are
/// followed by their English stem (`meetings` finds *meeting*). 3: text is NFC-normalised before
/// segmenting (`café` typed precomposed finds it written with a combining accent). 4: the kana sound marks U+3099–309C, U+30A0 and the katakana middle dot U+30FB
/// separate runs ([`is_cjk`]). 5: the token counts stored for BM25 (`entry_lens`) count a word
/// with combining marks as FTS5 does ([`word_tokens`]). 6: and go on through the diacritics
/// that continue an FTS5 token ([`is_fts5_diacritic`]). 7: Traditional Chinese characters
/// are folded to Simplified ([`fold_han`]).
pub const TOKENIZER_VERSION: i64 = 7;

/// The Simplified Chinese form of `c` when `c` is a Traditional (or Taiwan / Hong Kong
/// variant) character, else `c` itself: `積` → `积`, `學` → `学`, `臺` → `台`, `积` → `积`,
/// `a` → `a`. One character for one, so bigrams and BM25 token counts keep their positions;
/// folding twice is folding once. The table: OpenCC's character dictionaries (Apache-2.0; the
/// first candidate of TSCharacters, with the reversed TW/HK variant tables), generated into
/// `src/fts5/t2s.rs` by `tools/gen_t2s.py`, whose header gives the commit and the licence.
/// Words of other lengths (`軟體` → `软件`, OpenCC's phrase tables) are not folded.
///
/// ```
/// use memlayers::fts5::segment::fold_han;
/// assert_eq!(fold_han('積'), '积');
/// assert_eq!(fold_han('积'), '积');
/// assert_eq!(fold_han('a'), 'a');
/// ```
pub fn fold_han(c: char) -> char {
    // The table's first key is U+346F: everything below (ASCII, Latin, kana) skips the search.
    if (c as u32) < 0x3400 {
        return c;
    }
    match crate::fts5::t2s::T2S.binary_search_by_key(&c, |&(t, _)| t) {
        Ok(i) => crate::fts5::t2s::T2S[i].1,
        Err(_) => c,
    }
}

/// The characters that [`fold_han`] turns into `s`, `s` first: `积` → `积`, `積`; `台` → `台`,
/// `枱`, `檯`, `臺`, `颱`. For matching folded probes against text as written (the window scan's
/// byte pre-filter, `fts5::bm25::Prefilter`). A linear pass over the table (3 227 pairs).
pub fn unfolded(s: char) -> Vec<char> {
    let mut out = vec![s];
    out.extend(crate::fts5::t2s::T2S.iter().filter(|&&(_, v)| v == s).map(|&(t, _)| t));
    out
}

/// The Snowball English stem of a lowercased word, when stemming applies and changes it:
/// only words of 3+ ASCII letters are stemmed (digits, mixed words such as `gpt4o` and other
/// scripts stay as they are). Stemmer: the `rust-stemmers` crate, Snowball "english"
/// (Porter2) algorithm, the one Lucene/Tantivy use.
///
/// ```
/// use memlayers::fts5::segment::stem;
/// assert_eq!(stem("meetings").as_deref(), Some("meet"));
/// assert_eq!(stem("painted").as_deref(), Some("paint"));
/// assert_eq!(stem("paint"), None);
/// assert_eq!(stem("gpt4o"), None);
/// ```
pub fn stem(word: &str) -> Option<String> {
    static STEMMER: std::sync::LazyLock<rust_stemmers::Stemmer> =
        std::sync::LazyLock::new(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English));
    if word.len() < 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    let s = STEMMER.stem(word);
    (!s.is_empty() && s != word).then(|| s.into_owned())
}

/// Character classes the segmenter distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Cjk,
    Word,
    Sep,
}

fn class(c: char) -> Class {
    if is_cjk(c) {
        Class::Cjk
    } else if c.is_alphanumeric() {
        Class::Word
    } else {
        Class::Sep
    }
}

pub use memlayers_temporal::days::is_cjk;

/// The number of tokens FTS5's `unicode61` tokenizer (`remove_diacritics 0`, its default
/// token characters: Unicode categories `L*`, `N*` and `Co`) reads in one token of
/// [`segment`]'s output: 1 for a CJK bigram or character and for a word of ASCII letters and
/// digits; for another word, its runs of such characters, where a run goes on through the
/// combining diacritics FTS5 lets continue a token ([`is_fts5_diacritic`]: `i̇stanbul`, the
/// lowercase of `İstanbul`, is one token) but does not start at one. Rust's `is_alphanumeric`
/// (which [`pieces`] splits words by) also takes the combining marks Unicode counts as
/// alphabetic (Devanagari vowel signs and virama, Arabic harakat, Hebrew points, Thai and
/// Tibetan vowel marks: categories `Mn`, `Mc`), which `unicode61` reads as separators:
/// `दृष्टि` is one word here and 3 tokens to FTS5 (द, ष, ट), a lone `ོ` none. BM25's document
/// length is FTS5's count ([`crate::fts5::lens`], `fts5::bm25`; a newcomer's test found the
/// word count 10 where FTS5 holds 14). The rules: SQLite's `fts5_tokenize.c`
/// (`unicode61Tokenize`). The categories: the `regex` crate's Unicode tables, which are newer
/// than SQLite's: characters assigned or recategorised since (marks of recent Unicode
/// versions in Arabic, Telugu, Malayalam, Mongolian and supplementary-plane scripts; New Tai
/// Lue vowel signs) are counted otherwise than FTS5 counts them (a tester's sweep: 424 code
/// points of U+0000–U+2FFFF, none in everyday text).
///
/// ```
/// use memlayers::fts5::segment::word_tokens;
/// assert_eq!(word_tokens("token"), 1);
/// assert_eq!(word_tokens("消耗"), 1);
/// assert_eq!(word_tokens("दृष्टि"), 3);
/// assert_eq!(word_tokens("\u{0F7C}"), 0);
/// assert_eq!(word_tokens("i\u{0307}stanbul"), 1);
/// ```
pub fn word_tokens(word: &str) -> usize {
    if word.is_ascii() || word.chars().all(is_cjk) {
        return usize::from(!word.is_empty());
    }
    let (mut n, mut in_token) = (0, false);
    for c in word.chars() {
        let token = is_token_char(c) || (in_token && is_fts5_diacritic(c));
        n += usize::from(token && !in_token);
        in_token = token;
    }
    n
}

/// True for a character of Unicode category `L*`, `N*` or `Co`: `unicode61`'s default token
/// characters ([`word_tokens`]).
fn is_token_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    if is_cjk(c) {
        return true;
    }
    static TOKEN: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"^[\p{L}\p{N}\p{Co}]$").expect("a valid pattern"));
    TOKEN.is_match(c.encode_utf8(&mut [0u8; 4]))
}

/// True for the combining diacritics that continue a `unicode61` token (they never start
/// one): SQLite's `sqlite3Fts5UnicodeIsdiacritic` (fts5_unicode2.c), bit masks over
/// U+0300–U+0331.
pub fn is_fts5_diacritic(c: char) -> bool {
    const MASK0: u32 = 0x0802_9FDF;
    const MASK1: u32 = 0x0003_61F8;
    match c as u32 {
        x @ 768..=799 => MASK0 & (1 << (x - 768)) != 0,
        x @ 800..=817 => MASK1 & (1 << (x - 800)) != 0,
        _ => false,
    }
}

/// One piece of segmented text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// A lowercased Latin/digit (non-CJK alphanumeric) word.
    Word(String),
    /// A run of CJK characters (not yet split into bigrams), Traditional characters folded to
    /// Simplified ([`fold_han`]).
    Cjk(String),
}

/// Splits text into words and CJK runs, in order. Separators are dropped.
pub fn pieces(text: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut cur_class = Class::Sep;
    let flush = |cur: &mut String, cl: Class, out: &mut Vec<Piece>| {
        if !cur.is_empty() {
            let s = std::mem::take(cur);
            out.push(if cl == Class::Cjk { Piece::Cjk(s) } else { Piece::Word(s) });
        }
    };
    // NFC first, at index and query time alike: an NFD `é` (e + U+0301, a combining mark that
    // is not alphanumeric) would otherwise split the word, and NFC and NFD spellings of one
    // text would never find each other. The stored text keeps the user's bytes. Most text is
    // already NFC, which the quick check (UAX #15) confirms without building the normal form.
    let nfc: Box<dyn Iterator<Item = char>> =
        if unicode_normalization::is_nfc_quick(text.chars()) == unicode_normalization::IsNormalized::Yes {
            Box::new(text.chars())
        } else {
            Box::new(text.nfc())
        };
    for c in nfc {
        let cl = class(c);
        if cl != cur_class {
            flush(&mut cur, cur_class, &mut out);
            cur_class = cl;
        }
        match cl {
            Class::Word => cur.extend(c.to_lowercase()),
            Class::Cjk => cur.push(fold_han(c)),
            Class::Sep => {}
        }
    }
    flush(&mut cur, cur_class, &mut out);
    out
}

/// Segments text for the FTS5 index: tokens separated by single spaces (see module docs).
///
/// ```
/// assert_eq!(memlayers::fts5::segment::segment("Token消耗很大, 翻唱!"), "token 消耗 耗很 很大 大 翻唱 唱");
/// ```
pub fn segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for p in pieces(text) {
        match p {
            Piece::Word(w) => {
                push_tok(&mut out, &w);
                if let Some(st) = stem(&w) {
                    push_tok(&mut out, &st);
                }
            }
            Piece::Cjk(run) => {
                let chars: Vec<char> = run.chars().collect();
                for pair in chars.windows(2) {
                    if !out.is_empty() {
                        out.push(' ');
                    }
                    out.push(pair[0]);
                    out.push(pair[1]);
                }
                let mut last = [0u8; 4];
                push_tok(&mut out, chars[chars.len() - 1].encode_utf8(&mut last));
            }
        }
    }
    out
}

fn push_tok(out: &mut String, t: &str) {
    if !out.is_empty() {
        out.push(' ');
    }
    out.push_str(t);
}

/// One FTS5 probe: a token that must occur, possibly as a prefix, or else its stem.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Probe {
    /// The token text (lowercased word, CJK bigram or single CJK character).
    pub token: String,
    /// Prefix match (`"tok"*`): Latin words (whole words and word prefixes) and 1-character
    /// CJK probes.
    pub prefix: bool,
    /// The word's English stem when it differs ([`stem`]): matched as a whole token, so
    /// `meetings` also finds an entry that says `meeting` (indexed as `meeting meet`).
    pub alt: Option<String>,
}

impl Probe {
    /// A probe for one lowercased Latin word: the word as a prefix, or its stem.
    pub fn word(w: String) -> Probe {
        let alt = stem(&w);
        Probe { token: w, prefix: true, alt }
    }

    /// The probe as an FTS5 query string: `"tok"`, `"tok"*`, or `("tok"* OR "stem")`. Tokens
    /// contain only alphanumerics and CJK characters, so quoting makes any user input plain
    /// text.
    pub fn fts(&self) -> String {
        let own = if self.prefix { format!("\"{}\"*", self.token) } else { format!("\"{}\"", self.token) };
        match &self.alt {
            Some(a) => format!("({own} OR \"{a}\")"),
            None => own,
        }
    }
}

/// The probes of one search term (a whitespace-free piece of a keyword): all must match.
///
/// * Latin word → a prefix probe of the lowercased word;
/// * CJK run of 1 char → prefix probe of that char; of 2 chars → the bigram;
/// * CJK run of n ≥ 3 chars → bigrams that cover every character: those at positions
///   0, 2, 4, … and, for odd n, the last one (`翻唱权重` → `翻唱`, `权重`; `周末计划` likewise;
///   `读书笔记本` → `读书`, `笔记`, `记本`). This is the plugin's "二元组" rule: 「翻唱权重」
///   finds an entry that only says 「翻唱…权重」.
pub fn term_probes(term: &str) -> Vec<Probe> {
    let mut out: Vec<Probe> = Vec::new();
    for p in pieces(term) {
        match p {
            Piece::Word(w) => out.push(Probe::word(w)),
            Piece::Cjk(run) => {
                let chars: Vec<char> = run.chars().collect();
                let n = chars.len();
                if n == 1 {
                    out.push(Probe { token: run, prefix: true, alt: None });
                    continue;
                }
                let mut starts: Vec<usize> = (0..n - 1).step_by(2).collect();
                if n % 2 == 1 {
                    starts.push(n - 2);
                }
                for s in starts {
                    out.push(Probe { token: chars[s..s + 2].iter().collect(), prefix: false, alt: None });
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    out
}

/// Naive reference of whether `text` (content or tag) satisfies one probe, without the index:
/// prefix probes of Latin words match a word of `text` that starts with them, or whose stem (or
/// itself) equals the probe's stem; CJK probes match as a case-insensitive substring. Used by
/// tests (recall parity) and by `matched` counts.
pub fn text_has_probe(text_pieces: &[Piece], probe: &Probe) -> bool {
    let is_cjk_probe = probe.token.chars().next().is_some_and(is_cjk);
    text_pieces.iter().any(|p| match (p, is_cjk_probe) {
        (Piece::Word(w), false) => {
            w.starts_with(&probe.token)
                || probe.alt.as_ref().is_some_and(|a| w == a || stem(w).as_deref() == Some(a.as_str()))
        }
        (Piece::Cjk(run), true) => run.contains(&probe.token),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Traditional text segments as its Simplified spelling (pairs from the OpenCC table,
    /// checked by reading it: 積→积, 電→电, 學→学, 習→习, 筆→笔, 記→记).
    #[test]
    fn traditional_text_segments_as_simplified() {
        assert_eq!(segment("台積電"), "台积 积电 电");
        assert_eq!(segment("台積電"), segment("台积电"));
        assert_eq!(segment("學習筆記 Notes"), segment("学习笔记 notes"));
        assert_eq!(term_probes("學習筆記"), term_probes("学习笔记"));
        // Kana and Latin are untouched.
        assert_eq!(segment("ラーメン café"), "ラー ーメ メン ン café");
    }

    /// The table is sorted (binary search), maps CJK to CJK (a folded character stays in its
    /// run: bigrams and token counts keep their positions), and folding is idempotent.
    #[test]
    fn fold_table_is_sorted_cjk_and_idempotent() {
        let t = &crate::fts5::t2s::T2S;
        assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
        for &(a, b) in t.iter() {
            assert!(is_cjk(a) && is_cjk(b), "{a} {b}");
            assert_ne!(a, b);
            assert_eq!(fold_han(b), b, "{a} -> {b} -> {}", fold_han(b));
            assert!(unfolded(b).contains(&a));
        }
        assert_eq!(unfolded('台'), ['台', '枱', '檯', '臺', '颱']);
    }

    #[test]
    fn segments_mixed_text() {
        assert_eq!(segment("翻唱权重"), "翻唱 唱权 权重 重");
        assert_eq!(segment("早报"), "早报 报");
        assert_eq!(segment("A 中"), "a 中");
        assert_eq!(segment("今天，明天"), "今天 天 明天 天");
        assert_eq!(segment("GPT-4o 很好"), "gpt 4o 很好 好");
        assert_eq!(segment("Meetings painted"), "meetings meet painted paint");
        assert_eq!(segment("ひらがなカタ"), "ひら らが がな なカ カタ タ");
        assert_eq!(segment("  ,. "), "");
    }

    #[test]
    fn probes_cover_every_char() {
        let toks = |t: &str| term_probes(t).into_iter().map(|p| p.fts()).collect::<Vec<_>>().join(" ");
        assert_eq!(toks("翻唱权重"), "\"翻唱\" \"权重\"");
        assert_eq!(toks("读书笔记本"), "\"读书\" \"笔记\" \"记本\"");
        assert_eq!(toks("早报"), "\"早报\"");
        assert_eq!(toks("早"), "\"早\"*");
        assert_eq!(toks("Token消耗"), "\"token\"* \"消耗\"");
        assert_eq!(toks("meetings"), "(\"meetings\"* OR \"meet\")");
        assert_eq!(toks("NEAR(\"x\"*"), "\"near\"* \"x\"*");
        assert_eq!(toks("?!"), "");
    }

    #[test]
    fn naive_probe_matching() {
        let p = pieces("翻唱…权重 Tokens");
        assert!(term_probes("翻唱权重").iter().all(|pr| text_has_probe(&p, pr)));
        assert!(term_probes("token").iter().all(|pr| text_has_probe(&p, pr)));
        assert!(!term_probes("唱权").iter().all(|pr| text_has_probe(&p, pr)));
        assert!(!term_probes("oken").iter().all(|pr| text_has_probe(&p, pr)));
        let p = pieces("a painting");
        assert!(term_probes("painted").iter().all(|pr| text_has_probe(&p, pr)));
    }
}

//! The normalised view of a query that the matchers scan.
//!
//! Normalisation maps every char to exactly one char, so char offsets in the normalised text
//! are char offsets in the original text (spans are reported on the original):
//!
//! * ASCII letters are lowercased (English matching is case-insensitive);
//! * full-width ASCII (`３`, `Ｑ`, `－`, `～`) becomes half-width; the ideographic space and
//!   no-break space become a space; `〜` becomes `~`;
//! * the traditional characters that occur in time expressions or in the word-boundary lexicon
//!   (`週 個 兩 禮 號 後 這 過 幾 剛 裡 …`) become their simplified forms, so one grammar serves
//!   both scripts.

use std::collections::HashMap;
use std::sync::LazyLock;

/// Traditional → simplified pairs, two chars per pair.
const TRAD_SIMP: &str = "週周個个兩两禮礼號号後后這这過过幾几剛刚裡里來来從从時时間间輕轻紀纪鄰邻餅饼\
    邊边圍围報报們们開开學学試试會会頭头線线飯饭點点層层級级齡龄華华鑒鉴鑑鉴貨货畫画獸兽邁迈輪轮\
    歲岁轉转長长遊游濟济詳详蝕蚀暈晕宮宫當当現现說说證证發发聲声鮮鲜簡简闡阐標标註注嚴严隨随\
    產产賽赛課课滯滞馬马網网橋桥車车臉脸臺台牆墙書书紙纸愛爱關关鎖锁趕赶無无資资樣样賬账帳账\
    筆笔腳脚範范讀读繪绘話话傳传藍蓝將将親亲遠远貼贴臨临淺浅湊凑趨趋經经難难錯错勝胜闖闯鵝鹅\
    籟籁壇坛蠍蝎蠶蚕離离義义戰战視视況况氣气節节億亿萬万樓楼見见實实處处還还覺觉歷历鐘钟曉晓\
    陰阴陽阳寫写買买讓让價价錢钱燈灯夢梦團团場场側侧週周專专擊击倫伦涼凉鄉乡號号雜杂劃划\
    韓韩齊齐對对幫帮條条樣样裝装換换蓋盖鋼钢題题員员業业務务際际顯显細细盤盘稿稿層层餘余\
    禪禅麼么臉脸纔才颱台風风雲云聖圣誕诞國国慶庆勞劳動动兒儿黨党軍军師师婦妇雙双黃黄曆历農农";

static TRAD: LazyLock<HashMap<char, char>> = LazyLock::new(|| {
    let v: Vec<char> = TRAD_SIMP.chars().filter(|c| !c.is_whitespace()).collect();
    v.chunks_exact(2).map(|p| (p[0], p[1])).collect()
});

/// Bit `c` set when the BMP char `c` is a key of [`TRAD`]: most chars are not, and one bit read
/// is cheaper than a hash lookup (normalising is done for every char of every text parsed).
static TRAD_KEYS: LazyLock<Box<[u64; 1024]>> = LazyLock::new(|| {
    let mut bits = Box::new([0u64; 1024]);
    for &c in TRAD.keys() {
        let cp = c as u32;
        bits[(cp / 64) as usize] |= 1 << (cp % 64);
    }
    bits
});

/// Maps one char to its normalised form (see the module docs).
pub(crate) fn normalize(c: char) -> char {
    match c {
        'A'..='Z' => c.to_ascii_lowercase(),
        '\0'..='\u{7F}' => c,
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c).to_ascii_lowercase(),
        '\u{3000}' | '\u{00A0}' => ' ',
        '\u{301C}' => '~',
        '\u{3400}'..='\u{FFFF}' if TRAD_KEYS[(c as u32 / 64) as usize] & (1 << (c as u32 % 64)) == 0 => c,
        _ => TRAD.get(&c).copied().unwrap_or(c),
    }
}

/// True for characters of scripts written without spaces (CJK, kana); same set as the
/// segmenter's.
pub(crate) fn is_cjk(c: char) -> bool {
    crate::days::is_cjk(c)
}

/// True for letters and digits of space-separated scripts (`a`, `7`, `é`): what makes an
/// English word continue.
pub(crate) fn is_latin_word(c: char) -> bool {
    c.is_alphanumeric() && !is_cjk(c)
}

/// Most whitespace chars allowed between the words of one expression.
pub(crate) const MAX_SPACES: usize = 3;

/// The query as the matchers see it: normalised chars plus the original chars, index-aligned.
pub(crate) struct Text {
    norm: Vec<char>,
    orig: Vec<char>,
    /// Chars inside a quote pair (see [`super::traps::quoted`]).
    quoted: Vec<bool>,
}

impl Text {
    /// Normalises `s` char by char.
    pub(crate) fn new(s: &str) -> Self {
        let orig: Vec<char> = s.chars().collect();
        let norm: Vec<char> = orig.iter().map(|&c| normalize(c)).collect();
        let quoted = super::traps::quoted(&norm);
        Text { norm, orig, quoted }
    }

    /// Length in chars.
    pub(crate) fn len(&self) -> usize {
        self.norm.len()
    }

    /// True if char `i` is inside a quote pair (a title or quotation).
    pub(crate) fn is_quoted(&self, i: usize) -> bool {
        self.quoted.get(i).copied().unwrap_or(false)
    }

    /// Normalised char at `i`, `None` past the end.
    pub(crate) fn at(&self, i: usize) -> Option<char> {
        self.norm.get(i).copied()
    }

    /// Normalised char before `i`, `None` at the start.
    pub(crate) fn before(&self, i: usize) -> Option<char> {
        i.checked_sub(1).and_then(|j| self.at(j))
    }

    /// Original char at `i`.
    pub(crate) fn orig_at(&self, i: usize) -> Option<char> {
        self.orig.get(i).copied()
    }

    /// If the normalised text at `i` starts with `lit`, the index just after it.
    pub(crate) fn lit(&self, i: usize, lit: &str) -> Option<usize> {
        let mut j = i;
        for c in lit.chars() {
            if self.at(j)? != c {
                return None;
            }
            j += 1;
        }
        Some(j)
    }

    /// True if the char at `i` is one of `set` (the cheap first-char guard of a matcher).
    pub(crate) fn starts_any(&self, i: usize, set: &str) -> bool {
        self.at(i).is_some_and(|c| set.chars().any(|x| x == c))
    }

    /// True if the char at `i` is an ASCII letter or digit (first char of any English form).
    pub(crate) fn starts_ascii(&self, i: usize) -> bool {
        self.at(i).is_some_and(|c| c.is_ascii_alphanumeric())
    }

    /// True if the normalised text at `i` starts with `lit`.
    pub(crate) fn has(&self, i: usize, lit: &str) -> bool {
        self.lit(i, lit).is_some()
    }

    /// The English word `w` (lowercase ASCII) at `i`, ending at a word boundary: the index
    /// after it.
    pub(crate) fn word(&self, i: usize, w: &str) -> Option<usize> {
        self.lit(i, w).filter(|&e| !self.at(e).is_some_and(is_latin_word))
    }

    /// One to [`MAX_SPACES`] whitespace chars at `i`: the index after them.
    pub(crate) fn spaces(&self, i: usize) -> Option<usize> {
        self.opt_spaces(i).filter(|&j| j > i)
    }

    /// Zero to [`MAX_SPACES`] whitespace chars at `i`: the index after them (`None` for a
    /// longer run, so every look-ahead stays bounded).
    pub(crate) fn opt_spaces(&self, i: usize) -> Option<usize> {
        let mut j = i;
        while self.at(j).is_some_and(char::is_whitespace) {
            if j - i == MAX_SPACES {
                return None;
            }
            j += 1;
        }
        Some(j)
    }

    /// Zero to [`MAX_SPACES`] whitespace chars before `i`: the index where they start (at most
    /// [`MAX_SPACES`] back, so every look-behind stays bounded).
    pub(crate) fn opt_spaces_before(&self, i: usize) -> usize {
        let mut j = i;
        while j > 0 && i - j < MAX_SPACES && self.at(j - 1).is_some_and(char::is_whitespace) {
            j -= 1;
        }
        j
    }

    /// The original text of chars `[a, b)`.
    pub(crate) fn slice(&self, a: usize, b: usize) -> String {
        self.orig[a.min(self.orig.len())..b.min(self.orig.len())].iter().collect()
    }

    /// The original text without chars `[a, b)`: both sides trimmed at the gap and joined by
    /// one space if the gap had whitespace and a letter or digit follows, else directly; the
    /// result trimmed.
    pub(crate) fn without(&self, a: usize, b: usize) -> String {
        let left = self.slice(0, a);
        let right = self.slice(b, self.orig.len());
        let (l, r) = (left.trim_end(), right.trim_start());
        let gap_space = l.len() != left.len() || r.len() != right.len();
        let word_follows = r.chars().next().is_some_and(char::is_alphanumeric);
        let sep = if gap_space && !l.is_empty() && word_follows { " " } else { "" };
        format!("{l}{sep}{r}").trim().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_is_one_to_one_and_folds_scripts() {
        let t = Text::new("上個禮拜ＴＯ３週");
        assert_eq!(t.len(), 8);
        let s: String = (0..t.len()).filter_map(|i| t.at(i)).collect();
        assert_eq!(s, "上个礼拜to3周");
        assert_eq!(t.slice(1, 4), "個禮拜");
    }

    #[test]
    fn without_collapses_the_gap() {
        assert_eq!(Text::new("前天晚上我吃了什么").without(0, 4), "我吃了什么");
        assert_eq!(Text::new("what did I do yesterday evening").without(14, 31), "what did I do");
        assert_eq!(Text::new("notes  last week  about rust").without(7, 16), "notes about rust");
        assert_eq!(Text::new("我上周写的").without(1, 3), "我写的");
        assert_eq!(Text::new("What did I do on Monday?").without(14, 23), "What did I do?");
    }

    #[test]
    fn traditional_table_is_aligned() {
        // A misaligned pair would shift every later mapping; the last pairs must still hold.
        assert_eq!(normalize('雲'), '云');
        assert_eq!(normalize('週'), '周');
        assert_eq!(normalize('禮'), '礼');
        assert_eq!(normalize('鄰'), '邻');
        assert_eq!(normalize('農'), '农');
    }

    #[test]
    fn lit_matches_prefix_only() {
        let t = Text::new("上上周");
        assert_eq!(t.lit(0, "上上周"), Some(3));
        assert_eq!(t.lit(1, "上周"), Some(3));
        assert_eq!(t.lit(2, "周末"), None);
    }
}

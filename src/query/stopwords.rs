//! Stop words for natural-language retrieval text.
//!
//! After the time expression is removed, `retrieve` scores what is left ("我吃了什么") with
//! BM25 in OR mode. Function words would only add noise probes, so they are cut out first:
//! multi-character stop words (什么, 发生, 我们, …) are replaced by a separator, then single
//! stop characters (的, 了, 我, 吗, …) split CJK runs. What remains of each run is probed by
//! its bigrams, and a one-character remainder by that character as a prefix ("吃" finds
//! 「晚饭吃了火锅」). English stop words are dropped whole. If nothing remains, the query is
//! "window only": the window's entries, newest first (docs/time-expressions.md, "How
//! `retrieve` uses the window", rule 4).

/// Multi-character Chinese stop words: question words (什么 怎么 哪里 多少 为什么 …) and
/// function words (我们 一下 关于 …), longest first where they overlap. Chosen for questions a
/// user asks about their own notes; content words (约定, 计划, 开销) are never on the list.
pub const CJK_STOP_WORDS: &[&str] = &[
    "有没有",
    "是不是",
    "为什么",
    "怎么样",
    "什么",
    "怎么",
    "怎样",
    "如何",
    "哪些",
    "哪里",
    "哪儿",
    "哪个",
    "哪天",
    "多少",
    "多久",
    "是否",
    "发生",
    "事情",
    "我们",
    "你们",
    "他们",
    "咱们",
    "一下",
    "一些",
    "记得",
    "关于",
    "那个",
    "这个",
    "时候",
    "当时",
    "内容",
    "东西",
    "情况",
    "时间",
    "干了",
    "做了",
    "要做",
    "说了",
    "干嘛",
    "甚麼",
    "什麼",
    "為什麼",
    "怎麼",
    "哪裡",
    "我們",
    "你們",
    "他們",
    "關於",
    "這個",
    "時候",
];

/// Single Chinese stop characters (particles, pronouns, copulas, question characters), in
/// simplified and traditional forms.
pub const CJK_STOP_CHARS: &[char] = &[
    '的', '了', '吗', '呢', '吧', '啊', '呀', '么', '我', '你', '他', '她', '它', '们', '是', '在', '有', '和', '与',
    '也', '都', '就', '还', '把', '被', '给', '对', '这', '那', '哪', '谁', '个', '些', '过', '着', '得', '之', '于',
    '及', '或', '啥', '嘛', '呗', '又', '几', '嗎', '麼', '們', '這', '誰', '個', '對', '與', '還', '給', '過', '著',
    '於', '该', '該',
];

/// English stop words (lowercase): the Snowball English stop list's words (question words,
/// auxiliaries, pronouns, articles, prepositions, conjunctions, negations; its contracted
/// forms are handled by [`strip`]), plus a few conversational fillers ("tell", "say", "talk"
/// are kept: they carry meaning in notes).
pub const EN_STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "am",
    "an",
    "and",
    "any",
    "anything",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "done",
    "down",
    "during",
    "each",
    "ever",
    "few",
    "for",
    "from",
    "further",
    "get",
    "got",
    "had",
    "happened",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "me",
    "mine",
    "more",
    "most",
    "my",
    "myself",
    "no",
    "nor",
    "not",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "ought",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "she",
    "should",
    "so",
    "some",
    "something",
    "stuff",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "things",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "us",
    "very",
    "was",
    "we",
    "were",
    "what",
    "whats",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// Question and quantity frames in Chinese: words that say what kind of answer is wanted (a
/// name, an amount, a date, "again please"), not what it is about: 「实习生叫什么名字」 asks about
/// 实习生, 「豆包下次打疫苗是几号」 about 豆包 打疫苗. Without them, 叫 or 号 would be left as a
/// one-character prefix probe matching every 叫… or 号 of the archive. Longest first where
/// they overlap. Soft: when a question holds nothing else, they are kept ([`strip`]).
pub const CJK_FRAMES: &[&str] = &[
    "叫什么名字",
    "几月几号",
    "几月几日",
    "叫什么",
    "是什么",
    "是多少",
    "多少钱",
    "哪一天",
    "哪一个",
    "什么样",
    "叫啥",
    "来着",
    "几号",
    "几点",
    "几岁",
    "几次",
    "几个",
    "几天",
    "几节",
    "哪家",
    "哪种",
    "哪位",
    "一共",
    "总共",
    "分别",
    "名字",
];

/// Content words that hold a stop character ([`CJK_STOP_CHARS`]) and would otherwise be cut
/// in two (吉他 → 吉, found reviewing real questions): guitar, allergy, repaying, catching a
/// chill, a partner, across the street.
pub const CJK_KEEP: &[&str] = &["吉他", "过敏", "还款", "还钱", "着凉", "对象", "对面"];

/// English question frames scored as nothing (soft, as [`CJK_FRAMES`]): "remind me", "our
/// previous conversation", "I mentioned", "I was wondering", "in total". Contextual frames are
/// in [`strip`]: `many`/`much`/`long`/`often` after `how`, `kind`/`type`/`sort`/`number`/
/// `amount` before `of`.
pub const EN_FRAMES: &[&str] =
    &["total", "remind", "previous", "conversation", "mentioned", "wondering", "currently", "recall", "remember"];

/// Removes stop words and question frames from natural-language text: returns the remaining
/// text (NFC, as the segmenter reads it) with what was removed replaced by spaces (so no bigram
/// can span where it was). NFC first: the split below drops what is not a letter or digit, and
/// a decomposed `café` (`e` + U+0301, as macOS input or a PDF gives it) would lose its accent.
/// Traditional Chinese characters are folded to Simplified as the segmenter does
/// ([`fold_han`](crate::fts5::segment::fold_han)), so the (Simplified) stop lists remove `這個`
/// as they remove `这个`.
///
/// English contractions and possessives lose their clitic (`what's` → `what`, `Melanie's` →
/// `Melanie`, `didn't` → `did`, `won't` → `will`) and a one-letter Latin word is never scored:
/// split at the apostrophe they would leave probes such as `"s"*`, which match hundreds of
/// entries. Frames ([`CJK_FRAMES`], [`EN_FRAMES`], `how many`, `kind of`) are removed too,
/// unless nothing else would be left: a frame word that is the question's only content word
/// is kept ("名字" alone still searches for 名字).
pub fn strip(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let nfc: String = text.nfc().map(crate::fts5::segment::fold_han).collect();
    let framed = strip_with(&nfc, true);
    if framed.is_empty() { strip_with(&nfc, false) } else { framed }
}

/// [`strip`] of NFC text, with or without removing frames.
fn strip_with(text: &str, frames: bool) -> String {
    let mut s = text.to_string();
    let cjk_lists: &[&[&str]] = if frames { &[CJK_FRAMES, CJK_STOP_WORDS] } else { &[CJK_STOP_WORDS] };
    for list in cjk_lists {
        for w in *list {
            // Most stop words cannot occur (their first character is absent): skip them without
            // building a substring searcher and a new string for each (33 000 instructions
            // of every `retrieve`).
            if w.chars().next().is_some_and(|c| s.contains(c)) {
                s = s.replace(w, " ");
            }
        }
    }
    // Stop characters split CJK runs, except inside a content word that holds one (吉他).
    let chars: Vec<char> = s.chars().collect();
    let mut kept_chars = vec![false; chars.len()];
    for w in CJK_KEEP {
        let wc: Vec<char> = w.chars().collect();
        for i in 0..(chars.len() + 1).saturating_sub(wc.len()) {
            if chars[i..i + wc.len()] == wc[..] {
                kept_chars[i..i + wc.len()].fill(true);
            }
        }
    }
    let s: String = chars
        .iter()
        .zip(&kept_chars)
        .map(|(&c, &keep)| if !keep && CJK_STOP_CHARS.contains(&c) { ' ' } else { c })
        .collect();
    let words: Vec<&str> = s
        .split(|c: char| !c.is_alphanumeric() && !is_apostrophe(c))
        .flat_map(without_clitic)
        .filter(|w| !w.is_empty())
        .collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let mut kept = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let l = lower[i].as_str();
        let one_letter = {
            let mut cs = w.chars();
            cs.next().is_some_and(|c| c.is_alphabetic() && !crate::fts5::segment::is_cjk(c)) && cs.next().is_none()
        };
        if one_letter || EN_STOP_WORDS.contains(&l) {
            continue;
        }
        if frames {
            let prev = i.checked_sub(1).map(|p| lower[p].as_str());
            let next = lower.get(i + 1).map(String::as_str);
            let after_how = prev == Some("how") && matches!(l, "many" | "much" | "long" | "often");
            let before_of =
                next == Some("of") && matches!(l, "kind" | "kinds" | "type" | "types" | "sort" | "number" | "amount");
            if after_how || before_of || EN_FRAMES.contains(&l) {
                continue;
            }
        }
        kept.push(*w);
    }
    kept.join(" ")
}

/// The apostrophes of English contractions: ASCII `'`, the right single quotation mark `’`
/// (what phones and word processors type) and the modifier letter `ʼ`.
fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '’' | 'ʼ')
}

/// A word that may hold apostrophes, without its English clitic: `n't` (`didn't` → `did`,
/// with `can't`, `won't`, `shan't`, `ain't` mapped to `can`, `will`, `shall`, `is`), and `'s`,
/// `'re`, `'ve`, `'ll`, `'d`, `'m` dropped; any other apostrophe separates words
/// (`rock'n'roll`). Returns the parts, borrowed from `w`.
fn without_clitic(w: &str) -> Vec<&str> {
    let Some(at) = w.rfind(is_apostrophe) else { return vec![w] };
    let tail = &w[at..];
    let tail = &tail[tail.chars().next().map_or(0, char::len_utf8)..];
    let head = &w[..at];
    let t = tail.to_ascii_lowercase();
    if t == "t" && head.len() > 1 && head.to_ascii_lowercase().ends_with('n') {
        let base = &head[..head.len() - 1];
        return vec![match base.to_ascii_lowercase().as_str() {
            "ca" => "can",
            "wo" => "will",
            "sha" => "shall",
            "ai" => "is",
            _ => base,
        }];
    }
    if matches!(t.as_str(), "s" | "re" | "ve" | "ll" | "d" | "m" | "") {
        return head.split(is_apostrophe).collect();
    }
    w.split(is_apostrophe).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_function_words() {
        assert_eq!(strip("我吃了什么"), "吃");
        assert_eq!(strip("发生了什么"), "");
        assert_eq!(strip("我们定了什么"), "定");
        assert_eq!(strip("的读书笔记"), "读书笔记");
        assert_eq!(strip("What did we decide about Rust?"), "decide Rust");
        assert_eq!(strip("的开销"), "开销");
        assert_eq!(strip("Who did Melanie meet about the bullying?"), "Melanie meet bullying");
        // 一共 and 多少钱 are frames (what kind of answer), not what the question is about.
        assert_eq!(strip("青岛旅游一共花了多少钱"), "青岛旅游 花");
        // Traditional text comes back folded to Simplified (長→长, 當→当, 麼→么, 這→这, 個→个:
        // OpenCC's pairs), as the segmenter reads it; the stop lists then match it.
        assert_eq!(strip("朵朵長大想當什麼"), "朵朵长大想当");
        assert_eq!(strip("這個週末"), strip("这个周末"));
        // Decomposed accents (NFD) keep their letter, as recall's segmenter reads them.
        assert_eq!(strip("cafe\u{301} with Zoe\u{308}"), "café Zoë");
    }

    #[test]
    fn contractions_and_possessives_leave_no_one_letter_probe() {
        // Expected by reading the words: the clitic goes, the stop words go, what is left is
        // the content.
        assert_eq!(strip("What's Melanie's dog's name?"), "Melanie dog name");
        assert_eq!(strip("I didn't go, they won't come, I can't sleep"), "go come sleep");
        assert_eq!(strip("We'd said you're late and I've seen we'll go, I'm off"), "said late seen go");
        // Typographic apostrophes as phones type them, and a plural possessive.
        assert_eq!(strip("Caroline’s parents' house"), "Caroline parents house");
        // Other apostrophes separate; one-letter remainders are never scored.
        assert_eq!(strip("rock'n'roll at 5 o'clock"), "rock roll 5 clock");
        assert_eq!(strip("plan B or option c"), "plan option");
        // A single CJK character is content, not a one-letter word.
        assert_eq!(strip("我吃了什么"), "吃");
    }

    #[test]
    fn question_frames_are_not_content() {
        assert_eq!(strip("How many days did I spend on the trip?"), "days spend trip");
        assert_eq!(strip("How much total money have I spent on bikes?"), "money spent bikes");
        assert_eq!(strip("What kind of cocktail did I try? The number of glasses?"), "cocktail try glasses");
        assert_eq!(strip("Can you remind me what we mentioned in our previous conversation about yoga?"), "yoga");
        // `how long` is a frame, `long` alone is content.
        assert_eq!(strip("how long was the long walk"), "long walk");
        assert_eq!(strip("实习生叫什么名字"), "实习生");
        assert_eq!(strip("吉他老师叫什么来着"), "吉他老师");
        assert_eq!(strip("豆包下次打疫苗是几号"), "豆包下次打疫苗");
        assert_eq!(strip("甘油三酯前后两次分别是多少"), "甘油三酯前后两次");
        // Small talk stays (it is text); the frame after 话说 goes.
        assert_eq!(strip("早上好呀，话说我表姐的公司叫什么？"), "早上好 话说 表姐 公司");
    }

    #[test]
    fn a_frame_that_is_the_only_content_word_is_kept() {
        // Without frames nothing would be left: the frame words are searched.
        assert_eq!(strip("名字"), "名字");
        assert_eq!(strip("what was the total?"), "total");
        assert_eq!(strip("How many?"), "many");
        // Stop words proper still leave nothing (rule 4: the window's entries are listed).
        assert_eq!(strip("发生了什么"), "");
        assert_eq!(strip("what happened?"), "");
    }
}

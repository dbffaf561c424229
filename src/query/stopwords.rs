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

/// English stop words (lowercase): question words, auxiliaries, pronouns, articles,
/// prepositions and conjunctions (after the common IR lists, e.g. the Snowball English stop
/// list), plus a few conversational fillers ("tell", "say", "talk" are kept: they carry
/// meaning in notes).
pub const EN_STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
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
    "being",
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
    "each",
    "ever",
    "for",
    "from",
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
    "him",
    "his",
    "how",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "me",
    "mine",
    "more",
    "most",
    "my",
    "of",
    "on",
    "or",
    "other",
    "our",
    "ours",
    "out",
    "she",
    "should",
    "so",
    "some",
    "something",
    "stuff",
    "than",
    "that",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "things",
    "this",
    "those",
    "to",
    "too",
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
];

/// Removes stop words from natural-language text: returns the remaining text (NFC, as the
/// segmenter reads it) with stop words replaced by spaces (so no bigram can span where they
/// were). NFC first: the split below drops what is not a letter or digit, and a decomposed
/// `café` (`e` + U+0301, as macOS input or a PDF gives it) would lose its accent. Traditional
/// Chinese characters are folded to Simplified as the segmenter does
/// ([`fold_han`](crate::fts5::segment::fold_han)), so the (Simplified) stop lists remove
/// `這個` as they remove `这个`.
pub fn strip(text: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let mut s: String = text.nfc().map(crate::fts5::segment::fold_han).collect();
    for w in CJK_STOP_WORDS {
        // Most stop words cannot occur (their first character is absent): skip them without
        // building a substring searcher and a new string for each (33 000
        // instructions of every `retrieve`).
        if w.chars().next().is_some_and(|c| s.contains(c)) {
            s = s.replace(w, " ");
        }
    }
    let s: String = s.chars().map(|c| if CJK_STOP_CHARS.contains(&c) { ' ' } else { c }).collect();
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !EN_STOP_WORDS.contains(&w.to_lowercase().as_str()))
        .collect::<Vec<_>>()
        .join(" ")
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
        assert_eq!(strip("青岛旅游一共花了多少钱"), "青岛旅游一共花 钱");
        // Traditional text comes back folded to Simplified (長→长, 當→当, 麼→么, 這→这, 個→个:
        // OpenCC's pairs), as the segmenter reads it; the stop lists then match it.
        assert_eq!(strip("朵朵長大想當什麼"), "朵朵长大想当");
        assert_eq!(strip("這個週末"), strip("这个周末"));
        // Decomposed accents (NFD) keep their letter, as recall's segmenter reads them.
        assert_eq!(strip("cafe\u{301} with Zoe\u{308}"), "café Zoë");
    }
}

//! Stop words for natural-language retrieval text.
//!
//! After the time expression is removed, `retrieve` scores what is left ("我吃了什么") with
//! BM25 in OR mode. Function words would only add noise probes, so they are cut out first:
//! multi-character stop words (什么, 发生, 我们, …) are replaced by a separator, then single
//! stop characters (的, 了, 我, 吗, …) split CJK runs. What remains of each run is probed by
//! its bigrams, and a one-character remainder by that character as a prefix ("吃" finds
//! 「晚饭吃了火锅」). English stop words are dropped whole. If nothing remains, the query is
//! "window only": the window's entries, newest first (spec/temporal.md rule 4).

/// Multi-character Chinese stop words, longest first where they overlap.
pub const CJK_STOP_WORDS: &[&str] = &[
    "有没有",
    "是不是",
    "什么",
    "怎么",
    "怎样",
    "哪些",
    "哪里",
    "哪个",
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
    "说了",
];

/// Single Chinese stop characters (particles, pronouns, copulas).
pub const CJK_STOP_CHARS: &[char] = &[
    '的', '了', '吗', '呢', '吧', '啊', '呀', '么', '我', '你', '他', '她', '它', '们', '是', '在', '有', '和', '与',
    '也', '都', '就', '还', '把', '被', '给', '对', '这', '那', '哪', '谁', '个', '些', '过', '着', '得', '之', '于',
    '及', '或', '啥', '嘛', '呗', '又',
];

/// English stop words (lowercase).
pub const EN_STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "an",
    "and",
    "any",
    "are",
    "at",
    "did",
    "do",
    "does",
    "for",
    "had",
    "happened",
    "has",
    "have",
    "i",
    "in",
    "is",
    "it",
    "me",
    "my",
    "of",
    "on",
    "or",
    "our",
    "that",
    "the",
    "this",
    "to",
    "us",
    "was",
    "we",
    "were",
    "what",
    "whats",
    "when",
    "which",
    "with",
    "you",
    "your",
    "anything",
    "something",
    "things",
    "stuff",
];

/// Removes stop words from natural-language text: returns the remaining text with stop words
/// replaced by spaces (so no bigram can span where they were).
pub fn strip(text: &str) -> String {
    let mut s = text.to_string();
    for w in CJK_STOP_WORDS {
        s = s.replace(w, " ");
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
    }
}

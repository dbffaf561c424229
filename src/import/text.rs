//! Inline text rules of the import mapping: wikilinks, whitespace, `#tags`, tag cleaning,
//! separator-only text and the 4000-code-point split (docs/import.md, "Entries").

use std::sync::LazyLock;

use regex::Regex;

/// The plugin's limit for one entry's text, in code points (docs/plugin-compatibility.md: "单条上限 4000 字").
pub const MAX_ENTRY_CHARS: usize = 4000;

/// The most code points a tag keeps (docs/import.md, "Entries": "≤ 32 characters").
pub const MAX_TAG_CHARS: usize = 32;

static WIKILINK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"!?\[\[([^\[\]]+?)\]\]").expect("valid regex"));

/// Replaces each wikilink by its text: `[[x]]` → `x`, `[[target|alias]]` → `alias` (the text
/// Obsidian shows), embeds `![[x]]` → `x`. Unclosed brackets are left as written.
pub fn unwikilink(s: &str) -> String {
    WIKILINK
        .replace_all(s, |c: &regex::Captures<'_>| {
            let inner = &c[1];
            inner.rsplit_once('|').map_or(inner, |(_, alias)| alias).to_string()
        })
        .into_owned()
}

/// Collapses every run of whitespace (Unicode White_Space plus the invisible U+200B zero-width
/// space) into one space and trims both ends: entries are one line (docs/plugin-compatibility.md `mem_write`:
/// "换行和连续空白会压成空格").
pub fn collapse_ws(s: &str) -> String {
    s.split(|c: char| c.is_whitespace() || c == '\u{200b}').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// Characters that end a `#tag` (besides whitespace).
fn ends_tag(c: char) -> bool {
    c.is_whitespace() || "#,;:!?()[]{}\"'<>`|，。！？；：、（）「」【】《》".contains(c)
}

/// The first `#tag` of an entry's raw text (before wikilinks are unwrapped), cleaned by
/// [`clean_tag`]. A tag starts with `#` at the start of the text or after whitespace or an
/// opening parenthesis, and is either Logseq's `#[[several words]]` or a run of characters up
/// to whitespace or punctuation other than `. - _ / + * &` (so `#BRK.B`, `#C++`, `#S&P500`,
/// `#世芯-KY` are tags); a trailing `.` is dropped (`#color.` → `color`). Not tags: `## x`
/// (heading marks), `#123` (digits only, as in Obsidian), `C#`, `x.com/#a`.
pub fn first_hashtag(raw: &str) -> Option<String> {
    let mut prev: Option<char> = None;
    for (i, c) in raw.char_indices() {
        let starts = c == '#' && prev.is_none_or(|p| p.is_whitespace() || p == '(' || p == '（');
        prev = Some(c);
        if !starts {
            continue;
        }
        let rest = &raw[i + 1..];
        let candidate = if let Some(inner) = rest.strip_prefix("[[") {
            match inner.find("]]") {
                Some(end) => inner[..end].to_string(),
                None => continue,
            }
        } else {
            let end = rest.find(ends_tag).unwrap_or(rest.len());
            rest[..end].trim_end_matches('.').to_string()
        };
        if candidate.is_empty() || candidate.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if let Some(tag) = clean_tag(&candidate) {
            return Some(tag);
        }
    }
    None
}

/// Makes a tag safe for the entry line `- [ts] [tag] text`: wikilinks unwrapped, `[` and `]`
/// removed (docs/plugin-compatibility.md `mem_write`: "[ ] 会被去掉"), whitespace and line breaks collapsed, trimmed,
/// cut to [`MAX_TAG_CHARS`] code points. `None` when nothing is left.
pub fn clean_tag(s: &str) -> Option<String> {
    let s = unwikilink(s).replace(['[', ']'], "");
    let s = collapse_ws(&s);
    let s: String = s.chars().take(MAX_TAG_CHARS).collect();
    let s = s.trim_end();
    (!s.is_empty()).then(|| s.to_string())
}

/// True when the text holds nothing but ASCII punctuation and spaces: separators such as `-`,
/// `--`, `***`, `|`, which are not memories.
pub fn is_separator_only(s: &str) -> bool {
    s.chars().all(|c| c.is_ascii_punctuation() || c.is_whitespace())
}

/// Splits text longer than `max` code points at sentence boundaries: each piece ends after the
/// last `。`, `！` or `？`, or the last `.`, `!` or `?` that is followed by a space, within the
/// first `max` code points of what is left; with no such boundary the piece is cut hard at
/// `max`. Pieces are trimmed; text within the limit comes back as one piece.
pub fn split_long(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let chars: Vec<char> = text.chars().collect();
    let mut pieces = Vec::new();
    let mut start = 0;
    while chars.len() - start > max {
        let window = &chars[start..start + max];
        let boundary = (0..window.len()).rev().find(|&i| match window[i] {
            '。' | '！' | '？' => true,
            '.' | '!' | '?' => chars.get(start + i + 1).is_some_and(|c| c.is_whitespace()),
            _ => false,
        });
        let end = start + boundary.map_or(max, |i| i + 1);
        let piece: String = chars[start..end].iter().collect();
        let piece = piece.trim();
        if !piece.is_empty() {
            pieces.push(piece.to_string());
        }
        start = end;
        while start < chars.len() && chars[start].is_whitespace() {
            start += 1;
        }
    }
    let last: String = chars[start..].iter().collect();
    if !last.trim().is_empty() {
        pieces.push(last.trim().to_string());
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wikilinks_keep_their_text() {
        assert_eq!(unwikilink("I'm testing [[wiki vim]] -- see [[vimwiki]]"), "I'm testing wiki vim -- see vimwiki");
        assert_eq!(unwikilink("[[Target|shown]] and ![[img.png]]"), "shown and img.png");
        assert_eq!(unwikilink("[[wiki vim]]] and [[open"), "wiki vim] and [[open");
        assert_eq!(unwikilink("#[[all global order]]"), "#all global order");
    }

    #[test]
    fn whitespace_collapses() {
        assert_eq!(collapse_ws("  a \t b\n\nc\u{200b}\u{200b}  "), "a b c");
        assert_eq!(collapse_ws("\u{3000}全角\u{a0}空格"), "全角 空格");
    }

    #[test]
    fn hashtags() {
        assert_eq!(first_hashtag("- [link](https://x.com/#frag) #TSLA #EV").as_deref(), Some("TSLA"));
        assert_eq!(first_hashtag("#push [[daniel dennett]]").as_deref(), Some("push"));
        assert_eq!(first_hashtag("see #[[all global order]] now").as_deref(), Some("all global order"));
        assert_eq!(first_hashtag("#BRK.B rises").as_deref(), Some("BRK.B"));
        assert_eq!(first_hashtag("I like #color.").as_deref(), Some("color"));
        assert_eq!(first_hashtag("#push, then").as_deref(), Some("push"));
        assert_eq!(first_hashtag("[新聞 #數位主權](https://a.b) x").as_deref(), Some("數位主權"));
        assert_eq!(first_hashtag("(#tag)").as_deref(), Some("tag"));
        assert_eq!(first_hashtag("### Finance"), None);
        assert_eq!(first_hashtag("issue #123 and C# code"), None);
        assert_eq!(first_hashtag("# heading"), None);
        assert_eq!(
            first_hashtag("#aaaaaaaaaabbbbbbbbbbccccccccccdddd").as_deref(),
            Some("aaaaaaaaaabbbbbbbbbbccccccccccdd")
        );
    }

    #[test]
    fn tags_are_line_safe() {
        assert_eq!(clean_tag("  [[Project]] [x]\n y ").as_deref(), Some("Project x y"));
        assert_eq!(clean_tag("[]"), None);
        assert_eq!(clean_tag(&"长".repeat(40)).map(|t| t.chars().count()), Some(32));
    }

    #[test]
    fn separators() {
        assert!(is_separator_only("--"));
        assert!(is_separator_only("- * -"));
        assert!(!is_separator_only("-OOOOAPI||||"));
        assert!(!is_separator_only("🎉"));
    }

    #[test]
    fn long_text_splits_at_sentences() {
        // 10-code-point limit: "一二三。四五六七。" is 9, the last boundary inside the first 10.
        assert_eq!(split_long("一二三。四五六七。八九十一二", 10), vec!["一二三。四五六七。", "八九十一二"]);
        // ASCII '.' counts only before a space: "v1.2" is not a boundary.
        assert_eq!(split_long("Use v1.2 now. Then more", 15), vec!["Use v1.2 now.", "Then more"]);
        // No boundary: hard split.
        assert_eq!(split_long("abcdefghijkl", 5), vec!["abcde", "fghij", "kl"]);
        assert_eq!(split_long("short", 5), vec!["short"]);
        assert_eq!(split_long("abc", 0), vec!["a", "b", "c"], "a zero limit acts as 1");
        let long = "字".repeat(4001);
        let pieces = split_long(&long, MAX_ENTRY_CHARS);
        assert_eq!(pieces.iter().map(|p| p.chars().count()).collect::<Vec<_>>(), vec![4000, 1]);
    }
}

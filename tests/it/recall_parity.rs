//! Recall parity: every entry the plugin's matching rule returns, recall returns.
//!
//! The plugin's rule (dsh-memory-layers v1.2 `mem_recall`), implemented naively here: a term
//! matches an entry when it is a case-insensitive substring of the content or the tag; a
//! single CJK term of 3+ characters also matches when all its bigrams that cover the term occur
//! (「翻唱权重」 finds 「翻唱…权重」). `and` needs every term, `or`/`any` one. Documented
//! difference: Latin terms match whole words and word prefixes only, so generated Latin terms
//! are whole words or word prefixes. The property: naive ⊆ recall, and recall ⊆ the naive rule
//! extended by that documented probe semantics (no entry matches for no reason).

use crate::common;

use std::collections::BTreeSet;

use memlayers::fts5::segment::{pieces, term_probes, text_has_probe};
use proptest::prelude::*;

const CJK: &[&str] = &["翻", "唱", "权", "重", "早", "报", "火", "锅", "天", "周", "约", "定", "读", "书"];
const LATIN: &[&str] = &["token", "tokens", "rust", "rusty", "sqlite", "fts"];
const SEPS: &[&str] = &[" ", "，", "…", "、", ""];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            3 => prop::sample::select(CJK).prop_map(str::to_string),
            1 => prop::sample::select(LATIN).prop_map(|w| format!(" {w} ")),
            1 => prop::sample::select(SEPS).prop_map(str::to_string),
        ],
        1..12,
    )
    .prop_map(|v| v.concat().split_whitespace().collect::<Vec<_>>().join(" "))
    .prop_filter("non-empty", |s| !s.is_empty())
}

fn term() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(prop::sample::select(CJK), 1..5).prop_map(|v| v.concat()),
        1 => prop::sample::select(LATIN).prop_map(|w| w[..w.len().min(3 + w.len() % 3)].to_uppercase()),
    ]
}

/// The plugin's rule for one term.
fn plugin_term(term: &str, tag: &str, content: &str) -> bool {
    let t = term.to_lowercase();
    let (c, g) = (content.to_lowercase(), tag.to_lowercase());
    if c.contains(&t) || g.contains(&t) {
        return true;
    }
    let cjk = t.chars().all(memlayers::fts5::segment::is_cjk);
    cjk && t.chars().count() >= 3 && { term_probes(&t).iter().all(|p| c.contains(&p.token) || g.contains(&p.token)) }
}

/// memlayers' documented rule for one term (probes, see segment::term_probes).
fn our_term(term: &str, tag: &str, content: &str) -> bool {
    let mut ps = pieces(content);
    ps.extend(pieces(tag));
    term_probes(term).iter().all(|p| text_has_probe(&ps, p))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn recall_returns_everything_the_plugin_rule_returns(
        entries in prop::collection::vec((text(), prop::sample::select(vec!["-", "翻唱", "Rust", "早报"])), 1..30),
        terms in prop::collection::vec(term(), 1..3),
        or_mode in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let mut file = String::new();
        for (i, (content, tag)) in entries.iter().enumerate() {
            file.push_str(&format!("- [2026-10-21T01:{:02}:00.000Z] [{tag}] {content}\n", i));
        }
        common::put(dir.path(), "cold/2026-10/2026-10-21.md", &file);
        let m = common::open_at(dir.path(), "2026-10-22T00:00:00Z");
        let keyword = terms.join(" ");
        let mode = if or_mode { "or" } else { "and" };
        let got: BTreeSet<String> = m.recall(&keyword, Some(50), Some(mode.parse().unwrap())).unwrap()
            .items.into_iter().map(|i| format!("{}|{}", i.tag, i.content)).collect();
        let pick = |rule: &dyn Fn(&str, &str, &str) -> bool| -> BTreeSet<String> {
            entries.iter().filter(|(c, t)| {
                let hits = terms.iter().filter(|term| rule(term, t, c)).count();
                if or_mode { hits > 0 } else { hits == terms.len() }
            }).map(|(c, t)| format!("{t}|{c}")).collect()
        };
        let plugin = pick(&plugin_term);
        let ours = pick(&our_term);
        prop_assert!(plugin.is_subset(&got), "plugin rule found {:?} that recall missed for {keyword:?} ({mode})", plugin.difference(&got).collect::<Vec<_>>());
        prop_assert_eq!(got, ours);
    }
}

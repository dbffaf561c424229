//! The architecture test: dependencies between the folders of `src/` point one way, and no two
//! source files import each other (directly or round a circle).
//!
//! It reads every `.rs` file under `src/` as text (no new dependency: comments, strings and
//! character literals are blanked, then every `crate::…`, `$crate::…` and `super::…` path is
//! read, `use` groups such as `crate::{a::b, c}` expanded) and resolves each path to the module
//! file it names. A name re-exported by `src/lib.rs` (`crate::Error`, `crate::Memory`) counts as
//! the module that defines it. The layer order is ARCHITECTURE.md's "Folders (src/)" section.
//!
//! A failure names the file, the path it uses, and which way the rule was broken, e.g.
//! `src/index/store.rs uses crate::layers::sync::LayerScope: index (layer 3) may not depend on
//! layers (layer 4)`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

/// The top-level modules of `src/`, lowest first: a module may use modules of its own layer or
/// of a lower one, never a higher one. `error` and `config` are the base every layer may use;
/// `temporal` is the separate crate `memlayers-temporal` (pure, no SQLite), re-exported.
const LAYERS: &[(&str, u32)] = &[
    ("error", 0),
    ("config", 0),
    ("temporal", 0),
    ("files", 1),
    ("fts5", 2),
    ("index", 3),
    ("layers", 4),
    ("query", 5),
    ("import", 7),
    ("memory", 8),
    ("cli", 9),
];

/// `src/` of this package.
fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted (so failures come in a stable order).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The module path of a file: `src/index/store.rs` → `["index", "store"]`, `src/index/mod.rs`
/// → `["index"]`, `src/lib.rs` and `src/main.rs` → `[]` (the crate root).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !(stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"))) {
        parts.push(stem.to_string());
    }
    parts
}

/// `src` with comments, string literals and character literals replaced by spaces (newlines
/// kept), so that neither a doc comment's `crate::x` link nor a string's text counts as a use.
fn blank(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let put = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                put(&mut out, b[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    put(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !prev_is_ident(&b, i) {
            // Raw string r"…", r#"…"#: ends at a quote followed by as many #s.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            while j < b.len() && !(b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#'))) {
                j += 1;
            }
            let end = (j + 1 + hashes).min(b.len());
            for &ch in &b[i..end] {
                put(&mut out, ch);
            }
            i = end;
        } else if c == '"' {
            put(&mut out, c);
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    put(&mut out, b[i]);
                    i += 1;
                }
                if i < b.len() {
                    put(&mut out, b[i]);
                    i += 1;
                }
            }
            if i < b.len() {
                put(&mut out, b[i]);
                i += 1;
            }
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1F600}', '"') or a lifetime ('a).
            let end = if next == Some('\\') {
                (i + 2..b.len()).find(|&j| b[j] == '\'').map(|j| j + 1)
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(e) => {
                    for &ch in &b[i..e] {
                        put(&mut out, ch);
                    }
                    i = e;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

/// A token of blanked source: an identifier, `::`, or one punctuation character.
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Path,
    Punct(char),
}

/// Tokens with their 1-based line numbers.
fn tokens(src: &str) -> Vec<(Tok, usize)> {
    let b: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < b.len() {
        let c = b[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push((Tok::Ident(b[start..i].iter().collect()), line));
        } else if c == ':' && b.get(i + 1) == Some(&':') {
            out.push((Tok::Path, line));
            i += 2;
        } else {
            out.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    out
}

/// Reads the path tree starting at `toks[at]` (just after a `::`), appending every full path
/// (prefix + segments) to `out`; `use` groups `{a::b, c::{d, self}}` are expanded. Returns the
/// index after the tree.
fn path_tree(toks: &[(Tok, usize)], mut at: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix;
    loop {
        match toks.get(at).map(|t| &t.0) {
            Some(Tok::Ident(name)) => {
                if name != "self" {
                    path.push(name.clone());
                }
                at += 1;
                if toks.get(at).map(|t| &t.0) == Some(&Tok::Path) {
                    at += 1;
                    continue;
                }
                out.push(path);
                return at;
            }
            Some(Tok::Punct('{')) => {
                at += 1;
                loop {
                    match toks.get(at).map(|t| &t.0) {
                        Some(Tok::Punct('}')) => return at + 1,
                        Some(Tok::Punct(',')) => at += 1,
                        None => return at,
                        _ => at = path_tree(toks, at, path.clone(), out),
                    }
                }
            }
            Some(Tok::Punct('*')) => {
                out.push(path);
                return at + 1;
            }
            _ => {
                out.push(path);
                return at;
            }
        }
    }
}

/// One path a file uses: the line, the path as written, and the absolute module path it names.
#[derive(Debug, Clone, PartialEq)]
struct Use {
    line: usize,
    written: String,
    absolute: Vec<String>,
}

/// Every `crate::…`, `$crate::…` and `super::…` path in `src` (a file whose module path is
/// `module`), made absolute. Inline modules (`mod tests { … }`) are followed, so `super::` inside
/// one names the file's own module.
fn uses(src: &str, module: &[String]) -> Vec<Use> {
    let toks = tokens(&blank(src));
    let mut out = Vec::new();
    // The module path at the current point, and the brace depth at which each inline module opened.
    let mut here: Vec<String> = module.to_vec();
    let mut opened: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let (t, line) = (&toks[i].0, toks[i].1);
        match t {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if opened.last() == Some(&depth) {
                    opened.pop();
                    here.pop();
                }
            }
            Tok::Ident(kw) if kw == "mod" => {
                if let (Some((Tok::Ident(name), _)), Some((Tok::Punct('{'), _))) = (toks.get(i + 1), toks.get(i + 2)) {
                    here.push(name.clone());
                    opened.push(depth);
                    depth += 1;
                    i += 3;
                    continue;
                }
            }
            Tok::Ident(start)
                if (start == "crate" || start == "super") && toks.get(i + 1).map(|t| &t.0) == Some(&Tok::Path) =>
            {
                // `a::crate` cannot happen; `x::super` can (super::super::…), handled below.
                let after_path = i > 0 && toks[i - 1].0 == Tok::Path;
                if !after_path {
                    let mut base: Vec<String> = if start == "crate" { Vec::new() } else { here.clone() };
                    let mut at = i;
                    let mut written = String::from(start.as_str());
                    if start == "super" {
                        base.pop();
                        at += 2;
                        while let (Some((Tok::Ident(s), _)), Some((Tok::Path, _))) = (toks.get(at), toks.get(at + 1)) {
                            if s != "super" {
                                break;
                            }
                            base.pop();
                            written.push_str("::super");
                            at += 2;
                        }
                    } else {
                        at += 2;
                    }
                    let mut found = Vec::new();
                    let end = path_tree(&toks, at, base, &mut found);
                    let tail: Vec<String> = toks[at..end]
                        .iter()
                        .map(|(t, _)| match t {
                            Tok::Ident(s) => s.clone(),
                            Tok::Path => "::".into(),
                            Tok::Punct(',') => ", ".into(),
                            Tok::Punct(c) => c.to_string(),
                        })
                        .collect();
                    written = format!("{written}::{}", tail.concat());
                    for absolute in found {
                        out.push(Use { line, written: written.clone(), absolute });
                    }
                    i = end;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The crate: every file's module path and source, the names `src/lib.rs` re-exports (name →
/// the absolute path it re-exports), and which module path each file holds.
struct Crate {
    files: Vec<(PathBuf, Vec<String>, String)>,
    reexports: HashMap<String, Vec<String>>,
    modules: BTreeMap<Vec<String>, PathBuf>,
}

fn read_crate() -> Crate {
    let src = src_dir();
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    let mut files = Vec::new();
    let mut modules = BTreeMap::new();
    for p in paths {
        let rel = p.strip_prefix(&src).unwrap().to_path_buf();
        let module = module_of(&rel);
        let text = fs::read_to_string(&p).unwrap();
        if rel != Path::new("main.rs") {
            modules.insert(module.clone(), Path::new("src").join(&rel));
        }
        files.push((Path::new("src").join(&rel), module, text));
    }
    // `pub use a::b::{X, Y};` in lib.rs: X and Y name a::b::X and a::b::Y.
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap();
    let toks = tokens(&blank(&lib));
    let mut reexports = HashMap::new();
    for w in 0..toks.len() {
        if let (Tok::Ident(p), Some((Tok::Ident(u), _))) = (&toks[w].0, toks.get(w + 1))
            && p == "pub"
            && u == "use"
        {
            let mut found = Vec::new();
            path_tree(&toks, w + 2, Vec::new(), &mut found);
            for f in found {
                if let Some(last) = f.last() {
                    reexports.insert(last.clone(), f.clone());
                }
            }
        }
    }
    Crate { files, reexports, modules }
}

impl Crate {
    /// The absolute path `p` with a re-exported first name replaced by what it re-exports.
    fn expand(&self, p: &[String]) -> Vec<String> {
        match p.first().and_then(|f| self.reexports.get(f)) {
            Some(full) if !self.modules.contains_key(&p[..1]) => full.iter().chain(&p[1..]).cloned().collect(),
            _ => p.to_vec(),
        }
    }

    /// The top-level module a path names (`temporal` for the re-exported crate), if any.
    fn top(&self, p: &[String]) -> Option<String> {
        let p = self.expand(p);
        let first = p.first()?;
        LAYERS.iter().any(|(m, _)| m == first).then(|| first.clone())
    }

    /// The file holding the module a path names (longest module prefix), if it is one of ours.
    fn file(&self, p: &[String]) -> Option<&PathBuf> {
        let p = self.expand(p);
        (1..=p.len()).rev().find_map(|n| self.modules.get(&p[..n]))
    }
}

fn layer(m: &str) -> Option<u32> {
    LAYERS.iter().find(|(n, _)| *n == m).map(|&(_, l)| l)
}

/// Every use that points up the layer order: "file:line uses path: a (layer x) may not depend
/// on b (layer y)". Files of the crate root (lib.rs, main.rs) assemble everything and are exempt.
fn upward(c: &Crate) -> Vec<String> {
    let mut bad = Vec::new();
    for (file, module, text) in &c.files {
        let Some(from) = module.first() else { continue };
        let Some(lf) = layer(from) else {
            bad.push(format!("{}: top-level module `{from}` is not in the architecture test's LAYERS", file.display()));
            continue;
        };
        for u in uses(text, module) {
            let Some(to) = c.top(&u.absolute) else { continue };
            let lt = layer(&to).unwrap();
            if lt > lf {
                bad.push(format!(
                    "{}:{} uses {}: {from} (layer {lf}) may not depend on {to} (layer {lt})",
                    file.display(),
                    u.line,
                    u.written
                ));
            }
        }
    }
    bad.dedup();
    bad
}

/// The circles of the file graph (file A uses a path in file B): each a list of files, A → B →
/// … → A, found by Tarjan's strongly connected components. A file's own inline modules and the
/// crate root's files do not count.
fn circles(c: &Crate) -> Vec<Vec<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, module, text) in &c.files {
        if module.is_empty() {
            continue;
        }
        let from = file.display().to_string();
        let set = edges.entry(from.clone()).or_default();
        for u in uses(text, module) {
            if let Some(to) = c.file(&u.absolute) {
                let to = to.display().to_string();
                // A parent's mod.rs is reached by every `super::` of its children: only a use of
                // something defined in it (a path longer than the module's own) counts.
                if to != from && to != "src/lib.rs" {
                    set.insert(to);
                }
            }
        }
    }
    // Tarjan's algorithm, recursive (the graph has a few hundred files).
    struct T<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        let next: Vec<&'a str> = t.edges.get(v).map(|s| s.iter().map(String::as_str).collect()).unwrap_or_default();
        for w in next {
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        edges: &edges,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    // Name, for each circle, the uses that tie it.
    t.out
        .into_iter()
        .map(|comp| {
            let members: BTreeSet<&String> = comp.iter().collect();
            let mut ties = Vec::new();
            for a in &comp {
                for b in &edges[a] {
                    if members.contains(b) {
                        ties.push(format!("{a} -> {b}"));
                    }
                }
            }
            ties
        })
        .collect()
}

#[test]
fn dependencies_point_down_the_layer_order() {
    let c = read_crate();
    let bad = upward(&c);
    assert!(
        bad.is_empty(),
        "{} import(s) point up the layer order (ARCHITECTURE.md, \"Folders (src/)\"; lowest first: {}):\n{}",
        bad.len(),
        LAYERS.iter().map(|(m, _)| *m).collect::<Vec<_>>().join(" ← "),
        bad.join("\n")
    );
}

#[test]
fn no_two_files_import_each_other() {
    let c = read_crate();
    let found = circles(&c);
    let text: Vec<String> = found.iter().map(|ties| format!("  circle:\n    {}", ties.join("\n    "))).collect();
    assert!(found.is_empty(), "{} circle(s) of imports between files of src/:\n{}", found.len(), text.join("\n"));
}

/// The type an `impl` block at `toks[at]` (the `impl` keyword) is for: the last name of the
/// path after `for` when there is one, else after the block's generics; `None` when no `{`
/// follows.
fn impl_target(toks: &[(Tok, usize)], at: usize) -> Option<String> {
    let end = (at..toks.len()).find(|&j| toks[j].0 == Tok::Punct('{'))?;
    let head = &toks[at + 1..end];
    // Skip the block's own generics (`impl<'a> …`).
    let mut i = 0;
    if head.first().map(|t| &t.0) == Some(&Tok::Punct('<')) {
        let mut depth = 0;
        for (k, (t, _)) in head.iter().enumerate() {
            match t {
                Tok::Punct('<') => depth += 1,
                Tok::Punct('>') => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                i = k + 1;
                break;
            }
        }
    }
    if let Some(k) = head.iter().position(|(t, _)| *t == Tok::Ident("for".into())) {
        i = k + 1;
    }
    // The path's names (`crate::index::Store`, `&Store`): the last one before any generics.
    let mut name = None;
    for (t, _) in &head[i..] {
        match t {
            Tok::Ident(n) => name = Some(n.clone()),
            Tok::Path | Tok::Punct('&') => {}
            _ => break,
        }
    }
    name
}

/// The data root's context stays one small type (ARCHITECTURE.md, `index/`: `Store`): every
/// `impl` block of `Store` is in `src/index/store.rs` (the operations on a store are free
/// functions, or types such as `query::Reader`, in the folder that owns them), and no field of
/// it is visible outside `index/` (other folders use its accessors).
#[test]
fn the_store_is_one_small_context() {
    let c = read_crate();
    let home = Path::new("src/index/store.rs");
    let mut bad = Vec::new();
    for (file, _, text) in &c.files {
        let toks = tokens(&blank(text));
        for (w, (t, line)) in toks.iter().enumerate() {
            if *t == Tok::Ident("impl".into())
                && impl_target(&toks, w).as_deref() == Some("Store")
                && file.as_path() != home
            {
                bad.push(format!("{}:{line}: an impl block of Store outside {}", file.display(), home.display()));
            }
        }
        if file.as_path() != home {
            continue;
        }
        // The fields of `struct Store { … }`: none `pub`, `pub(crate)` or `pub(super)`;
        // `pub(in crate::index)` is the folder's own.
        let start = toks.windows(3).position(|w| {
            w[0].0 == Tok::Ident("struct".into()) && w[1].0 == Tok::Ident("Store".into()) && w[2].0 == Tok::Punct('{')
        });
        let Some(start) = start else {
            bad.push(format!("{}: no `struct Store {{`", file.display()));
            continue;
        };
        let mut depth = 0;
        for j in start + 2..toks.len() {
            match &toks[j].0 {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Tok::Ident(p) if p == "pub" && depth == 1 => {
                    let scoped = toks.get(j + 1).map(|t| &t.0) == Some(&Tok::Punct('('))
                        && toks.get(j + 2).map(|t| &t.0) == Some(&Tok::Ident("in".into()));
                    if !scoped {
                        bad.push(format!("{}:{}: a field of Store visible outside index/", file.display(), toks[j].1));
                    }
                }
                _ => {}
            }
        }
    }
    assert!(bad.is_empty(), "the store is no longer one small context:\n{}", bad.join("\n"));
}

/// Usage hits are recorded in one place (ARCHITECTURE.md, `memory/`): `record_hits` is called
/// only by `Memory`'s read path (src/memory/), never by a query on its own.
#[test]
fn usage_hits_are_recorded_by_the_read_path_alone() {
    let c = read_crate();
    let mut bad = Vec::new();
    for (file, _, text) in &c.files {
        if file.starts_with("src/memory") {
            continue;
        }
        let toks = tokens(&blank(text));
        for w in toks.windows(2) {
            let called = w[0].0 == Tok::Ident("record_hits".into()) && w[1].0 == Tok::Punct('(');
            // `fn record_hits(` is its definition, not a call.
            let defined = file.as_path() == Path::new("src/layers/usage/ops.rs");
            if called && !defined {
                bad.push(format!("{}:{}: calls record_hits", file.display(), w[0].1));
            }
        }
    }
    assert!(bad.is_empty(), "usage hits recorded outside Memory's read path:\n{}", bad.join("\n"));
}

/// [`impl_target`] on `impl` headers worked out by hand.
#[test]
fn impl_targets_are_read_from_the_header() {
    let src = "impl Store { } impl<'a> Deref for Reader<'a> { } impl Drop for crate::index::Store { } \
               impl<T: Hit> Foo<T> { } impl Hit for &Store { }";
    let toks = tokens(src);
    let got: Vec<Option<String>> = toks
        .iter()
        .enumerate()
        .filter(|(_, (t, _))| *t == Tok::Ident("impl".into()))
        .map(|(w, _)| impl_target(&toks, w))
        .collect();
    let want = ["Store", "Reader", "Store", "Foo", "Store"].map(|s| Some(s.to_string()));
    assert_eq!(got, want);
}

/// The reader itself, on text whose paths were worked out by hand.
#[test]
fn the_reader_expands_groups_and_resolves_super() {
    let src = r#"
//! Docs mention crate::cli::nothing, which is no use.
use crate::{files::lock::{self, WriterLock}, Error};
use super::sibling::Thing;
fn f() { let s = "crate::memory::Memory"; let c = '"'; crate::index::store::open(); }
#[cfg(test)]
mod tests {
    use super::*;
    use super::super::other;
}
"#;
    let module = vec!["layers".to_string(), "usage".to_string(), "ops".to_string()];
    let got: Vec<(usize, String)> = uses(src, &module).into_iter().map(|u| (u.line, u.absolute.join("::"))).collect();
    let want: Vec<(usize, String)> = vec![
        (3, "files::lock".into()),
        (3, "files::lock::WriterLock".into()),
        (3, "Error".into()),
        (4, "layers::usage::sibling::Thing".into()),
        (5, "index::store::open".into()),
        // Inside `mod tests` of layers::usage::ops: super is ops itself, super::super is usage.
        (8, "layers::usage::ops".into()),
        (9, "layers::usage::other".into()),
    ];
    assert_eq!(got, want);
}

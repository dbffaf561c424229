//! The retrieval labelled set (tests/data/eval/): loading its data roots, reading its
//! questions, and scoring a ranking with recall@5 and MRR per subset.
//!
//! Shared by the `eval-retrieval` binary (tools/eval_retrieval.rs) and the floor test
//! (tests: `retrieval_eval`), which include this file with `#[path]`.
//!
//! * Roots: `example` (examples/archive), `conv` (tests/data/eval/conversations.txt, turned
//!   into cold files), and three public archives imported from tests/data/eval/archives/
//!   (`miraclewong`, `flancian`, `yorkjong`). Each root has the zone its files are dated in.
//! * Questions: tests/data/eval/questions.tsv, one per line: subset, root, now (RFC 3339),
//!   question, relevant entries. A relevant entry is `DATE~text` (the entry of local date DATE
//!   whose `tag + " " + content` contains `text`) or `~text` (any date); several are
//!   separated by ` | `. Every label must resolve to at least one entry of its root, else
//!   loading fails: a typo cannot silently make a question unanswerable.
//! * Metrics: a question is answered at rank r when its best-placed relevant entry is r-th
//!   (1-based) in the result (limit 10). recall@5 = share of questions with r ≤ 5; MRR = mean of
//!   1/r (0 when no relevant entry is in the top 10).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use memlayers::files::entry::{Entry, Source, format_line};
use memlayers::files::local_date;
use memlayers::import::Format;
use memlayers::query::Item;
use memlayers::{Config, Memory};

/// The repository root: this file is compiled into the tools package (manifest in tools/) and
/// into the root package's tests, so the root is the nearest folder holding `examples/archive`.
pub fn repo() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().find(|p| p.join("examples").join("archive").is_dir()).map(Path::to_path_buf).unwrap_or(here)
}

/// tests/data/eval.
pub fn data_dir() -> PathBuf {
    repo().join("tests").join("data").join("eval")
}

/// One data root of the set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RootName {
    /// examples/archive (Asia/Shanghai).
    Example,
    /// tests/data/eval/conversations.txt (UTC).
    Conv,
    /// MiracleWong/Daily-Writing-In-2022 (Asia/Shanghai).
    MiracleWong,
    /// flancian/garden journal (UTC).
    Flancian,
    /// yorkjong/news-digest, June–July 2024 (Asia/Taipei).
    Yorkjong,
}

impl RootName {
    /// Parses the root column of questions.tsv.
    pub fn parse(s: &str) -> Result<RootName, String> {
        Ok(match s {
            "example" => RootName::Example,
            "conv" => RootName::Conv,
            "miraclewong" => RootName::MiracleWong,
            "flancian" => RootName::Flancian,
            "yorkjong" => RootName::Yorkjong,
            _ => return Err(format!("unknown root {s:?}")),
        })
    }

    /// The zone the root's files are dated in.
    pub fn tz(self) -> Tz {
        match self {
            RootName::Example | RootName::MiracleWong => chrono_tz::Asia::Shanghai,
            RootName::Conv | RootName::Flancian => chrono_tz::UTC,
            RootName::Yorkjong => chrono_tz::Asia::Taipei,
        }
    }
}

/// One labelled question.
#[derive(Debug, Clone)]
pub struct Question {
    /// Subset name (zh, zh-time, en, en-time, …).
    pub subset: String,
    /// Root it is asked on.
    pub root: RootName,
    /// The clock at question time.
    pub now: DateTime<Utc>,
    /// The question as a user would ask it.
    pub text: String,
    /// Relevant entries: (local date or any, text contained in `tag + " " + content`).
    pub relevant: Vec<(Option<String>, String)>,
    /// Line in questions.tsv (1-based), for messages.
    pub line: usize,
}

impl Question {
    /// True when `item` is one of the relevant entries.
    pub fn is_relevant(&self, item: &Item) -> bool {
        let hay = format!("{} {}", item.tag, item.content);
        self.relevant.iter().any(|(d, t)| d.as_deref().is_none_or(|d| d == item.date) && hay.contains(t.as_str()))
    }
}

/// Reads tests/data/eval/questions.tsv.
pub fn questions() -> Result<Vec<Question>, String> {
    let path = data_dir().join("questions.tsv");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() != 5 {
            return Err(format!("questions.tsv:{}: {} columns, expected 5", i + 1, cols.len()));
        }
        let now = DateTime::parse_from_rfc3339(cols[2])
            .map_err(|e| format!("questions.tsv:{}: now {:?}: {e}", i + 1, cols[2]))?
            .with_timezone(&Utc);
        let mut relevant = Vec::new();
        for r in cols[4].split(" | ") {
            let (d, t) = r.split_once('~').ok_or_else(|| format!("questions.tsv:{}: label {r:?} has no ~", i + 1))?;
            relevant.push(((!d.is_empty()).then(|| d.to_string()), t.to_string()));
        }
        out.push(Question {
            subset: cols[0].to_string(),
            root: RootName::parse(cols[1]).map_err(|e| format!("questions.tsv:{}: {e}", i + 1))?,
            now,
            text: cols[3].to_string(),
            relevant,
            line: i + 1,
        });
    }
    Ok(out)
}

/// Copies a directory tree.
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let dst = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_tree(&e.path(), &dst)?;
        } else {
            std::fs::copy(e.path(), dst)?;
        }
    }
    Ok(())
}

/// Writes the cold files of conversations.txt into `root` (see the file's header): each turn
/// one entry `Speaker: text`, at session start + 1 minute per turn, tag `-`, source
/// `〔src:<conv>#<turn>〕`, filed by its UTC date.
pub fn write_conversations(root: &Path) -> Result<usize, String> {
    let path = data_dir().join("conversations.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut days: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut session: Option<(String, DateTime<Utc>, i64)> = None;
    let mut turn_no: BTreeMap<String, u64> = BTreeMap::new();
    let mut n = 0;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if let Some(h) = line.strip_prefix("== ") {
            let (conv, at) = h.split_once(' ').ok_or_else(|| format!("conversations.txt:{}: bad session", i + 1))?;
            let at = DateTime::parse_from_rfc3339(at)
                .map_err(|e| format!("conversations.txt:{}: {e}", i + 1))?
                .with_timezone(&Utc);
            session = Some((conv.to_string(), at, 0));
            continue;
        }
        let (conv, start, k) =
            session.as_mut().ok_or_else(|| format!("conversations.txt:{}: turn before session", i + 1))?;
        let seq = turn_no.entry(conv.clone()).or_insert(0);
        *seq += 1;
        let e = Entry {
            ts: *start + Duration::minutes(*k),
            tag: "-".into(),
            content: line.trim().to_string(),
            source: Some(Source { conv: conv.clone(), seq: seq.to_string(), msg_id: None }),
        };
        *k += 1;
        days.entry(local_date(e.ts, chrono_tz::UTC).format("%Y-%m-%d").to_string()).or_default().push(format_line(&e));
        n += 1;
    }
    for (day, lines) in days {
        let dir = root.join("cold").join(&day[..7]);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        std::fs::write(dir.join(format!("{day}.md")), format!("# {day}\n{}\n", lines.join("\n")))
            .map_err(|e| e.to_string())?;
    }
    Ok(n)
}

/// Builds the data root `name` in `dir` (which must be empty) and opens it with `config`
/// (its zone replaced by the root's own).
pub fn build_root(name: RootName, dir: &Path, config: &Config) -> Result<Memory, String> {
    let config = Config { timezone: name.tz(), ..config.clone() };
    let archive = |n: &str| data_dir().join("archives").join(n);
    match name {
        RootName::Example => copy_tree(&repo().join("examples").join("archive"), dir).map_err(|e| e.to_string())?,
        RootName::Conv => {
            write_conversations(dir)?;
        }
        _ => {}
    }
    let m = Memory::open(dir, config).map_err(|e| e.to_string())?;
    let (src, fmt) = match name {
        RootName::MiracleWong => (archive("MiracleWong__Daily-Writing-In-2022"), Format::DailyNotes),
        RootName::Flancian => (archive("flancian__garden"), Format::DailyNotes),
        RootName::Yorkjong => (archive("yorkjong__news-digest"), Format::Logseq),
        _ => return Ok(m),
    };
    m.import(&src, Some(fmt), &mut |_, _| {}).map_err(|e| e.to_string())?;
    Ok(m)
}

/// How a question is put to the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `retrieve(question)`: the natural-language pipeline.
    Retrieve,
    /// `recall(question, mode or)`: the plugin's keyword recall, any word.
    RecallOr,
    /// `recall(question)`: the plugin's keyword recall, every word.
    RecallAnd,
}

/// Runs one question; returns the ranked items (limit 10). A query the engine refuses (for
/// example nothing searchable left) counts as an empty result.
pub fn ask(m: &Memory, method: Method, text: &str) -> Vec<Item> {
    match method {
        Method::Retrieve => m
            .retrieve(&memlayers::query::retrieve::RetrieveArgs {
                query: text.into(),
                limit: Some(10),
                ..Default::default()
            })
            .map(|r| r.items)
            .unwrap_or_default(),
        Method::RecallOr => m.recall(text, Some(10), Some(memlayers::Mode::Or)).map(|r| r.items).unwrap_or_default(),
        Method::RecallAnd => m.recall(text, Some(10), Some(memlayers::Mode::And)).map(|r| r.items).unwrap_or_default(),
    }
}

/// Rank (1-based) of the first relevant item, if any.
pub fn first_relevant(q: &Question, items: &[Item]) -> Option<usize> {
    items.iter().position(|i| q.is_relevant(i)).map(|p| p + 1)
}

/// Figures of one subset.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    /// Questions.
    pub n: usize,
    /// Questions answered in the top 5.
    pub hit5: usize,
    /// Sum of reciprocal ranks.
    pub rr: f64,
}

impl Figures {
    /// recall@5 in [0, 1].
    pub fn recall5(&self) -> f64 {
        if self.n == 0 { 0.0 } else { self.hit5 as f64 / self.n as f64 }
    }
    /// MRR in [0, 1].
    pub fn mrr(&self) -> f64 {
        if self.n == 0 { 0.0 } else { self.rr / self.n as f64 }
    }
    fn add(&mut self, rank: Option<usize>) {
        self.n += 1;
        if let Some(r) = rank {
            if r <= 5 {
                self.hit5 += 1;
            }
            self.rr += 1.0 / r as f64;
        }
    }
}

/// One question's outcome.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The question.
    pub question: Question,
    /// Rank of the first relevant entry in the top 10.
    pub rank: Option<usize>,
    /// The top 3 returned (date, content), for reports.
    pub top: Vec<(String, String)>,
}

/// The whole evaluation: per-subset figures (plus "all") and every outcome.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Subset name → figures; "all" is the whole set.
    pub subsets: BTreeMap<String, Figures>,
    /// Every question, in file order.
    pub outcomes: Vec<Outcome>,
}

/// Builds every root under `work` (one sub-folder each), checks every label resolves, and
/// asks every question in file order (usage hits of earlier questions feed later rankings, as
/// in real use).
pub fn evaluate(work: &Path, config: &Config, method: Method) -> Result<Report, String> {
    let qs = questions()?;
    let mut roots: BTreeMap<RootName, Memory> = BTreeMap::new();
    for q in &qs {
        if let std::collections::btree_map::Entry::Vacant(slot) = roots.entry(q.root) {
            let dir = work.join(format!("{:?}", q.root).to_lowercase());
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            slot.insert(build_root(q.root, &dir, config)?);
        }
    }
    check_labels(&qs, &roots)?;
    let mut report = Report::default();
    for q in qs {
        let m = roots.remove(&q.root).expect("root built above").with_now(q.now);
        let items = ask(&m, method, &q.text);
        roots.insert(q.root, m);
        let rank = first_relevant(&q, &items);
        report.subsets.entry(q.subset.clone()).or_default().add(rank);
        report.subsets.entry("all".into()).or_default().add(rank);
        let top = items.iter().take(3).map(|i| (i.date.clone(), i.content.chars().take(60).collect())).collect();
        report.outcomes.push(Outcome { question: q, rank, top });
    }
    Ok(report)
}

/// Every label of every question must match at least one entry of its root.
fn check_labels(qs: &[Question], roots: &BTreeMap<RootName, Memory>) -> Result<(), String> {
    for (name, m) in roots {
        let c = m.conn().map_err(|e| e.to_string())?;
        let mut st = c.prepare("SELECT day, tag || ' ' || content FROM entries").map_err(|e| e.to_string())?;
        let rows: Vec<(String, String)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| e.to_string())?
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        for q in qs.iter().filter(|q| q.root == *name) {
            for (d, t) in &q.relevant {
                if !rows.iter().any(|(day, hay)| d.as_deref().is_none_or(|d| d == day) && hay.contains(t.as_str())) {
                    return Err(format!("questions.tsv:{}: label {:?}~{t:?} matches no entry of {name:?}", q.line, d));
                }
            }
        }
    }
    Ok(())
}

/// The figures as a Markdown table.
pub fn table(report: &Report) -> String {
    let mut s = String::from("| subset | questions | recall@5 | MRR |\n|---|---|---|---|\n");
    for (name, f) in
        report.subsets.iter().filter(|(k, _)| k.as_str() != "all").chain(report.subsets.get_key_value("all"))
    {
        s.push_str(&format!("| {name} | {} | {:.3} | {:.3} |\n", f.n, f.recall5(), f.mrr()));
    }
    s
}

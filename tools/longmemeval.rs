//! `longmemeval`: session and turn recall of `retrieve` on LongMemEval-S (Wu et al., ICLR 2025)
//! and on the project's own hand-written message sets, each question asked twice in one run:
//! with the time parser (`retrieve`) and without it (`retrieve --no-time`, `no_time: true`).
//!
//! ```text
//! cargo run --release -p memlayers-tools --bin longmemeval -- [--set lme|zh-chat|zh-dialogue|en-conv]
//!     [--data FILE] [--limit N] [--types t1,t2] [--ids id1,id2] [--jobs N] [--misses FILE]
//!     [--sessions] [--keep] [--pad N] [--record-time-only]
//! ```
//!
//! * `lme` (default): `../shared/benchmarks/longmemeval/longmemeval_s_cleaned.json.xz` next to
//!   the repository (as the tests read `../shared/archives`), or `--data`. The official
//!   retrieval protocol (the upstream repository's `src/retrieval/eval_utils.py`): questions
//!   whose id ends in `_abs` (abstention) are skipped (469 remain); only user turns are indexed;
//!   each question has its own haystack of ~48 dated sessions, so each gets a fresh data root.
//! * the message sets, one file each in tools/data/ (zh_chat.txt's header describes the format,
//!   which they share; each file's header says how it was written): each message is its own
//!   "session", so session recall is message recall; a question's root holds the messages
//!   written by its time (an answer message written later is warned about: it cannot be found).
//!   * `zh-chat`: tools/data/zh_chat.txt, one user's messages to an assistant, questions about
//!     them;
//!   * `zh-dialogue`: tools/data/zh_dialogue.txt, one user's chat with a companion assistant;
//!     the query is the user's next utterance (often a remark with 今天/刚才/最近 about now) and
//!     the answers are the past messages a reply should recall;
//!   * `en-conv`: tools/data/en_conv.txt, two friends' dated chat sessions in English, one turn
//!     a message ("Mia: ..."), questions about them in the third person.
//!
//! `--ids` asks only the questions with those ids; `--keep` leaves each question's data root in
//! the temporary folder (printed) for a look with the CLI.
//!
//! `--record-time-only` asks the `retrieve` mode with `record_time_only: true`: windows admit
//! entries by their record date only, not by the event windows of their text (an ablation).
//!
//! `--pad N` adds to each question's haystack the haystacks of the next N questions (file order,
//! wrapping): the same questions and answers over an N + 1 times larger memory (`lme` only: the
//! message sets share one haystack, which padding would only copy).
//!
//! `--sessions` indexes one entry per session (its user turns joined) instead of one per turn
//! (turn recall is then not measured). Each user turn becomes one entry of the cold file of its session's date (zone UTC), at the
//! session's time + 1 minute per turn of the session, tag `-`, source marker
//! `〔src:s<session>#<turn>〕` (how returned entries map back to sessions); newlines in a turn
//! become spaces (an entry is one line). The files are written directly in the canonical
//! format and mirrored by [`Memory::open`]. "Now" is the question's date. Usage hits are held
//! back and discarded ([`Memory::defer_hits`]), so neither mode sees the other's hits.
//!
//! Metrics (as upstream's `evaluate_retrieval_turn2session`): the returned entries (limit 50)
//! are mapped to their sessions, duplicates dropped in rank order; session recall_any@k = some
//! answer session is among the first k sessions, recall_all@k = every answer session is.
//! Turn recall_any@5 = some evidence turn (`has_answer`) is among the first 5 entries; it is
//! averaged over the questions with at least one user evidence turn (`turn n`).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use chrono::{DateTime, Duration, NaiveDateTime, Utc};
use memlayers::files::entry::{Entry, Source, format_line};
use memlayers::query::retrieve::RetrieveArgs;
use memlayers::{Config, Memory};
use serde::Deserialize;

/// Errors of the tool (any failure ends the run with its message, exit 2).
type BResult<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// Entries asked for per question: enough for 10 distinct sessions in practice.
const LIMIT: i64 = 50;

/// One dialogue turn of the LongMemEval JSON.
#[derive(Debug, Deserialize)]
struct RawTurn {
    role: String,
    content: String,
    #[serde(default)]
    has_answer: bool,
}

/// One question of the LongMemEval JSON (fields named as upstream; others ignored).
#[derive(Debug, Deserialize)]
struct RawQuestion {
    question_id: String,
    question_type: String,
    question: String,
    question_date: String,
    answer_session_ids: Vec<String>,
    haystack_session_ids: Vec<String>,
    haystack_dates: Vec<String>,
    haystack_sessions: Vec<Vec<RawTurn>>,
}

/// One dated session: its start and its user turns `(text, is evidence, position in session)`.
#[derive(Debug, Clone)]
pub struct Session {
    /// Start instant (UTC).
    pub start: DateTime<Utc>,
    /// User turns: text, evidence flag, index of the turn among all the session's turns.
    pub turns: Vec<(String, bool, usize)>,
}

/// One question with its haystack.
#[derive(Debug, Clone)]
pub struct Case {
    /// Question id.
    pub id: String,
    /// Question type (per-type rows of the report).
    pub kind: String,
    /// The question.
    pub question: String,
    /// "Now" at question time.
    pub now: DateTime<Utc>,
    /// Haystack sessions.
    pub sessions: Vec<Session>,
    /// Indices of the answer sessions.
    pub answers: HashSet<usize>,
    /// Index only the sessions that start by `now` (the message sets, whose messages span every
    /// question); LongMemEval indexes its whole haystack, as upstream does, although 1 305 of
    /// its sessions start after their question's date (18 questions have every answer session
    /// there).
    pub only_before_now: bool,
}

/// Parses LongMemEval's dates, "2023/05/30 (Tue) 23:40", as UTC.
fn parse_date(s: &str) -> BResult<DateTime<Utc>> {
    let mut parts = s.split_whitespace();
    let (d, _, t) = (parts.next(), parts.next(), parts.next());
    let (Some(d), Some(t)) = (d, t) else {
        return Err(format!("date {s:?}: expected \"YYYY/MM/DD (Day) HH:MM\"").into());
    };
    Ok(NaiveDateTime::parse_from_str(&format!("{d} {t}"), "%Y/%m/%d %H:%M")
        .map_err(|e| format!("date {s:?}: {e}"))?
        .and_utc())
}

/// Reads the LongMemEval-S file (xz-compressed JSON), keeping the non-abstention questions.
fn load_lme(path: &Path) -> BResult<Vec<Case>> {
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut json = Vec::new();
    lzma_rs::xz_decompress(&mut std::io::BufReader::new(f), &mut json)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let raw: Vec<RawQuestion> = serde_json::from_slice(&json).map_err(|e| format!("{}: {e}", path.display()))?;
    drop(json);
    let mut out = Vec::new();
    for q in raw.into_iter().filter(|q| !q.question_id.ends_with("_abs")) {
        if q.haystack_dates.len() != q.haystack_sessions.len()
            || q.haystack_session_ids.len() != q.haystack_sessions.len()
        {
            return Err(format!("{}: haystack fields of different lengths", q.question_id).into());
        }
        let wanted: HashSet<&String> = q.answer_session_ids.iter().collect();
        let mut sessions = Vec::new();
        let mut answers = HashSet::new();
        for (i, (turns, date)) in q.haystack_sessions.into_iter().zip(&q.haystack_dates).enumerate() {
            if wanted.contains(&q.haystack_session_ids[i]) {
                answers.insert(i);
            }
            let turns = turns
                .into_iter()
                .enumerate()
                .filter(|(_, t)| t.role == "user")
                .map(|(k, t)| (t.content, t.has_answer, k))
                .collect();
            sessions.push(Session { start: parse_date(date)?, turns });
        }
        out.push(Case {
            id: q.question_id,
            kind: q.question_type,
            question: q.question,
            now: parse_date(&q.question_date)?,
            sessions,
            answers,
            only_before_now: false,
        });
    }
    Ok(out)
}

/// Reads a message set (tools/data/zh_chat.txt and the others; format in zh_chat.txt's header).
/// Errors: a malformed line, a repeated message id, an answer id that is no message. An answer
/// written after its question's time (never in the question's root, so never found) is warned
/// about on stderr.
fn load_messages(path: &Path) -> BResult<Vec<Case>> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut sessions: Vec<Session> = Vec::new();
    let mut ids: BTreeMap<String, usize> = BTreeMap::new();
    let mut questions = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |m: String| format!("{}:{}: {m}", path.display(), n + 1);
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        match cols.as_slice() {
            ["M", id, ts, text] => {
                let start =
                    NaiveDateTime::parse_from_str(ts, "%Y-%m-%d %H:%M").map_err(|e| at(format!("{ts:?}: {e}")))?;
                if ids.insert(id.to_string(), sessions.len()).is_some() {
                    return Err(at(format!("message id {id} repeated")).into());
                }
                sessions.push(Session { start: start.and_utc(), turns: vec![(text.to_string(), true, 0)] });
            }
            ["Q", kind, now, question, answers] => questions.push((n + 1, *kind, *now, *question, *answers)),
            _ => return Err(at("expected `M id time text` or `Q kind now question answers`".into()).into()),
        }
    }
    let mut out = Vec::new();
    for (n, kind, now, question, answers) in questions {
        let at = |m: String| format!("{}:{n}: {m}", path.display());
        let now = NaiveDateTime::parse_from_str(now, "%Y-%m-%d %H:%M").map_err(|e| at(format!("{now:?}: {e}")))?;
        let answers = answers
            .split(',')
            .map(|a| {
                let i = *ids.get(a.trim()).ok_or_else(|| at(format!("answer {a:?} is no message id")))?;
                if sessions[i].start > now.and_utc() {
                    // A warning, not an error: zh_chat.txt has one such question (line 227),
                    // kept as it is so that its figures stay comparable.
                    eprintln!(
                        "longmemeval: warning: {}: it is not in the question's data root",
                        at(format!("answer {a:?} is written after the question's time {now}"))
                    );
                }
                Ok(i)
            })
            .collect::<Result<HashSet<usize>, String>>()?;
        out.push(Case {
            id: format!("line{n}"),
            kind: kind.to_string(),
            question: question.to_string(),
            now: now.and_utc(),
            sessions: sessions.clone(),
            answers,
            only_before_now: true,
        });
    }
    Ok(out)
}

/// Writes the case's user turns as cold files under `root` (module docs).
fn write_root(case: &Case, root: &Path, sessions_whole: bool) -> BResult<()> {
    let mut days: BTreeMap<chrono::NaiveDate, Vec<Entry>> = BTreeMap::new();
    for (s, sess) in case.sessions.iter().enumerate().filter(|(_, s)| !case.only_before_now || s.start <= case.now) {
        let joined;
        let turns: Vec<(String, bool, usize)> = if sessions_whole {
            joined = sess.turns.iter().map(|t| t.0.as_str()).collect::<Vec<_>>().join(" ");
            vec![(joined, false, 0)]
        } else {
            sess.turns.clone()
        };
        for (t, (text, _, k)) in turns.iter().enumerate() {
            let content = text.split_whitespace().collect::<Vec<_>>().join(" ");
            if content.is_empty() {
                continue;
            }
            let ts = sess.start + Duration::minutes(*k as i64);
            let e = Entry {
                ts,
                tag: "-".into(),
                content,
                source: Some(Source { conv: format!("s{s}"), seq: t.to_string(), msg_id: None }),
            };
            days.entry(ts.date_naive()).or_default().push(e);
        }
    }
    for (day, mut es) in days {
        es.sort_by_key(|e| e.ts);
        let dir = root.join("cold").join(day.format("%Y-%m").to_string());
        std::fs::create_dir_all(&dir)?;
        let mut body = format!("# {day}\n");
        for e in &es {
            body.push_str(&format_line(e));
            body.push('\n');
        }
        std::fs::write(dir.join(format!("{day}.md")), body)?;
    }
    Ok(())
}

/// The ranked (session, turn) pairs of one call, and what `explain` said of the window.
#[derive(Debug, Clone, Default)]
struct Answer {
    ranked: Vec<(usize, usize)>,
    window: String,
    scored: String,
}

/// Asks `q` on `m`, with or without the time parser.
fn ask(m: &Memory, q: &str, no_time: bool, record_time_only: bool) -> BResult<Answer> {
    let r = m.retrieve(&RetrieveArgs {
        query: q.into(),
        limit: Some(std::env::var("LME_LIMIT").ok().and_then(|v| v.parse().ok()).unwrap_or(LIMIT)),
        explain: true,
        no_time,
        record_time_only,
        ..Default::default()
    })?;
    m.discard_deferred_hits();
    let ranked = r
        .items
        .iter()
        .filter_map(|i| {
            let s = i.source.as_ref()?;
            Some((s.conv.strip_prefix('s')?.parse().ok()?, s.seq.parse().ok()?))
        })
        .collect();
    let ex = r.explain.unwrap_or_else(|| unreachable!("explain was asked for"));
    let window = match &ex.window {
        Some(w) => format!(
            "{}..{}{}",
            w.start_date,
            w.end_date,
            r.widened.as_ref().map(|x| format!(" widened {}", x.by)).unwrap_or_default()
        ),
        None => "-".into(),
    };
    Ok(Answer { ranked, window, scored: ex.scored_text })
}

/// One question's scores in one mode.
#[derive(Debug, Clone, Copy, Default)]
struct Score {
    any5: bool,
    any10: bool,
    all5: bool,
    all10: bool,
    /// `None` when the question has no user evidence turn.
    turn5: Option<bool>,
}

fn score(case: &Case, a: &Answer, sessions_whole: bool) -> Score {
    let mut sessions: Vec<usize> = Vec::new();
    for (s, _) in &a.ranked {
        if !sessions.contains(s) {
            sessions.push(*s);
        }
    }
    let top = |k: usize| sessions.iter().take(k).copied().collect::<HashSet<usize>>();
    let (t5, t10) = (top(5), top(10));
    let evidence: HashSet<(usize, usize)> = case
        .sessions
        .iter()
        .enumerate()
        .flat_map(|(s, sess)| sess.turns.iter().enumerate().filter(|(_, t)| t.1).map(move |(t, _)| (s, t)))
        .collect();
    Score {
        any5: case.answers.iter().any(|s| t5.contains(s)),
        any10: case.answers.iter().any(|s| t10.contains(s)),
        all5: case.answers.iter().all(|s| t5.contains(s)),
        all10: case.answers.iter().all(|s| t10.contains(s)),
        turn5: (!sessions_whole && !evidence.is_empty()).then(|| a.ranked.iter().take(5).any(|p| evidence.contains(p))),
    }
}

/// Sums of scores over a group of questions.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    n: usize,
    any5: usize,
    any10: usize,
    all5: usize,
    all10: usize,
    turn_n: usize,
    turn5: usize,
}

impl Sums {
    fn add(&mut self, s: Score) {
        self.n += 1;
        self.any5 += s.any5 as usize;
        self.any10 += s.any10 as usize;
        self.all5 += s.all5 as usize;
        self.all10 += s.all10 as usize;
        if let Some(t) = s.turn5 {
            self.turn_n += 1;
            self.turn5 += t as usize;
        }
    }

    fn row(&self) -> String {
        let f = |x: usize, n: usize| if n == 0 { "-".to_string() } else { format!("{:.3}", x as f64 / n as f64) };
        format!(
            "{} | {} | {} | {} | {} ({})",
            f(self.any5, self.n),
            f(self.any10, self.n),
            f(self.all5, self.n),
            f(self.all10, self.n),
            f(self.turn5, self.turn_n),
            self.turn_n
        )
    }
}

/// Both modes' answers to one question.
#[derive(Debug, Clone)]
struct Outcome {
    timed: Answer,
    plain: Answer,
}

/// Builds the case's root in `work`, asks the question both ways, removes the root.
fn run_case(case: &Case, work: &Path, i: usize, o: &Opts) -> BResult<Outcome> {
    let (sessions_whole, keep, record_time_only) = (o.sessions, o.keep, o.record_time_only);
    let go = |m: &Memory| -> BResult<Outcome> {
        Ok(Outcome {
            timed: ask(m, &case.question, false, record_time_only)?,
            plain: ask(m, &case.question, true, false)?,
        })
    };
    let root = work.join(format!("q{i}"));
    write_root(case, &root, sessions_whole)?;
    let out = {
        let m = Memory::open(&root, Config { timezone: chrono_tz::UTC, ..Config::default() })?.with_now(case.now);
        m.defer_hits(true);
        go(&m)?
    };
    if keep {
        eprintln!("longmemeval: {} kept in {} (now {})", case.id, root.display(), case.now.to_rfc3339());
    } else {
        std::fs::remove_dir_all(&root)?;
    }
    Ok(out)
}

struct Opts {
    set: String,
    data: Option<PathBuf>,
    limit: Option<usize>,
    types: Option<Vec<String>>,
    jobs: usize,
    misses: Option<PathBuf>,
    sessions: bool,
    ids: Option<Vec<String>>,
    keep: bool,
    pad: usize,
    record_time_only: bool,
}

fn parse_args() -> BResult<Opts> {
    let mut o = Opts {
        set: "lme".into(),
        data: None,
        limit: None,
        types: None,
        jobs: 2,
        misses: None,
        sessions: false,
        ids: None,
        keep: false,
        pad: 0,
        record_time_only: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--set" => o.set = val()?,
            "--data" => o.data = Some(val()?.into()),
            "--limit" => o.limit = Some(val()?.parse().map_err(|e| format!("--limit: {e}"))?),
            "--types" => o.types = Some(val()?.split(',').map(str::to_string).collect()),
            "--jobs" => o.jobs = val()?.parse().map_err(|e| format!("--jobs: {e}"))?,
            "--misses" => o.misses = Some(val()?.into()),
            "--sessions" => o.sessions = true,
            "--ids" => o.ids = Some(val()?.split(',').map(str::to_string).collect()),
            "--keep" => o.keep = true,
            "--record-time-only" => o.record_time_only = true,
            "--pad" => o.pad = val()?.parse().map_err(|e| format!("--pad: {e}"))?,
            _ => return Err(format!("unknown argument {a:?} (see the file's header for usage)").into()),
        }
    }
    if !matches!(o.set.as_str(), "lme" | "zh-chat" | "zh-dialogue" | "en-conv") {
        return Err(format!("--set {:?}: expected lme, zh-chat, zh-dialogue or en-conv", o.set).into());
    }
    if o.pad > 0 && o.set != "lme" {
        // The message sets share one haystack: padding would add copies of the answers.
        return Err(format!("--pad is for --set lme only (--set {} shares one haystack)", o.set).into());
    }
    if o.jobs == 0 {
        return Err("--jobs must be at least 1".into());
    }
    Ok(o)
}

/// The repository root (the workspace folder above tools/).
fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default()
}

fn main() {
    if let Err(e) = run() {
        eprintln!("longmemeval: {e}");
        std::process::exit(2);
    }
}

fn run() -> BResult<()> {
    let o = parse_args()?;
    let t0 = Instant::now();
    let lme = o.set == "lme";
    let data = o.data.clone().unwrap_or_else(|| match o.set.as_str() {
        "lme" => repo().join("../shared/benchmarks/longmemeval/longmemeval_s_cleaned.json.xz"),
        "zh-dialogue" => repo().join("tools/data/zh_dialogue.txt"),
        "en-conv" => repo().join("tools/data/en_conv.txt"),
        _ => repo().join("tools/data/zh_chat.txt"),
    });
    let mut cases = if lme { load_lme(&data)? } else { load_messages(&data)? };
    if let Some(t) = &o.types {
        cases.retain(|c| t.contains(&c.kind));
    }
    if o.pad > 0 {
        // Each haystack grows by the haystacks of the next `pad` questions (in file order,
        // wrapping): a larger memory, the same answers.
        let extra: Vec<Vec<Session>> = (0..cases.len())
            .map(|i| {
                (1..=o.pad)
                    .flat_map(|k| cases[(i + k) % cases.len()].sessions.clone())
                    .map(|mut s| {
                        // Another question's evidence is not this one's.
                        s.turns.iter_mut().for_each(|t| t.1 = false);
                        s
                    })
                    .collect()
            })
            .collect();
        for (c, e) in cases.iter_mut().zip(extra) {
            c.sessions.extend(e);
        }
    }
    if let Some(ids) = &o.ids {
        cases.retain(|c| ids.contains(&c.id));
    }
    if let Some(n) = o.limit {
        cases.truncate(n);
    }
    eprintln!("longmemeval: {} questions loaded in {:.1} s", cases.len(), t0.elapsed().as_secs_f64());
    let work = std::env::temp_dir().join(format!("memlayers-lme-{}", std::process::id()));
    std::fs::create_dir_all(&work)?;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<BResult<Outcome>>>> = Mutex::new((0..cases.len()).map(|_| None).collect());
    std::thread::scope(|sc| {
        for _ in 0..o.jobs {
            sc.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= cases.len() {
                        break;
                    }
                    let r = run_case(&cases[i], &work, i, &o);
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
                }
            });
        }
    });
    if !o.keep {
        let _ = std::fs::remove_dir_all(&work);
    }
    let results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut by: BTreeMap<String, (Sums, Sums)> = BTreeMap::new();
    let mut misses = String::from("id\ttype\tmode\tany5\tall5\twindow\tscored\tquestion\n");
    for (case, r) in cases.iter().zip(results) {
        let out = r.unwrap_or_else(|| Err("not run".into())).map_err(|e| format!("{}: {e}", case.id))?;
        let (st, sp) = (score(case, &out.timed, o.sessions), score(case, &out.plain, o.sessions));
        for key in [case.kind.clone(), "all".into()] {
            let e = by.entry(key).or_default();
            e.0.add(st);
            e.1.add(sp);
        }
        for (mode, s, a) in [("retrieve", st, &out.timed), ("no-time", sp, &out.plain)] {
            if !s.all5 {
                misses.push_str(&format!(
                    "{}\t{}\t{mode}\t{}\t{}\t{}\t{}\t{}\n",
                    case.id, case.kind, s.any5 as u8, s.all5 as u8, a.window, a.scored, case.question
                ));
            }
        }
    }
    if let Some(p) = &o.misses {
        std::fs::write(p, misses)?;
    }
    println!("set: {} ({}), {} questions, {:.0} s\n", o.set, data.display(), cases.len(), t0.elapsed().as_secs_f64());
    println!("| type | mode | n | s.any@5 | s.any@10 | s.all@5 | s.all@10 | turn any@5 (n) |");
    println!("|---|---|---|---|---|---|---|---|");
    let all = by.remove("all");
    for (k, (t, p)) in by.iter().map(|(k, v)| (k.as_str(), v)).chain(all.as_ref().map(|v| ("all", v))) {
        println!("| {k} | retrieve | {} | {} |", t.n, t.row());
        println!("| {k} | no-time | {} | {} |", p.n, p.row());
    }
    Ok(())
}

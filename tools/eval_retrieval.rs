//! `eval-retrieval`: recall@5 and MRR of the retrieval labelled set (tests/data/eval/), per
//! subset, as a Markdown table (tools/eval_set.rs explains the set and the metrics).
//!
//! ```text
//! cargo run --release --bin eval-retrieval [-- --method retrieve|recall-or|recall-and] [--verbose]
//!                                             [--config FILE]
//! ```
//!
//! `--config` takes the engine's JSON config keys (for example the ranking weights), so that
//! weights can be compared on the same set. `--verbose` lists every question with the rank of
//! its first relevant entry and the top 3 returned.

#[path = "eval_set.rs"]
mod eval_set;

use eval_set::{Method, evaluate, table};
use memlayers::Config;

fn main() {
    let mut method = Method::Retrieve;
    let mut verbose = false;
    let mut config = Config::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--method" => {
                method = match args.next().as_deref() {
                    Some("retrieve") => Method::Retrieve,
                    Some("recall-or") => Method::RecallOr,
                    Some("recall-and") => Method::RecallAnd,
                    other => fail(&format!("--method: {other:?} is not retrieve, recall-or or recall-and")),
                }
            }
            "--verbose" => verbose = true,
            "--config" => {
                let p = args.next().unwrap_or_else(|| fail("--config needs a file"));
                let text = std::fs::read_to_string(&p).unwrap_or_else(|e| fail(&format!("--config {p}: {e}")));
                let (c, warnings) = Config::from_json(&text).unwrap_or_else(|e| fail(&format!("--config {p}: {e}")));
                for w in warnings {
                    eprintln!("eval-retrieval: warning: {w}");
                }
                config = c;
            }
            other => fail(&format!("unknown argument {other:?}")),
        }
    }
    let work = std::env::temp_dir().join(format!("memlayers-eval-{}", std::process::id()));
    let report = evaluate(&work, &config, method);
    let _ = std::fs::remove_dir_all(&work);
    let report = report.unwrap_or_else(|e| fail(&e));
    if verbose {
        for o in &report.outcomes {
            let rank = o.rank.map(|r| r.to_string()).unwrap_or_else(|| "-".into());
            println!("{:>2}  {:<16} {}", rank, o.question.subset, o.question.text);
            for (d, c) in &o.top {
                println!("        {d}  {c}");
            }
        }
        println!();
    }
    println!("method: {method:?}\n");
    print!("{}", table(&report));
}

fn fail(msg: &str) -> ! {
    eprintln!("eval-retrieval: {msg}");
    std::process::exit(2);
}

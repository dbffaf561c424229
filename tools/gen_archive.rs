//! `gen-archive`: writes a seeded synthetic dsh-memory-layers archive for benchmarks.
//!
//! ```text
//! gen-archive --out DIR --entries N --years Y --seed S [--start-date YYYY-MM-DD] [--tz Asia/Shanghai]
//! ```
//!
//! Writes exactly `N` entries into `DIR/cold/YYYY-MM/YYYY-MM-DD.md`, one file per local date of
//! the `Y` years from `--start-date` (default: the `Y` years ending on 2026-11-29, so relative
//! windows like `上周` computed from that date land on data). Each file is a heading line
//! `# YYYY-MM-DD` followed by the day's entry lines in time order, written with
//! `memlayers::files::entry::format_line` at `memlayers::files::cold_rel`; days without entries get no
//! file. Timestamps are UTC with milliseconds; the local date of every entry in `--tz` equals its
//! file's date. Besides the day files only `DIR/memlayers.json` is written, the zone the files
//! are dated in as memlayers records a data root's (`{"timezone":"Asia/Shanghai"}`), so the
//! archive opened or imported without `--tz` keeps its local dates; a `DIR` recording another
//! zone is refused. No hot.md, no usage.json, no index.
//!
//! Same arguments and same build → same bytes. The randomness comes from `Xoshiro256PlusPlus`
//! (rand's portable generator with a value-stability guarantee) in a fixed consumption order;
//! the distributions are rand_distr's, which use libm for their float math.
//!
//! Shape: see `shape.rs` (weekday/weekend weights, empty days, bursts, quiet stretches, growth,
//! hours of the day); texts, tags and sources: see `synth.rs` and `vocab.rs`.

mod shape;
mod synth;
mod vocab;

use std::collections::HashSet;
use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use chrono::{DateTime, Duration, LocalResult, Months, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use clap::Parser;
use memlayers::files::entry::{Entry, format_line};
use memlayers::files::{cold_rel, safe_join};
use memlayers::{Error, Result};
use rand::SeedableRng;
use rand::rngs::Xoshiro256PlusPlus;

/// The last day of an archive generated without `--start-date` (the project's reference "today").
pub const DEFAULT_LAST_DAY: (i32, u32, u32) = (2026, 11, 29);
/// Most entries one run may write (a guard against typos; 100 million ≈ 10 GB of Markdown).
pub const MAX_ENTRIES: u64 = 100_000_000;
/// Most years one run may span.
pub const MAX_YEARS: u32 = 100;

/// Command-line arguments.
#[derive(Debug, Parser)]
#[command(
    name = "gen-archive",
    about = "Write a seeded synthetic dsh-memory-layers archive (cold layer) for benchmarks"
)]
struct Args {
    /// Data root to write into; its cold/ must not exist yet or be empty.
    #[arg(long)]
    out: PathBuf,
    /// Exact number of entries to write.
    #[arg(long)]
    entries: u64,
    /// Number of years the archive spans (1–100).
    #[arg(long)]
    years: u32,
    /// Seed of the generator: same seed and arguments → same bytes.
    #[arg(long)]
    seed: u64,
    /// First local date (YYYY-MM-DD); default: so that the last day is 2026-11-29.
    #[arg(long)]
    start_date: Option<String>,
    /// IANA time zone that partitions entries into local dates.
    #[arg(long, default_value = "Asia/Shanghai")]
    tz: String,
}

/// A validated generation request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// Data root.
    pub out: PathBuf,
    /// Exact entry count.
    pub entries: u64,
    /// First local date.
    pub start: NaiveDate,
    /// Number of local days (the `years` after `start`, end exclusive).
    pub days: usize,
    /// Generator seed.
    pub seed: u64,
    /// Partitioning zone.
    pub tz: Tz,
}

impl Spec {
    /// Validates raw arguments. Errors name the flag: `entries` (above [`MAX_ENTRIES`]),
    /// `years` (outside 1–[`MAX_YEARS`]), `start-date` (not YYYY-MM-DD, or the span leaves
    /// chrono's date range), `tz` (not an IANA zone name).
    pub fn new(out: PathBuf, entries: u64, years: u32, seed: u64, start_date: Option<&str>, tz: &str) -> Result<Spec> {
        if entries > MAX_ENTRIES {
            return Err(Error::bad("entries", format!("at most {MAX_ENTRIES}, got {entries}")));
        }
        if !(1..=MAX_YEARS).contains(&years) {
            return Err(Error::bad("years", format!("must be 1–{MAX_YEARS}, got {years}")));
        }
        let tz: Tz = tz.parse().map_err(|_| Error::bad("tz", format!("unknown IANA time zone {tz:?}")))?;
        let span = Months::new(12 * years);
        let (start, end) = match start_date {
            Some(s) => {
                let start = NaiveDate::parse_from_str(s, "%Y-%m-%d")
                    .map_err(|_| Error::bad("start-date", format!("expected YYYY-MM-DD, got {s:?}")))?;
                let end =
                    start.checked_add_months(span).ok_or_else(|| Error::bad("start-date", "span out of range"))?;
                (start, end)
            }
            None => {
                let (y, m, d) = DEFAULT_LAST_DAY;
                let end = NaiveDate::from_ymd_opt(y, m, d).expect("valid constant") + Duration::days(1);
                (end.checked_sub_months(span).expect("within chrono's range"), end)
            }
        };
        let days = (end - start).num_days() as usize;
        Ok(Spec { out, entries, start, days, seed, tz })
    }
}

/// What a run wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Entries written (always the requested count).
    pub entries: u64,
    /// Day files written.
    pub files: usize,
    /// Days in the span without a file.
    pub empty_days: usize,
    /// Bytes written.
    pub bytes: u64,
}

/// Writes the archive described by `spec`. Errors: `out` when `<out>/cold` exists and is not
/// empty (never mixes with an existing archive); I/O errors with the path.
pub fn generate(spec: &Spec) -> Result<Summary> {
    let cold = spec.out.join("cold");
    if let Ok(mut dir) = fs::read_dir(&cold)
        && dir.next().is_some()
    {
        return Err(Error::bad("out", format!("{} already holds files; use an empty directory", cold.display())));
    }
    // The zone the day files are dated in, recorded as memlayers records a root's
    // (`memlayers.json`), so the archive opened or imported without --tz keeps its dates. A
    // root that already records another zone is refused: its files would be dated in two.
    // A record that cannot be read is refused too: it may be someone's hand edit.
    let zone_file = spec.out.join(memlayers::files::zone::ZONE_FILE);
    match fs::read_to_string(&zone_file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(Error::io(&zone_file, e)),
        Ok(text) => match memlayers::files::zone::parse(&text) {
            Ok(z) if z == spec.tz => {}
            Ok(z) => {
                return Err(Error::bad(
                    "tz",
                    format!("{} records {z}; this archive would be dated in {}", zone_file.display(), spec.tz),
                ));
            }
            Err(why) => {
                return Err(Error::bad("out", format!("{}: {why}; fix or remove it first", zone_file.display())));
            }
        },
    }
    fs::create_dir_all(&spec.out).map_err(|e| Error::io(&spec.out, e))?;
    write_file(&zone_file, format!("{}\n", serde_json::json!({ "timezone": spec.tz.name() })).as_bytes())?;

    let mut rng = Xoshiro256PlusPlus::seed_from_u64(spec.seed);
    let counts = shape::day_counts(spec.start, spec.days, spec.entries, &mut rng);
    let mut synth = synth::Synth::new(&mut rng);
    let hours = shape::hour_sampler();

    let mut summary = Summary { entries: 0, files: 0, empty_days: 0, bytes: 0 };
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
    let mut seen: HashSet<u64> = HashSet::new();
    let mut made_dirs: HashSet<PathBuf> = HashSet::new();
    for (i, &count) in counts.iter().enumerate() {
        let day = spec.start + Duration::days(i as i64);
        if count == 0 {
            summary.empty_days += 1;
            continue;
        }
        let mut entries: Vec<Entry> = Vec::with_capacity(count as usize);
        seen.clear();
        for ms in shape::times_of_day(count, &hours, &mut rng) {
            let ts = to_utc(spec.tz, day, ms);
            let tag = synth.tag(&mut rng);
            // The plugin never writes the same tag + text twice on one day (mem_write dedup).
            let mut content = synth.text(&mut rng);
            let mut attempt = 0;
            while !seen.insert(key(tag, &content)) {
                attempt += 1;
                content = if attempt < 8 { synth.text(&mut rng) } else { format!("{content}（{attempt}）") };
            }
            entries.push(Entry { ts, tag: tag.to_string(), content, source: synth.source(&mut rng) });
        }
        // DST folds can reorder instants; keep each file in time order.
        entries.sort_by_key(|e| e.ts);

        buf.clear();
        writeln!(buf, "# {}", day.format("%Y-%m-%d")).expect("write to Vec");
        for e in &entries {
            buf.extend_from_slice(format_line(e).as_bytes());
            buf.push(b'\n');
        }
        let path = safe_join(&spec.out, &cold_rel(day))?;
        let dir = path.parent().expect("cold/YYYY-MM/…").to_path_buf();
        if !made_dirs.contains(&dir) {
            fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            made_dirs.insert(dir);
        }
        write_file(&path, &buf)?;
        summary.files += 1;
        summary.entries += count;
        summary.bytes += buf.len() as u64;
    }
    Ok(summary)
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = fs::File::create(path).map_err(|e| Error::io(path, e))?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))
}

fn key(tag: &str, content: &str) -> u64 {
    let mut h = DefaultHasher::new();
    (tag, content).hash(&mut h);
    h.finish()
}

/// The UTC instant of `ms` milliseconds after local midnight of `day` in `tz`. In a DST fold
/// the earlier instant is used; a local time inside a DST gap moves forward in 15-minute steps
/// to the first existing local time (backward instead if forward would leave the day), so the
/// result's local date is always `day`.
pub fn to_utc(tz: Tz, day: NaiveDate, ms: u32) -> DateTime<Utc> {
    let local = day.and_hms_opt(0, 0, 0).expect("midnight") + Duration::milliseconds(i64::from(ms));
    let resolve = |t: chrono::NaiveDateTime| match tz.from_local_datetime(&t) {
        LocalResult::Single(x) | LocalResult::Ambiguous(x, _) => Some(x.with_timezone(&Utc)),
        LocalResult::None => None,
    };
    if let Some(t) = resolve(local) {
        return t;
    }
    let forward = (1..=16).map(|k| local + Duration::minutes(15 * k));
    let backward = (1..=16).map(|k| local - Duration::minutes(15 * k));
    for t in forward.chain(backward) {
        if t.date() == day
            && let Some(x) = resolve(t)
        {
            return x;
        }
    }
    // No zone has a gap longer than 4 hours; fall back to the day's first instant.
    memlayers::files::local_midnight(day, tz)
}

fn main() {
    let args = Args::parse();
    let run = || -> Result<(Spec, Summary, f64)> {
        let spec =
            Spec::new(args.out.clone(), args.entries, args.years, args.seed, args.start_date.as_deref(), &args.tz)?;
        let t0 = Instant::now();
        let summary = generate(&spec)?;
        Ok((spec, summary, t0.elapsed().as_secs_f64()))
    };
    match run() {
        Ok((spec, s, secs)) => {
            let last = spec.start + Duration::days(spec.days as i64 - 1);
            println!(
                "gen-archive: {} entries in {} day files ({} empty days, {} … {}, {}), {:.1} MB, {:.2} s ({:.0} entries/s) → {}",
                s.entries,
                s.files,
                s.empty_days,
                spec.start,
                last,
                spec.tz,
                s.bytes as f64 / 1e6,
                secs,
                s.entries as f64 / secs.max(1e-9),
                spec.out.display()
            );
        }
        Err(e) => {
            eprintln!("gen-archive: {e}");
            std::process::exit(if e.is_bad_input() { 2 } else { 1 });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use memlayers::files::entry::{LineKind, parse_line};
    use memlayers::files::{day_of_cold_rel, local_date};
    use sha1::{Digest, Sha1};

    fn spec(dir: &Path, n: u64, years: u32, seed: u64, start: Option<&str>, tz: &str) -> Spec {
        Spec::new(dir.to_path_buf(), n, years, seed, start, tz).unwrap()
    }

    /// (relative path, bytes) of every file under `root`, sorted by path.
    fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        let mut stack = vec![root.to_path_buf()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                    out.push((rel, fs::read(&p).unwrap()));
                }
            }
        }
        out.sort();
        out
    }

    fn digest(root: &Path) -> String {
        let mut h = Sha1::new();
        for (rel, bytes) in files(root) {
            h.update(rel.as_bytes());
            h.update([0]);
            h.update(&bytes);
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Parses every file; checks heading, entry lines, local dates. Returns the entries.
    fn read_all(root: &Path, tz: Tz) -> Vec<(NaiveDate, Entry)> {
        let mut all = Vec::new();
        for (rel, bytes) in files(root) {
            if rel == "memlayers.json" {
                // The zone record, as memlayers writes a root's.
                assert_eq!(String::from_utf8(bytes).unwrap(), format!("{{\"timezone\":\"{}\"}}\n", tz.name()));
                continue;
            }
            let day = day_of_cold_rel(&rel).unwrap_or_else(|| panic!("unexpected file {rel}"));
            let text = String::from_utf8(bytes).unwrap();
            let mut lines = text.lines();
            assert_eq!(lines.next(), Some(format!("# {day}").as_str()), "{rel}");
            assert!(text.ends_with('\n'));
            let mut prev = None;
            for line in lines {
                let LineKind::Entry(e) = parse_line(line) else { panic!("{rel}: not an entry: {line:?}") };
                assert_eq!(format_line(&e), line, "round trip");
                assert_eq!(local_date(e.ts, tz), day, "{rel}: {line}");
                assert!(prev.is_none_or(|p| p <= e.ts), "{rel}: out of order");
                prev = Some(e.ts);
                all.push((day, e));
            }
        }
        all
    }

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        let (a, b, c) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        for (dir, seed) in [(&a, 7), (&b, 7), (&c, 8)] {
            generate(&spec(dir.path(), 3000, 2, seed, None, "Asia/Shanghai")).unwrap();
        }
        assert_eq!(digest(a.path()), digest(b.path()));
        assert_ne!(digest(a.path()), digest(c.path()));
    }

    #[test]
    fn exact_count_and_every_line_parses_in_its_local_day() {
        let dir = tempfile::tempdir().unwrap();
        let s = generate(&spec(dir.path(), 5000, 3, 1, Some("2022-01-01"), "Asia/Shanghai")).unwrap();
        // 2022-01-01 + 3 years = 2025-01-01 (exclusive): 365 + 365 + 366 = 1096 days.
        assert_eq!(s.entries, 5000);
        assert_eq!(s.files + s.empty_days, 1096);
        let all = read_all(dir.path(), chrono_tz::Asia::Shanghai);
        assert_eq!(all.len(), 5000);
        assert!(all.iter().all(|(d, _)| *d >= NaiveDate::from_ymd_opt(2022, 1, 1).unwrap()));
        assert!(all.iter().all(|(d, _)| *d <= NaiveDate::from_ymd_opt(2024, 12, 31).unwrap()));
        // The day files and the zone record.
        assert_eq!(files(dir.path()).len(), s.files + 1);
        // Realistic mix: sources on ~20 %, untagged entries, English entries, some long ones.
        let sourced = all.iter().filter(|(_, e)| e.source.is_some()).count();
        assert!((850..1150).contains(&sourced), "{sourced}");
        assert!(all.iter().any(|(_, e)| e.tag == "-") && all.iter().any(|(_, e)| e.tag == "工作"));
        assert!(all.iter().any(|(_, e)| e.content.is_ascii()));
        // Entries written between local 00:00 and 08:00 have the previous UTC date in UTC+8;
        // they must still be in the file of their local date (checked in read_all) — and exist.
        assert!(all.iter().any(|(d, e)| e.ts.date_naive() < *d));
    }

    #[test]
    fn tiny_and_empty_archives() {
        let dir = tempfile::tempdir().unwrap();
        let s = generate(&spec(dir.path(), 3, 1, 2, Some("2026-01-01"), "Asia/Shanghai")).unwrap();
        assert_eq!((s.entries, s.files + s.empty_days), (3, 365));
        assert_eq!(read_all(dir.path(), chrono_tz::Asia::Shanghai).len(), 3);
        let dir = tempfile::tempdir().unwrap();
        let s = generate(&spec(dir.path(), 0, 1, 2, None, "Asia/Shanghai")).unwrap();
        assert_eq!((s.entries, s.files), (0, 0));
    }

    #[test]
    fn default_span_ends_on_reference_day() {
        let s = spec(Path::new("x"), 1, 5, 0, None, "Asia/Shanghai");
        // 5 years ending 2026-11-29 inclusive: 2021-11-30 … 2026-11-29, with 2024-02-29 inside.
        assert_eq!(s.start, NaiveDate::from_ymd_opt(2021, 11, 30).unwrap());
        assert_eq!(s.days, 5 * 365 + 1);
    }

    #[test]
    fn dst_zone_keeps_local_dates() {
        // New York: 2025-03-09 02:00–03:00 does not exist, 2025-11-02 01:00–02:00 happens twice.
        let dir = tempfile::tempdir().unwrap();
        generate(&spec(dir.path(), 20_000, 1, 3, Some("2025-01-01"), "America/New_York")).unwrap();
        let all = read_all(dir.path(), chrono_tz::America::New_York);
        assert_eq!(all.len(), 20_000);
        // Local times in the gap move forward to the first existing quarter-hour step …
        assert_eq!(
            to_utc(chrono_tz::America::New_York, NaiveDate::from_ymd_opt(2025, 3, 9).unwrap(), 2 * 3_600_000 + 60_000)
                .to_rfc3339(),
            // 02:01 does not exist; 02:16 neither; the first existing step is 03:01 EDT = 07:01Z.
            "2025-03-09T07:01:00+00:00"
        );
        // … and in the fold the earlier instant is taken: 01:30 EDT = 05:30Z (not 01:30 EST = 06:30Z).
        assert_eq!(
            to_utc(chrono_tz::America::New_York, NaiveDate::from_ymd_opt(2025, 11, 2).unwrap(), 5_400_000).to_rfc3339(),
            "2025-11-02T05:30:00+00:00"
        );
        // Santiago springs forward at midnight (00:00 → 01:00): local 00:10 on 2025-09-07 does
        // not exist and moves to 01:10 -03 = 04:10Z, still 2025-09-07 locally.
        let t = to_utc(chrono_tz::America::Santiago, NaiveDate::from_ymd_opt(2025, 9, 7).unwrap(), 600_000);
        assert_eq!(t.to_rfc3339(), "2025-09-07T04:10:00+00:00");
    }

    #[test]
    fn bad_input_names_the_flag() {
        let field = |r: Result<Spec>| match r {
            Err(Error::BadInput { field, .. }) => field,
            other => panic!("{other:?}"),
        };
        let p = PathBuf::from("x");
        assert_eq!(field(Spec::new(p.clone(), 10, 0, 1, None, "UTC")), "years");
        assert_eq!(field(Spec::new(p.clone(), 10, 101, 1, None, "UTC")), "years");
        assert_eq!(field(Spec::new(p.clone(), MAX_ENTRIES + 1, 1, 1, None, "UTC")), "entries");
        assert_eq!(field(Spec::new(p.clone(), 10, 1, 1, Some("2026-13-01"), "UTC")), "start-date");
        assert_eq!(field(Spec::new(p.clone(), 10, 1, 1, None, "Mars/Olympus")), "tz");
        let dir = tempfile::tempdir().unwrap();
        let s = spec(dir.path(), 10, 1, 1, None, "UTC");
        generate(&s).unwrap();
        match generate(&s) {
            Err(Error::BadInput { field, .. }) => assert_eq!(field, "out"),
            other => panic!("{other:?}"),
        }
    }
}

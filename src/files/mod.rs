//! Where things live under the data root, local dates, ISO weeks, and atomic writes.
//!
//! Layout, per dsh-memory-layers v1.2.1 (docs/plugin-compatibility.md, "Data layout"):
//!
//! ```text
//! <root>/hot.md
//! <root>/cold/2026-10/2026-10-21.md      one file per LOCAL date
//! <root>/summaries/day/2026-10-21.md
//! <root>/summaries/week/2026-W43.md      ISO-8601 week
//! <root>/summaries/month/2026-10.md
//! <root>/usage.json
//! <root>/index.sqlite3                   derived, rebuildable (memlayers)
//! <root>/memlayers.json                  the zone the files are dated in (memlayers, `zone`)
//! ```
//!
//! The writer lock is an `flock` on the root folder itself ([`lock`]).
//!
//! Nothing outside the root is ever read or written: every path is built here from dates and
//! fixed names, never from caller text.

pub mod cas;
pub mod entry;
pub mod identity;
pub mod lock;
pub mod zone;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use chrono_tz::Tz;
use sha1::{Digest, Sha1};

use crate::{Error, Result};

/// Resolves the data root the way the plugin does (docs/plugin-compatibility.md, "Data root and configuration", `dataRoot`):
/// `data_root` (config `dataRoot`, non-empty) → `<dataRoot>/memory`; else
/// `$DSH_HOME/dsh-memory-layers`; else `~/.dsh/dsh-memory-layers`.
/// `home` and `dsh_home` are passed in so the function is pure.
///
/// Errors: none of the three is given (`home` is `None` or empty: HOME unset) is
/// [`Error::BadInput`] naming `data-root` and what to set, rather than a root relative to the
/// working directory (`./.dsh/...`) that a later call from another folder would not find.
pub fn resolve_data_root(data_root: Option<&str>, dsh_home: Option<&str>, home: Option<&Path>) -> Result<PathBuf> {
    if let Some(d) = data_root.filter(|d| !d.trim().is_empty()) {
        return Ok(Path::new(d.trim()).join("memory"));
    }
    if let Some(h) = dsh_home.filter(|h| !h.is_empty()) {
        return Ok(Path::new(h).join("dsh-memory-layers"));
    }
    match home.filter(|h| !h.as_os_str().is_empty()) {
        Some(h) => Ok(h.join(".dsh").join("dsh-memory-layers")),
        None => Err(Error::bad(
            "data-root",
            "HOME is not set, so the default data root ~/.dsh/dsh-memory-layers has no place: pass \
             --data-root DIR, set DSH_HOME (root $DSH_HOME/dsh-memory-layers), give a --config file with \
             dataRoot, or set HOME",
        )),
    }
}

/// Why `root` cannot be written, or `None` when it can: probes by creating an unnamed
/// temporary file in it (nothing is left behind). A read-only file system or a permission
/// refusal gives the system's message; other errors are left to the write that meets them.
pub fn read_only_cause(root: &Path) -> Option<String> {
    match tempfile::tempfile_in(root) {
        Ok(_) => None,
        Err(e) if matches!(e.kind(), std::io::ErrorKind::ReadOnlyFilesystem | std::io::ErrorKind::PermissionDenied) => {
            Some(e.to_string())
        }
        Err(_) => None,
    }
}

/// First and last years a cold file name can hold: `cold/YYYY-MM/YYYY-MM-DD.md` has four
/// digits for the year, and entry ids count days from 0001-01-01 (`day_number`), so year 0
/// and earlier have no id either.
pub const YEARS: std::ops::RangeInclusive<i32> = 1..=9999;

/// Refuses a local date the file layout cannot name (a year outside [`YEARS`]: chrono would
/// format 10000-01-01 as `+10000-01-01`, a file no sync or rebuild reads back). Errors:
/// [`Error::BadInput`] naming `field` (`now` for the clock of a write, `date` otherwise).
pub fn check_nameable(day: NaiveDate, field: &str) -> Result<()> {
    if YEARS.contains(&day.year()) {
        return Ok(());
    }
    Err(Error::bad(
        field,
        format!(
            "local date {} is outside the years {}–{} that cold/YYYY-MM/YYYY-MM-DD.md can name",
            day.format("%Y-%m-%d"),
            YEARS.start(),
            YEARS.end()
        ),
    ))
}

/// The cold file of a local date, relative to the data root: `cold/YYYY-MM/YYYY-MM-DD.md`.
pub fn cold_rel(day: NaiveDate) -> String {
    format!("cold/{}/{}.md", day.format("%Y-%m"), day.format("%Y-%m-%d"))
}

/// Reads the local date back from a cold file path relative to the root
/// (`cold/YYYY-MM/YYYY-MM-DD.md`, month folder matching the date). `None` for anything else.
pub fn day_of_cold_rel(rel: &str) -> Option<NaiveDate> {
    let rest = rel.strip_prefix("cold/")?;
    let (month, file) = rest.split_once('/')?;
    let stem = file.strip_suffix(".md")?;
    // By hand, not chrono's format parser: every change check runs this once per day file
    // (3 500 times per unwindowed CLI call at 1M entries).
    let b = stem.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let num = |r: std::ops::Range<usize>| {
        b[r].iter().try_fold(0u32, |n, &c| c.is_ascii_digit().then(|| n * 10 + u32::from(c - b'0')))
    };
    let day = NaiveDate::from_ymd_opt(num(0..4)? as i32, num(5..7)?, num(8..10)?)?;
    // All ASCII from here: the month folder must be the file's own `YYYY-MM`.
    (month == &stem[..7]).then_some(day)
}

/// The local date of a UTC instant in `tz`.
pub fn local_date(ts: DateTime<Utc>, tz: Tz) -> NaiveDate {
    ts.with_timezone(&tz).date_naive()
}

pub use memlayers_temporal::days::local_midnight;

/// ISO-8601 week label of a date: `2026-W43` (the ISO week-numbering year, which can differ
/// from the calendar year around January 1).
pub fn iso_week_label(day: NaiveDate) -> String {
    let w = day.iso_week();
    format!("{}-W{:02}", w.year(), w.week())
}

pub use memlayers_temporal::days::monday_of;

/// Parses an RFC 3339 instant (the `--now` option of the CLI, MCP and serve) into a UTC instant.
/// Errors: `BadInput` naming the field `now`.
pub fn parse_now(s: &str) -> Result<DateTime<Utc>> {
    use chrono::Timelike;
    let t = DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&Utc)).map_err(|_| {
        Error::bad("now", format!("{s:?} is not an RFC 3339 instant such as 2026-11-29T12:00:00+08:00"))
    })?;
    // chrono keeps a leap second (`:60`) as a nanosecond count of a second or more; the entry
    // format, the plugin (JavaScript's Date) and every reader of the day files cannot.
    if t.nanosecond() >= 1_000_000_000 {
        return Err(Error::bad("now", format!("{s:?} is a leap second (:60), which a day file cannot record")));
    }
    Ok(t)
}

/// Bits of an entry id that hold the ordinal inside the day (`id = day << 20 | ordinal`).
pub const ORDINAL_BITS: u32 = 20;
/// Most entries one day file can hold in the index; further lines are reported as malformed.
pub const MAX_ENTRIES_PER_DAY: usize = (1 << ORDINAL_BITS) - 1;

/// Inclusive id range `[lo, hi]` of the entries of local dates `from..=to`.
pub fn id_range(from: NaiveDate, to: NaiveDate) -> (i64, i64) {
    (day_number(from) << ORDINAL_BITS, ((day_number(to) + 1) << ORDINAL_BITS) - 1)
}

/// sha1 of bytes, lowercase hex.
pub fn sha1_hex(bytes: &[u8]) -> String {
    let d = Sha1::digest(bytes);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// The day number used in entry ids: days since 0001-01-01 (proleptic Gregorian, CE day 1).
pub fn day_number(day: NaiveDate) -> i64 {
    day.num_days_from_ce() as i64
}

/// Inverse of [`day_number`].
pub fn day_from_number(n: i64) -> Option<NaiveDate> {
    NaiveDate::from_num_days_from_ce_opt(i32::try_from(n).ok()?)
}

/// Writes `bytes` to `path` atomically: a temp file in the same directory, fsync, rename over
/// the target, fsync of the directory. Readers see the old file or the new one, never a torn
/// one. Parent directories are created. Temp files are named `.<name>.tmp-<pid>-<n>` so that
/// sync never mistakes them for data (they do not end in `.md`).
pub fn atomic_write(path: &Path, bytes: &[u8]) -> Result<()> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = path.parent().ok_or_else(|| Error::OutsideRoot(path.to_path_buf()))?;
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.tmp-{}-{n}", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, path)?;
        if let Ok(d) = fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        Error::io(path, e)
    })
}

/// Threads that write and fsync the files of a batch at once ([`cas::write_all`]).
pub const WRITE_THREADS: usize = 8;

/// Joins a relative path (as built by this module) onto the root, refusing anything that
/// could leave it: absolute paths, `..`, NUL, and symlinks (at any level under the root) that
/// resolve outside the root.
pub fn safe_join(root: &Path, rel: &str) -> Result<PathBuf> {
    let p = Path::new(rel);
    let ok =
        !rel.is_empty() && !rel.contains('\0') && p.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    if !ok {
        return Err(Error::OutsideRoot(p.to_path_buf()));
    }
    let full = root.join(p);
    // A symlink anywhere on the way must still land inside the root.
    let canon_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut probe = root.to_path_buf();
    for c in p.components() {
        probe.push(c);
        match fs::symlink_metadata(&probe) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = probe.canonicalize().map_err(|_| Error::OutsideRoot(full.clone()))?;
                if !target.starts_with(&canon_root) {
                    return Err(Error::OutsideRoot(full));
                }
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(full)
}

/// Parses a strict `YYYY-MM-DD` local date; the error names `field`.
pub fn parse_date(field: &str, s: &str) -> Result<NaiveDate> {
    let ok = s.len() == 10 && s.as_bytes()[4] == b'-' && s.as_bytes()[7] == b'-';
    match NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        Ok(d) if ok => Ok(d),
        _ => Err(Error::bad(field, format!("{s:?} is not a valid date YYYY-MM-DD"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leap_second_now_is_refused_naming_now() {
        let e = parse_now("2026-12-07T10:00:60Z").unwrap_err();
        assert!(matches!(&e, Error::BadInput { field, .. } if field == "now"), "{e}");
        // The second before it is an ordinary instant.
        assert_eq!(parse_now("2026-12-07T10:00:59Z").unwrap().to_rfc3339(), "2026-12-07T10:00:59+00:00");
    }

    #[test]
    fn day_file_names_are_read_strictly() {
        let d = |y, m, dd| NaiveDate::from_ymd_opt(y, m, dd);
        assert_eq!(day_of_cold_rel("cold/2026-11/2026-11-29.md"), d(2026, 11, 29));
        assert_eq!(day_of_cold_rel("cold/2028-02/2028-02-29.md"), d(2028, 2, 29)); // leap day
        for bad in [
            "cold/2026-10/2026-11-29.md", // another month's folder
            "cold/2026-02/2026-02-30.md", // no such date
            "cold/2026-11/2026-11-29.txt",
            "cold/2026-11/2026-1-29.md",
            "cold/2026-11/2026-11-2x.md",
            "cold/2026-11/2026-11—29.md", // a multi-byte dash
            "cold/2026-11/.2026-11-29.md.swp",
            "hot/2026-11/2026-11-29.md",
        ] {
            assert_eq!(day_of_cold_rel(bad), None, "{bad}");
        }
    }

    #[test]
    fn data_root_resolution_order() {
        let home = Path::new("/home/u");
        assert_eq!(resolve_data_root(Some("/d"), Some("/h"), Some(home)).unwrap(), PathBuf::from("/d/memory"));
        assert_eq!(
            resolve_data_root(Some(" "), Some("/h"), Some(home)).unwrap(),
            PathBuf::from("/h/dsh-memory-layers")
        );
        assert_eq!(resolve_data_root(None, None, Some(home)).unwrap(), PathBuf::from("/home/u/.dsh/dsh-memory-layers"));
        // HOME unset or empty, nothing else given: an error naming data-root, not `./.dsh/…`.
        for home in [None, Some(Path::new(""))] {
            let e = resolve_data_root(None, Some(""), home).unwrap_err();
            assert!(matches!(&e, Error::BadInput { field, .. } if field == "data-root"), "{e}");
        }
    }

    #[test]
    fn cold_paths_and_weeks() {
        let d = NaiveDate::from_ymd_opt(2026, 4, 12).unwrap();
        assert_eq!(cold_rel(d), "cold/2026-04/2026-04-12.md");
        assert_eq!(day_of_cold_rel("cold/2026-04/2026-04-12.md"), Some(d));
        assert_eq!(day_of_cold_rel("cold/2026-05/2026-04-12.md"), None);
        assert_eq!(day_of_cold_rel("cold/2026-04/2026-04-12.md.tmp"), None);
        // 2027-01-01 is a Friday: ISO week 53 of 2026.
        assert_eq!(iso_week_label(NaiveDate::from_ymd_opt(2027, 1, 1).unwrap()), "2026-W53");
        assert_eq!(iso_week_label(NaiveDate::from_ymd_opt(2026, 10, 21).unwrap()), "2026-W43");
        assert_eq!(
            monday_of(NaiveDate::from_ymd_opt(2026, 11, 29).unwrap()),
            NaiveDate::from_ymd_opt(2026, 11, 23).unwrap()
        );
    }

    #[test]
    fn shanghai_partition_example() {
        // The plugin's rule (docs/plugin-compatibility.md, "Data layout": files by local date):
        // 2026-04-11T19:53Z is 2026-04-12 03:53 in Asia/Shanghai.
        let ts = DateTime::parse_from_rfc3339("2026-04-11T19:53:00Z").unwrap().with_timezone(&Utc);
        assert_eq!(local_date(ts, chrono_tz::Asia::Shanghai), NaiveDate::from_ymd_opt(2026, 4, 12).unwrap());
        assert_eq!(
            local_midnight(NaiveDate::from_ymd_opt(2026, 4, 12).unwrap(), chrono_tz::Asia::Shanghai).to_rfc3339(),
            "2026-04-11T16:00:00+00:00"
        );
    }

    #[test]
    #[cfg(unix)]
    fn safe_join_refuses_escapes() {
        let dir = tempfile::tempdir().unwrap();
        assert!(safe_join(dir.path(), "../x").is_err());
        assert!(safe_join(dir.path(), "/etc/passwd").is_err());
        assert!(safe_join(dir.path(), "a\0b").is_err());
        std::os::unix::fs::symlink("/tmp", dir.path().join("out")).unwrap();
        assert!(safe_join(dir.path(), "out/x.md").is_err());
        assert_eq!(safe_join(dir.path(), "cold/a.md").unwrap(), dir.path().join("cold/a.md"));
    }
}

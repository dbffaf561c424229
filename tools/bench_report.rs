//! Reporting helpers of `bench`: the machine description, percentiles, peak RSS and number
//! formatting for the Markdown tables.

use std::path::Path;
use std::process::Command;

/// The machine and build a run was measured on.
#[derive(Debug, Clone)]
pub struct Machine {
    /// Logical CPUs this process may use (`available_parallelism`).
    pub cores: usize,
    /// `model name` of the first CPU in /proc/cpuinfo.
    pub cpu: String,
    /// MemTotal from /proc/meminfo, MiB.
    pub mem_mib: u64,
    /// The bundled SQLite's version (`rusqlite::version()`).
    pub sqlite: String,
    /// Kernel release.
    pub kernel: String,
    /// UTC date and time of the run, `YYYY-MM-DD HH:MM UTC`.
    pub date: String,
    /// `git rev-parse --short HEAD`, with `-dirty` when the tree has uncommitted changes.
    pub commit: String,
    /// 1-minute load average when the run started (the machine is shared).
    pub load_start: String,
}

impl Machine {
    /// Reads /proc, git and the clock. Missing facts read as `?`.
    pub fn detect(repo: &Path) -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find_map(|l| {
                l.strip_prefix("model name").and_then(|r| r.split_once(':')).map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "?".into());
        let mem_kb = proc_field("/proc/meminfo", "MemTotal:").unwrap_or(0);
        let git = |args: &[&str]| {
            Command::new("git")
                .arg("-C")
                .arg(repo)
                .args(args)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        };
        let mut commit = git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "?".into());
        if git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty()) {
            commit.push_str("-dirty");
        }
        #[allow(clippy::disallowed_methods)] // the report's date: the one clock read of the bench
        let date = chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string();
        Machine {
            cores: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            cpu,
            mem_mib: mem_kb / 1024,
            sqlite: rusqlite::version().to_string(),
            kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim().to_string(),
            date,
            commit,
            load_start: load_average(),
        }
    }

    /// One Markdown paragraph describing the machine.
    pub fn markdown(&self) -> String {
        format!(
            "Machine: {} logical cores ({}), {:.1} GiB RAM, Linux {}; SQLite {} (bundled); \
             commit `{}`; run {}; load average at start {} — a shared machine, so other jobs \
             may have competed for the cores.",
            self.cores,
            self.cpu,
            self.mem_mib as f64 / 1024.0,
            self.kernel,
            self.sqlite,
            self.commit,
            self.date,
            self.load_start
        )
    }
}

/// The 1-minute load average (first field of /proc/loadavg), or `?`.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// The value in kB of a `Name:   123 kB` line of a /proc file.
pub fn proc_field(file: &str, name: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    text.lines().find_map(|l| l.strip_prefix(name)).and_then(|v| v.split_whitespace().next()?.parse().ok())
}

/// Peak resident set size of this process so far (VmHWM), kB.
pub fn peak_rss_kb() -> u64 {
    proc_field("/proc/self/status", "VmHWM:").unwrap_or(0)
}

/// Nearest-rank percentile `p` (0–100) of `xs` (any order); NaN when empty.
pub fn percentile(xs: &[f64], p: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// Milliseconds with precision that suits the size: `0.214`, `3.41`, `48.2`, `1234`.
pub fn ms(x: f64) -> String {
    if x.is_nan() {
        "–".into()
    } else if x < 1.0 {
        format!("{x:.3}")
    } else if x < 10.0 {
        format!("{x:.2}")
    } else if x < 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.0}")
    }
}

/// A ratio like `3.4×` (`–` when undefined).
pub fn ratio(a: f64, b: f64) -> String {
    if a.is_nan() || b.is_nan() || b <= 0.0 {
        "–".into()
    } else if a / b < 10.0 {
        format!("{:.2}×", a / b)
    } else {
        format!("{:.0}×", a / b)
    }
}

/// An integer with thin thousands separators: `1 000 000`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// Megabytes (10^6 bytes), one decimal.
pub fn mb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1e6)
}

/// A Markdown table from a header and rows.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut s =
        format!("| {} |\n|{}|\n", header.join(" | "), header.iter().map(|_| "---").collect::<Vec<_>>().join("|"));
    for r in rows {
        s.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        // 1..=100: p50 is the 50th value, p95 the 95th, p99 the 99th.
        let xs: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(percentile(&xs, 50.0), 50.0);
        assert_eq!(percentile(&xs, 95.0), 95.0);
        assert_eq!(percentile(&xs, 99.0), 99.0);
        // Three values: p50 → rank ceil(1.5) = 2, p99 → rank 3.
        assert_eq!(percentile(&[3.0, 1.0, 2.0], 50.0), 2.0);
        assert_eq!(percentile(&[3.0, 1.0, 2.0], 99.0), 3.0);
        assert!(percentile(&[], 50.0).is_nan());
    }

    #[test]
    fn formatting() {
        assert_eq!(thousands(1_000_000), "1 000 000");
        assert_eq!(thousands(10_000), "10 000");
        assert_eq!(thousands(999), "999");
        assert_eq!(ms(0.2144), "0.214");
        assert_eq!(ms(3.414), "3.41");
        assert_eq!(ms(1234.4), "1234");
        assert_eq!(ratio(3.0, 2.0), "1.50×");
        assert_eq!(ratio(300.0, 2.0), "150×");
        assert_eq!(mb(104_300_000), "104.3");
        assert_eq!(table(&["a", "b"], &[vec!["1".into(), "2".into()]]), "| a | b |\n|---|---|\n| 1 | 2 |\n");
    }
}

//! A change watch on the cold layer, so [`Memory::sync`](crate::Memory::sync) can skip its stat
//! scan when nothing under `cold/` changed since the last one (Linux inotify).
//!
//! Every query first syncs, and a sync stats every day file: about 1 700 `statx` calls for five
//! years of days, 5–9 ms on the benchmark machine (tools/BENCH_RESULTS.md), which alone is more
//! than a day-window query's whole budget. A [`ColdWatch`] is armed *before* a scan and from then
//! on collects every change under `cold/`: the kernel queues the event inside the `write`,
//! `rename`, `unlink` or `utimes` call itself, so a hand edit that finished before a query
//! started is pending when that query checks. No pending event means the files are as the last
//! scan saw them, and the index still mirrors them; any event (or a queue overflow) means "scan
//! again", and the caller arms a fresh watch before that scan.
//!
//! Not seen (the stat scan then waits for the next event): a write through another path to
//! the same inode (a hard link outside `cold/`) and changes made by another machine on a
//! network file system. Where inotify cannot be used (the per-user instance limit is reached,
//! `cold/` is missing, a watch cannot be added) there is no watch and every sync scans.
//!
//! Off Linux, and with the `portable-fallback` feature, [`ColdWatch::arm`] always returns
//! `None`: every sync scans (the fallback compiled and tested on Linux with that feature).

use std::path::Path;

#[cfg(all(target_os = "linux", not(feature = "portable-fallback")))]
use inotify::{Inotify, WatchMask};

/// No watch: every sync scans (platforms without inotify, or the `portable-fallback` feature).
#[cfg(not(all(target_os = "linux", not(feature = "portable-fallback"))))]
#[derive(Debug)]
pub struct ColdWatch {
    /// Day files the scan that followed [`ColdWatch::arm`] found (reported by skipped syncs).
    pub files: usize,
}

#[cfg(not(all(target_os = "linux", not(feature = "portable-fallback"))))]
impl ColdWatch {
    /// Always `None`: without inotify, every sync scans.
    pub fn arm(_root: &Path) -> Option<ColdWatch> {
        None
    }

    /// Never quiet (never reached: [`ColdWatch::arm`] gives no watch).
    pub fn quiet(&mut self) -> bool {
        false
    }
}

/// A set of inotify watches on `cold/` and its month folders.
#[cfg(all(target_os = "linux", not(feature = "portable-fallback")))]
pub struct ColdWatch {
    ino: Inotify,
    /// Day files the scan that followed [`ColdWatch::arm`] found (reported by skipped syncs).
    pub files: usize,
}

#[cfg(all(target_os = "linux", not(feature = "portable-fallback")))]
impl std::fmt::Debug for ColdWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColdWatch").field("files", &self.files).finish_non_exhaustive()
    }
}

#[cfg(all(target_os = "linux", not(feature = "portable-fallback")))]
impl ColdWatch {
    /// Watches `root/cold` (folders created, deleted, renamed; the folder itself removed or
    /// moved) and each of its subfolders (files written, truncated, touched, created, deleted,
    /// renamed). `None` when `cold/` does not exist or inotify refuses.
    pub fn arm(root: &Path) -> Option<ColdWatch> {
        let cold = root.join("cold");
        let ino = Inotify::init().ok()?;
        let gone = WatchMask::DELETE_SELF | WatchMask::MOVE_SELF;
        let names = WatchMask::CREATE | WatchMask::DELETE | WatchMask::MOVED_FROM | WatchMask::MOVED_TO;
        ino.watches().add(&cold, names | gone | WatchMask::ATTRIB | WatchMask::ONLYDIR).ok()?;
        let files = names | gone | WatchMask::MODIFY | WatchMask::ATTRIB | WatchMask::CLOSE_WRITE;
        for m in std::fs::read_dir(&cold).ok()? {
            let m = m.ok()?;
            if m.file_type().ok()?.is_dir() {
                ino.watches().add(m.path(), files | WatchMask::ONLYDIR).ok()?;
            }
        }
        Some(ColdWatch { ino, files: 0 })
    }

    /// True when no event is pending: nothing under `cold/` changed since [`ColdWatch::arm`].
    /// Once it returns false, replace the watch (arm a new one before scanning).
    pub fn quiet(&mut self) -> bool {
        let mut buf = [0u8; 4096];
        match self.ino.read_events(&mut buf) {
            Err(e) => e.kind() == std::io::ErrorKind::WouldBlock,
            Ok(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(not(all(target_os = "linux", not(feature = "portable-fallback"))))]
    fn the_fallback_never_watches_so_every_sync_scans() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("cold/2026-11")).unwrap();
        assert!(ColdWatch::arm(dir.path()).is_none());
    }

    #[test]
    #[cfg(all(target_os = "linux", not(feature = "portable-fallback")))]
    fn any_change_under_cold_is_pending_and_nothing_else_is() {
        let dir = tempfile::tempdir().unwrap();
        let month = dir.path().join("cold/2026-11");
        std::fs::create_dir_all(&month).unwrap();
        let day = month.join("2026-11-29.md");
        std::fs::write(&day, "# 2026-11-29\n").unwrap();
        let mut w = ColdWatch::arm(dir.path()).expect("inotify on Linux");
        assert!(w.quiet());
        // Files outside cold/ (the index, the lock) do not count.
        std::fs::write(dir.path().join("index.sqlite3"), b"x").unwrap();
        assert!(w.quiet());
        // An in-place append (no rename, the month folder's mtime unchanged) is pending at once.
        use std::io::Write;
        std::fs::OpenOptions::new().append(true).open(&day).unwrap().write_all(b"x\n").unwrap();
        assert!(!w.quiet());
        // A new month folder, a touched file, a deleted file: each makes a fresh watch not quiet.
        let mut w = ColdWatch::arm(dir.path()).unwrap();
        std::fs::create_dir(dir.path().join("cold/2026-12")).unwrap();
        assert!(!w.quiet());
        let mut w = ColdWatch::arm(dir.path()).unwrap();
        let f = std::fs::File::options().write(true).open(&day).unwrap();
        f.set_modified(std::time::SystemTime::UNIX_EPOCH).unwrap();
        assert!(!w.quiet());
        let mut w = ColdWatch::arm(dir.path()).unwrap();
        std::fs::remove_file(&day).unwrap();
        assert!(!w.quiet());
        // No cold/ folder: no watch (every sync scans).
        assert!(ColdWatch::arm(tempfile::tempdir().unwrap().path()).is_none());
    }
}

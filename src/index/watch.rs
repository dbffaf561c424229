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

/// No watch on the layer files: every query stats them (platforms without inotify, or the
/// `portable-fallback` feature).
#[cfg(not(all(target_os = "linux", not(feature = "portable-fallback"))))]
#[derive(Debug)]
pub struct LayerWatch;

#[cfg(not(all(target_os = "linux", not(feature = "portable-fallback"))))]
impl LayerWatch {
    /// Always `None`: without inotify, every query stats the layer files.
    pub fn arm(_root: &Path) -> Option<LayerWatch> {
        None
    }

    /// Never reached: [`LayerWatch::arm`] gives no watch.
    pub fn check(&mut self, _names: &[&str]) -> LayerEvents {
        LayerEvents::Lost
    }
}

/// A long-lived handle's [`LayerWatch`] and what its last layer check found: the check of the
/// live layer files is skipped while the watch is quiet and the last check succeeded.
#[derive(Debug, Default)]
pub struct LayerState {
    watch: Option<LayerWatch>,
    /// A change was seen (or the watch was just armed) and no check has succeeded since.
    dirty: bool,
    /// Layer files the last successful check found.
    files: usize,
}

impl LayerState {
    /// `Some(files found by the last check)` when none of `names` in `root` changed since the
    /// last successful check ([`LayerState::checked`]); `None` when they must be checked again
    /// (a change, no watch yet, or a lost watch: a new one is armed here, before that check).
    pub fn unchanged(&mut self, root: &Path, names: &[&str]) -> Option<usize> {
        let Some(w) = self.watch.as_mut() else {
            self.watch = LayerWatch::arm(root);
            self.dirty = true;
            return None;
        };
        match w.check(names) {
            LayerEvents::Quiet if !self.dirty => Some(self.files),
            LayerEvents::Quiet | LayerEvents::Changed => {
                self.dirty = true;
                None
            }
            LayerEvents::Lost => {
                self.watch = LayerWatch::arm(root);
                self.dirty = true;
                None
            }
        }
    }

    /// Records a successful check that found `files` layer files.
    pub fn checked(&mut self, files: usize) {
        self.dirty = false;
        self.files = files;
    }
}

/// What a [`LayerWatch`] saw since its last check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerEvents {
    /// Nothing happened to the watched names.
    Quiet,
    /// One of them was written, touched, created, deleted or renamed: stat them again.
    Changed,
    /// The watch no longer reports (queue overflow, the data root folder deleted or moved):
    /// drop it, arm a new one, and stat them again.
    Lost,
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

/// An inotify watch on the data root folder itself, for the layer files every query reads
/// (hot.md and usage.json, `layers::sync::LayerScope::Live`): a long-lived handle then stats them
/// only after one of them changed, instead of at every query (two `statx` plus a read of their
/// `layer_files` rows; about a tenth of a day-window `retrieve` at 1M entries). The
/// folder also holds the index, whose WAL every commit writes: those events are read and
/// ignored by name. Same guarantees and blind spots as [`ColdWatch`]: the event is queued inside
/// the system call that made the change, so an edit finished before a query starts is seen by it.
#[cfg(all(target_os = "linux", not(feature = "portable-fallback")))]
pub struct LayerWatch {
    ino: Inotify,
}

#[cfg(all(target_os = "linux", not(feature = "portable-fallback")))]
impl std::fmt::Debug for LayerWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LayerWatch").finish_non_exhaustive()
    }
}

#[cfg(all(target_os = "linux", not(feature = "portable-fallback")))]
impl LayerWatch {
    /// Watches `root` (files in it written, truncated, touched, created, deleted, renamed; the
    /// folder itself deleted or moved). `None` when inotify refuses.
    pub fn arm(root: &Path) -> Option<LayerWatch> {
        let ino = Inotify::init().ok()?;
        let mask = WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
            | WatchMask::MODIFY
            | WatchMask::ATTRIB
            | WatchMask::CLOSE_WRITE
            | WatchMask::DELETE_SELF
            | WatchMask::MOVE_SELF
            | WatchMask::ONLYDIR;
        ino.watches().add(root, mask).ok()?;
        Some(LayerWatch { ino })
    }

    /// Reads every pending event and tells whether one concerned a file named in `names`
    /// ([`LayerEvents::Changed`]) or the watch itself ([`LayerEvents::Lost`]).
    pub fn check(&mut self, names: &[&str]) -> LayerEvents {
        use inotify::EventMask;
        let mut buf = [0u8; 4096];
        let mut seen = LayerEvents::Quiet;
        loop {
            match self.ino.read_events(&mut buf) {
                Ok(events) => {
                    for e in events {
                        let lost =
                            EventMask::Q_OVERFLOW | EventMask::IGNORED | EventMask::DELETE_SELF | EventMask::MOVE_SELF;
                        if e.mask.intersects(lost) {
                            return LayerEvents::Lost;
                        }
                        if e.name.and_then(|n| n.to_str()).is_some_and(|n| names.contains(&n)) {
                            seen = LayerEvents::Changed;
                        }
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return seen,
                Err(_) => return LayerEvents::Lost,
            }
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

    #[test]
    #[cfg(all(target_os = "linux", not(feature = "portable-fallback")))]
    fn the_layer_watch_reports_its_names_only() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let names = ["hot.md", "usage.json"];
        std::fs::write(dir.path().join("usage.json"), "{}\n").unwrap();
        let mut w = LayerWatch::arm(dir.path()).expect("inotify on Linux");
        assert_eq!(w.check(&names), LayerEvents::Quiet);
        // The index and its WAL, written at every commit, and other folders: not ours.
        std::fs::write(dir.path().join("index.sqlite3-wal"), b"x").unwrap();
        std::fs::create_dir(dir.path().join("summaries")).unwrap();
        assert_eq!(w.check(&names), LayerEvents::Quiet);
        // An in-place append to usage.json, then nothing more: reported once.
        std::fs::OpenOptions::new().append(true).open(dir.path().join("usage.json")).unwrap().write_all(b" ").unwrap();
        assert_eq!(w.check(&names), LayerEvents::Changed);
        assert_eq!(w.check(&names), LayerEvents::Quiet);
        // hot.md created by an editor's rename, then touched with an old mtime.
        std::fs::write(dir.path().join(".hot.md.swp"), "x").unwrap();
        std::fs::rename(dir.path().join(".hot.md.swp"), dir.path().join("hot.md")).unwrap();
        assert_eq!(w.check(&names), LayerEvents::Changed);
        let f = std::fs::File::options().write(true).open(dir.path().join("hot.md")).unwrap();
        f.set_modified(std::time::SystemTime::UNIX_EPOCH).unwrap();
        assert_eq!(w.check(&names), LayerEvents::Changed);
        std::fs::remove_file(dir.path().join("hot.md")).unwrap();
        assert_eq!(w.check(&names), LayerEvents::Changed);
        // The data root moved away: the watch is lost.
        let moved = dir.path().with_extension("moved");
        std::fs::rename(dir.path(), &moved).unwrap();
        assert_eq!(w.check(&names), LayerEvents::Lost);
        std::fs::rename(&moved, dir.path()).unwrap();
    }
}

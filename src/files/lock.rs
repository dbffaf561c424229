//! The writer lock: one writer at a time across processes and threads.
//!
//! An advisory `flock` (std `File::try_lock`, then a blocking `File::lock` bounded by a
//! timeout) on the data root folder itself. Every write path (write, import, sync apply, hot
//! set, export) holds it; readers never wait for it. A writer that cannot get it within
//! `lockTimeoutMs` fails with [`Error::LockTimeout`] instead of hanging. The lock is released
//! when the guard drops, and by the OS if the process dies.
//!
//! Why the folder and not a `.lock` file: a cleanup or sync tool that
//! deletes a 0-byte `.lock` while a writer holds it lets the next writer create a new file and
//! lock that one — two writers at once (16 of 1 182 acknowledged writes were lost that way, 18
//! failed with "database is locked"). The folder that holds the memory cannot be deleted or
//! replaced while it is in use, and locking it creates nothing, which also lets a read-only
//! data root be opened. Versions before this one locked `<root>/.lock`; a leftover `.lock` is
//! harmless and never opened (so a `.lock` symlinked out of the root leads nowhere).

use std::fs::File;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::{Error, Result};

/// The file the lock is taken on: the data root folder (Unix: `flock` works on a folder).
#[cfg(unix)]
fn lock_target(root: &Path) -> Result<File> {
    File::open(root).map_err(|e| Error::io(root, e))
}

/// The file the lock is taken on: `<root>/.lock` where a folder cannot be opened as a file
/// (Windows), refusing a symlink.
#[cfg(not(unix))]
fn lock_target(root: &Path) -> Result<File> {
    let path = root.join(".lock");
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(Error::OutsideRoot(path));
    }
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&path)
        .map_err(|e| Error::io(&path, e))
}

/// Held writer lock; dropping it releases the lock.
#[derive(Debug)]
pub struct WriterLock {
    _file: File,
}

/// Acquires the writer lock of `root`, waiting (in the kernel's flock queue) at most `timeout`.
/// Errors: [`Error::LockTimeout`] after `timeout`; I/O when the folder cannot be opened.
pub fn acquire(root: &Path, timeout: Duration) -> Result<WriterLock> {
    let path = root.to_path_buf();
    let file = lock_target(root)?;
    let start = Instant::now();
    match file.try_lock() {
        Ok(()) => return Ok(WriterLock { _file: file }),
        Err(std::fs::TryLockError::WouldBlock) => {}
        Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(&path, e)),
    }
    // Contended: wait in the kernel's queue (a blocking flock in a helper thread) instead of
    // polling. A poller sleeping between tries loses nearly every race to a holder that
    // writes in a loop (with 4 writers a write waited 8.6 s of a 10 s bound); a blocked
    // waiter is woken when the lock is released. The helper locks a duplicate descriptor of
    // the same open file, so the lock is ours through `file`; if we stop waiting, the helper
    // closes its descriptor as soon as it gets the lock, which releases it (the lock lives
    // while any descriptor of the open file does).
    let waiter = file.try_clone().map_err(|e| Error::io(&path, e))?;
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    std::thread::spawn(move || {
        let r = waiter.lock();
        let _ = tx.send(r);
    });
    match rx.recv_timeout(timeout.saturating_sub(start.elapsed())) {
        Ok(Ok(())) => Ok(WriterLock { _file: file }),
        Ok(Err(e)) => Err(Error::io(&path, e)),
        Err(_) => Err(Error::LockTimeout { path, waited_ms: start.elapsed().as_millis() as u64 }),
    }
}

/// Takes the writer lock of `root` only if it is free now: `Ok(None)` when another writer
/// holds it. For readers, which answer from the index as it is rather than wait for a writer.
///
/// "Now" allows [`TRY_ATTEMPTS`] tries 1 ms apart: a lock can be held for an instant by a
/// process that is not writing. A child process forked by another thread of this process holds
/// a copy of every open descriptor, the lock's included, until it executes its program (the
/// descriptor is close-on-exec), and `flock` stays held while any copy is open; a reader that
/// tried once then answered `stale` with nothing mirrored (a test opening a fresh index while
/// other tests spawned CLI processes, in CI). A writer holds the lock for milliseconds at least.
pub fn try_acquire(root: &Path) -> Result<Option<WriterLock>> {
    let file = lock_target(root)?;
    for attempt in 1..=TRY_ATTEMPTS {
        match file.try_lock() {
            Ok(()) => return Ok(Some(WriterLock { _file: file })),
            Err(std::fs::TryLockError::WouldBlock) if attempt < TRY_ATTEMPTS => {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => return Err(Error::io(root, e)),
        }
    }
    Ok(None)
}

/// Takes the writer lock of `root` if it is free at this instant: one try, no retry and no
/// wait (`Ok(None)` when it is held). For a writer that has a path of its own for a held lock
/// and wants the free lock without first asking anything else (recording usage hits, whose
/// check for a long write under way reads the index). Errors: I/O when the folder cannot be
/// opened or locked.
pub fn try_acquire_once(root: &Path) -> Result<Option<WriterLock>> {
    let file = lock_target(root)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(WriterLock { _file: file })),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io(root, e)),
    }
}

/// Tries [`try_acquire`] makes, 1 ms apart, before it reports the lock held (memlayers; see there).
pub const TRY_ATTEMPTS: u32 = 3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_writer_times_out_then_succeeds_after_release() {
        let dir = tempfile::tempdir().unwrap();
        let held = acquire(dir.path(), Duration::from_millis(10)).unwrap();
        let err = acquire(dir.path(), Duration::from_millis(30)).unwrap_err();
        assert!(matches!(err, Error::LockTimeout { .. }), "{err}");
        drop(held);
        acquire(dir.path(), Duration::from_millis(10)).unwrap();
    }

    #[test]
    fn deleting_a_lock_file_does_not_free_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".lock"), "").unwrap();
        let held = acquire(dir.path(), Duration::from_millis(10)).unwrap();
        std::fs::remove_file(dir.path().join(".lock")).unwrap();
        assert!(try_acquire(dir.path()).unwrap().is_none());
        drop(held);
        assert!(try_acquire(dir.path()).unwrap().is_some());
        assert!(!dir.path().join(".lock").exists(), "locking creates nothing");
    }
}

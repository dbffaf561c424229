//! Compare-and-swap writes: a file is replaced or appended to only if it is still exactly what
//! memlayers read, so a hand edit made between the read and the write is never overwritten
//! (without it, `echo … >> today.md` while `write` ran lost 41 of 696 hand lines).
//!
//! * [`read`] opens the file once (read + append), reads it through that descriptor and keeps
//!   the descriptor and its identity (size, mtime, inode).
//! * [`append`] adds bytes with `O_APPEND` to the very file that was read, when nothing changed
//!   since: the kernel serialises it with any other `O_APPEND` writer (a shell `>>`), so
//!   neither line can hide the other. A failed write (full disk) is cut back to the old size.
//! * [`replace`] writes a temp file in the same folder (fsync), checks that the path still
//!   holds the file that was read — same (size, mtime, inode) *and* same bytes, since mtimes
//!   tick coarsely — and renames over it (fsync of the folder). A file that did not exist is
//!   created with `link`, which fails if someone created it meanwhile. Bytes appended to the
//!   old file in the instant between the check and the rename are read back through the kept
//!   descriptor and appended to the new file.
//!
//! Both return [`Outcome::Changed`] instead of writing when the file changed; the caller reads
//! again and redoes its work (at most [`MAX_REDO`] times).
//!
//! Temp files are named `.<name>.tmp-<pid>-<n>` (never `*.md`, so sync never reads them);
//! [`clean_temps`] removes the ones a killed writer left.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// How many times a caller redoes a write whose file changed under it before giving up with
/// an error (nothing written). Hand edits are rare; a loop that long means something rewrites
/// the file continuously.
pub const MAX_REDO: usize = 200;

/// Identity of a file as read: size in bytes, mtime in ns since the Unix epoch, inode number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ident {
    /// Size in bytes.
    pub size: i64,
    /// Modification time, ns since the Unix epoch.
    pub mtime_ns: i64,
    /// Inode number.
    pub inode: i64,
}

impl Ident {
    /// The identity in `meta`.
    pub fn of(meta: &fs::Metadata) -> Ident {
        let (size, mtime_ns, inode) = crate::files::identity::identity(meta);
        Ident { size, mtime_ns, inode }
    }
}

/// A file as read by [`read`]: its bytes, its identity, and the open descriptor.
#[derive(Debug)]
pub struct Snapshot {
    /// The bytes read (empty when the file did not exist).
    pub bytes: Vec<u8>,
    /// The identity when read; `None` when the file did not exist.
    pub ident: Option<Ident>,
    file: Option<File>,
}

/// What a compare-and-swap write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Written. `raced` is true when another writer touched the file in the same instant (bytes
    /// appended next to ours, salvaged after a rename): the caller re-reads before indexing.
    Done {
        /// Someone else wrote to the file around our write.
        raced: bool,
    },
    /// The file changed since it was read; nothing was written. Read again and redo.
    Changed,
}

/// True when two stats are of the same file: device and inode on Unix (whatever identity the
/// index uses); elsewhere size and modification time, the best std offers.
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        a.len() == b.len() && a.modified().ok() == b.modified().ok()
    }
}

fn refuse(path: &Path, why: &str) -> Error {
    Error::io(path, std::io::Error::new(std::io::ErrorKind::InvalidData, why.to_string()))
}

/// Reads `path` for a compare-and-swap write. A missing file reads as empty. Errors: the path
/// is a symbolic link (writing through it would change another file, e.g. another day: issue
/// 14 point 8) or not a regular file (a FIFO would block forever); the file cannot be opened
/// for writing (a read-only data root: the error names the real cause) or read.
pub fn read(path: &Path) -> Result<Snapshot> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => {
            return Err(refuse(path, "is a symbolic link; refusing to write through it (see `memlayers check`)"));
        }
        Ok(m) if !m.is_file() => return Err(refuse(path, "not a regular file; refusing to read or replace it")),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Snapshot { bytes: Vec::new(), ident: None, file: None });
        }
        Err(e) => return Err(Error::io(path, e)),
    }
    let mut file = match OpenOptions::new().read(true).append(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Snapshot { bytes: Vec::new(), ident: None, file: None });
        }
        Err(e) => return Err(Error::io(path, e)),
    };
    let meta = file.metadata().map_err(|e| Error::io(path, e))?;
    // Swapped for a symlink or something else between the lstat and the open.
    if !meta.is_file() || !fs::symlink_metadata(path).is_ok_and(|m| same_file(&m, &meta)) {
        return Err(refuse(path, "changed into a link or special file while being opened; refusing it"));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes).map_err(|e| Error::io(path, e))?;
    // The identity of what was read: the descriptor's stat after reading (an append that
    // landed during the read shows up as a size different from `bytes`).
    let mut ident = Ident::of(&file.metadata().map_err(|e| Error::io(path, e))?);
    if ident.size != bytes.len() as i64 {
        ident.size = -1; // forces Changed at write time: read again
    }
    Ok(Snapshot { bytes, ident: Some(ident), file: Some(file) })
}

/// True when the path still names the file of `snap`, unchanged (identity and bytes).
fn unchanged(path: &Path, snap: &Snapshot) -> Result<bool> {
    let (Some(want), Some(file)) = (snap.ident, snap.file.as_ref()) else {
        return Ok(fs::symlink_metadata(path).is_err());
    };
    let Ok(now) = fs::symlink_metadata(path) else { return Ok(false) };
    if !now.is_file() || Ident::of(&now) != want || !same_file(&now, &file.metadata().map_err(|e| Error::io(path, e))?)
    {
        return Ok(false);
    }
    // Same stat, but mtime ticks coarsely: compare the bytes too (read through our descriptor,
    // which is the file at the path: same inode).
    starts_with(file, &snap.bytes).map_err(|e| Error::io(path, e))
}

/// True when the file's first bytes are `want`, compared 64 KiB at a time (a second copy of a
/// 100 MB file in memory cost 100 MB of peak memory at each usage.json write).
fn starts_with(file: &File, want: &[u8]) -> std::io::Result<bool> {
    let mut buf = vec![0u8; want.len().min(64 * 1024)];
    for (i, chunk) in want.chunks(buf.len().max(1)).enumerate() {
        let part = &mut buf[..chunk.len()];
        read_at(file, part, (i * 64 * 1024) as u64)?;
        if part != chunk {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Appends `tail` to the file of `snap` with `O_APPEND`, if the path still names that file
/// and its first bytes are still the ones read. Bytes appended by someone else since the read
/// are fine — ours go after them, as with two shell `>>` — unless they leave the file without a
/// final newline (our line would be glued to theirs): then [`Outcome::Changed`]. The caller
/// ensures the snapshot ends with a newline (or is empty). On a write error (full disk) the
/// file is cut back to its size before the write, so nothing half-written stays. fsync before
/// returning. `raced` in the outcome: other bytes were appended around ours.
pub fn append(path: &Path, snap: &Snapshot, tail: &[u8]) -> Result<Outcome> {
    let (Some(file), Some(want)) = (snap.file.as_ref(), snap.ident) else { return Ok(Outcome::Changed) };
    let Ok(at_path) = fs::symlink_metadata(path) else { return Ok(Outcome::Changed) };
    let fd_meta = file.metadata().map_err(|e| Error::io(path, e))?;
    let before = fd_meta.len();
    if !at_path.is_file() || !same_file(&at_path, &fd_meta) || want.size < 0 || before < snap.bytes.len() as u64 {
        return Ok(Outcome::Changed);
    }
    if !starts_with(file, &snap.bytes).map_err(|e| Error::io(path, e))? {
        return Ok(Outcome::Changed);
    }
    if before > 0 {
        let mut last = [0u8; 1];
        read_at(file, &mut last, before - 1).map_err(|e| Error::io(path, e))?;
        if last[0] != b'\n' {
            return Ok(Outcome::Changed);
        }
    }
    let mut w: &File = file;
    let mut written = 0usize;
    while written < tail.len() {
        match w.write(&tail[written..]) {
            Ok(0) => {
                cut_back(file, before, written);
                return Err(Error::io(path, std::io::ErrorKind::WriteZero.into()));
            }
            Ok(n) => written += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                cut_back(file, before, written);
                return Err(Error::io(path, e));
            }
        }
    }
    if let Err(e) = file.sync_data() {
        cut_back(file, before, written);
        return Err(Error::io(path, e));
    }
    let after = file.metadata().map_err(|e| Error::io(path, e))?;
    let same_path = fs::symlink_metadata(path).is_ok_and(|m| same_file(&m, &after));
    let raced = before != snap.bytes.len() as u64 || after.len() != before + tail.len() as u64 || !same_path;
    Ok(Outcome::Done { raced })
}

/// Undoes a partial append of `written` bytes after `before`, when nobody else appended since.
fn cut_back(file: &File, before: u64, written: usize) {
    if file.metadata().is_ok_and(|m| m.len() == before + written as u64) {
        let _ = file.set_len(before);
        let _ = file.sync_data();
    }
}

/// Replaces the file of `snap` by `bytes` (temp file, fsync, rename, fsync of the folder) if
/// the path still holds exactly what was read; creates it (parent folders too) if it did not
/// exist and still does not. Errors: I/O (a full disk fails on the temp file, before the
/// target is touched).
pub fn replace(path: &Path, snap: &Snapshot, bytes: &[u8]) -> Result<Outcome> {
    let dir = path.parent().ok_or_else(|| Error::OutsideRoot(path.to_path_buf()))?;
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let tmp = write_temp(path, dir, bytes)?;
    let result = put(path, snap, &tmp);
    if !matches!(result, Ok(Outcome::Done { .. })) || fs::symlink_metadata(&tmp).is_ok() {
        let _ = fs::remove_file(&tmp);
    }
    if matches!(result, Ok(Outcome::Done { .. })) {
        sync_dir(dir);
    }
    result
}

/// The second half of [`replace`]: puts the fsynced temp file `tmp` at `path` if the path
/// still holds what `snap` read (creates it if it did not exist and still does not). The
/// caller fsyncs the folder and removes `tmp` when it is left over.
fn put(path: &Path, snap: &Snapshot, tmp: &Path) -> Result<Outcome> {
    if snap.ident.is_none() {
        // Create only if absent: `link` fails when the name exists.
        return match fs::hard_link(tmp, path) {
            Ok(()) => {
                let _ = fs::remove_file(tmp);
                Ok(Outcome::Done { raced: false })
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(Outcome::Changed),
            // File systems without hard links: check, then rename.
            Err(_) => {
                if fs::symlink_metadata(path).is_ok() {
                    return Ok(Outcome::Changed);
                }
                fs::rename(tmp, path).map_err(|e| Error::io(path, e))?;
                Ok(Outcome::Done { raced: false })
            }
        };
    }
    if !unchanged(path, snap)? {
        return Ok(Outcome::Changed);
    }
    if !swap_in(tmp, path, snap.file.as_ref()).map_err(|e| Error::io(path, e))? {
        return Ok(Outcome::Changed);
    }
    Ok(Outcome::Done { raced: salvage(path, snap)? })
}

/// True when writing `bytes` over the file of `snap` is a pure append that [`append`] can do:
/// the file exists, `bytes` starts with what was read, and what was read is empty or ends
/// with a newline.
pub fn is_pure_append(snap: &Snapshot, bytes: &[u8]) -> bool {
    snap.ident.is_some()
        && bytes.len() > snap.bytes.len()
        && bytes.starts_with(&snap.bytes)
        && (snap.bytes.is_empty() || snap.bytes.ends_with(b"\n"))
}

/// [`append`] or [`replace`] for many files at once, with the same compare-and-swap guarantee
/// for each (a file changed since its [`read`] is left alone: [`Outcome::Changed`]; a file
/// that did not exist is only created if it still does not) and fewer waits, for imports
/// (one wait for a batch of files instead of one per file). Items are (path, snapshot, new bytes).
/// A pure append ([`is_pure_append`]) goes through `O_APPEND` on the descriptor that was read,
/// so a hand `>>` at the same instant lands next to it; anything else (a new file, a file
/// without a final newline) is a temp file swapped in. The appends and the temp files are
/// written and fsynced by [`crate::files::WRITE_THREADS`] threads together, the swaps are
/// done in order, and each distinct folder is fsynced once. Returns one outcome per item, in
/// order. Errors: the first I/O error, naming its file (temp files not yet swapped in are
/// removed; files already written keep their complete new bytes).
pub fn write_all(items: &[(&Path, &Snapshot, &[u8])]) -> Result<Vec<Outcome>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Per item: the append's outcome, or the temp file to swap in.
    enum Step {
        Appended(Outcome),
        Temp(PathBuf),
    }
    let steps: Vec<Mutex<Option<Step>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    let one = |(path, snap, bytes): &(&Path, &Snapshot, &[u8])| -> Result<Step> {
        if is_pure_append(snap, bytes) {
            return Ok(Step::Appended(append(path, snap, &bytes[snap.bytes.len()..])?));
        }
        let dir = path.parent().ok_or_else(|| Error::OutsideRoot(path.to_path_buf()))?;
        fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        Ok(Step::Temp(write_temp(path, dir, bytes)?))
    };
    std::thread::scope(|s| {
        for _ in 0..crate::files::WRITE_THREADS.min(items.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= items.len() || failed.lock().unwrap_or_else(|p| p.into_inner()).is_some() {
                        break;
                    }
                    match one(&items[i]) {
                        Ok(step) => *steps[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(step),
                        Err(e) => {
                            failed.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
                            break;
                        }
                    }
                }
            });
        }
    });
    let mut steps: Vec<Option<Step>> =
        steps.into_iter().map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner())).collect();
    let remove_temps = |steps: &[Option<Step>]| {
        for st in steps.iter().flatten() {
            if let Step::Temp(t) = st {
                let _ = fs::remove_file(t);
            }
        }
    };
    if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        remove_temps(&steps);
        return Err(e);
    }
    let mut outcomes = Vec::with_capacity(items.len());
    let mut dirs: Vec<&Path> = Vec::new();
    for i in 0..items.len() {
        let (path, snap, _) = items[i];
        let outcome = match steps[i].take() {
            Some(Step::Appended(o)) => o,
            Some(Step::Temp(tmp)) => {
                let r = put(path, snap, &tmp);
                if !matches!(r, Ok(Outcome::Done { .. })) || fs::symlink_metadata(&tmp).is_ok() {
                    let _ = fs::remove_file(&tmp);
                }
                match r {
                    Ok(o) => {
                        if let (Outcome::Done { .. }, Some(d)) = (o, path.parent())
                            && !dirs.contains(&d)
                        {
                            dirs.push(d);
                        }
                        o
                    }
                    Err(e) => {
                        remove_temps(&steps[i + 1..]);
                        return Err(e);
                    }
                }
            }
            None => unreachable!("every item was written or the batch failed"),
        };
        outcomes.push(outcome);
    }
    for d in dirs {
        sync_dir(d);
    }
    Ok(outcomes)
}

/// Puts `tmp` at `path` if `path` still holds the file open as `old`. On Linux and macOS an
/// atomic exchange (`renameat2(RENAME_EXCHANGE)`, `renamex_np(RENAME_SWAP)`) closes the
/// instant between the check in [`replace`] and the rename: the file swapped out must be the
/// one that was read; if another program replaced it in that instant (an editor saving by
/// rename), it is swapped back and the answer is false. Elsewhere (or where the file system
/// has no exchange) a plain rename.
#[cfg(any(target_os = "linux", target_os = "macos"))]
fn swap_in(tmp: &Path, path: &Path, old: Option<&File>) -> std::io::Result<bool> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    match renameat_with(CWD, tmp, CWD, path, RenameFlags::EXCHANGE) {
        Ok(()) => {}
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS || e == rustix::io::Errno::NOENT => {
            fs::rename(tmp, path)?;
            return Ok(true);
        }
        Err(e) => return Err(e.into()),
    }
    // `tmp` now names what was at `path` an instant ago.
    let out = fs::symlink_metadata(tmp)?;
    let was_ours = match old {
        Some(f) => out.is_file() && same_file(&out, &f.metadata()?),
        None => false,
    };
    if was_ours {
        fs::remove_file(tmp)?;
        return Ok(true);
    }
    renameat_with(CWD, tmp, CWD, path, RenameFlags::EXCHANGE)?;
    Ok(false)
}

/// Puts `tmp` at `path` (a plain rename: see the Linux version).
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
fn swap_in(tmp: &Path, path: &Path, _old: Option<&File>) -> std::io::Result<bool> {
    fs::rename(tmp, path)?;
    Ok(true)
}

/// After a rename: bytes appended to the replaced file (through a descriptor opened before the
/// rename) are appended to the new file. Returns true when there were any.
fn salvage(path: &Path, snap: &Snapshot) -> Result<bool> {
    let Some(old) = snap.file.as_ref() else { return Ok(false) };
    let had = snap.bytes.len() as u64;
    let now = old.metadata().map_err(|e| Error::io(path, e))?.len();
    if now <= had {
        return Ok(false);
    }
    let mut extra = vec![0u8; (now - had) as usize];
    read_at(old, &mut extra, had).map_err(|e| Error::io(path, e))?;
    let mut f = OpenOptions::new().append(true).open(path).map_err(|e| Error::io(path, e))?;
    f.write_all(&extra).and_then(|()| f.sync_data()).map_err(|e| Error::io(path, e))?;
    Ok(true)
}

/// Reads exactly `buf.len()` bytes at `offset` without moving the file position.
#[cfg(unix)]
fn read_at(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(f, buf, offset)
}

/// Reads exactly `buf.len()` bytes at `offset` (Windows: positioned reads).
#[cfg(windows)]
fn read_at(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        match std::os::windows::fs::FileExt::seek_read(f, &mut buf[done..], offset + done as u64)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => done += n,
        }
    }
    Ok(())
}

fn write_temp(path: &Path, dir: &Path, bytes: &[u8]) -> Result<PathBuf> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.tmp-{}-{n}", std::process::id()));
    let r = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })();
    match r {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(Error::io(path, e))
        }
    }
}

fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

/// The process id in a temp file name `.<name>.tmp-<pid>-<n>`, if it is one.
pub fn temp_pid(name: &str) -> Option<u32> {
    if !name.starts_with('.') {
        return None;
    }
    let (_, rest) = name.rsplit_once(".tmp-")?;
    let (pid, n) = rest.split_once('-')?;
    n.bytes().all(|b| b.is_ascii_digit()).then_some(())?;
    pid.parse().ok()
}

/// Removes the temp files in `dir` left by other processes' interrupted writes. Call it under
/// the writer lock: every memlayers write happens under it, so a temp file of another process
/// is a leftover of a killed write (this process's own in-flight temp files are kept). Returns
/// how many were removed; errors are ignored (a leftover is harmless: it is never read).
pub fn clean_temps(dir: &Path) -> usize {
    let me = std::process::id();
    let Ok(rd) = fs::read_dir(dir) else { return 0 };
    let mut n = 0;
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(temp_pid) else { continue };
        if pid != me && e.file_type().is_ok_and(|t| t.is_file()) && fs::remove_file(e.path()).is_ok() {
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names() {
        assert_eq!(temp_pid(".2026-10-21.md.tmp-4242-7"), Some(4242));
        assert_eq!(temp_pid(".hot.md.tmp-1-0"), Some(1));
        assert_eq!(temp_pid("2026-10-21.md"), None);
        assert_eq!(temp_pid(".x.tmp-12-a"), None);
    }

    #[test]
    fn replace_refuses_a_changed_file_and_keeps_the_hand_edit() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        fs::write(&p, "one\n").unwrap();
        let snap = read(&p).unwrap();
        // A hand edit between read and write, same size: only the bytes tell.
        fs::write(&p, "uno\n").unwrap();
        assert_eq!(replace(&p, &snap, b"one\ntwo\n").unwrap(), Outcome::Changed);
        assert_eq!(fs::read(&p).unwrap(), b"uno\n");
        assert_eq!(append(&p, &snap, b"two\n").unwrap(), Outcome::Changed);
        let snap = read(&p).unwrap();
        assert_eq!(append(&p, &snap, b"two\n").unwrap(), Outcome::Done { raced: false });
        assert_eq!(fs::read(&p).unwrap(), b"uno\ntwo\n");
        // A hand append since the read: ours goes after it.
        let snap = read(&p).unwrap();
        fs::OpenOptions::new().append(true).open(&p).unwrap().write_all(b"hand\n").unwrap();
        assert_eq!(append(&p, &snap, b"three\n").unwrap(), Outcome::Done { raced: true });
        assert_eq!(fs::read(&p).unwrap(), b"uno\ntwo\nhand\nthree\n");
        // One without a final newline: ours would be glued to it.
        let snap = read(&p).unwrap();
        fs::OpenOptions::new().append(true).open(&p).unwrap().write_all(b"torn").unwrap();
        assert_eq!(append(&p, &snap, b"four\n").unwrap(), Outcome::Changed);
        assert!(fs::read_dir(dir.path()).unwrap().count() == 1, "no temp file left");
    }

    #[test]
    fn create_only_if_still_absent() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("m/b.md");
        let snap = read(&p).unwrap();
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, "hand\n").unwrap();
        assert_eq!(replace(&p, &snap, b"ours\n").unwrap(), Outcome::Changed);
        assert_eq!(fs::read(&p).unwrap(), b"hand\n");
        fs::remove_file(&p).unwrap();
        assert_eq!(replace(&p, &snap, b"ours\n").unwrap(), Outcome::Done { raced: false });
        assert_eq!(fs::read(&p).unwrap(), b"ours\n");
    }

    #[test]
    fn symlinks_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("real.md"), "x\n").unwrap();
        std::os::unix::fs::symlink(dir.path().join("real.md"), dir.path().join("link.md")).unwrap();
        let e = read(&dir.path().join("link.md")).unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
    }

    #[test]
    fn clean_temps_keeps_own_and_data() {
        let dir = tempfile::tempdir().unwrap();
        let me = std::process::id();
        for n in [".a.md.tmp-1-0".to_string(), format!(".a.md.tmp-{me}-3"), "a.md".into(), ".notes".into()] {
            fs::write(dir.path().join(n), "x").unwrap();
        }
        assert_eq!(clean_temps(dir.path()), 1);
        let mut left: Vec<String> =
            fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        assert_eq!(left, [format!(".a.md.tmp-{me}-3"), ".notes".into(), "a.md".into()]);
    }
}

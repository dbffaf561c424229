//! File identity: what the index stores to tell whether a file changed since it was mirrored
//! (size in bytes, modification time in nanoseconds since the Unix epoch, inode number).
//!
//! On Unix the three come from `MetadataExt` (the `stat` fields). Elsewhere, and on every
//! platform with the `portable-fallback` feature, size and mtime come from std's portable
//! [`std::fs::Metadata::len`] / [`std::fs::Metadata::modified`] and the inode is 0: a file
//! replaced by another of the same size and the same mtime (to the nanosecond) is then not
//! seen as changed until its size or mtime differs. Both paths give the same size and mtime
//! on Linux.

use std::fs::Metadata;

/// (size in bytes, mtime in ns since the Unix epoch, inode or 0) of `meta`.
#[cfg(all(unix, not(feature = "portable-fallback")))]
pub fn identity(meta: &Metadata) -> (i64, i64, i64) {
    use std::os::unix::fs::MetadataExt;
    (meta.len() as i64, meta.mtime() * 1_000_000_000 + meta.mtime_nsec(), meta.ino() as i64)
}

/// (size in bytes, mtime in ns since the Unix epoch, inode or 0) of `meta`.
#[cfg(any(not(unix), feature = "portable-fallback"))]
pub fn identity(meta: &Metadata) -> (i64, i64, i64) {
    let mtime_ns = match meta.modified().map(|t| t.duration_since(std::time::UNIX_EPOCH)) {
        Ok(Ok(d)) => d.as_nanos() as i64,
        // Before 1970: negative, as the Unix `stat` fields give it.
        Ok(Err(e)) => -(e.duration().as_nanos() as i64),
        Err(_) => 0,
    };
    (meta.len() as i64, mtime_ns, 0)
}

/// Status-change time (ctime) of `meta`, ns since the Unix epoch; 0 where the platform has
/// none (not Unix, or the `portable-fallback` feature). The kernel sets it on every write,
/// truncate, rename, chmod or `utimes`, and it cannot be set back, so it tells a same-size
/// edit whose mtime was restored (`touch -r`, `rsync -t`) from an untouched file.
#[cfg(all(unix, not(feature = "portable-fallback")))]
pub fn ctime_ns(meta: &Metadata) -> i64 {
    use std::os::unix::fs::MetadataExt;
    meta.ctime() * 1_000_000_000 + meta.ctime_nsec()
}

/// Status-change time of `meta`: 0 on this platform (see the Unix version).
#[cfg(any(not(unix), feature = "portable-fallback"))]
pub fn ctime_ns(_meta: &Metadata) -> i64 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_and_mtime_are_the_stat_fields() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.md");
        std::fs::write(&p, "四个汉字?").unwrap();
        let f = std::fs::File::options().write(true).open(&p).unwrap();
        // 2026-12-01T00:00:00.5Z = 1_796_083_200 s + 0.5 s.
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_796_083_200_500);
        f.set_modified(t).unwrap();
        let (size, mtime_ns, _) = identity(&std::fs::metadata(&p).unwrap());
        assert_eq!(size, 13); // 4 CJK chars × 3 bytes + '?'
        assert_eq!(mtime_ns, 1_796_083_200_500_000_000);
    }
}

//! Is `index.sqlite3` memlayers' own database? (Another program's SQLite file there must
//! be moved aside untouched, never migrated or overwritten.)
//!
//! memlayers stamps its index with SQLite's `application_id` header field
//! ([`APPLICATION_ID`], `PRAGMA application_id`, set when the index is created) and checks it
//! before opening anything. A database with another id, or with id 0 and tables that are not
//! memlayers' (someone else's SQLite file that happens to be called `index.sqlite3`), is never
//! migrated into: the caller moves it aside and builds a new index from the files. Indexes made
//! by memlayers before the stamp existed (id 0) are recognised by their refinery history (the
//! names of memlayers' own migrations) and their tables, and are stamped at open.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

/// memlayers' `application_id`: the ASCII bytes `MLYR` as a big-endian 32-bit integer
/// (SQLite stores it at offset 68 of the database header; `file(1)` can name it).
pub const APPLICATION_ID: i32 = 0x4D4C_5952;

/// What is at the index path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing, an empty file, or a database without tables: a new index can be made there.
    Empty,
    /// memlayers' index, stamped with [`APPLICATION_ID`].
    Ours,
    /// memlayers' index from before the stamp (id 0, memlayers' migration history and tables):
    /// opened as is and stamped.
    Unstamped,
    /// Not memlayers' (a folder, another application id, other tables): the reason, in words.
    Foreign(String),
    /// Not readable as SQLite at all (a damaged or garbage file): left to the corruption
    /// handling, which moves it aside.
    Unreadable,
}

/// Tables every memlayers index has had since its first migration (`entries` is a view
/// since migration V8, a table before).
const OWN_TABLES: [&str; 2] = ["refinery_schema_history", "entries"];

/// True when the file at `path` starts with an SQLite header (`SQLite format 3\0`) whose
/// `application_id` field (4 bytes big-endian at offset 68, <https://sqlite.org/fileformat.html>)
/// is [`APPLICATION_ID`]: one 100-byte read, no SQLite connection (the fast path of every
/// open). False means "ask [`classify`]" — the stamp may still sit in the WAL only.
pub fn header_is_ours(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 100];
    let Ok(mut f) = std::fs::File::open(path) else { return false };
    if f.read_exact(&mut head).is_err() || &head[..16] != b"SQLite format 3\0" {
        return false;
    }
    i32::from_be_bytes([head[68], head[69], head[70], head[71]]) == APPLICATION_ID
}

/// Looks at `path` without changing it. `first_migration` is the name of memlayers' first
/// migration (`V1__…` without prefix and extension), as refinery records it.
pub fn classify(path: &Path, first_migration: &str) -> Verdict {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(_) => return Verdict::Empty,
    };
    if meta.is_dir() {
        return Verdict::Foreign("it is a folder".into());
    }
    if !meta.is_file() || meta.len() == 0 {
        return if meta.is_file() { Verdict::Empty } else { Verdict::Unreadable };
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_NOFOLLOW;
    let Ok(c) = Connection::open_with_flags(path, flags) else { return Verdict::Unreadable };
    let _ = c.busy_timeout(std::time::Duration::from_millis(crate::index::BUSY_TIMEOUT_MS));
    let Ok(id) = c.query_row("PRAGMA application_id", [], |r| r.get::<_, i32>(0)) else {
        return Verdict::Unreadable;
    };
    if id == APPLICATION_ID {
        return Verdict::Ours;
    }
    if id != 0 {
        return Verdict::Foreign(format!("its application_id is {id:#x}, not memlayers' {APPLICATION_ID:#x}"));
    }
    let tables: Vec<String> =
        match c.prepare("SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name") {
            Ok(mut st) => match st.query_map([], |r| r.get(0)) {
                Ok(rows) => rows.filter_map(|r| r.ok()).collect(),
                Err(_) => return Verdict::Unreadable,
            },
            Err(_) => return Verdict::Unreadable,
        };
    if tables.is_empty() {
        return Verdict::Empty;
    }
    let has_own = OWN_TABLES.iter().all(|t| tables.iter().any(|x| x == t));
    let history: Option<String> =
        c.query_row("SELECT name FROM refinery_schema_history WHERE version = 1", [], |r| r.get(0)).ok();
    if has_own && history.as_deref() == Some(first_migration) {
        return Verdict::Unstamped;
    }
    let mut shown: Vec<&str> = tables.iter().map(String::as_str).take(5).collect();
    if tables.len() > 5 {
        shown.push("…");
    }
    Verdict::Foreign(format!("it holds tables of another program ({}) and no memlayers stamp", shown.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.sqlite3");
        assert_eq!(classify(&p, "init"), Verdict::Empty);
        std::fs::write(&p, b"").unwrap();
        assert_eq!(classify(&p, "init"), Verdict::Empty);
        std::fs::remove_file(&p).unwrap();
        let c = Connection::open(&p).unwrap();
        c.execute_batch("CREATE TABLE notes(x)").unwrap();
        assert!(matches!(classify(&p, "init"), Verdict::Foreign(w) if w.contains("notes")));
        c.execute_batch(
            "CREATE TABLE refinery_schema_history(version INTEGER, name TEXT); \
             INSERT INTO refinery_schema_history VALUES(1, 'init'); \
             CREATE TABLE entries(x);",
        )
        .unwrap();
        assert_eq!(classify(&p, "init"), Verdict::Unstamped);
        assert!(matches!(classify(&p, "other"), Verdict::Foreign(_)));
        c.pragma_update(None, "application_id", APPLICATION_ID).unwrap();
        assert_eq!(classify(&p, "init"), Verdict::Ours);
        c.pragma_update(None, "application_id", 7).unwrap();
        assert!(matches!(classify(&p, "init"), Verdict::Foreign(w) if w.contains("0x7")));
        drop(c);
        std::fs::write(&p, b"garbage garbage garbage garbage garbage garbage garbage garbage garbage").unwrap();
        assert_eq!(classify(&p, "init"), Verdict::Unreadable);
        let d = dir.path().join("d.sqlite3");
        std::fs::create_dir(&d).unwrap();
        assert!(matches!(classify(&d, "init"), Verdict::Foreign(w) if w.contains("folder")));
        // 'MLYR'
        assert_eq!(APPLICATION_ID.to_be_bytes(), *b"MLYR");
    }
}

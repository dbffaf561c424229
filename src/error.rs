//! The crate's one error type.
//!
//! Every fallible public function returns [`Result<T>`]. Variants say what went wrong and name
//! the offending field, file or limit, so a CLI can print them as they are. The CLI maps
//! [`Error::BadInput`] (and the other caller mistakes, see [`Error::is_bad_input`]) to exit
//! code 2 and everything else to exit code 1.

use std::path::PathBuf;

/// Result alias used throughout memlayers.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in memlayers. New variants may be added (`#[non_exhaustive]`):
/// match with a `_` arm. Underlying errors are kept as sources
/// ([`std::error::Error::source`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A caller-supplied value is invalid. `field` names the argument or config key
    /// (e.g. `"from"`, `"text"`, `"limit"`), `reason` says what is wrong with it.
    #[error("invalid {field}: {reason}")]
    BadInput {
        /// The argument or field that was wrong.
        field: String,
        /// What is wrong with it, in words.
        reason: String,
    },
    /// A path would leave the data root (`..`, absolute path, symlink pointing out, NUL).
    #[error("refused path outside the data root: {0}")]
    OutsideRoot(PathBuf),
    /// Reading or writing a file failed.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file or directory being read or written.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Another process holds the writer lock longer than the bounded wait.
    #[error("another memlayers process holds the writer lock of {path} (waited {waited_ms} ms); try again")]
    LockTimeout {
        /// The data root whose writer lock was busy.
        path: PathBuf,
        /// How long this process waited, in milliseconds.
        waited_ms: u64,
    },
    /// A file changed (a hand edit, another program) between the moment memlayers read it and
    /// the moment it would have replaced it; nothing was written. Callers redo the write from a
    /// fresh read; this reaches the user only when the file keeps changing.
    #[error("{0} changed while memlayers was writing it (a hand edit?); nothing was overwritten, try again")]
    Changed(PathBuf),
    /// The data root cannot be written (a read-only mount, another user's folder): queries
    /// work, writes fail with this error naming the real cause.
    #[error("the data root {path} is read-only ({cause}); queries work, writes are refused")]
    ReadOnly {
        /// The data root.
        path: PathBuf,
        /// Why it cannot be written, as the system said it.
        cause: String,
    },
    /// An SQLite error from the index. The rusqlite error is kept as it is, and is also the
    /// [`source`](std::error::Error::source): its result code tells a damaged index
    /// (`DatabaseCorrupt`, `NotADatabase`: delete `index.sqlite3`, it is rebuilt from the
    /// files) from a busy one (`DatabaseBusy`), so callers match on it, and `rusqlite::Error`
    /// is part of this API.
    #[error("index error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The connection pool could not hand out a connection (the pool's own error is the
    /// source; its type is not part of this API).
    #[error("index connection pool error: {0}")]
    Pool(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// Preparing the index schema failed: a migration, or switching to WAL.
    #[error("index migration error: {message}")]
    Migration {
        /// What failed, in words.
        message: String,
        /// SQLite's primary result code when SQLite reported the failure (e.g.
        /// `DatabaseBusy`: another process holds the database; not corruption).
        code: Option<rusqlite::ErrorCode>,
        /// The underlying error, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// A JSON file (config, usage ledger) could not be (de)serialised.
    #[error("JSON error in {what}: {source}")]
    Json {
        /// What was being read or written.
        what: String,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },
}

impl From<memlayers_temporal::Error> for Error {
    fn from(e: memlayers_temporal::Error) -> Self {
        match e {
            memlayers_temporal::Error::BadInput { field, reason } => Error::bad(field, reason),
        }
    }
}

impl Error {
    /// Shorthand for [`Error::BadInput`].
    pub fn bad(field: impl Into<String>, reason: impl Into<String>) -> Self {
        Error::BadInput { field: field.into(), reason: reason.into() }
    }

    /// Shorthand for [`Error::Io`] with the path that was being touched.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    /// Shorthand for [`Error::Pool`].
    pub(crate) fn pool(e: r2d2::Error) -> Self {
        Error::Pool(Box::new(e))
    }

    /// A failed migration run (refinery), with SQLite's result code when SQLite reported it.
    pub(crate) fn migration(e: refinery::Error) -> Self {
        let code = std::error::Error::source(&e)
            .and_then(|s| s.downcast_ref::<rusqlite::Error>())
            .and_then(rusqlite::Error::sqlite_error_code);
        Error::Migration { message: e.to_string(), code, source: Some(Box::new(e)) }
    }

    /// True for errors caused by the caller's input (CLI exit code 2), false for internal
    /// failures (exit code 1).
    pub fn is_bad_input(&self) -> bool {
        matches!(self, Error::BadInput { .. } | Error::OutsideRoot(_))
    }
}

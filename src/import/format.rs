//! The kinds of archive `memlayers import` reads, and auto-detection (`--format
//! daily-notes|logseq|dsh`, auto-detected when omitted).

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::Serialize;

/// Kind of archive. The Markdown mapping is the same for `DailyNotes` and `Logseq`; the format
/// decides which folder is walked and how files are read (see `crate::import::scan`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// One Markdown file per day anywhere under the root: Obsidian Daily Notes, Foam, OpenClaw
    /// `memory/YYYY-MM-DD.md`, plain day folders. The whole tree is walked.
    DailyNotes,
    /// A Logseq graph: only `journals/` is walked when the root has one (`pages/` holds topic
    /// pages, not days; `logseq/` holds config and backups).
    Logseq,
    /// An existing dsh-memory-layers data root: only `cold/YYYY-MM/YYYY-MM-DD.md` files, whose
    /// entry lines are taken as they are.
    Dsh,
}

impl Format {
    /// The CLI spelling: `daily-notes`, `logseq`, `dsh`.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::DailyNotes => "daily-notes",
            Format::Logseq => "logseq",
            Format::Dsh => "dsh",
        }
    }

    /// Guesses the format of the archive at `root`: a `cold/` folder → [`Format::Dsh`]; a
    /// `logseq/` or `journals/` folder → [`Format::Logseq`]; anything else (including a root
    /// that cannot be read) → [`Format::DailyNotes`].
    pub fn detect(root: &Path) -> Format {
        if root.join("cold").is_dir() {
            Format::Dsh
        } else if root.join("logseq").is_dir() || root.join("journals").is_dir() {
            Format::Logseq
        } else {
            Format::DailyNotes
        }
    }
}

/// The format an import of `root` uses (`format`, or [`Format::detect`]), once `root` is known
/// to be importable in it: an existing folder, holding a `cold/` folder for [`Format::Dsh`].
/// Checked before anything is written, so a refused import leaves no trace. Errors: `path`
/// (not a folder; a dsh root without `cold/`).
pub fn source_format(root: &std::path::Path, format: Option<Format>) -> crate::Result<Format> {
    if !root.is_dir() {
        return Err(crate::Error::bad("path", format!("{} is not an existing folder", root.display())));
    }
    let format = format.unwrap_or_else(|| Format::detect(root));
    if format == Format::Dsh && !root.join("cold").is_dir() {
        return Err(crate::Error::bad(
            "path",
            format!("{} has no cold/ folder: not a dsh-memory-layers data root", root.display()),
        ));
    }
    Ok(format)
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = crate::Error;

    /// Parses the CLI spelling; anything else is `Error::BadInput` on field `format`.
    fn from_str(s: &str) -> crate::Result<Format> {
        match s.trim() {
            "daily-notes" => Ok(Format::DailyNotes),
            "logseq" => Ok(Format::Logseq),
            "dsh" => Ok(Format::Dsh),
            other => Err(crate::Error::bad("format", format!("{other:?} is not one of daily-notes, logseq, dsh"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Format::detect(dir.path()), Format::DailyNotes);
        std::fs::create_dir(dir.path().join("journals")).unwrap();
        assert_eq!(Format::detect(dir.path()), Format::Logseq);
        std::fs::create_dir(dir.path().join("cold")).unwrap();
        assert_eq!(Format::detect(dir.path()), Format::Dsh);
        assert_eq!(Format::detect(&dir.path().join("missing")), Format::DailyNotes);
    }

    #[test]
    fn spellings() {
        for f in [Format::DailyNotes, Format::Logseq, Format::Dsh] {
            assert_eq!(f.as_str().parse::<Format>().unwrap(), f);
        }
        assert_eq!(serde_json::to_string(&Format::DailyNotes).unwrap(), "\"daily-notes\"");
        let err = "obsidian".parse::<Format>().unwrap_err();
        assert_eq!(err.to_string(), "invalid format: \"obsidian\" is not one of daily-notes, logseq, dsh");
    }
}

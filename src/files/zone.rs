//! The zone a data root's files are dated in, recorded in the root itself.
//!
//! Cold files are partitioned by local date (`cold/YYYY-MM/YYYY-MM-DD.md`), so the zone that
//! decided those dates is a fact about the files, not about one call. memlayers records it in
//! `<root>/memlayers.json` — `{"timezone": "Asia/Shanghai"}` — a small file of its own (the
//! plugin's files stay byte-compatible; the plugin ignores it), so it survives deleting the
//! index and travels with a backup of the root.
//!
//! * No file yet → the configured zone is recorded (atomic write) and used.
//! * A file with a zone → that zone partitions the files (new entries are filed by it, `recent`
//!   and `by_date` count its days); a different configured zone (`--tz`, config `timezone`)
//!   only frames time expressions, and gives a warning: never a silent re-partition.
//! * An unreadable or malformed file → a warning and the configured zone; the file is left as
//!   it is (a hand edit is never overwritten).
//!
//! **How the zone is chosen.** The first command that opens a new data root records the zone
//! it runs with: `--tz`, else the config file's `timezone`, else `$TZ`, else the system's zone
//! (an import of a dsh root that records a zone, into a new root without `--tz`, takes the
//! source's). Import and the first write report it (`zone`/`zoneRecorded` in their result, a
//! line on stderr), so a root dated in the wrong zone is noticed at once.
//!
//! **It cannot be changed in place.** The zone decided which file each entry is in and which
//! local date every id encodes; a new zone would move entries across files, which memlayers
//! never does behind a person's back. To date a root in another zone: create a new root with
//! `--tz NEW` and import the old one into it (`memlayers --data-root NEW_ROOT --tz NEW import
//! OLD_ROOT --format dsh`): entries keep their instants and their old day files, and those whose
//! instant falls on another local date in the new zone are listed by `check` as misdated. A
//! daily-notes archive imported in the wrong zone is best imported again, into a new root, with
//! `--tz`. Editing `memlayers.json` by hand re-labels the files without moving a line (every
//! entry dated on another day in the new zone is then reported as misdated): only for a root
//! whose record is wrong, not its files.

use std::path::Path;

use chrono_tz::Tz;

/// File name of the root's record, directly under the data root.
pub const ZONE_FILE: &str = "memlayers.json";

/// The zone that partitions the root's files, and warnings for the caller.
#[derive(Debug, Clone, PartialEq)]
pub struct RootZone {
    /// The partition zone: the recorded one, else the configured one.
    pub zone: Tz,
    /// True when the zone comes from `memlayers.json`.
    pub recorded: bool,
    /// True when this call wrote `memlayers.json` (a new data root): the configured zone is
    /// now the root's, for good (module docs).
    pub created: bool,
    /// Mismatch or unreadable-record warnings (the library does not print).
    pub warnings: Vec<String>,
}

/// Reads (or, when absent, writes) `<root>/memlayers.json` for a root opened with the
/// `configured` zone (module docs). Never fails: problems become warnings.
pub fn resolve(root: &Path, configured: Tz) -> RootZone {
    let path = root.join(ZONE_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => match parse(&text) {
            Ok(zone) => {
                let mut warnings = Vec::new();
                if zone != configured {
                    warnings.push(format!(
                        "this data root's files are dated in {zone} ({ZONE_FILE}); the configured zone \
                         {configured} frames time expressions only, entries keep {zone}'s local dates"
                    ));
                }
                RootZone { zone, recorded: true, created: false, warnings }
            }
            Err(why) => RootZone {
                zone: configured,
                recorded: false,
                created: false,
                warnings: vec![format!("{}: {why}; using the configured zone {configured}", path.display())],
            },
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let body = format!("{}\n", serde_json::json!({ "timezone": configured.name() }));
            match super::atomic_write(&path, body.as_bytes()) {
                Ok(()) => RootZone { zone: configured, recorded: true, created: true, warnings: vec![] },
                Err(e) => RootZone {
                    zone: configured,
                    recorded: false,
                    created: false,
                    warnings: vec![format!("the data root's zone was not recorded: {e}")],
                },
            }
        }
        Err(e) => RootZone {
            zone: configured,
            recorded: false,
            created: false,
            warnings: vec![format!("{}: {e}; using the configured zone {configured}", path.display())],
        },
    }
}

/// Parses the record: a JSON object whose `timezone` is an IANA zone name.
pub fn parse(text: &str) -> Result<Tz, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
    let name = v.get("timezone").and_then(|t| t.as_str()).ok_or("has no \"timezone\" string")?;
    name.parse::<Tz>().map_err(|_| format!("timezone {name:?} is not an IANA zone name"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_then_reads_and_warns_on_mismatch() {
        let dir = tempfile::tempdir().unwrap();
        let z = resolve(dir.path(), chrono_tz::Asia::Shanghai);
        assert_eq!((z.zone, z.recorded, z.created, z.warnings.len()), (chrono_tz::Asia::Shanghai, true, true, 0));
        assert_eq!(std::fs::read_to_string(dir.path().join(ZONE_FILE)).unwrap(), "{\"timezone\":\"Asia/Shanghai\"}\n");
        let z = resolve(dir.path(), chrono_tz::UTC);
        assert_eq!((z.zone, z.created), (chrono_tz::Asia::Shanghai, false));
        assert!(z.warnings[0].contains("dated in Asia/Shanghai") && z.warnings[0].contains("UTC"), "{z:?}");
    }

    #[test]
    fn a_broken_record_is_kept_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(ZONE_FILE), "{\"timezone\": \"Mars/Base\"}").unwrap();
        let z = resolve(dir.path(), chrono_tz::UTC);
        assert_eq!((z.zone, z.recorded), (chrono_tz::UTC, false));
        assert!(z.warnings[0].contains("\"Mars/Base\" is not an IANA zone name"), "{z:?}");
        assert_eq!(std::fs::read_to_string(dir.path().join(ZONE_FILE)).unwrap(), "{\"timezone\": \"Mars/Base\"}");
    }
}

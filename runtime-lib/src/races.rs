//! The race file the scheduler's happens-before race detector writes under
//! `SYNCMUT_RACES_OUT` (`races.c` beside this file; format in runtime-lib/README.md,
//! "Data races"): each race as the two accesses, with thread, access number, kind and
//! the locks held, plus what the detector's bounds left unchecked.

use serde::{Deserialize, Serialize};

/// A lock a thread held at an access.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct HeldLock {
    /// The site of the wrapped call that took it (`None`: not a wrapped call).
    pub site: Option<u32>,
    /// The lock's number in the run, by first acquisition: two accesses holding the
    /// same number held the same lock.
    pub lock: u32,
}

/// One side of a race.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaceAccess {
    /// Thread number (creation order, 0 is `main`).
    pub thread: u32,
    /// The access's number in the catalogue's `accesses`.
    pub access: u32,
    /// A store (else a load).
    pub write: bool,
    /// Locks held at the access (at most 4 named).
    pub locks: Vec<HeldLock>,
}

/// Two accesses to one location, at least one a write, neither ordered before the other
/// by synchronization.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Race {
    /// The access that ran first in the run that found the race.
    pub earlier: RaceAccess,
    /// The access that ran second.
    pub later: RaceAccess,
}

/// A whole race file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RaceFile {
    /// The races found, each distinct pair of accesses once.
    pub races: Vec<Race>,
    /// Distinct pairs past the detector's cap, not listed.
    pub more: u64,
    /// Accesses to locations the full location table could not take (not checked).
    pub untracked: u64,
    /// Why detection stopped before the run ended, if it did.
    pub stopped: Option<String>,
    /// The file ends with `# end` (else the process died while writing it).
    pub complete: bool,
}

impl RaceFile {
    /// What the detector's bounds left unchecked, in words; `None` when nothing.
    pub fn limits(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(why) = &self.stopped {
            parts.push(format!("race detection stopped early ({why})"));
        }
        if self.untracked > 0 {
            parts.push(format!(
                "{} accesses to new locations not checked (location table full)",
                self.untracked
            ));
        }
        if self.more > 0 {
            parts.push(format!("{} more racing pairs not listed", self.more));
        }
        if !self.complete {
            parts.push("the race file was cut short".to_string());
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

fn access(word: &str) -> Result<RaceAccess, String> {
    let bad = || format!("malformed race access {word:?}");
    let mut fields = word.splitn(4, ':');
    let thread = fields.next().and_then(|f| f.parse().ok()).ok_or_else(bad)?;
    let access = fields.next().and_then(|f| f.parse().ok()).ok_or_else(bad)?;
    let write = match fields.next() {
        Some("w") => true,
        Some("r") => false,
        _ => return Err(bad()),
    };
    let locks = match fields.next().ok_or_else(bad)? {
        "-" => Vec::new(),
        list => list
            .split('+')
            .map(|held| {
                let (site, lock) = held.split_once('@').ok_or_else(bad)?;
                let site = if site == "-" {
                    None
                } else {
                    Some(site.parse().map_err(|_| bad())?)
                };
                Ok(HeldLock {
                    site,
                    lock: lock.parse().map_err(|_| bad())?,
                })
            })
            .collect::<Result<_, String>>()?,
    };
    Ok(RaceAccess {
        thread,
        access,
        write,
        locks,
    })
}

/// Parses a race file.
pub fn parse(text: &str) -> Result<RaceFile, String> {
    let mut file = RaceFile::default();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("race ") {
            let (a, b) = rest
                .split_once(' ')
                .ok_or_else(|| format!("malformed race line {line:?}"))?;
            file.races.push(Race {
                earlier: access(a)?,
                later: access(b)?,
            });
        } else if let Some(n) = line.strip_prefix("# more ") {
            file.more = n.parse().map_err(|_| format!("malformed line {line:?}"))?;
        } else if let Some(n) = line.strip_prefix("# untracked ") {
            file.untracked = n.parse().map_err(|_| format!("malformed line {line:?}"))?;
        } else if let Some(why) = line.strip_prefix("# stopped ") {
            file.stopped = Some(why.to_string());
        } else if line == "# end" {
            file.complete = true;
        } else if !line.starts_with('#') && !line.is_empty() {
            return Err(format!("unexpected line {line:?}"));
        }
    }
    Ok(file)
}

/// Reads the race file at `path`; `Ok(None)` when the run wrote none (it ended before
/// the runtime could write it, e.g. killed by the oracle's timeout).
pub fn read(path: &std::path::Path) -> Result<Option<RaceFile>, String> {
    match std::fs::read_to_string(path) {
        // Empty: no run wrote it (a search empties the file before each run).
        Ok(text) if text.is_empty() => Ok(None),
        Ok(text) => parse(&text)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_races_locks_and_limits() {
        let text = "# syncmut-races 1\n# comment\nrace 1:5:w:- 2:4:r:3@1+-@2\n# untracked 7\n# stopped more than 4096 threads\n# end\n";
        let file = parse(text).unwrap();
        assert_eq!(file.races.len(), 1);
        let race = &file.races[0];
        assert_eq!(
            (race.earlier.thread, race.earlier.access, race.earlier.write),
            (1, 5, true)
        );
        assert!(race.earlier.locks.is_empty());
        assert_eq!(
            race.later.locks,
            vec![
                HeldLock {
                    site: Some(3),
                    lock: 1
                },
                HeldLock {
                    site: None,
                    lock: 2
                }
            ]
        );
        assert!(file.complete);
        let limits = file.limits().unwrap();
        assert!(
            limits.contains("stopped early (more than 4096 threads)")
                && limits.contains("7 accesses"),
            "{limits}"
        );
    }

    #[test]
    fn a_clean_file_has_no_limits_and_a_cut_one_says_so() {
        assert_eq!(parse("# syncmut-races 1\n# end\n").unwrap().limits(), None);
        assert!(parse("# syncmut-races 1\n")
            .unwrap()
            .limits()
            .unwrap()
            .contains("cut short"));
        assert!(parse("race 1:x:w:- 2:4:r:-\n").is_err());
    }
}

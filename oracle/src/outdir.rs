//! The run directory (`syncmut.out/` by default): every file syncmut writes, written
//! atomically (temp file + rename), and a lock file while a run is active.
//!
//! ```text
//! syncmut.out/
//!   syncmut.lock          pid of the running syncmut (removed at the end)
//!   mutants.json          the catalogue, written before any run
//!   tests.json            the tests used
//!   baseline.json         per test: usable or set aside (why), sites reached, time
//!   outcomes.json         per mutant: verdict, killing test, per-test results; rewritten
//!                         after every result, so an interrupted run loses nothing finished
//!   report.csv            one row per (mutant, test)
//!   diff/<mutant>.diff    original vs mutant trace for every killed mutant
//!   traces/<test>/…       raw traces (original.jsonl, <mutant>.jsonl)
//! ```

use crate::error::OracleError;
use std::io::Write;
use std::path::{Path, PathBuf};

/// File names inside the run directory.
pub const LOCK: &str = "syncmut.lock";
pub const TESTS: &str = "tests.json";
pub const BASELINE: &str = "baseline.json";
pub const OUTCOMES: &str = "outcomes.json";
pub const REPORT_CSV: &str = "report.csv";
pub const DIFF_DIR: &str = "diff";
pub const TRACE_DIR: &str = "traces";

/// An open run directory, holding its lock until dropped.
pub struct OutDir {
    root: PathBuf,
}

impl OutDir {
    /// Creates the directory if needed and takes its lock. A lock left by a process that
    /// no longer exists is taken over.
    pub fn open(root: &Path) -> Result<OutDir, OracleError> {
        std::fs::create_dir_all(root).map_err(|source| OracleError::Write { path: root.to_path_buf(), source })?;
        let lock = root.join(LOCK);
        loop {
            match std::fs::OpenOptions::new().write(true).create_new(true).open(&lock) {
                Ok(mut file) => {
                    write!(file, "{}", std::process::id()).map_err(|source| OracleError::Write { path: lock.clone(), source })?;
                    return Ok(OutDir { root: root.to_path_buf() });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let pid: u32 = std::fs::read_to_string(&lock).ok().and_then(|t| t.trim().parse().ok()).unwrap_or(0);
                    if pid != 0 && process_alive(pid) {
                        return Err(OracleError::Locked { path: root.to_path_buf(), pid });
                    }
                    // Stale: its owner died (kill -9, power loss). Remove and retry.
                    let _ = std::fs::remove_file(&lock);
                }
                Err(source) => return Err(OracleError::Write { path: lock, source }),
            }
        }
    }

    /// Path of a file inside the directory.
    pub fn path(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.root.join(relative)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Writes a file atomically, creating parent directories.
    pub fn write(&self, relative: impl AsRef<Path>, bytes: &[u8]) -> Result<(), OracleError> {
        let path = self.path(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| OracleError::Write { path: parent.to_path_buf(), source })?;
        }
        syncmut_runtime::atomic::write(&path, bytes).map_err(|source| OracleError::Write { path, source })
    }

    /// Writes a value as pretty JSON, atomically.
    pub fn write_json(&self, relative: impl AsRef<Path>, value: &impl serde::Serialize) -> Result<(), OracleError> {
        let bytes = serde_json::to_vec_pretty(value).expect("plain data serialises");
        self.write(relative, &bytes)
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.root.join(LOCK));
    }
}

fn process_alive(pid: u32) -> bool {
    // SAFETY: signal 0 only checks for existence and permission.
    let r = unsafe { libc::kill(pid as libc::pid_t, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The trace file of the original (`mutant` None) or a mutant on a test, under a
/// schedule when several are explored: `traces/<test>/<who>[@<schedule>].jsonl`.
pub fn trace_file(root: &Path, test: &str, mutant: Option<&str>, schedule: Option<&str>) -> PathBuf {
    let who = mutant.map(file_name).unwrap_or_else(|| "original".to_string());
    let name = match schedule {
        Some(s) => format!("{who}@{}.jsonl", file_name(s)),
        None => format!("{who}.jsonl"),
    };
    root.join(TRACE_DIR).join(test).join(name)
}

/// A mutant id as a file name: `top::t1#1:remove` → `top__t1_1_remove`.
pub fn file_name(id: &str) -> String {
    id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_open_is_refused_and_a_stale_lock_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let first = OutDir::open(dir.path()).unwrap();
        assert!(matches!(OutDir::open(dir.path()), Err(OracleError::Locked { .. })));
        drop(first);
        // A lock of a process that does not exist (pid numbers beyond pid_max).
        std::fs::write(dir.path().join(LOCK), "999999999").unwrap();
        let again = OutDir::open(dir.path()).unwrap();
        let pid: u32 = std::fs::read_to_string(dir.path().join(LOCK)).unwrap().parse().unwrap();
        assert_eq!(pid, std::process::id());
        drop(again);
        assert!(!dir.path().join(LOCK).exists());
    }

    #[test]
    fn mutant_ids_become_safe_file_names() {
        assert_eq!(file_name("top::t1#1:remove"), "top__t1_1_remove");
        assert_eq!(file_name("touch(int)#2:lock-to-trylock"), "touch_int__2_lock-to-trylock");
    }
}

//! The run directory (`syncmut.out/` by default): every file syncmut writes, written
//! atomically (temp file + rename), and a lock while a command works in it.
//!
//! ```text
//! syncmut.out/
//!   .syncmut              marks the directory as syncmut's (written at the first open)
//!   syncmut.lock          pid of the syncmut holding the directory (flock'ed; removed at the end)
//!   mutants.json          the catalogue, written before any run
//!   tests.json            the tests used
//!   settings.json         the schedules the verdicts were obtained under
//!   baseline.json         per test: usable or set aside (why), sites reached, time
//!   outcomes.json         per mutant: verdict, killing test, per-test results; rewritten
//!                         after every result, so an interrupted run loses nothing finished
//!   report.csv            one row per (mutant, test)
//!   diff/<mutant>.diff    original vs mutant trace for every killed mutant
//!   traces/<test>/…       raw traces (original.jsonl, <mutant>.jsonl)
//!   work/                 the private working directories of runs in progress
//!   workdirs/<test>/<mutant>/  what a killing run left in its working directory
//!   programs/<name>/      a run of several programs: each program's own run directory
//! ```
//!
//! `work/` and `workdirs/` hold what designs wrote, symbolic links included: the
//! check for links does not look inside them (syncmut never writes through them), and a
//! `work/` left by an interrupted command is removed at the next open.
//!
//! Opening refuses what would make syncmut write where it must not: a directory that
//! holds files syncmut did not write (a source tree given as `-o` by mistake), and a
//! symbolic link anywhere inside the run directory (a write through it would land
//! outside). Temporary files left by an interrupted command are removed.

use crate::error::OracleError;
use std::io::{Seek, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// File names inside the run directory.
pub const LOCK: &str = "syncmut.lock";
/// Marks a directory as a syncmut run directory.
pub(crate) const MARKER: &str = ".syncmut";
/// The tests the run uses.
pub const TESTS: &str = "tests.json";
/// How the original behaved on each test.
pub const BASELINE: &str = "baseline.json";
/// The settings the verdicts were obtained under (schedules), compared by `--resume`.
pub const SETTINGS: &str = "settings.json";
/// Per-mutant verdicts and the score ([`crate::Outcomes`]).
pub const OUTCOMES: &str = "outcomes.json";
/// The runs finished since outcomes.json was last written, one JSON line each (while a
/// run is active, and after an interruption until `--resume` finishes).
pub const JOURNAL: &str = "runs.jsonl";
/// A shard's place in its split (`run --shard k/n`), read by `merge`.
pub const SHARD: &str = "shard.json";
/// One row per mutant, for spreadsheets.
pub const REPORT_CSV: &str = "report.csv";
/// Per-mutant diffs of the original's and the mutant's observations.
pub const DIFF_DIR: &str = "diff";
/// Kept traces of the runs.
pub const TRACE_DIR: &str = "traces";
/// Where runs make their private working directories.
pub(crate) const WORK_DIR: &str = "work";
/// Where the working directory of a mutant's killing run is kept.
pub const WORKDIRS: &str = "workdirs";
/// A run of several programs: one run directory per program, by its file name.
pub const PROGRAMS: &str = "programs";
/// Written by versions before the marker existed: a directory holding it (or only a
/// lock) is accepted as a run directory too.
const CATALOGUE: &str = "mutants.json";
/// The build's files at the top of a run directory.
const BUILD_FILES: &[&str] = &["design.bc", "metamutant.bc", "original", "metamutant"];

/// Whether writing `path` would replace a result or build file of the run directory
/// `root` or enter one of its subdirectories. The reports rendered from the results
/// (`report.html`, `report.csv`, …) and new files at its top are not: they can be
/// rendered again. Paths are compared after resolving `..` and links of their parent
/// directory.
pub fn holds(root: &Path, path: &Path) -> bool {
    let (Ok(root), Some(name)) = (std::fs::canonicalize(root), path.file_name()) else {
        return false;
    };
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Ok(parent) = std::fs::canonicalize(parent) else {
        return false;
    };
    if parent == root {
        let name = name.to_string_lossy();
        return [
            LOCK, MARKER, TESTS, BASELINE, SETTINGS, OUTCOMES, JOURNAL, SHARD, CATALOGUE, DIFF_DIR,
            TRACE_DIR, WORK_DIR, WORKDIRS, PROGRAMS,
        ]
        .iter()
        .chain(BUILD_FILES)
        .any(|n| *n == name)
            || name.starts_with(TEMP_PREFIX)
            || name == "gen"
            || name == "build";
    }
    parent.starts_with(&root)
}

/// The prefix of the temporary files of atomic writes (the `tempfile` crate's default).
const TEMP_PREFIX: &str = ".tmp";

const MARKER_TEXT: &[u8] =
    b"This directory is a syncmut run directory: syncmut writes and replaces the files in it.\n";

/// The run directory this process holds, for an interruption handler; locked while a
/// directory is being opened, so a handler never sees a lock without its directory.
static OPEN: std::sync::Mutex<Option<PathBuf>> = std::sync::Mutex::new(None);

/// For a process about to exit on a signal: the run directory it holds the lock of, if
/// any (waiting for an open in progress to finish), and no other directory may be
/// opened from now on, so none can be locked behind the handler's back.
pub fn hold_for_exit() -> Option<PathBuf> {
    let registry = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    let dir = registry.clone();
    std::mem::forget(registry);
    dir
}

/// An open run directory, holding its lock until dropped.
pub struct OutDir {
    root: PathBuf,
    /// Holds the `flock` for as long as the directory is open.
    _lock: std::fs::File,
}

impl OutDir {
    /// Creates the directory if needed, takes its lock and marks it as syncmut's. A lock
    /// is an advisory `flock` that the kernel releases when its holder dies, so a lock
    /// file left by a killed syncmut (or holding a pid reused by another program) never
    /// blocks; a live holder is refused.
    pub fn open(root: &Path) -> Result<OutDir, OracleError> {
        if root.to_str().is_none() {
            return Err(OracleError::NonUtf8Path {
                path: root.to_path_buf(),
            });
        }
        refuse_foreign(root)?;
        std::fs::create_dir_all(root).map_err(|source| OracleError::Write {
            path: root.to_path_buf(),
            source,
        })?;
        let mut registry = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        let lock = take_lock(root)?;
        *registry = Some(root.to_path_buf());
        drop(registry);
        let out = OutDir {
            root: root.to_path_buf(),
            _lock: lock,
        };
        sweep(root, true)?;
        let _ = std::fs::remove_dir_all(root.join(WORK_DIR));
        if !root.join(MARKER).exists() {
            out.write(MARKER, MARKER_TEXT)?;
        }
        Ok(out)
    }

    /// Path of a file inside the directory.
    pub fn path(&self, relative: impl AsRef<Path>) -> PathBuf {
        self.root.join(relative)
    }

    /// The run directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Writes a file atomically, creating parent directories.
    pub fn write(&self, relative: impl AsRef<Path>, bytes: &[u8]) -> Result<(), OracleError> {
        let path = self.path(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| OracleError::Write {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        syncmut_runtime::atomic::write(&path, bytes)
            .map_err(|source| OracleError::Write { path, source })
    }

    /// Writes a value as pretty JSON, atomically.
    pub fn write_json(
        &self,
        relative: impl AsRef<Path>,
        value: &impl serde::Serialize,
    ) -> Result<(), OracleError> {
        let bytes = serde_json::to_vec_pretty(value).expect("plain data serialises");
        self.write(relative, &bytes)
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        let mut registry = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        let _ = std::fs::remove_file(self.root.join(LOCK));
        *registry = None;
    }
}

/// A directory that exists, is not empty and was not written by syncmut is refused:
/// syncmut replaces files by name, and would overwrite the user's own.
fn refuse_foreign(root: &Path) -> Result<(), OracleError> {
    let Ok(mut entries) = std::fs::read_dir(root) else {
        return Ok(());
    };
    let empty = entries.next().is_none();
    if empty
        || [MARKER, CATALOGUE, LOCK]
            .iter()
            .any(|name| root.join(name).is_file())
    {
        return Ok(());
    }
    Err(OracleError::NotARunDirectory {
        path: root.to_path_buf(),
    })
}

/// Takes the directory's lock: creates (or opens) the lock file, `flock`s it without
/// waiting, checks the file is still the one at the path (a holder that was finishing
/// may have removed it in between), and writes syncmut's pid into it for the message
/// another syncmut shows.
fn take_lock(root: &Path) -> Result<std::fs::File, OracleError> {
    let path = root.join(LOCK);
    let write_err = |source| OracleError::Write {
        path: path.clone(),
        source,
    };
    loop {
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(write_err)?;
        // SAFETY: flock on a descriptor this function owns; no memory is involved.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let pid = std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| t.trim().parse().ok())
                .unwrap_or(0);
            return Err(OracleError::Locked {
                path: root.to_path_buf(),
                pid,
            });
        }
        let held = file.metadata().map_err(write_err)?;
        match std::fs::metadata(&path) {
            Ok(now) if now.ino() == held.ino() && now.dev() == held.dev() => {
                file.set_len(0).map_err(write_err)?;
                file.rewind().map_err(write_err)?;
                write!(file, "{}", std::process::id()).map_err(write_err)?;
                return Ok(file);
            }
            _ => continue,
        }
    }
}

/// Removes the temporary files of atomic writes that an interrupted syncmut left in
/// the run directory. Only called with the lock held, so no live writer owns them.
pub fn remove_temporaries(root: &Path) {
    let _ = sweep(root, false);
}

/// One pass over the run directory: removes stale temporaries and, with `refuse_links`,
/// refuses a symbolic link anywhere inside, naming it: syncmut's writes (and removals)
/// would follow it to its target, outside the directory.
fn sweep(root: &Path, refuse_links: bool) -> Result<(), OracleError> {
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|source| OracleError::Read {
            path: dir.clone(),
            source,
        })?;
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() && refuse_links {
                return Err(OracleError::SymlinkInRunDirectory { path: entry.path() });
            }
            // A program's run directory (`programs/<name>/`) holds the design's own
            // directories too; it is swept itself when its run opens it.
            let run_dir = dir == root || dir.parent() == Some(root.join(PROGRAMS).as_path());
            let designs_own =
                run_dir && (entry.file_name() == WORK_DIR || entry.file_name() == WORKDIRS);
            if kind.is_dir() && !designs_own {
                todo.push(entry.path());
            } else if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
    Ok(())
}

/// Where the working directory of a mutant's killing run on a test is kept.
pub(crate) fn kept_workdir(root: &Path, test: &str, mutant: &str) -> PathBuf {
    root.join(WORKDIRS).join(test).join(file_name(mutant))
}

/// The trace file of the original (`mutant` None) or a mutant on a test, under a
/// schedule when several are explored: `traces/<test>/<who>[@<schedule>].jsonl`.
pub fn trace_file(
    root: &Path,
    test: &str,
    mutant: Option<&str>,
    schedule: Option<&str>,
) -> PathBuf {
    let who = mutant
        .map(file_name)
        .unwrap_or_else(|| "original".to_string());
    let name = match schedule {
        Some(s) => format!("{who}@{}.jsonl", file_name(s)),
        None => format!("{who}.jsonl"),
    };
    root.join(TRACE_DIR).join(test).join(name)
}

/// Where the design's stderr of a kept run is saved: beside its trace, `.stderr`.
pub fn stderr_file(trace_file: &Path) -> PathBuf {
    trace_file.with_extension("stderr")
}

/// Longest name [`file_name`] gives: a trace's name joins two of them
/// (`<mutant>@<schedule>.jsonl`) and must stay under the 255 bytes a file name may have.
pub(crate) const MAX_FILE_NAME: usize = 100;

/// A mutant id as a file name: `top::t1#1:remove` → `top__t1_1_remove`. An id longer
/// than `MAX_FILE_NAME` (a 300-character function name) keeps its start and ends in
/// 16 hex digits of its SHA-256, so two long ids with the same start stay apart.
pub fn file_name(id: &str) -> String {
    let plain: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if plain.len() <= MAX_FILE_NAME {
        return plain;
    }
    use sha2::Digest;
    let digest = format!("{:x}", sha2::Sha256::digest(id.as_bytes()));
    format!("{}-{}", &plain[..MAX_FILE_NAME - 17], &digest[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_open_is_refused_and_a_dead_holders_lock_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let first = OutDir::open(dir.path()).unwrap();
        assert!(
            matches!(OutDir::open(dir.path()), Err(OracleError::Locked { pid, .. }) if pid == std::process::id())
        );
        drop(first);
        assert!(!dir.path().join(LOCK).exists());
        // A lock file naming a live process that holds no lock (pid 1, as in a container
        // after a run as pid 1, or any reused pid) does not block.
        std::fs::write(dir.path().join(LOCK), "1").unwrap();
        let again = OutDir::open(dir.path()).unwrap();
        let pid: u32 = std::fs::read_to_string(dir.path().join(LOCK))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(pid, std::process::id());
        drop(again);
    }

    #[test]
    fn a_directory_of_someone_elses_files_is_refused_and_a_run_directory_accepted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("design.c"), "int main(void) { return 0; }").unwrap();
        assert!(matches!(
            OutDir::open(dir.path()),
            Err(OracleError::NotARunDirectory { .. })
        ));
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "nothing written into a refused directory"
        );

        let fresh = dir.path().join("new");
        drop(OutDir::open(&fresh).unwrap());
        std::fs::write(fresh.join("report.html"), "old report").unwrap();
        drop(OutDir::open(&fresh).expect("a directory syncmut marked is its own"));

        let old_run = dir.path().join("old");
        std::fs::create_dir(&old_run).unwrap();
        std::fs::write(old_run.join(CATALOGUE), "{}").unwrap();
        drop(OutDir::open(&old_run).expect("a run directory of a version without the marker"));
    }

    #[test]
    fn symbolic_links_inside_are_refused_naming_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        drop(OutDir::open(&run).unwrap());
        std::fs::create_dir_all(run.join("gen")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("victim"), run.join("gen/analysis.bc"))
            .unwrap();
        match OutDir::open(&run) {
            Err(OracleError::SymlinkInRunDirectory { path }) => {
                assert!(path.ends_with("gen/analysis.bc"))
            }
            other => panic!("expected a refusal, got {:?}", other.err()),
        }
        std::fs::remove_file(run.join("gen/analysis.bc")).unwrap();
        std::os::unix::fs::symlink(outside.path(), run.join("traces")).unwrap();
        assert!(matches!(
            OutDir::open(&run),
            Err(OracleError::SymlinkInRunDirectory { .. })
        ));
    }

    #[test]
    fn a_programs_workdirs_may_hold_links_but_nothing_else_below_it() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let run = dir.path().join("run");
        drop(OutDir::open(&run).unwrap());
        let program = run.join(PROGRAMS).join("waiter");
        std::fs::create_dir_all(program.join("workdirs/t")).unwrap();
        // What a design left in its kept working directory, as at the top.
        std::os::unix::fs::symlink(outside.path(), program.join("workdirs/t/link")).unwrap();
        drop(OutDir::open(&run).expect("a program's workdirs/ are not looked into"));
        std::fs::create_dir_all(program.join("diff")).unwrap();
        std::os::unix::fs::symlink(outside.path(), program.join("diff/x.diff")).unwrap();
        assert!(matches!(
            OutDir::open(&run),
            Err(OracleError::SymlinkInRunDirectory { .. })
        ));
    }

    #[test]
    fn temporaries_of_an_interrupted_write_are_removed_at_open() {
        let dir = tempfile::tempdir().unwrap();
        drop(OutDir::open(dir.path()).unwrap());
        std::fs::create_dir_all(dir.path().join("traces/t1")).unwrap();
        std::fs::write(dir.path().join(".tmpAbC123"), "half").unwrap();
        std::fs::write(dir.path().join("traces/t1/.tmpXyZ"), "half").unwrap();
        std::fs::write(dir.path().join("traces/t1/original.jsonl"), "kept").unwrap();
        drop(OutDir::open(dir.path()).unwrap());
        assert!(!dir.path().join(".tmpAbC123").exists());
        assert!(!dir.path().join("traces/t1/.tmpXyZ").exists());
        assert!(dir.path().join("traces/t1/original.jsonl").exists());
    }

    #[test]
    fn mutant_ids_become_safe_file_names() {
        assert_eq!(file_name("top::t1#1:remove"), "top__t1_1_remove");
        assert_eq!(
            file_name("touch(int)#2:lock-to-trylock"),
            "touch_int__2_lock-to-trylock"
        );
        // Long ids: bounded, and apart when they differ only past the cut.
        let long = |end: &str| file_name(&format!("{}#1:{end}", "f".repeat(300)));
        let (a, b) = (long("remove"), long("swap"));
        assert_eq!(a.len(), MAX_FILE_NAME);
        assert_ne!(a, b);
        assert!(a.starts_with("fff"), "{a}");
    }
}

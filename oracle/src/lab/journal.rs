//! Finished runs kept on disk between two writes of outcomes.json. Rewriting (and
//! syncing) the whole outcomes.json and report.csv after each run cost more than the runs
//! on designs with thousands of mutants (a 1,000-site design: 4,000 writes of 1.7 MB);
//! they are now rewritten at most every [`SAVE_EVERY`] and at the end, and each run is
//! appended to `runs.jsonl` as it finishes, so an interruption still loses nothing
//! finished: `--resume` reads both.

use crate::error::OracleError;
use crate::outcome::Run;
use crate::outdir::{self, OutDir};
use std::io::BufRead;
use std::time::{Duration, Instant};

/// The longest outcomes.json lags behind the runs finished (the journal never does).
pub(super) const SAVE_EVERY: Duration = Duration::from_secs(1);

/// The journal of one oracle run, and when outcomes.json was last written.
pub(super) struct Journal<'a> {
    out: &'a OutDir,
    saved: Instant,
}

impl<'a> Journal<'a> {
    /// Starts with an empty journal: call it once outcomes.json holds the runs of an
    /// earlier one.
    pub(super) fn start(out: &'a OutDir) -> Journal<'a> {
        let _ = std::fs::remove_file(out.path(outdir::JOURNAL));
        Journal {
            out,
            saved: Instant::now(),
        }
    }

    /// Appends a finished run.
    pub(super) fn record(&self, run: &Run) -> Result<(), OracleError> {
        let path = self.out.path(outdir::JOURNAL);
        let mut line = serde_json::to_vec(run).map_err(|e| OracleError::Write {
            path: path.clone(),
            source: e.into(),
        })?;
        line.push(b'\n');
        syncmut_runtime::atomic::append(&path, &line)
            .map_err(|source| OracleError::Write { path, source })
    }

    /// Whether outcomes.json is old enough to be written again; if so, from now on it
    /// counts as written.
    pub(super) fn save_due(&mut self) -> bool {
        let due = self.saved.elapsed() >= SAVE_EVERY;
        if due {
            self.saved = Instant::now();
        }
        due
    }

    /// outcomes.json holds every run: the journal is no longer needed.
    pub(super) fn close(self) {
        let _ = std::fs::remove_file(self.out.path(outdir::JOURNAL));
    }
}

/// The runs in a journal left by an interrupted run, in the order they finished (a line
/// cut by a crash, or spoiled, is left out; the others are kept). Read a line at a time:
/// a long run's journal holds a line per execution.
pub(super) fn read(out: &OutDir) -> Vec<Run> {
    let Ok(file) = std::fs::File::open(out.path(outdir::JOURNAL)) else {
        return Vec::new();
    };
    std::io::BufReader::new(file)
        .split(b'\n')
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_slice(&line).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Run;

    fn run(mutant: &str) -> Run {
        serde_json::from_value(serde_json::json!({
            "mutant": mutant, "test": "t", "verdict": "survived", "elapsed_ms": 0
        }))
        .unwrap()
    }

    #[test]
    fn runs_recorded_are_read_back_and_a_cut_or_spoiled_line_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutDir::open(dir.path()).unwrap();
        let journal = Journal::start(&out);
        journal.record(&run("a#1:remove")).unwrap();
        // A spoiled line (not UTF-8) costs only itself, a cut one likewise.
        syncmut_runtime::atomic::append(&out.path(outdir::JOURNAL), b"\xff\xfe\n").unwrap();
        journal.record(&run("b#1:remove")).unwrap();
        syncmut_runtime::atomic::append(&out.path(outdir::JOURNAL), b"{\"mutant\": \"c").unwrap();
        let back: Vec<String> = read(&out).into_iter().map(|r| r.mutant).collect();
        assert_eq!(back, ["a#1:remove", "b#1:remove"]);
        // `--resume` keeps them although outcomes.json was never written.
        let resumed: Vec<String> = crate::lab::saved_runs(&out)
            .unwrap()
            .into_iter()
            .map(|r| r.mutant)
            .collect();
        assert_eq!(resumed, ["a#1:remove", "b#1:remove"]);
        journal.close();
        assert!(read(&out).is_empty());
    }
}

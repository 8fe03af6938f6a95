//! Outcomes as saved in `outcomes.json`: per test baseline, per (mutant, test) run, per
//! mutant verdict, and the score. Reports are rendered from this data alone.

use crate::verdict::Verdict;
use serde::{Deserialize, Serialize};
use syncmut_mutator::Catalogue;
use syncmut_runner::exec::Status;

pub use crate::lost_notifications::{thousands, LostNotifications};

/// Format version of `outcomes.json` and `baseline.json`.
pub(crate) const FORMAT_VERSION: u32 = 1;

/// How the original behaved on one test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    /// The test's name.
    pub test: String,
    /// The test's command-line arguments.
    pub args: Vec<String>,
    /// Set aside tests are not used to judge mutants.
    pub usable: bool,
    /// Why the test was set aside, when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set_aside_because: Option<String>,
    /// How the original's run ended.
    pub status: Status,
    /// Wall-clock time of the run, in milliseconds.
    pub elapsed_ms: u64,
    /// Sites the original reaches on this test.
    pub reached: Vec<u32>,
    /// The original itself deadlocks on this test (a property of the design, reported).
    pub deadlock: bool,
    /// Threads left waiting at the end: (thread, site).
    pub pending: Vec<(String, Option<u32>)>,
    /// Immediate notifications of the original that no process waited for, counted per
    /// site (an older `baseline.json` lists one site per notification; it reads the same).
    pub lost_notifications: LostNotifications,
    /// Observations that differed between the original's runs in two virtual worlds
    /// (another clock start and random stream), masked out of every comparison on this
    /// test: `stdout line 2`, `time of p.reader at wait(e) @ x.cpp:18`, …
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nondeterministic: Vec<String>,
    /// `run --races`: the original's own data races on this test (over all its runs),
    /// one per pair of source locations. They never kill a mutant.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub races: Vec<crate::races::SourceRace>,
    /// What the race detector left unchecked in the original's runs; when set, no mutant
    /// is killed by a race on this test (the original might have had it unseen).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub races_unchecked: Option<String>,
    /// A usable test whose original fails: what may explain it (the design's directory
    /// has data files the run did not get). A set-aside test says it in its reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// When the original does not exit 0: the first lines of what it wrote to stderr
    /// (its own error message, say `Error: (E101) …`), at most `STDERR_HEAD_LINES`
    /// lines of `STDERR_HEAD_CHARS` characters each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_head: Option<String>,
    /// The digest of what the original showed on its reference run
    /// (`Observation::digest`); `merge` compares shards' by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<String>,
    /// A flaky test: schedules under which the original fails while it passes under the
    /// first one. The test is kept for the others and no mutant runs these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flaky: Vec<FlakySchedule>,
}

/// A schedule under which the original fails a test it passes under the first schedule:
/// a finding about the test (it assumes an order the design does not guarantee), which
/// `SYNCMUT_SCHEDULE=<schedule>` replays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlakySchedule {
    /// The `SYNCMUT_SCHEDULE` value (`pct:3:3:18`, `random:2`).
    pub schedule: String,
    /// How the original failed, in words.
    pub failure: String,
}

/// How much of a failing original's stderr a baseline keeps and shows.
pub(crate) const STDERR_HEAD_LINES: usize = 3;
pub(crate) const STDERR_HEAD_CHARS: usize = 200;

impl Baseline {
    /// The original timed out while one thread was running design code (in no wrapped
    /// call) and another was left waiting: at sync level the runner keeps the one turn
    /// until its next synchronization call, so a busy-wait on plain memory never lets the
    /// thread it waits for run.
    pub(crate) fn spins_outside_sync(&self) -> bool {
        self.status == Status::TimedOut
            && self.pending.len() >= 2
            && self.pending.iter().any(|(_, site)| site.is_none())
    }
}

/// One mutant on one test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    /// The mutant's id.
    pub mutant: String,
    /// The test's name.
    pub test: String,
    /// What the run showed about the mutant.
    pub verdict: Verdict,
    /// What told the mutant apart, or why there is no verdict, in words.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Wall-clock time of the pair's runs, in milliseconds.
    pub elapsed_ms: u64,
    /// The schedule (`random:<seed>`) under which the kill was first seen, when several
    /// were explored; `syncmut` replays it from here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// Schedules that killed the mutant, and schedules explored (when more than one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kills: Option<usize>,
    /// Schedules explored (with `kills`, when more than one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedules: Option<usize>,
    /// dfs: the searches of the original and of the mutant both covered the whole
    /// bounded space, so `kills` of `schedules` is exact there, not a sample.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exhaustive: bool,
    /// Runs whose observation differed from every run of the original tried, but only
    /// past the point where the original could no longer follow their interleaving, and
    /// that the original's search could not decide: not claimed as kills.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unclaimed: usize,
    /// Program executions this pair cost: the mutant's runs, the original following
    /// them, the original's bounded search when this pair made it (absent in results
    /// saved before it was counted).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub executions: usize,
    /// Of `executions`, the original's bounded searches that this pair made: made once
    /// per test and shared by every mutant, they cost what the tests are, not what the
    /// mutants are.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub search_runs: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One mutant over the whole suite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MutantOutcome {
    /// The mutant's id.
    pub mutant: String,
    pub(crate) operator: String,
    pub(crate) description: String,
    /// Source file of its first site.
    pub file: String,
    /// Source line of its first site.
    pub line: u32,
    /// The verdict over the whole suite.
    pub verdict: Verdict,
    /// The first test (in suite order) that killed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub killed_by: Option<String>,
    /// Why the verdict, in words.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Unclaimed runs over all its tests (see [`Run::unclaimed`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unclaimed: usize,
    /// Its run on each test, in suite order.
    pub runs: Vec<Run>,
}

/// Counts per verdict and the mutation score.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Score {
    /// Mutants in the results.
    pub mutants: usize,
    /// Mutants with a killed-by verdict.
    pub killed: usize,
    pub(crate) survived: usize,
    /// Shown identical to the original on every schedule of an exhaustive dfs search
    /// (`equivalent-exhaustive`); absent in results saved before it existed.
    #[serde(default)]
    pub equivalent: usize,
    pub(crate) not_reached: usize,
    pub(crate) errors: usize,
    /// Mutation coverage: killed / (all mutants − equivalent ones), in percent: how much
    /// of the injected synchronization faults that can be noticed at all the tests notice.
    pub percent: f64,
    /// Program executions over every (mutant, test) pair run (see [`Run::executions`]);
    /// the baseline's runs of the original are not in it.
    #[serde(default)]
    pub executions: usize,
    /// `executions` / `mutants`: what a mutant costs on average.
    #[serde(default)]
    pub runs_per_mutant: f64,
    /// Of `executions`, the original's bounded searches ([`Run::search_runs`]).
    #[serde(default)]
    pub search_runs: usize,
}

/// The whole saved result of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcomes {
    pub(crate) format_version: u32,
    /// All mutants in catalogue order; a mutant whose runs are not all done yet has
    /// the verdict of what is known so far and `complete = false`.
    pub mutants: Vec<MutantOutcome>,
    /// Every run of every mutant is done.
    pub complete: bool,
    /// Counts per verdict and the mutation score.
    pub score: Score,
}

impl Outcomes {
    /// Summarises per-run results into per-mutant verdicts, in catalogue order.
    /// `expected_runs(mutant)` is the number of tests the mutant is run on.
    pub fn summarise(
        catalogue: &Catalogue,
        runs: &[Run],
        expected_runs: impl Fn(&str) -> usize,
    ) -> Outcomes {
        let mut complete = true;
        let mutants: Vec<MutantOutcome> = catalogue
            .mutants
            .iter()
            .map(|m| {
                let mine: Vec<Run> = runs.iter().filter(|r| r.mutant == m.id).cloned().collect();
                complete &= mine.len() == expected_runs(&m.id);
                let killer = mine.iter().find(|r| r.verdict.is_killed());
                let (verdict, killed_by, reason) = if let Some(k) = killer {
                    (k.verdict, Some(k.test.clone()), k.reason.clone())
                } else if let Some(e) = mine.iter().find(|r| r.verdict == Verdict::Error) {
                    (Verdict::Error, None, e.reason.clone())
                } else if !mine.is_empty() && mine.iter().all(|r| r.verdict == Verdict::EquivalentExhaustive) {
                    let reason = match mine.as_slice() {
                        [one] => one.reason.clone(),
                        all => format!(
                            "identical to the original on every schedule of an exhaustive search on each of {} tests ({})",
                            all.len(),
                            all.iter().map(|r| r.test.as_str()).collect::<Vec<_>>().join(", ")
                        ),
                    };
                    (Verdict::EquivalentExhaustive, None, reason)
                } else if mine.iter().any(|r| matches!(r.verdict, Verdict::Survived | Verdict::EquivalentExhaustive)) {
                    let tests: Vec<&str> = mine.iter().map(|r| r.test.as_str()).collect();
                    // Unclaimed runs did differ: the tests may tell, the oracle cannot prove it.
                    let told = match mine.iter().any(|r| r.unclaimed > 0) {
                        false => "output and observable synchronization identical to the original on each",
                        true => "a difference from the original was seen but not proven (each test's reason says why), so it is not claimed as a kill",
                    };
                    let mut reason = format!(
                        "reached by {} ({}); {told}",
                        if tests.len() == 1 { "1 test".to_string() } else { format!("{} tests", tests.len()) },
                        tests.join(", ")
                    );
                    // What each test tried (its schedules), as its run says.
                    for run in mine.iter().filter(|r| r.verdict == Verdict::Survived && !r.reason.is_empty()) {
                        reason.push_str(&format!("; {}: {}", run.test, run.reason));
                    }
                    (Verdict::Survived, None, reason)
                } else {
                    (Verdict::NotReached, None, "no usable test reaches this call".to_string())
                };
                MutantOutcome {
                    mutant: m.id.clone(),
                    operator: m.operator.slug().to_string(),
                    description: m.description.clone(),
                    file: m.file.clone(),
                    line: m.line,
                    verdict,
                    killed_by,
                    reason,
                    unclaimed: mine.iter().map(|r| r.unclaimed).sum(),
                    runs: mine,
                }
            })
            .collect();
        let count = |f: fn(Verdict) -> bool| mutants.iter().filter(|m| f(m.verdict)).count();
        let killed = count(Verdict::is_killed);
        let equivalent = count(|v| v == Verdict::EquivalentExhaustive);
        let judged = mutants.len() - equivalent;
        let executions: usize = runs.iter().map(|r| r.executions).sum();
        let score = Score {
            executions,
            search_runs: runs.iter().map(|r| r.search_runs).sum(),
            runs_per_mutant: match mutants.len() {
                0 => 0.0,
                n => executions as f64 / n as f64,
            },
            mutants: mutants.len(),
            killed,
            survived: count(|v| v == Verdict::Survived),
            equivalent,
            not_reached: count(|v| v == Verdict::NotReached),
            errors: count(|v| v == Verdict::Error),
            percent: if judged == 0 {
                0.0
            } else {
                100.0 * killed as f64 / judged as f64
            },
        };
        Outcomes {
            format_version: FORMAT_VERSION,
            mutants,
            complete,
            score,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_notifications_are_counted_and_old_lists_read_the_same() {
        let lost = LostNotifications::count(&[4, 7, 4, 4, 9]);
        assert_eq!(
            lost,
            LostNotifications {
                total: 5,
                sites: vec![(4, 3), (7, 1), (9, 1)]
            }
        );
        assert_eq!(
            lost.summary(&|s| format!("site {s}")),
            "5 notifies with no waiter, 3 sites: site 4 (3), site 7 (1), site 9 (1)"
        );
        let old: LostNotifications = serde_json::from_str("[4, 7, 4, 4, 9]").unwrap();
        assert_eq!(old, lost);
        let saved: LostNotifications =
            serde_json::from_str(&serde_json::to_string(&lost).unwrap()).unwrap();
        assert_eq!(saved, lost);
        assert_eq!(thousands(169_401), "169,401");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }
}

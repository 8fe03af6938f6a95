//! The original's bounded searches that decide a mutant run the original could not
//! follow (or, for a mutant with scheduling points of its own, could not follow
//! faithfully): every schedule of the original on the test within a preemption bound,
//! with no reduction, shared by every mutant, at most `RunSettings::search_runs` runs.

use super::baseline::{search_original, Searching};
use crate::mask::Mask;
use crate::observation::Observation;
use crate::schedules::{Schedules, Strategy};
use std::sync::OnceLock;
use syncmut_mutator::metamutant::Build;
use syncmut_runner::exec::{Execution, Limits};
use syncmut_runner::test_case::TestCase;

/// The original's runs over every schedule within a preemption bound: what decides a
/// mutant run the original could not follow to its end.
#[derive(Debug, Clone)]
pub(super) struct BoundedSearch {
    /// What each run showed, nothing hidden, the baseline's mask applied.
    pub(super) observations: Vec<Observation>,
    /// The search covered every schedule within the bound (with no reduction, unless the
    /// user's own dfs search, reused here, asked for `--por sleep`).
    pub(super) exhausted: bool,
    pub(super) preemptions: u32,
}

/// The search covers every schedule with as many preemptions as the run it decides had,
/// up to this many (a run with more is not decided).
pub(super) const FOLLOW_CHECK_PREEMPTIONS: u32 = 2;
/// The search's runs by default (`run --search-runs`): a few seconds per test and bound.
/// Most runs it decides are the original's, found early; a kill it cannot decide (it
/// neither shows the mutant's observation nor covers its bound) is not claimed. Small
/// designs are covered by more: a three-thread example with a few critical sections
/// needs 8,000 to 19,000 runs at 2 preemptions.
pub const SEARCH_RUNS: usize = 600;

/// The original's bounded searches on one test, by preemption bound (0 to
/// [`FOLLOW_CHECK_PREEMPTIONS`]), each made the first time a mutant's run needs it and
/// shared by every mutant.
pub(super) type SharedSearches = Vec<OnceLock<Result<BoundedSearch, String>>>;

/// One empty cell per bound.
pub(super) fn shared_searches() -> SharedSearches {
    (0..=FOLLOW_CHECK_PREEMPTIONS)
        .map(|_| OnceLock::new())
        .collect()
}

/// The original's search of every schedule with at most `preemptions` preemptions on a
/// test, at most `budget` runs, for runs it could not follow: with the test's input
/// values, as the mutant's listed runs had them.
pub(super) fn search_bounded(
    build: &Build,
    test: &TestCase,
    mask: &Mask,
    limits: &Limits,
    preemptions: u32,
    budget: usize,
) -> Result<BoundedSearch, String> {
    let (runs, exhausted) = search_bounded_runs(build, test, mask, limits, preemptions, budget)?;
    Ok(BoundedSearch {
        observations: runs.into_iter().map(|(_, o)| o).collect(),
        exhausted,
        preemptions,
    })
}

/// [`search_bounded`]'s runs, each with its execution, and whether it exhausted the
/// bound.
#[allow(clippy::type_complexity)]
pub(super) fn search_bounded_runs(
    build: &Build,
    test: &TestCase,
    mask: &Mask,
    limits: &Limits,
    preemptions: u32,
    budget: usize,
) -> Result<(Vec<(Execution, Observation)>, bool), String> {
    let work =
        tempfile::tempdir().map_err(|e| format!("{}: {e}", std::env::temp_dir().display()))?;
    // Every schedule: a reduced search could leave out the schedule that shows the
    // mutant's observation, and the kill would be false.
    let strategy = Strategy::Dfs {
        preemptions,
        por: crate::dpor::Por::None,
    };
    let schedules = Schedules { strategy, budget };
    let (runs, exhausted, failure) = search_original(
        build,
        test,
        schedules,
        mask,
        limits,
        work.path(),
        Searching::FollowCheck,
    )?;
    if let Some(failure) = failure {
        return Err(format!("the original's search stopped: {failure}"));
    }
    Ok((runs, exhausted))
}

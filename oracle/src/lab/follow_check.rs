//! The original's bounded searches that decide a mutant run the original could not
//! follow (or, for a mutant with scheduling points of its own, could not follow
//! faithfully): every schedule of the original on the test within a preemption bound,
//! with no reduction, shared by every mutant, at most `RunSettings::search_runs` runs.
//!
//! Only a search that covers its bound proves a kill; one that cannot (its bounded space
//! outnumbers its budget) could still refute one by showing the mutant's observation,
//! but on real designs almost never does, and it costs its whole budget for each test.
//! So a search that decides a mutant run takes its schedules level by level
//! (`dpor/levels.rs`) and stops as soon as it knows it cannot cover its bound
//! (usually after a few runs), and the survivor's reason says how many schedules that
//! bound has at least.
//! The search a run with real threads is compared with runs its whole budget: there
//! every run of the original is evidence against a false kill.

use super::baseline::{search_original, OriginalSearch, Searching};
use crate::mask::Mask;
use crate::observation::Observation;
use crate::schedules::{Schedules, Strategy};
use std::sync::OnceLock;
use syncmut_mutator::metamutant::Build;
use syncmut_runner::exec::Limits;
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
    /// It stopped early ([`Extent::WhileCoverable`]): its bounded space has at least
    /// this many schedules, more than its budget.
    pub(super) schedules_at_least: Option<usize>,
}

/// How much of its budget a search of the original runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Extent {
    /// All of it: its runs are the original's behaviour that a run with real threads, or
    /// the original build, is compared with.
    Whole,
    /// Only while it can still cover its bound: it decides a mutant run's difference,
    /// which only a covered bound proves a kill by.
    WhileCoverable,
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

/// The original's bounded searches on one test, each made the first time a mutant's run
/// needs it and shared by every mutant: at [`deciding`]`(bound)` for each preemption
/// bound (0 to [`FOLLOW_CHECK_PREEMPTIONS`]) the ones that decide a difference
/// ([`Extent::WhileCoverable`]), at [`WHOLE`] the one within
/// [`FOLLOW_CHECK_PREEMPTIONS`] that runs its whole budget (made only when the deciding
/// one within that bound, if made, was cut short: otherwise the two are the same runs).
pub(super) type SharedSearches = Vec<OnceLock<Result<BoundedSearch, String>>>;

/// Where in [`SharedSearches`] the search that runs its whole budget is.
pub(super) const WHOLE: usize = FOLLOW_CHECK_PREEMPTIONS as usize + 1;

/// Where in [`SharedSearches`] the deciding search within `bound` preemptions is.
pub(super) fn deciding(bound: u32) -> usize {
    bound as usize
}

/// One empty cell per search.
pub(super) fn shared_searches() -> SharedSearches {
    (0..=WHOLE).map(|_| OnceLock::new()).collect()
}

/// Which search of the original to make: every schedule with at most `preemptions`
/// preemptions, at most `budget` runs, to the `extent` given.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bounds {
    pub(super) preemptions: u32,
    pub(super) budget: usize,
    pub(super) extent: Extent,
}

/// Told the runs a search of the original has made so far, after each of them: the
/// progress of a search that can take minutes on a slow design.
pub(super) type Ticker<'t> = &'t dyn Fn(usize);

/// The original's search within `bounds` on a test, for runs it could not follow: with
/// the test's input values, as the mutant's listed runs had them.
pub(super) fn search_bounded(
    build: &Build,
    test: &TestCase,
    mask: &Mask,
    limits: &Limits,
    bounds: Bounds,
    ticker: Ticker,
) -> Result<BoundedSearch, String> {
    let search = search_bounded_runs(build, test, mask, limits, bounds, ticker)?;
    Ok(BoundedSearch {
        observations: search.runs.into_iter().map(|(_, o)| o).collect(),
        exhausted: search.exhausted,
        preemptions: bounds.preemptions,
        schedules_at_least: search.schedules_at_least,
    })
}

/// [`search_bounded`]'s runs, each with its execution, and whether it exhausted the
/// bound.
pub(super) fn search_bounded_runs(
    build: &Build,
    test: &TestCase,
    mask: &Mask,
    limits: &Limits,
    bounds: Bounds,
    ticker: Ticker,
) -> Result<OriginalSearch, String> {
    let work =
        tempfile::tempdir().map_err(|e| format!("{}: {e}", std::env::temp_dir().display()))?;
    // Every schedule: a reduced search could leave out the schedule that shows the
    // mutant's observation, and the kill would be false.
    let strategy = Strategy::Dfs {
        preemptions: bounds.preemptions,
        por: crate::dpor::Por::None,
    };
    let schedules = Schedules {
        strategy,
        budget: bounds.budget,
    };
    let search = search_original(
        build,
        test,
        schedules,
        mask,
        limits,
        work.path(),
        Searching::FollowCheck(bounds.extent, ticker),
    )?;
    if let Some(failure) = &search.failure {
        return Err(format!("the original's search stopped: {failure}"));
    }
    Ok(search)
}

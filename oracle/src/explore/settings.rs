//! What an exploration is asked to do: the strategy, the run budget and the per-run
//! switches ([`ExploreSettings`]), what PCT may choose by itself ([`Choose`]), and when a
//! redrawing search gives up ([`REPEAT_STREAK`]).

use super::property::Properties;
use crate::schedules::Strategy;
use syncmut_runner::fork_server;

/// What to explore and how much.
#[derive(Debug, Clone)]
pub struct ExploreSettings {
    /// How schedules are chosen.
    pub strategy: Strategy,
    /// Run budget: at most this many executions.
    pub schedules: usize,
    /// `SYNCMUT_MAX_STEPS` of each run (livelock bound).
    pub max_steps: u64,
    /// `SYNCMUT_THREAD_BOUND` of each run: a run that creates more threads is cut there
    /// (`None`: only the scheduler's thread limit).
    pub thread_bound: Option<u32>,
    /// `SYNCMUT_REPEAT_WINDOW` of each run: past the step budget, a run is a livelock only
    /// if a state repeats within this many more points (`None`: the budget's end is one).
    pub repeat_window: Option<u64>,
    /// random and pct: a run whose schedule repeats an earlier one does not count towards
    /// `schedules` and another is drawn, at most `schedules` redraws in all, until
    /// [`REPEAT_STREAK`] draws in a row repeat. Off: every run counts (the lab's kill
    /// fractions are over runs).
    pub redraw_repeats: bool,
    /// pct: which of the depth and the budget to choose from the first run instead of
    /// taking them from `strategy` and `schedules`.
    pub choose: Choose,
    /// Draw nondet and named input values per run (seeded), besides the schedule. Off for
    /// runs that carry a test's own values.
    pub draw_inputs: bool,
    /// Run the runtime's race detector (`SYNCMUT_RACES_OUT`; the metamutant must be built
    /// with its accesses instrumented): a data race is a bug.
    pub races: bool,
    /// Start the runs through a fork server ([`syncmut_runner::fork_server`]): the
    /// binary is exec'd once per search. Default: on unless `SYNCMUT_NO_FORK_SERVER=1`.
    pub fork_server: bool,
    /// How many runs of the seeded strategies (random, pct, holdback, round-robin, and
    /// the mix's phases before dfs) execute at a time, each lane with its own fork server
    /// and run files. The search reads their results in order, as if they had run one by
    /// one, so the outcome does not depend on it; dfs runs one at a time (each run's
    /// prefix comes from the runs before it).
    pub lanes: usize,
    /// A run that times out runs again under
    /// [`TIMEOUT_CONFIRM_FACTOR`](crate::timeout::TIMEOUT_CONFIRM_FACTOR)× the limit before
    /// it is a hang. Off only where a hang is not reported but searched again under other
    /// settings that confirm it (`explore` at sync level goes to memory level).
    pub confirm_timeouts: bool,
    /// What counts as a bug: a finding no property checked forbids is a note and the
    /// search goes on. Default: every kind of bug.
    pub properties: Properties,
    /// No run starts after this instant (`--time-limit`): the search ends there, and
    /// says so, rather than being killed with nothing to show.
    pub deadline: Option<std::time::Instant>,
    /// dfs (alone or as the mix's last phase) goes on past `schedules` until the
    /// deadline: the phases before it keep their share of the budget, and the space
    /// dfs has left is what a run budget would cut and a time limit need not.
    pub dfs_past_budget: bool,
    /// dfs with no reduction takes its schedules level by level
    /// (`dpor/levels.rs`) and stops as soon as the schedules it has still
    /// to run (each at least one run) outnumber what its budget has left: for a search
    /// whose use is to cover its whole bound, which it then cannot do.
    pub dfs_only_if_coverable: bool,
}

impl Default for ExploreSettings {
    fn default() -> Self {
        ExploreSettings {
            strategy: Strategy::Random,
            schedules: 1000,
            max_steps: crate::strategies::EXPLORE_MAX_STEPS,
            thread_bound: None,
            repeat_window: None,
            redraw_repeats: false,
            choose: Choose::default(),
            draw_inputs: false,
            races: false,
            fork_server: fork_server::enabled(),
            lanes: 1,
            confirm_timeouts: true,
            properties: Properties::default(),
            deadline: None,
            dfs_past_budget: false,
            dfs_only_if_coverable: false,
        }
    }
}

/// What PCT chooses from the program rather than from the settings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Choose {
    /// PCT's depth is chosen from the first run.
    pub depth: bool,
    /// PCT's number of schedules is chosen from the first run.
    pub schedules: bool,
}

/// Draws in a row that all repeat earlier schedules, after which a redrawing search takes
/// the strategy's schedules of this program as covered.
pub const REPEAT_STREAK: usize = 200;

//! `explore`'s default strategy, `phased`: one schedule budget shared by strategies that
//! find different bugs (BENCHMARKS.md, "Bad/correct twins", has the measurements behind
//! the shares).
//!
//! 1. `default`, once: the non-preemptive schedule, and the run length the seeded
//!    strategies place their change points and release steps in.
//! 2. Round-robin, every quantum and phase ([`schedules::rr_values`]): strict alternation,
//!    which needs a preemption at every step and so lies beyond bounded dfs, pct's few
//!    change points and a random walk.
//! 3. holdback, pct and random in turn, up to `SEEDED_SHARE` of the budget: holdback
//!    reaches a thread created last running between an early thread's steps; pct bugs
//!    of small depth; random the rest. Each run draws its own input values.
//! 4. dfs with partial-order reduction and iteratively deepened preemption bounds (0, 1,
//!    2, 3, then none), each bound's space exhausted before the next, with what remains:
//!    the only phase that can say a space was covered.

use crate::schedules::{self, Strategy};
use syncmut_runtime::schedule;

/// The part of the budget the first three phases may use, in percent; dfs has the rest.
pub(crate) const SEEDED_SHARE: usize = 60;

/// The preemption bounds the dfs phase deepens through, each exhausted before the next;
/// after the last, the search goes on without a bound.
pub const DFS_BOUNDS: [u32; 4] = [0, 1, 2, 3];

/// The bounds the dfs phase deepens through when it may go as deep as `deepest`
/// ([`schedules::UNBOUNDED`]: [`DFS_BOUNDS`], then none; else those below it, then it).
pub(crate) fn dfs_bounds(deepest: u32) -> Vec<u32> {
    DFS_BOUNDS
        .iter()
        .copied()
        .filter(|b| *b < deepest)
        .chain([deepest])
        .collect()
}

/// How a budget is shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MixPlan {
    pub(crate) budget: usize,
    /// Round-robin runs: every schedule of [`schedules::rr_values`], or a quarter of a
    /// small budget.
    pub(crate) round_robin: usize,
    /// The run count at which the seeded phase ends and dfs starts.
    pub(crate) seeded_until: usize,
}

impl MixPlan {
    pub(crate) fn new(budget: usize) -> MixPlan {
        let round_robin = schedules::rr_values().len().min(budget / 4);
        let seeded_until = (budget * SEEDED_SHARE / 100)
            .max(1 + round_robin)
            .min(budget);
        MixPlan {
            budget,
            round_robin,
            seeded_until,
        }
    }

    /// The `SYNCMUT_SCHEDULE` value of the i-th (from 0) run of the seeded phase:
    /// holdback, pct and random in turn, each with its own seeds 1, 2, …
    pub(crate) fn seeded_value(i: usize, pct_depth: u32, steps: u64) -> String {
        let seed = i / 3 + 1;
        match i % 3 {
            0 => Strategy::Holdback.seeded_value(seed, steps),
            1 => Some(schedule::pct_value(seed, pct_depth, steps)),
            _ => Strategy::Random.seeded_value(seed, steps),
        }
        .expect("seeded strategies have a value for every seed")
    }
}

/// What one phase of a mix ran and covered, for the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phase {
    pub(crate) name: String,
    pub(crate) runs: usize,
    /// What it covered, in words (`every quantum 1 to 8 in every phase, …`,
    /// `every schedule with at most 1 preemption … exhausted`).
    pub(crate) covered: String,
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} run(s)", self.name, self.runs)?;
        if !self.covered.is_empty() {
            write!(f, ", {}", self.covered)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_shared_and_small_budgets_still_reach_dfs() {
        let plan = MixPlan::new(1000);
        assert_eq!((plan.round_robin, plan.seeded_until), (72, 600));
        let small = MixPlan::new(20);
        assert_eq!((small.round_robin, small.seeded_until), (5, 12));
        assert_eq!(MixPlan::new(1).seeded_until, 1);
    }

    #[test]
    fn dfs_deepens_up_to_the_deepest_bound_given() {
        assert_eq!(
            dfs_bounds(schedules::UNBOUNDED),
            [0, 1, 2, 3, schedules::UNBOUNDED]
        );
        assert_eq!(dfs_bounds(1), [0, 1]);
        assert_eq!(dfs_bounds(0), [0]);
        assert_eq!(dfs_bounds(6), [0, 1, 2, 3, 6]);
    }

    #[test]
    fn seeded_runs_take_turns_with_their_own_seeds() {
        let values: Vec<String> = (0..4).map(|i| MixPlan::seeded_value(i, 2, 50)).collect();
        assert_eq!(
            values,
            ["holdback:1:50", "pct:1:2:50", "random:1", "holdback:2:50"]
        );
    }
}

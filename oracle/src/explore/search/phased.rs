//! `explore`'s default strategy, the mix of [`crate::mix`], as phases of one search.

use super::{ExploreError, Explorer, Job, Search};
use crate::dpor::Por;
use crate::explore::pct::{PctPlan, PCT_MAX_CHOSEN_DEPTH};
use crate::explore::settings::Choose;
use crate::mix::MixPlan;
use crate::schedules;

/// The most runs one input draw's dfs pass may take after the pass with every value 0.
const INPUT_PASS_RUNS: usize = 100;

impl Explorer<'_, '_> {
    /// `explore`'s default ([`crate::mix`]): `default`, round-robin, holdback/pct/random
    /// in turn, then dfs with deepening preemption bounds, within one budget. Every run
    /// counts (no redraws: the phases differ in what they repeat), and every run of the
    /// first three phases draws its own input values. Exhausted only when the unbounded
    /// dfs pass covered every schedule and the program drew no input.
    pub(super) fn mix(&mut self, deepest: u32, por: Por) -> Result<Search, ExploreError> {
        let plan = MixPlan::new(self.config.schedules);
        let draw = self.config.draw_inputs;
        let first = self.run("default", 0)?;
        self.phase("default", 0, String::new());
        if first.stop {
            return Ok(self.search(false));
        }
        let steps = first.schedule.steps.unwrap_or(1000).max(1);
        let from = self.runs;
        // Every run of the first three phases draws its input values with the seed of
        // its number in the search.
        let seed = |k: usize| draw.then_some((from + k) as u64 + 1);
        let jobs = schedules::rr_values()
            .into_iter()
            .take(plan.round_robin)
            .enumerate()
            .map(|(k, value)| Job {
                value,
                input_seed: seed(k),
            })
            .collect();
        if self.run_jobs(jobs)? {
            self.phase("round-robin", from, String::new());
            return Ok(self.search(false));
        }
        let every = if plan.round_robin == schedules::rr_values().len() {
            "every quantum 1 to 8 in every phase, creators in the rotation and last".to_string()
        } else {
            format!("the first {} quantum/phase pairs", plan.round_robin)
        };
        self.phase("round-robin", from, every);
        // pct's depth: the deepest whose bound the seeded phase's pct third covers.
        let thirds = plan.seeded_until.saturating_sub(self.runs) / 3;
        let depth = PctPlan::new(
            first.threads,
            steps,
            PCT_MAX_CHOSEN_DEPTH,
            thirds.max(1),
            Choose {
                depth: true,
                schedules: false,
            },
        )
        .depth;
        let from = self.runs;
        let seed = |i: usize| draw.then_some((from + i) as u64 + 1);
        let jobs = (0..plan.seeded_until.saturating_sub(from))
            .map(|i| Job {
                value: MixPlan::seeded_value(i, depth, steps),
                input_seed: seed(i),
            })
            .collect();
        if self.run_jobs(jobs)? {
            self.phase(
                &format!("holdback, pct (depth {depth}) and random in turn"),
                from,
                String::new(),
            );
            return Ok(self.search(false));
        }
        let drawn = if self.drew_inputs {
            "each with its own drawn input values".to_string()
        } else {
            String::new()
        };
        self.phase(
            &format!("holdback, pct (depth {depth}) and random in turn"),
            from,
            drawn,
        );
        // dfs: every value 0 (the seeded runs drew others).
        self.input_seed = None;
        let from = self.runs;
        let mut covered: Option<u32> = None;
        for bound in crate::mix::dfs_bounds(deepest) {
            if self.runs >= self.dfs_budget() {
                break;
            }
            if !self.dfs(bound, por, usize::MAX)? {
                break;
            }
            covered = Some(bound);
        }
        let words = match covered {
            Some(bound) => format!("exhausted {}", schedules::dfs_space(bound, por)),
            None => "no preemption bound's space exhausted".to_string(),
        };
        let values = if self.drew_inputs && covered.is_some() {
            " with every input value 0"
        } else {
            ""
        };
        let stopped = if self.stopped {
            ""
        } else if self.runs >= self.dfs_budget() {
            " (then the budget ran out)"
        } else {
            ""
        };
        self.phase(
            "dfs with deepening preemption bounds",
            from,
            format!("{words}{values}{stopped}"),
        );
        if covered == Some(deepest) && draw && self.drew_inputs && !self.stopped {
            self.dfs_over_drawn_inputs(deepest, por)?;
        }
        Ok(
            self.search(
                !self.stopped && covered == Some(schedules::UNBOUNDED) && !self.drew_inputs,
            ),
        )
    }

    /// After the dfs pass with every input value 0 covered its space: one pass per input
    /// seed 1, 2, … while the budget (or the time limit) lasts, each through the same
    /// deepening bounds but for at most [`INPUT_PASS_RUNS`] runs, so that a draw whose
    /// space is large (a loop bound drawn in the millions) leaves the budget to the next
    /// draws. A bug that needs a small nonzero input and an exact interleaving is found
    /// here, where neither the seeded runs (inputs drawn, schedules random) nor the pass
    /// with every value 0 reach it.
    fn dfs_over_drawn_inputs(&mut self, deepest: u32, por: Por) -> Result<(), ExploreError> {
        let from = self.runs;
        let (mut draws, mut exhausted) = (0u64, 0u64);
        while !self.stopped && self.runs < self.dfs_budget() {
            draws += 1;
            self.input_seed = Some(draws);
            let until = self.runs + INPUT_PASS_RUNS;
            let mut whole = true;
            for bound in crate::mix::dfs_bounds(deepest) {
                if !self.dfs(bound, por, until)? {
                    whole = false;
                    break;
                }
            }
            exhausted += u64::from(whole);
        }
        self.input_seed = None;
        self.phase(
            "dfs over drawn input values",
            from,
            format!(
                "{draws} draw(s) (input seeds 1 to {draws}), each searched for at most \
                 {INPUT_PASS_RUNS} runs, {exhausted} of them exhausted"
            ),
        );
        Ok(())
    }
}

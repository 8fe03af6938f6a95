//! PCT's budget: the depth and the number of runs chosen from the program's first run
//! (threads n, scheduling points k), and the bound 1/(n·k^(d-1)) on finding a given bug
//! of depth d in one run that they rest on.

use super::settings::Choose;

/// The miss probability a chosen PCT budget aims at for a bug of the chosen depth.
pub const PCT_MISS_TARGET: f64 = 0.05;
/// The most runs a chosen PCT budget asks for.
pub const PCT_BUDGET_CAP: usize = 1000;
/// The deepest depth PCT chooses by itself (most concurrency bugs have depth 1 to 3).
pub const PCT_MAX_CHOSEN_DEPTH: u32 = 3;

/// PCT's parameters for one program, and what they guarantee.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PctPlan {
    /// n: threads seen in the first run (main included).
    pub threads: u32,
    /// k: scheduling points of the first run, where the change points are placed.
    pub steps: u64,
    /// d: the bug depth (number of priority change points plus one).
    pub depth: u32,
    /// Distinct schedules to run (the first, `default`, run included).
    pub schedules: usize,
    /// Which of `depth` and `schedules` came from the program, not the settings.
    pub choose: Choose,
}

impl PctPlan {
    /// Chooses what `choose` asks for: the depth, the deepest of 1 to
    /// [`PCT_MAX_CHOSEN_DEPTH`] whose [`PCT_MISS_TARGET`] needs no more runs than the
    /// budget (given, or [`PCT_BUDGET_CAP`]); the budget, the runs that bring the chance
    /// of missing a bug of that depth to [`PCT_MISS_TARGET`], at most [`PCT_BUDGET_CAP`],
    /// plus the first run.
    pub(crate) fn new(
        threads: u32,
        steps: u64,
        depth: u32,
        schedules: usize,
        choose: Choose,
    ) -> PctPlan {
        let threads = threads.max(1);
        let steps = steps.max(1);
        let budget = |depth: u32| runs_for(per_run(threads, steps, depth)).saturating_add(1);
        let room = if choose.schedules {
            PCT_BUDGET_CAP
        } else {
            schedules
        };
        let fits = (1..=PCT_MAX_CHOSEN_DEPTH)
            .rev()
            .find(|d| budget(*d) <= room)
            .unwrap_or(1);
        // Depth 1 (priorities only, no change point) has at most n! distinct schedules: a
        // given budget larger than that would be spent redrawing repeats, so it goes to
        // depth 2, whose schedules it can fill (its bound is printed as it is).
        let depth_one_fills = |room: usize| {
            (1..=u64::from(threads))
                .try_fold(1u64, |f, i| f.checked_mul(i).filter(|f| *f < room as u64))
                .is_none()
        };
        let deeper = fits == 1 && !choose.schedules && !depth_one_fills(room);
        let depth = if choose.depth {
            if deeper {
                2
            } else {
                fits
            }
        } else {
            depth
        };
        let schedules = if choose.schedules {
            budget(depth).min(PCT_BUDGET_CAP)
        } else {
            schedules
        };
        PctPlan {
            threads,
            steps,
            depth,
            schedules,
            choose,
        }
    }

    /// PCT's bound on the probability that one run finds a given bug of the plan's depth.
    pub fn per_run(&self) -> f64 {
        per_run(self.threads, self.steps, self.depth)
    }

    /// The probability that `runs` pct runs all miss a given bug of the plan's depth, at
    /// most (the runs are independent draws; a repeated schedule is a draw that missed).
    pub fn miss_bound(&self, runs: usize) -> f64 {
        (1.0 - self.per_run()).powf(runs as f64)
    }
}

/// 1/(n·k^(d-1)).
fn per_run(threads: u32, steps: u64, depth: u32) -> f64 {
    1.0 / (f64::from(threads) * (steps as f64).powi(depth.saturating_sub(1) as i32))
}

/// Runs after which a bug found with probability `p` per run is missed with probability
/// at most [`PCT_MISS_TARGET`].
fn runs_for(p: f64) -> usize {
    if p >= 1.0 {
        return 1;
    }
    let runs = (PCT_MISS_TARGET.ln() / (1.0 - p).ln()).ceil();
    if runs.is_finite() && runs < usize::MAX as f64 {
        runs as usize
    } else {
        usize::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: Choose = Choose {
        depth: true,
        schedules: true,
    };

    #[test]
    fn pct_chooses_the_deepest_depth_its_budget_covers() {
        // 3 threads, 16 points: depth 3 needs 1/768 per run, ~2300 runs: over the cap.
        let plan = PctPlan::new(3, 16, 9, 9, BOTH);
        assert_eq!(plan.depth, 2);
        assert_eq!(plan.schedules, runs_for(1.0 / 48.0) + 1);
        assert!(plan.miss_bound(plan.schedules - 1) <= PCT_MISS_TARGET);
        assert!(plan.miss_bound(plan.schedules - 2) > PCT_MISS_TARGET);
        // A short program affords depth 3.
        let short = PctPlan::new(2, 5, 9, 9, BOTH);
        assert_eq!(
            (short.depth, short.schedules),
            (3, runs_for(1.0 / 50.0) + 1)
        );
        // A long one only depth 1 (random priorities, no change point): p = 1/n.
        let long = PctPlan::new(4, 100_000, 9, 9, BOTH);
        assert_eq!((long.depth, long.schedules), (1, runs_for(0.25) + 1));
        // Depth 1 and one thread: one pct run is every schedule.
        assert_eq!(
            PctPlan::new(
                1,
                10,
                1,
                9,
                Choose {
                    depth: false,
                    schedules: true
                }
            )
            .schedules,
            2
        );
    }

    #[test]
    fn given_values_are_kept_and_the_other_is_chosen_around_them() {
        let given = PctPlan::new(3, 16, 3, 40, Choose::default());
        assert_eq!((given.depth, given.schedules), (3, 40));
        // A budget of 40 runs covers depth 1 (p = 1/3) but not depth 2 (1/48)...
        assert_eq!(
            PctPlan::new(
                7,
                16,
                9,
                40,
                Choose {
                    depth: true,
                    schedules: false
                }
            )
            .depth,
            1
        );
        // ...but with 3 threads depth 1 has at most 3! = 6 schedules: the 40 go to depth 2.
        assert_eq!(
            PctPlan::new(
                3,
                16,
                9,
                40,
                Choose {
                    depth: true,
                    schedules: false
                }
            )
            .depth,
            2
        );
        // Depth 3 given: the budget its bound asks for is over the cap, so the cap.
        assert_eq!(
            PctPlan::new(
                3,
                16,
                3,
                9,
                Choose {
                    depth: false,
                    schedules: true
                }
            )
            .schedules,
            PCT_BUDGET_CAP
        );
    }
}

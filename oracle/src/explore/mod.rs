//! Bug finding over schedules: runs the metamutant with no mutant active under many
//! schedules of the controlled scheduler (`SYNCMUT_SCHEDULE`) and stops at the first run
//! that shows a bug (assertion failure or abort, crash, deadlock, livelock, hang).
//!
//! Strategies: seeded random (`random:1…N`), PCT (`pct:<seed>:<depth>`, the run length
//! estimated by a first run under `default`), and systematic depth-first search over the
//! scheduling choices with a preemption bound, driven through replay files
//! (`replay:<path>`): every run records its choice points (`SYNCMUT_SCHEDULE_OUT`), the
//! search extends a recorded prefix with one other choice and lets the runtime continue
//! with the default (non-preemptive) strategy. Every reported bug comes with the schedule
//! file that replays it.
//!
//! PCT's depth and budget can be chosen from the program (`Choose`, `PctPlan`): the first
//! run gives the number of threads n and of scheduling points k, and PCT finds a given bug
//! of depth d in one run with probability at least 1/(n·k^(d-1)). `explore` also redraws a
//! seeded schedule that repeats an earlier one (`redraw_repeats`), so its budget counts
//! distinct schedules.
//! Inputs drawn with schedules (`draw_inputs`): each run also draws the values of the
//! program's `__VERIFIER_nondet_*()` calls and named inputs from a seeded stream
//! (`SYNCMUT_NONDET_SEED`, boundary values mixed with small and random ones): seed k for
//! the seeded strategies' k-th schedule; dfs explores its bounded space once with every
//! value 0, then again for seeds 1, 2, … while the budget lasts (the mix's dfs phase
//! too, each such pass capped at a hundred runs). The values a bug's run
//! drew are kept with it, so it replays exactly.
//!
//! One file per part: `settings` (what to explore and how much), `pct` (PCT's depth and
//! budget for one program), `search` (the search loop over schedules and its runs; `search/phased`, the mix's
//! phases),
//! `bug_kind` (the kinds of bug), `findings` (what a run shows and the exploration's report), `property` (which
//! findings are violations of the properties checked, which are notes) and
//! `counterexample` (a found bug in words).

mod bug_kind;
mod counterexample;
mod findings;
mod pct;
mod property;
mod search;
mod settings;

pub use bug_kind::BugKind;
pub use counterexample::render_counterexample;
pub use findings::{classify, explore, Found, Note, Report};
pub use pct::{PctPlan, PCT_BUDGET_CAP, PCT_MAX_CHOSEN_DEPTH, PCT_MISS_TARGET};
pub use property::{error_call, Judgement, Properties, Property};
pub use search::{search, ExploreError, Search, Visit};
pub use settings::{Choose, ExploreSettings, REPEAT_STREAK};

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
//! value 0, then again for seeds 1, 2, … while the budget lasts. The values a bug's run
//! drew are kept with it, so it replays exactly.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use syncmut_mutator::Catalogue;
use syncmut_runtime::exec::{Execution, Limits, Status};
use syncmut_runtime::fork_server::{self, ForkServer};
use syncmut_runtime::input_log::{self, Given};
use syncmut_runtime::races::{self, Race, RaceFile};
use syncmut_runtime::schedule::{self, Schedule};
use syncmut_runtime::trace::{self, EndKind, Trace};
use syncmut_runtime::{status, Invocation};

use crate::dpor::{Por, Tree};
use crate::mix::{MixPlan, Phase};
use crate::schedules::{self, Strategy};
use crate::timeout::TIMEOUT_CONFIRM_FACTOR;

/// What to explore and how much.
#[derive(Debug, Clone)]
pub struct ExploreSettings {
    pub strategy: Strategy,
    /// Run budget: at most this many executions.
    pub schedules: usize,
    /// `SYNCMUT_MAX_STEPS` of each run (livelock bound).
    pub max_steps: u64,
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
    /// Start the runs through a fork server ([`syncmut_runtime::fork_server`]): the
    /// binary is exec'd once per search. Default: on unless `SYNCMUT_NO_FORK_SERVER=1`.
    pub fork_server: bool,
    /// How many runs of the seeded strategies (random, pct, holdback, round-robin, and
    /// the mix's phases before dfs) execute at a time, each lane with its own fork server
    /// and run files. The search reads their results in order, as if they had run one by
    /// one, so the outcome does not depend on it; dfs runs one at a time (each run's
    /// prefix comes from the runs before it).
    pub lanes: usize,
    /// A run that times out runs again under [`TIMEOUT_CONFIRM_FACTOR`]× the limit before
    /// it is a hang. Off only where a hang is not reported but searched again under other
    /// settings that confirm it (`explore` at sync level goes to memory level).
    pub confirm_timeouts: bool,
}

impl Default for ExploreSettings {
    fn default() -> Self {
        ExploreSettings {
            strategy: Strategy::Random,
            schedules: 1000,
            max_steps: 1_000_000,
            redraw_repeats: false,
            choose: Choose::default(),
            draw_inputs: false,
            races: false,
            fork_server: fork_server::enabled(),
            lanes: 1,
            confirm_timeouts: true,
        }
    }
}

/// What PCT chooses from the program rather than from the settings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Choose {
    pub depth: bool,
    pub schedules: bool,
}

/// Draws in a row that all repeat earlier schedules, after which a redrawing search takes
/// the strategy's schedules of this program as covered.
pub const REPEAT_STREAK: usize = 200;

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
    pub depth: u32,
    /// Distinct schedules to run (the first, `default`, run included).
    pub schedules: usize,
    pub choose: Choose,
}

impl PctPlan {
    /// Chooses what `choose` asks for: the depth, the deepest of 1 to
    /// [`PCT_MAX_CHOSEN_DEPTH`] whose [`PCT_MISS_TARGET`] needs no more runs than the
    /// budget (given, or [`PCT_BUDGET_CAP`]); the budget, the runs that bring the chance
    /// of missing a bug of that depth to [`PCT_MISS_TARGET`], at most [`PCT_BUDGET_CAP`],
    /// plus the first run.
    pub fn new(threads: u32, steps: u64, depth: u32, schedules: usize, choose: Choose) -> PctPlan {
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

/// Kinds of bug a run can show.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BugKind {
    /// SIGABRT with an assertion message: a failed `assert`, `reach_error` (`assert(0)`),
    /// `__VERIFIER_error` (`verdict::failed_assertion`, shared with `run`).
    Assertion,
    /// Another fatal signal, or an `abort()` without an assertion message.
    Crash,
    /// The scheduler found no runnable thread while some had not finished.
    Deadlock,
    /// The scheduler's step budget ran out.
    Livelock,
    /// The run did not end within the timeout (spinning outside scheduling points).
    Hang,
    /// Two accesses to one location, at least one a write, that no synchronization
    /// orders (`--races`): a bug in every schedule where both run.
    DataRace,
}

impl std::fmt::Display for BugKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BugKind::Assertion => "assertion failure",
            BugKind::Crash => "crash",
            BugKind::Deadlock => "deadlock",
            BugKind::Livelock => "livelock",
            BugKind::Hang => "hang (timeout)",
            BugKind::DataRace => "data race",
        })
    }
}

/// The run that showed a bug.
#[derive(Debug, Clone)]
pub struct Found {
    pub kind: BugKind,
    /// One line: the assertion message, the signal, who was left waiting.
    pub message: String,
    /// The `SYNCMUT_SCHEDULE` value of the run (`random:7`, `pct:3:3`, `replay:…`).
    pub schedule_value: String,
    /// 1-based index of the run among those explored.
    pub run: usize,
    /// The choices the run made (replayable with `replay:<path>`).
    pub schedule: Schedule,
    /// Raw text of the run's schedule-out file.
    pub schedule_text: String,
    /// The seed its input values were drawn with (`None`: every value 0), and the values.
    pub input_seed: Option<u64>,
    pub given: Given,
    pub execution: Execution,
    pub trace: Trace,
    /// `--races`: the data races the run had (also when another bug is the kind).
    pub races: Vec<Race>,
    /// What the race detector's bounds left unchecked in the run, in words.
    pub race_limits: Option<String>,
}

/// The outcome of an exploration.
#[derive(Debug, Clone)]
pub struct Report {
    pub strategy: Strategy,
    /// Executions made.
    pub runs: usize,
    /// Distinct schedules (distinct sequences of choices) among them.
    pub distinct: usize,
    /// DFS only: every schedule within the preemption bound was explored.
    pub exhausted: bool,
    /// Runs whose schedule repeated an earlier one (redrawn when `redraw_repeats`).
    pub repeats: usize,
    /// Redrawing stopped after [`REPEAT_STREAK`] repeats in a row.
    pub saturated: bool,
    /// pct: the depth and budget used, for the program measured by the first run.
    pub pct: Option<PctPlan>,
    /// Runs that ended in `__VERIFIER_assume(0)` (status 123): not bugs, and not
    /// counted against the program.
    pub assumed: usize,
    /// Some run was handed input values drawn from a seed.
    pub drew_inputs: bool,
    /// Why runs were started by exec and not through a fork server, if they were.
    pub exec_fallback: Option<String>,
    /// Runs the scheduler ended at its thread limit (status 124): what the program would
    /// have done past it was not run, so they are neither bugs nor clean runs.
    pub thread_limited: usize,
    /// The mix: what each phase ran and covered, in order.
    pub phases: Vec<Phase>,
    /// Runs that timed out under the limit but ended under [`TIMEOUT_CONFIRM_FACTOR`]× it.
    pub slow: usize,
    pub found: Option<Found>,
}

/// Failures that are not bugs of the design.
#[derive(Debug, thiserror::Error)]
pub enum ExploreError {
    #[error("{0}")]
    Io(String),
    #[error("the runtime refused to start (status {status}): {0}", status = status::CONFIG_ERROR)]
    Runtime(String),
}

/// Runs `program` (the metamutant, no mutant active) under many schedules until a bug
/// shows. `work` holds the per-run files.
pub fn explore(
    program: &Invocation,
    config: &ExploreSettings,
    work: &Path,
) -> Result<Report, ExploreError> {
    let mut found: Option<Found> = None;
    let mut assumed = 0usize;
    let mut thread_limited = 0usize;
    let search = search(program, config, work, &mut |visit: &Visit| {
        if visit.execution.status == Status::Exited(status::ASSUME) {
            assumed += 1;
        }
        if visit.execution.status == Status::Exited(status::THREAD_LIMIT) {
            thread_limited += 1;
        }
        let races = visit.races.map(|f| f.races.clone()).unwrap_or_default();
        let bug = classify(visit.execution, visit.trace).or_else(|| {
            (!races.is_empty()).then(|| (BugKind::DataRace, format!("{} pair(s) of accesses to shared memory not ordered by any synchronization", races.len())))
        });
        let Some((kind, message)) = bug else {
            return false;
        };
        found = Some(Found {
            kind,
            message,
            // The dfs prefix file is rewritten by the next step: name the path instead.
            schedule_value: if visit.schedule_value.starts_with("replay:") {
                format!("replay of a {}-choice dfs prefix", visit.prefix_len)
            } else {
                visit.schedule_value.to_string()
            },
            run: visit.run,
            schedule: visit.schedule.clone(),
            schedule_text: visit.schedule_text.to_string(),
            input_seed: visit.input_seed,
            given: visit.given.clone(),
            execution: visit.execution.clone(),
            trace: visit.trace.clone(),
            races,
            race_limits: visit.races.and_then(|f| f.limits()),
        });
        true
    })?;
    Ok(Report {
        strategy: search
            .pct
            .map(|plan| Strategy::Pct { depth: plan.depth })
            .unwrap_or(config.strategy),
        runs: search.runs,
        distinct: search.distinct,
        exhausted: search.exhausted,
        repeats: search.repeats,
        saturated: search.saturated,
        pct: search.pct,
        assumed,
        drew_inputs: search.drew_inputs,
        exec_fallback: search.exec_fallback,
        thread_limited,
        phases: search.phases,
        slow: search.slow,
        found,
    })
}

/// One executed schedule, as a search hands it to its visitor.
pub struct Visit<'a> {
    /// 1-based index of the run in the search.
    pub run: usize,
    /// The `SYNCMUT_SCHEDULE` value it ran under (dfs: `replay:<work>/prefix.schedule`,
    /// a file the next run rewrites).
    pub schedule_value: &'a str,
    /// dfs: how many choices the replayed prefix fixed.
    pub prefix_len: usize,
    /// The choices the run made, parsed and as written (replayable with `replay:`).
    pub schedule: &'a Schedule,
    pub schedule_text: &'a str,
    /// The seed of its drawn input values (`None`: not drawn) and the values it was given.
    pub input_seed: Option<u64>,
    pub given: &'a Given,
    pub execution: &'a Execution,
    pub trace: &'a Trace,
    /// Where the run's trace is, until the next run overwrites it.
    pub trace_file: &'a Path,
    /// The race detector's file, when the settings ask for races.
    pub races: Option<&'a RaceFile>,
}

/// What a search covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    pub runs: usize,
    pub distinct: usize,
    /// dfs: the bounded space was explored completely (the visitor did not stop it), and
    /// the program drew no input value, so no other values are left to try.
    pub exhausted: bool,
    /// Runs whose schedule repeated an earlier one.
    pub repeats: usize,
    /// Redrawing stopped after [`REPEAT_STREAK`] repeats in a row.
    pub saturated: bool,
    /// pct: the plan used.
    pub pct: Option<PctPlan>,
    /// Some run drew input values.
    pub drew_inputs: bool,
    /// Why runs were started by exec and not through a fork server
    /// ([`syncmut_runtime::fork_server`]), if they were.
    pub exec_fallback: Option<String>,
    /// The mix: what each phase ran and covered, in order (empty for one strategy).
    pub phases: Vec<Phase>,
    /// Runs that timed out under the limit but ended when run again under
    /// [`TIMEOUT_CONFIRM_FACTOR`]× it (the machine was slow): judged by the longer run.
    pub slow: usize,
}

/// Runs `program` under the schedules of `config`'s strategy, calling `visit` after each
/// run; a `true` from it ends the search. Each run sets the schedule, where its choices
/// and trace go, and the step bound on a copy of `program`.
pub fn search(
    program: &Invocation,
    config: &ExploreSettings,
    work: &Path,
    visit: &mut dyn FnMut(&Visit) -> bool,
) -> Result<Search, ExploreError> {
    let lanes = (0..config.lanes.max(1))
        .map(|k| Lane::new(work, k, config.fork_server))
        .collect::<Result<Vec<_>, _>>()?;
    let mut explorer = Explorer {
        program,
        config,
        work,
        lanes,
        runs: 0,
        seen: HashSet::new(),
        repeats: 0,
        saturated: false,
        pct: None,
        visit,
        input_seed: None,
        drew_inputs: false,
        stopped: false,
        phases: Vec::new(),
        slow: 0,
    };
    match config.strategy {
        Strategy::Default => {
            explorer.run("default", 0)?;
            Ok(explorer.search(false))
        }
        Strategy::Random | Strategy::RoundRobin => {
            explorer.seeded(config.strategy, 0, config.schedules)
        }
        Strategy::Mix { deepest, por } => explorer.mix(deepest, por),
        Strategy::Pct { .. } | Strategy::Mixed { .. } | Strategy::Holdback => {
            // The run length pct's change points are placed in, measured by a `default` run.
            let first = explorer.run("default", 0)?;
            if first.stop {
                return Ok(explorer.search(false));
            }
            let steps = first.schedule.steps.unwrap_or(1000).max(1);
            let (strategy, budget) = match config.strategy {
                Strategy::Pct { depth } => {
                    let plan =
                        PctPlan::new(first.threads, steps, depth, config.schedules, config.choose);
                    explorer.pct = Some(plan);
                    (Strategy::Pct { depth: plan.depth }, plan.schedules)
                }
                other => (other, config.schedules),
            };
            explorer.seeded(strategy, steps, budget)
        }
        Strategy::Dfs { preemptions, por } => {
            // Pass 0 with every value 0 (the run without drawn inputs), then one pass per
            // seed while the program draws values and the budget lasts.
            let mut pass = 0;
            loop {
                let exhausted = explorer.dfs(preemptions, por)?;
                if !exhausted || explorer.stopped {
                    return Ok(explorer.search(false));
                }
                if !config.draw_inputs || !explorer.drew_inputs {
                    return Ok(explorer.search(true));
                }
                pass += 1;
                explorer.input_seed = Some(pass);
            }
        }
    }
}

/// One executed schedule.
struct Outcome {
    schedule: Schedule,
    stop: bool,
    /// Threads the run had (main included).
    threads: u32,
    /// No earlier run of the search made the same choices.
    new: bool,
}

/// Where a run's files go and what starts it: one per run that can execute at a time.
struct Lane {
    /// Starts the runs: the binary is exec'd once per search and lane, each schedule a fork.
    server: ForkServer,
    files: RunFiles,
}

/// The files one run writes: its choices, trace, drawn input values and races.
struct RunFiles {
    schedule: PathBuf,
    trace: PathBuf,
    inputs: PathBuf,
    races: PathBuf,
}

impl Lane {
    /// Lane 0 writes into `work` itself (dfs's prefix file is there too); lane k into
    /// `work/lane-k`.
    fn new(work: &Path, k: usize, fork_server: bool) -> Result<Lane, ExploreError> {
        let dir = if k == 0 {
            work.to_path_buf()
        } else {
            work.join(format!("lane-{k}"))
        };
        std::fs::create_dir_all(&dir)
            .map_err(|e| ExploreError::Io(format!("{}: {e}", dir.display())))?;
        let files = RunFiles {
            schedule: dir.join("run.schedule"),
            trace: dir.join(trace::binary_name("run")),
            inputs: dir.join("run.inputs"),
            races: dir.join("run.races"),
        };
        let server = if fork_server {
            ForkServer::new()
        } else {
            ForkServer::exec_only()
        };
        Ok(Lane { server, files })
    }

    /// Runs `invocation` with the lane's files emptied first: emptied rather than
    /// removed, so the runtime then rewrites the same files (it opens them with O_TRUNC)
    /// instead of the file system allocating new ones, which was ~7% of a served search
    /// (perf). An empty file reads as a missing one. A run that times out is run again
    /// under [`TIMEOUT_CONFIRM_FACTOR`]× the limit: a run can time out for the machine's
    /// load alone, and the same run (schedule and input values fix it) under a larger
    /// limit tells a slow machine from a hang, which is only then reported (unless the
    /// settings leave that to a later search: [`ExploreSettings::confirm_timeouts`]).
    fn execute(
        &mut self,
        invocation: &Invocation,
        confirm_timeouts: bool,
    ) -> Result<Executed, ExploreError> {
        let mut execution = self.execute_once(invocation)?;
        let mut slow = false;
        if execution.status == Status::TimedOut && confirm_timeouts {
            let longer = Invocation {
                limits: Limits {
                    timeout: invocation.limits.timeout * TIMEOUT_CONFIRM_FACTOR,
                    ..invocation.limits
                },
                ..invocation.clone()
            };
            execution = self.execute_once(&longer)?;
            slow = execution.status != Status::TimedOut;
        }
        Ok(Executed { execution, slow })
    }

    fn execute_once(&mut self, invocation: &Invocation) -> Result<Execution, ExploreError> {
        for file in [
            &self.files.schedule,
            &self.files.trace,
            &self.files.inputs,
            &self.files.races,
        ] {
            empty(file);
        }
        invocation
            .run_with(&mut self.server)
            .map_err(|e| ExploreError::Io(format!("{}: {e}", invocation.program.display())))
    }
}

/// A run to make: its schedule and the seed its input values are drawn with.
struct Job {
    value: String,
    input_seed: Option<u64>,
}

/// A finished run, before the search reads its files.
struct Executed {
    execution: Execution,
    /// It timed out, then ended under the longer limit.
    slow: bool,
}

struct Explorer<'a, 'v> {
    program: &'a Invocation,
    config: &'a ExploreSettings,
    work: &'a Path,
    /// At least one; the seeded strategies use them all at once.
    lanes: Vec<Lane>,
    runs: usize,
    seen: HashSet<Vec<u32>>,
    repeats: usize,
    saturated: bool,
    pct: Option<PctPlan>,
    visit: &'v mut dyn FnMut(&Visit) -> bool,
    /// The seed the next run draws its input values with (`None`: all 0).
    input_seed: Option<u64>,
    /// Some run was handed a drawn value.
    drew_inputs: bool,
    /// The visitor ended the search.
    stopped: bool,
    /// The mix's phases so far.
    phases: Vec<Phase>,
    /// Runs that timed out under the limit but ended when run again under
    /// [`TIMEOUT_CONFIRM_FACTOR`]× it.
    slow: usize,
}

impl Explorer<'_, '_> {
    fn search(&self, exhausted: bool) -> Search {
        Search {
            runs: self.runs,
            distinct: self.seen.len(),
            exhausted,
            repeats: self.repeats,
            saturated: self.saturated,
            pct: self.pct,
            drew_inputs: self.drew_inputs,
            exec_fallback: self
                .lanes
                .iter()
                .find_map(|lane| lane.server.fallback())
                .map(str::to_string),
            phases: self.phases.clone(),
            slow: self.slow,
        }
    }

    /// Ends the current phase of a mix: its runs are those since `from`.
    fn phase(&mut self, name: &str, from: usize, covered: String) {
        self.phases.push(Phase {
            name: name.to_string(),
            runs: self.runs - from,
            covered,
        });
    }

    /// `explore`'s default ([`crate::mix`]): `default`, round-robin, holdback/pct/random
    /// in turn, then dfs with deepening preemption bounds, within one budget. Every run
    /// counts (no redraws: the phases differ in what they repeat), and every run of the
    /// first three phases draws its own input values. Exhausted only when the unbounded
    /// dfs pass covered every schedule and the program drew no input.
    fn mix(&mut self, deepest: u32, por: Por) -> Result<Search, ExploreError> {
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
            "every quantum 1 to 8 in every phase".to_string()
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
            if self.runs >= self.config.schedules {
                break;
            }
            if !self.dfs(bound, por)? {
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
        } else if self.runs >= self.config.schedules {
            " (then the budget ran out)"
        } else {
            ""
        };
        self.phase(
            "dfs with deepening preemption bounds",
            from,
            format!("{words}{values}{stopped}"),
        );
        Ok(
            self.search(
                !self.stopped && covered == Some(schedules::UNBOUNDED) && !self.drew_inputs,
            ),
        )
    }

    /// Runs the seeded strategy's values `1, 2, …` until `budget` runs are made, or, when
    /// repeats are redrawn, `budget` distinct schedules (at most `budget` redraws, and
    /// until [`REPEAT_STREAK`] draws in a row repeat). Runs go a batch of lanes at a
    /// time, never more than the budget could still take; a batch's runs past the end
    /// are dropped unread, so the search is the one its runs made one by one would be.
    fn seeded(
        &mut self,
        strategy: Strategy,
        steps: u64,
        budget: usize,
    ) -> Result<Search, ExploreError> {
        let redraw = self.config.redraw_repeats;
        let spent = |e: &Self| if redraw { e.seen.len() } else { e.runs };
        let done = |e: &Self| spent(e) >= budget || (redraw && e.repeats >= budget);
        let mut k = 1;
        let mut streak = 0;
        while !done(self) {
            let room = (budget - spent(self)).min(self.lanes.len());
            let jobs: Vec<Job> = (k..k + room)
                .map_while(|k| {
                    strategy.seeded_value(k, steps).map(|value| Job {
                        value,
                        input_seed: self.config.draw_inputs.then_some(k as u64),
                    })
                })
                .collect();
            if jobs.is_empty() {
                break;
            }
            for (lane, (job, executed)) in jobs.iter().zip(self.execute_batch(&jobs)?).enumerate() {
                if done(self) {
                    return Ok(self.search(false));
                }
                let outcome = self.record(job, 0, lane, executed)?;
                if outcome.stop {
                    return Ok(self.search(false));
                }
                streak = if outcome.new { 0 } else { streak + 1 };
                if redraw && streak >= REPEAT_STREAK {
                    self.saturated = true;
                    return Ok(self.search(false));
                }
                k += 1;
            }
        }
        Ok(self.search(false))
    }

    /// Runs `jobs` in order, a batch of lanes at a time; true when one stopped the
    /// search (the runs after it in its batch are dropped unread).
    fn run_jobs(&mut self, jobs: Vec<Job>) -> Result<bool, ExploreError> {
        for batch in jobs.chunks(self.lanes.len()) {
            for (lane, (job, executed)) in batch.iter().zip(self.execute_batch(batch)?).enumerate()
            {
                if self.record(job, 0, lane, executed)?.stop {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// Executes `jobs` (at most one per lane) at the same time, job i on lane i, each on
    /// a thread of its own; the lanes' servers are started here first, as they end with
    /// the thread that started them.
    fn execute_batch(&mut self, jobs: &[Job]) -> Result<Vec<Executed>, ExploreError> {
        let invocations: Vec<Invocation> = jobs
            .iter()
            .enumerate()
            .map(|(lane, job)| self.invocation(job, &self.lanes[lane].files))
            .collect();
        let confirm = self.config.confirm_timeouts;
        if let [only] = invocations.as_slice() {
            return Ok(vec![self.lanes[0].execute(only, confirm)?]);
        }
        for (lane, invocation) in self.lanes.iter_mut().zip(&invocations) {
            invocation.start_server(&mut lane.server);
        }
        std::thread::scope(|scope| {
            let running: Vec<_> = self
                .lanes
                .iter_mut()
                .zip(&invocations)
                .map(|(lane, invocation)| scope.spawn(move || lane.execute(invocation, confirm)))
                .collect();
            running
                .into_iter()
                .map(|run| run.join().expect("a lane's run panicked"))
                .collect()
        })
    }

    /// The invocation of one run: the program with the job's schedule and input seed,
    /// writing into `files`.
    fn invocation(&self, job: &Job, files: &RunFiles) -> Invocation {
        let draw = self.config.draw_inputs;
        Invocation {
            schedule: Some(job.value.clone()),
            schedule_out: Some(files.schedule.clone()),
            races_out: self.config.races.then(|| files.races.clone()),
            trace: Some(files.trace.clone()),
            max_steps: Some(self.config.max_steps),
            nondet_seed: if draw {
                job.input_seed
            } else {
                self.program.nondet_seed
            },
            input_log: if draw {
                Some(files.inputs.clone())
            } else {
                self.program.input_log.clone()
            },
            ..self.program.clone()
        }
    }

    /// One execution under `schedule_value` on the first lane, with the current input
    /// seed, recording its choices.
    fn run(&mut self, schedule_value: &str, prefix_len: usize) -> Result<Outcome, ExploreError> {
        let job = Job {
            value: schedule_value.to_string(),
            input_seed: self.input_seed,
        };
        let executed = self.execute_batch(std::slice::from_ref(&job))?.remove(0);
        self.record(&job, prefix_len, 0, executed)
    }

    /// Reads what a run on `lane` left (its choices, trace, input values, races), counts
    /// it and hands it to the visitor.
    fn record(
        &mut self,
        job: &Job,
        prefix_len: usize,
        lane: usize,
        executed: Executed,
    ) -> Result<Outcome, ExploreError> {
        self.runs += 1;
        let Executed { execution, slow } = executed;
        self.slow += usize::from(slow);
        if execution.status == Status::Exited(status::CONFIG_ERROR) {
            return Err(ExploreError::Runtime(
                execution.stderr.text().trim().to_string(),
            ));
        }
        let files = &self.lanes[lane].files;
        let schedule_text = std::fs::read_to_string(&files.schedule).unwrap_or_default();
        let schedule = schedule::parse(&schedule_text)
            .map_err(|e| ExploreError::Io(format!("{}: {e}", files.schedule.display())))?;
        let trace = trace::read(&files.trace).map_err(ExploreError::Io)?;
        let races = if self.config.races {
            races::read(&files.races).map_err(ExploreError::Io)?
        } else {
            None
        };
        // The values it was handed; the program's own given values stay first in the list.
        let draw = self.config.draw_inputs;
        let given = if draw {
            input_log::read(&files.inputs)
        } else {
            Given::default()
        };
        self.drew_inputs |= !given.is_empty();
        let new = self
            .seen
            .insert(schedule.choices.iter().map(|c| c.chosen).collect());
        if !new {
            self.repeats += 1;
        }
        let threads = threads_of(&schedule, &trace);
        let visit = Visit {
            run: self.runs,
            schedule_value: &job.value,
            prefix_len,
            schedule: &schedule,
            schedule_text: &schedule_text,
            input_seed: if draw { job.input_seed } else { None },
            given: &given,
            execution: &execution,
            trace: &trace,
            trace_file: &files.trace,
            races: races.as_ref(),
        };
        let stop = (self.visit)(&visit);
        self.stopped |= stop;
        Ok(Outcome {
            schedule,
            stop,
            threads,
            new,
        })
    }

    /// Stateless depth-first search (one pass, under the current input seed; true when
    /// the bounded space was exhausted): the tree ([`crate::dpor::Tree`]) holds, per
    /// choice point of the current path, the options still to try there and prunes them
    /// as `por` says; a path is re-executed by replaying its prefix, the runtime
    /// continuing with the default strategy past its end.
    fn dfs(&mut self, bound: u32, por: Por) -> Result<bool, ExploreError> {
        let replay_file = self.work.join("prefix.schedule");
        let mut prefix: Vec<u32> = Vec::new();
        let mut tree = Tree::new(por, bound);
        loop {
            if self.runs >= self.config.schedules {
                return Ok(false);
            }
            std::fs::write(&replay_file, schedule::replay_text(&prefix))
                .map_err(|e| ExploreError::Io(format!("{}: {e}", replay_file.display())))?;
            let outcome = self.run(&format!("replay:{}", replay_file.display()), prefix.len())?;
            if outcome.stop {
                return Ok(false);
            }
            let schedule = outcome.schedule;
            if schedule.truncated || schedule.diverged.is_some() {
                // The run did not follow the prefix (the program is not deterministic
                // under a fixed schedule) or was too long to record: the search cannot
                // claim to cover the space.
                return Ok(false);
            }
            tree.extend(schedule, prefix.len());
            match tree.next_prefix() {
                Some(p) => prefix = p,
                None => return Ok(true),
            }
        }
    }
}

/// Empties `file` if it exists.
fn empty(file: &Path) {
    let _ = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(file);
}

/// The threads of a run: those at its choice points and those with events (`T<k>`), main
/// (thread 0) always.
fn threads_of(schedule: &Schedule, trace: &Trace) -> u32 {
    let mut ids: HashSet<u32> = HashSet::from([0]);
    for choice in &schedule.choices {
        ids.insert(choice.chosen);
        ids.extend(choice.options.iter().map(|(id, _)| *id));
    }
    ids.extend(trace.events.iter().filter_map(|e| {
        e.thread
            .strip_prefix('T')
            .and_then(|k| k.parse::<u32>().ok())
    }));
    ids.len() as u32
}

/// The bug a run shows, if any, with a one-line message.
pub fn classify(execution: &Execution, trace: &Trace) -> Option<(BugKind, String)> {
    let end_kind = trace.end.as_ref().map(|e| &e.kind);
    let stderr = execution.stderr.text();
    match execution.status {
        Status::Signaled(_) => match crate::verdict::failed_assertion(execution.status, &stderr) {
            Some(line) => Some((BugKind::Assertion, line)),
            None => Some((BugKind::Crash, execution.status.to_string())),
        },
        Status::Exited(status::DEADLOCK) if end_kind.is_none_or(|k| *k == EndKind::Deadlock) => {
            Some((
                BugKind::Deadlock,
                first_runtime_line(&stderr, "deadlock: no thread can run"),
            ))
        }
        Status::Exited(status::LIVELOCK) => Some((
            BugKind::Livelock,
            first_runtime_line(&stderr, "livelock: the step budget ran out"),
        )),
        Status::TimedOut => Some((
            BugKind::Hang,
            "the run did not end within the timeout".to_string(),
        )),
        _ => None,
    }
}

/// What the choice points of a run tell about its trace: where the memory steps
/// (`--interleave memory`: accesses are not trace events) go among the events, and which
/// synchronization object (numbered per run) each event's call acted on.
struct ChoiceFacts {
    /// Per memory step chosen, in schedule order: the trace events recorded before it
    /// (`None`: the schedule file does not say; printed after every event), its thread
    /// (`T<k>`) and its line.
    memory: Vec<(Option<u64>, String, String)>,
    /// Per event (index into the trace's events): the objects of the call, when a choice
    /// point chose it.
    objects: Vec<Option<Vec<u32>>>,
}

/// Reads the choices against the trace: a choice point records how many events came
/// before it, so the step it chooses comes right after them. A thread waiting at a site
/// there makes its call at or after that point, on the objects the point shows for it:
/// its first event from then on, if that is at the site. A thread blocked inside a call
/// also waits at its site, its event already recorded; when its previous event is at
/// the same site, which of the two the point means is unclear, and no object is taken.
///
/// Each option looks its thread's events up by binary search ([`EventsByThread`]): a run
/// can have a million choice points, and scanning the trace from its start for each
/// took minutes.
fn choice_facts(catalogue: &Catalogue, schedule: &Schedule, trace: &Trace) -> ChoiceFacts {
    let events = &trace.events;
    let by_thread = EventsByThread::new(events);
    let mut objects = vec![None; events.len()];
    let mut memory = Vec::new();
    for choice in &schedule.choices {
        let Some(i) = choice
            .options
            .iter()
            .position(|(id, _)| *id == choice.chosen)
        else {
            continue;
        };
        if let Some(step) = memory_step(catalogue, choice, i) {
            memory.push(step);
            continue;
        }
        let Some(next) = choice.events else { continue };
        for (option, (id, site)) in choice.options.iter().enumerate() {
            let Some(site) = site else { continue };
            let Some((e, previous)) = by_thread.first_from(&format!("T{id}"), next) else {
                continue;
            };
            let previous_here = previous.is_some_and(|p| events[p].site == *site);
            if events[e].site == *site && !previous_here && objects[e].is_none() {
                objects[e] = choice.touches.get(option).cloned().flatten();
            }
        }
    }
    ChoiceFacts { memory, objects }
}

/// The line of a memory step, when the option `i` chosen at `choice` is one: (the
/// events before it, thread, what it does and where).
fn memory_step(
    catalogue: &Catalogue,
    choice: &schedule::Choice,
    i: usize,
) -> Option<(Option<u64>, String, String)> {
    let access = choice
        .accesses
        .get(i)
        .copied()
        .flatten()
        .and_then(|k| catalogue.accesses.get(k as usize))?;
    let verb = if access.write { "writes" } else { "reads " };
    let preempts = if choice.preempts(choice.chosen) {
        format!("  (preempts T{})", choice.current.unwrap_or(0))
    } else {
        String::new()
    };
    Some((
        choice.events,
        format!("T{}", choice.chosen),
        format!(
            "{verb} shared memory in {}{preempts} @ {}:{}",
            access.function, access.file, access.line
        ),
    ))
}

/// Per thread (`T<k>`), the indices of its events in the trace, ascending. The runtime
/// numbers events in the order it records them and the trace keeps that order, so along
/// each list the seqs ascend too.
struct EventsByThread<'t> {
    events: &'t [syncmut_runtime::trace::Event],
    indices: std::collections::HashMap<&'t str, Vec<usize>>,
}

impl<'t> EventsByThread<'t> {
    fn new(events: &'t [syncmut_runtime::trace::Event]) -> EventsByThread<'t> {
        let mut indices: std::collections::HashMap<&str, Vec<usize>> =
            std::collections::HashMap::new();
        for (i, event) in events.iter().enumerate() {
            indices.entry(event.thread.as_str()).or_default().push(i);
        }
        EventsByThread { events, indices }
    }

    /// The index of `thread`'s first event with a seq of at least `seq`, and of its
    /// event before that one, if any.
    fn first_from(&self, thread: &str, seq: u64) -> Option<(usize, Option<usize>)> {
        let mine = self.indices.get(thread)?;
        let k = mine.partition_point(|&i| self.events[i].seq < seq);
        let first = *mine.get(k)?;
        Some((first, k.checked_sub(1).map(|p| mine[p])))
    }
}

/// The lock expressions the trace can tell apart: object number → the `&name` a call
/// at a site written `f(&name…)` acted on.
fn object_names(
    catalogue: &Catalogue,
    trace: &Trace,
    objects: &[Option<Vec<u32>>],
) -> std::collections::BTreeMap<u32, String> {
    let mut names = std::collections::BTreeMap::new();
    for (event, objs) in trace.events.iter().zip(objects) {
        let (Some(site), Some([object])) =
            (catalogue.sites.get(event.site as usize), objs.as_deref())
        else {
            continue;
        };
        if let Some(arg) =
            first_argument(&site.call).filter(|a| a.starts_with('&') && is_identifier(&a[1..]))
        {
            names.entry(*object).or_insert_with(|| arg.to_string());
        }
    }
    names
}

/// The first argument of a call as written (`pthread_mutex_lock(&a)` → `&a`).
fn first_argument(call: &str) -> Option<&str> {
    let inside = call.split_once('(')?.1.strip_suffix(')')?;
    let first = inside.split(',').next()?.trim();
    (!first.is_empty()).then_some(first)
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !text.starts_with(|c: char| c.is_ascii_digit())
}

/// The input values the run was given, one line (empty when it read none).
fn render_inputs(found: &Found) -> String {
    let given = &found.given;
    if given.is_empty() {
        return String::new();
    }
    let mut parts: Vec<String> = Vec::new();
    if !given.nondet.is_empty() {
        let values: Vec<String> = given.nondet.iter().map(|v| v.to_string()).collect();
        parts.push(format!(
            "__VERIFIER_nondet_* returned {} in call order",
            values.join(", ")
        ));
    }
    if !given.inputs.is_empty() {
        let named: Vec<String> = given
            .inputs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        parts.push(format!("named inputs {}", named.join(", ")));
    }
    let source = match found.input_seed {
        Some(seed) => format!("drawn with SYNCMUT_NONDET_SEED={seed}"),
        None => "every value 0".to_string(),
    };
    format!("inputs ({source}): {}\n", parts.join("; "))
}

/// The run's data races (`--races`), both accesses of each.
fn race_lines(catalogue: &Catalogue, found: &Found) -> String {
    let mut text = String::new();
    let races = crate::races::all_in_source(catalogue, &found.races);
    if !races.is_empty() {
        text.push_str(&format!(
            "\ndata races ({}; each pair of source accesses once):\n",
            races.len()
        ));
        for race in &races {
            text.push_str(&format!(
                "  {}\n  {}\n    {}\n",
                race.first, race.second, race.unordered
            ));
        }
    }
    if let Some(limits) = &found.race_limits {
        text.push_str(&format!("\nrace detection: {limits}\n"));
    }
    text
}

fn first_runtime_line(stderr: &str, fallback: &str) -> String {
    stderr
        .lines()
        .find(|l| l.starts_with("syncmut runtime:"))
        .map(|l| l.trim().to_string())
        .unwrap_or_else(|| fallback.to_string())
}

/// A readable counterexample: the interleaving, one line per event with the thread in
/// its own column, the site as `file:line` and the call; then where each unfinished
/// thread stopped.
pub fn render_counterexample(catalogue: &Catalogue, found: &Found) -> String {
    let site = |s: u32| match catalogue.sites.get(s as usize) {
        Some(site) => (format!("{}:{}", site.file, site.line), site.call.clone()),
        None => (format!("site {s}"), String::new()),
    };
    let facts = choice_facts(catalogue, &found.schedule, &found.trace);
    let mut threads: Vec<&str> = found
        .trace
        .events
        .iter()
        .map(|e| e.thread.as_str())
        .collect();
    threads.extend(facts.memory.iter().map(|(_, thread, _)| thread.as_str()));
    if let Some(end) = &found.trace.end {
        threads.extend(end.pending.iter().map(|p| p.thread.as_str()));
    }
    let mut order: Vec<&str> = Vec::new();
    for t in threads {
        if !order.contains(&t) {
            order.push(t);
        }
    }
    order.sort_by_key(|t| t.trim_start_matches('T').parse::<u64>().unwrap_or(u64::MAX));
    let column = |t: &str| order.iter().position(|o| *o == t).unwrap_or(0);
    let mut text = format!("{}: {}\n", found.kind, found.message);
    text.push_str(&format!(
        "found by run {} (SYNCMUT_SCHEDULE={}), {} choice points\n",
        found.run,
        found.schedule_value,
        found.schedule.choices.len()
    ));
    text.push_str(&render_inputs(found));
    text.push_str("\ninterleaving (each thread in its own column):\n");
    let header: Vec<String> = order.iter().map(|t| format!("{t:<4}")).collect();
    text.push_str(&format!("  {:>4}  {}\n", "seq", header.join("")));
    let names = object_names(catalogue, &found.trace, &facts.objects);
    let mut memory = facts.memory.iter().peekable();
    let memory_line = |thread: &str, line: &str| {
        format!(
            "  {:>4}  {}{thread:<4}{line}\n",
            "mem",
            "    ".repeat(column(thread))
        )
    };
    for (event, objs) in found.trace.events.iter().zip(&facts.objects) {
        while let Some((_, thread, line)) =
            memory.next_if(|(before, _, _)| before.is_some_and(|n| n <= event.seq))
        {
            text.push_str(&memory_line(thread, line));
        }
        let (location, call) = site(event.site);
        let indent = "    ".repeat(column(&event.thread));
        let action = if event.action == "original" {
            String::new()
        } else {
            format!(" [{}]", event.action)
        };
        // A lock reached through a pointer: which one, when another call named it.
        let points_to = match (first_argument(&call), objs.as_deref()) {
            (Some(arg), Some([object])) if is_identifier(arg) => names
                .get(object)
                .map(|name| format!("  ({arg} is {name})"))
                .unwrap_or_default(),
            _ => String::new(),
        };
        text.push_str(&format!(
            "  {:>4}  {indent}{:<4}{call}{action}{points_to}  @ {location}\n",
            event.seq, event.thread
        ));
    }
    for (_, thread, line) in memory {
        text.push_str(&memory_line(thread, line));
    }
    if found.trace.truncated {
        text.push_str("  … (trace truncated)\n");
    }
    if !facts.memory.is_empty() {
        text.push_str("\n`mem` lines: the memory steps chosen at choice points (--interleave memory), in order among the events; accesses are not trace events\n");
    }
    text.push_str(&race_lines(catalogue, found));
    if let Some(end) = &found.trace.end {
        if !end.pending.is_empty() {
            text.push_str("\nthreads that did not finish:\n");
            for p in &end.pending {
                match p.site {
                    // A wait in a library's inline code (a C++20 semaphore's, latch's or
                    // barrier's futex wait): its user's call is the thread's last event.
                    Some(syncmut_runtime::tables::SITE_INNER) => {
                        text.push_str(&format!("  {:<4} waiting inside the C++ standard library (in the call of its last event above)\n", p.thread))
                    }
                    Some(s) => {
                        let (location, call) = site(s);
                        text.push_str(&format!("  {:<4} at {call} @ {location}\n", p.thread));
                    }
                    None => text.push_str(&format!("  {:<4} outside any synchronization call\n", p.thread)),
                }
            }
        }
    }
    let stderr = found.execution.stderr.text();
    let stderr: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(5)
        .collect();
    if !stderr.is_empty() {
        text.push_str("\nstderr:\n");
        for line in stderr {
            text.push_str(&format!("  {line}\n"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use syncmut_mutator::api::Family;
    use syncmut_mutator::interleave::MemoryAccess;
    use syncmut_runtime::trace::Event;

    /// [`choice_facts`] as it was first written, scanning the trace from its start for
    /// every option of every point: the reference the indexed lookup must agree with
    /// (the memory steps are [`memory_step`]'s in both).
    fn choice_facts_by_scanning(
        catalogue: &Catalogue,
        schedule: &Schedule,
        trace: &Trace,
    ) -> ChoiceFacts {
        let events = &trace.events;
        let mut objects = vec![None; events.len()];
        let mut memory = Vec::new();
        for choice in &schedule.choices {
            let Some(i) = choice
                .options
                .iter()
                .position(|(id, _)| *id == choice.chosen)
            else {
                continue;
            };
            if let Some(step) = memory_step(catalogue, choice, i) {
                memory.push(step);
                continue;
            }
            let Some(next) = choice.events else { continue };
            for (option, (id, site)) in choice.options.iter().enumerate() {
                let Some(site) = site else { continue };
                let thread = format!("T{id}");
                let mine = |e: &&Event| e.thread == thread;
                let Some(e) = events
                    .iter()
                    .position(|e| e.seq >= next && e.thread == thread)
                else {
                    continue;
                };
                let previous_here = events[..e]
                    .iter()
                    .rev()
                    .find(mine)
                    .is_some_and(|p| p.site == *site);
                if events[e].site == *site && !previous_here && objects[e].is_none() {
                    objects[e] = choice.touches.get(option).cloned().flatten();
                }
            }
        }
        ChoiceFacts { memory, objects }
    }

    fn catalogue() -> Catalogue {
        let mut catalogue = Catalogue::from_sites(Family::Pthread, Vec::new());
        let access = |index: u32, write: bool| MemoryAccess {
            index,
            function: format!("f{index}"),
            file: "p.c".into(),
            line: 10 + index,
            col: 1,
            write,
            atomic: false,
        };
        catalogue.accesses = vec![access(0, true), access(1, false)];
        catalogue
    }

    fn trace(events: &[(u64, &str, u32)]) -> Trace {
        let event = |&(seq, thread, site): &(u64, &str, u32)| Event {
            seq,
            site,
            action: "original".into(),
            thread: thread.into(),
            time: None,
            delta: None,
            lost: false,
            state: Default::default(),
        };
        Trace {
            events: events.iter().map(event).collect(),
            ..Trace::default()
        }
    }

    fn same(catalogue: &Catalogue, schedule: &Schedule, trace: &Trace) -> ChoiceFacts {
        let (fast, slow) = (
            choice_facts(catalogue, schedule, trace),
            choice_facts_by_scanning(catalogue, schedule, trace),
        );
        assert_eq!(
            (&fast.memory, &fast.objects),
            (&slow.memory, &slow.objects),
            "{schedule:?}\n{:?}",
            trace.events
        );
        fast
    }

    #[test]
    fn choice_facts_place_objects_and_memory_steps_as_the_scan_did() {
        // T1 locks (site 1, object 1) and is preempted by T2's memory step; T2 then
        // blocks in lock (site 1, object 1): its event 2 is recorded, and the point after
        // it, where T2 still waits at site 1, is unclear (its previous event is there).
        // T3 unlocks (site 2) after a gap in the seqs.
        let catalogue = catalogue();
        let trace = trace(&[
            (0, "T0", 0),
            (1, "T1", 1),
            (2, "T2", 1),
            (4, "T3", 2),
            (5, "T2", 1),
            (6, "T1", 2),
        ]);
        let schedule = schedule::parse(
            "1 run 0 0:0:o3,1:1:o1 e1\n\
             2 run 1 1:2:o1,2:m0:o2 e2\n\
             2 run 2 2:1:o1,3:2:o4 e2\n\
             3 run 2 2:1:o1,3:2:o4 e3\n\
             1 run 3 1:2:o1,2:1:o1 e5\n\
             1 run 1 0:m1:r2,1:2:o1 e6\n",
        )
        .unwrap();
        let facts = same(&catalogue, &schedule, &trace);
        assert_eq!(
            facts.objects,
            [
                None,
                Some(vec![1]),
                Some(vec![1]),
                Some(vec![4]),
                None,
                Some(vec![1])
            ]
        );
        assert_eq!(
            facts.memory,
            [(
                Some(2),
                "T2".to_string(),
                "writes shared memory in f0  (preempts T1) @ p.c:10".to_string()
            )]
        );
        // T0's memory step offered at e6 was not chosen: no memory line for it.
    }

    #[test]
    fn choice_facts_agree_with_the_scan_on_generated_runs() {
        // A fixed seed: the same 400 runs every time.
        let mut rng = fastrand::Rng::with_seed(0x5eed);
        let mut next = |n: u64| rng.u64(0..n);
        let catalogue = catalogue();
        let threads = ["T0", "T1", "T2", "T3"];
        let (mut objects_set, mut memory_lines) = (0, 0);
        for _ in 0..400 {
            let mut seq = 0;
            let mut events = Vec::new();
            for _ in 0..next(40) {
                events.push((seq, threads[next(4) as usize], next(3) as u32));
                seq += 1 + next(3) / 2; // now and then a slot left out
            }
            let trace = trace(&events);
            let mut text = String::new();
            let mut before = 0;
            for _ in 0..next(16) {
                before += next(4);
                let n = 1 + next(4);
                let first = next(5); // thread 4 has no events
                let ids: Vec<u64> = (0..n).map(|k| (first + k) % 5).collect();
                let options: Vec<String> = ids
                    .iter()
                    .map(|id| {
                        let site = match next(6) {
                            0 => "-".to_string(),
                            1 => format!("m{}", next(3)), // m2: not in the catalogue
                            _ => next(3).to_string(),
                        };
                        let objects = match next(4) {
                            0 => "-".to_string(),
                            1 => "*".to_string(),
                            _ => format!("o{}", 1 + next(3)),
                        };
                        format!("{id}:{site}:{objects}")
                    })
                    .collect();
                let chosen = if next(10) == 0 {
                    7
                } else {
                    ids[next(n) as usize]
                };
                let events = if next(8) == 0 {
                    String::new()
                } else {
                    format!(" e{before}")
                };
                text.push_str(&format!(
                    "{chosen} run {} {}{events}\n",
                    ids[0],
                    options.join(",")
                ));
            }
            let schedule = schedule::parse(&text).unwrap();
            let facts = same(&catalogue, &schedule, &trace);
            objects_set += facts.objects.iter().filter(|o| o.is_some()).count();
            memory_lines += facts.memory.len();
        }
        // The generated runs reach both kinds of facts, often.
        assert!(
            objects_set > 200 && memory_lines > 100,
            "{objects_set} objects, {memory_lines} memory lines"
        );
    }

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

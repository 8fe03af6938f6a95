//! The search loop: runs the program under the schedules of the settings' strategy
//! (seeded random and PCT in lanes of parallel runs, the mix's phases, depth-first search
//! through replayed prefixes), reads each run's choices, trace, drawn inputs and races,
//! and hands every run to a visitor that may end the search.

mod phased;

use super::pct::PctPlan;
use super::settings::{ExploreSettings, REPEAT_STREAK};
use crate::dpor::levels::Levels;
use crate::dpor::{Por, Tree};
use crate::mix::Phase;
use crate::schedules::Strategy;
use crate::timeout::TIMEOUT_CONFIRM_FACTOR;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;
use syncmut_runner::exec::{Execution, Limits, Status};
use syncmut_runner::fork_server::ForkServer;
use syncmut_runner::input_log::{self, Given};
use syncmut_runner::Invocation;
use syncmut_runtime::races::{self, RaceFile};
use syncmut_runtime::schedule::{self, Schedule};
use syncmut_runtime::status;
use syncmut_runtime::trace::{self, Trace};

/// Failures that are not bugs of the design.
#[derive(Debug, thiserror::Error)]
pub enum ExploreError {
    /// A file or process operation failed (the message names it).
    #[error("{0}")]
    Io(String),
    /// The runtime refused its settings and would not run the program.
    #[error("the runtime refused to start (status {status}): {0}", status = status::CONFIG_ERROR)]
    Runtime(String),
}

/// One executed schedule, as a search hands it to its visitor.
pub struct Visit<'a> {
    /// 1-based index of the run in the search.
    pub run: usize,
    /// The `SYNCMUT_SCHEDULE` value it ran under (dfs: `replay:<work>/prefix.schedule`,
    /// a file the next run rewrites).
    pub(crate) schedule_value: &'a str,
    /// dfs: how many choices the replayed prefix fixed.
    pub(crate) prefix_len: usize,
    /// The choices the run made, parsed and as written (replayable with `replay:`).
    pub(crate) schedule: &'a Schedule,
    pub(crate) schedule_text: &'a str,
    /// The seed of its drawn input values (`None`: not drawn) and the values it was given.
    pub(crate) input_seed: Option<u64>,
    pub(crate) given: &'a Given,
    /// How the run ended and what it printed.
    pub execution: &'a Execution,
    /// The run's trace.
    pub trace: &'a Trace,
    /// Where the run's trace is, until the next run overwrites it.
    pub(crate) trace_file: &'a Path,
    /// The race detector's file, when the settings ask for races.
    pub(crate) races: Option<&'a RaceFile>,
}

/// What a search covered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    /// Executions made.
    pub runs: usize,
    pub(crate) distinct: usize,
    /// dfs: the bounded space was explored completely (the visitor did not stop it), and
    /// the program drew no input value, so no other values are left to try.
    pub(crate) exhausted: bool,
    /// Runs whose schedule repeated an earlier one.
    pub(crate) repeats: usize,
    /// Redrawing stopped after [`REPEAT_STREAK`] repeats in a row.
    pub(crate) saturated: bool,
    /// pct: the plan used.
    pub(crate) pct: Option<PctPlan>,
    /// Some run drew input values.
    pub(crate) drew_inputs: bool,
    /// Why runs were started by exec and not through a fork server
    /// ([`syncmut_runner::fork_server`]), if they were.
    pub exec_fallback: Option<String>,
    /// The mix: what each phase ran and covered, in order (empty for one strategy).
    pub(crate) phases: Vec<Phase>,
    /// Runs that timed out under the limit but ended when run again under
    /// [`TIMEOUT_CONFIRM_FACTOR`]× it (the machine was slow): judged by the longer run.
    pub(crate) slow: usize,
    /// The search stopped at the settings' deadline.
    pub(crate) out_of_time: bool,
    /// The run under way at the deadline was cut there: not counted, not judged.
    pub(crate) cut_run: bool,
    /// dfs stopped because its bounded space has at least this many schedules, more
    /// than its budget (`ExploreSettings::dfs_only_if_coverable`).
    pub(crate) schedules_at_least: Option<usize>,
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
        out_of_time: false,
        cut_run: false,
        schedules_at_least: None,
    };
    match config.strategy {
        Strategy::Default => {
            explorer.run("default", 0)?;
            Ok(explorer.search(false))
        }
        Strategy::Random | Strategy::RoundRobin => {
            explorer.seeded(config.strategy, 0, config.schedules)
        }
        Strategy::Phased { deepest, por } => explorer.mix(deepest, por),
        Strategy::Pct { .. } | Strategy::Alternating { .. } | Strategy::Holdback => {
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
                let exhausted = match (config.dfs_only_if_coverable, por) {
                    (true, Por::None) => explorer.by_level(preemptions)?,
                    _ => explorer.dfs(preemptions, por, usize::MAX)?,
                };
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
    ///
    /// With a `deadline` (`--time-limit`), no run goes past it: a run with less time left
    /// than its limit runs under what is left, and one that then times out, or whose
    /// confirmation would end past it, is cut by the deadline (neither a hang nor a run
    /// that ended).
    fn execute(
        &mut self,
        invocation: &Invocation,
        confirm_timeouts: bool,
        deadline: Option<Instant>,
    ) -> Result<Executed, ExploreError> {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let capped = left.is_some_and(|left| left < invocation.limits.timeout);
        let first = Invocation {
            limits: Limits {
                timeout: left.map_or(invocation.limits.timeout, |left| {
                    left.min(invocation.limits.timeout)
                }),
                ..invocation.limits
            },
            ..invocation.clone()
        };
        let mut execution = self.execute_once(&first)?;
        let mut slow = false;
        let timed_out = execution.status == Status::TimedOut;
        let longer = invocation.limits.timeout * TIMEOUT_CONFIRM_FACTOR;
        let past = |limit| deadline.is_some_and(|d| Instant::now() + limit > d);
        if timed_out && (capped || (confirm_timeouts && past(longer))) {
            return Ok(Executed {
                execution,
                slow,
                cut_by_deadline: true,
            });
        }
        if timed_out && confirm_timeouts {
            let longer = Invocation {
                limits: Limits {
                    timeout: longer,
                    ..invocation.limits
                },
                ..invocation.clone()
            };
            execution = self.execute_once(&longer)?;
            slow = execution.status != Status::TimedOut;
        }
        Ok(Executed {
            execution,
            slow,
            cut_by_deadline: false,
        })
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
    /// It timed out where the deadline cut it, or its confirmation would have run past
    /// the deadline: not judged.
    cut_by_deadline: bool,
}

struct Explorer<'a, 'v> {
    program: &'a Invocation,
    config: &'a ExploreSettings,
    work: &'a Path,
    /// At least one; the seeded strategies use them all at once.
    lanes: Vec<Lane>,
    runs: usize,
    /// The distinct schedules so far, each as a digest of its choices: a run at memory
    /// level has hundreds of thousands of choices, and keeping each list would cost
    /// gigabytes over a search.
    seen: HashSet<[u8; 32]>,
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
    /// A run ended past the settings' deadline, which stopped the search.
    out_of_time: bool,
    /// The run under way at the deadline was cut there.
    cut_run: bool,
    /// dfs found its bounded space larger than its budget, and stopped.
    schedules_at_least: Option<usize>,
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
            out_of_time: self.out_of_time,
            cut_run: self.cut_run,
            schedules_at_least: self.schedules_at_least,
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
        let deadline = self.config.deadline;
        if let [only] = invocations.as_slice() {
            return Ok(vec![self.lanes[0].execute(only, confirm, deadline)?]);
        }
        for (lane, invocation) in self.lanes.iter_mut().zip(&invocations) {
            invocation.start_server(&mut lane.server);
        }
        std::thread::scope(|scope| {
            let running: Vec<_> = self
                .lanes
                .iter_mut()
                .zip(&invocations)
                .map(|(lane, invocation)| {
                    scope.spawn(move || lane.execute(invocation, confirm, deadline))
                })
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
            thread_bound: self.config.thread_bound,
            repeat_window: self.config.repeat_window,
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
        let Executed {
            execution,
            slow,
            cut_by_deadline,
        } = executed;
        if cut_by_deadline {
            // Not a run the search made: the search ends here, as at the deadline.
            self.out_of_time = true;
            self.cut_run = true;
            self.stopped = true;
            return Ok(Outcome {
                schedule: Schedule::default(),
                stop: true,
                threads: 0,
                new: false,
            });
        }
        self.runs += 1;
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
            .insert(choices_digest(schedule.choices.iter().map(|c| c.chosen)));
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
        let mut stop = (self.visit)(&visit);
        if !stop && self.config.deadline.is_some_and(|d| Instant::now() >= d) {
            self.out_of_time = true;
            stop = true;
        }
        self.stopped |= stop;
        Ok(Outcome {
            schedule,
            stop,
            threads,
            new,
        })
    }

    /// The runs dfs may reach: the budget, or no bound when it goes on to the deadline.
    fn dfs_budget(&self) -> usize {
        if self.config.dfs_past_budget && self.config.deadline.is_some() {
            usize::MAX
        } else {
            self.config.schedules
        }
    }

    /// Stateless depth-first search (one pass, under the current input seed; true when
    /// the bounded space was exhausted): the tree ([`crate::dpor::Tree`]) holds, per
    /// choice point of the current path, the options still to try there and prunes them
    /// as `por` says; a path is re-executed by replaying its prefix, the runtime
    /// continuing with the default strategy past its end. It stops at the budget, or when
    /// `until` runs have been made (a pass capped short of the budget).
    fn dfs(&mut self, bound: u32, por: Por, until: usize) -> Result<bool, ExploreError> {
        let mut prefix: Vec<u32> = Vec::new();
        let mut tree = Tree::new(por, bound);
        loop {
            if self.runs >= self.dfs_budget().min(until) {
                return Ok(false);
            }
            let Some(schedule) = self.run_prefix(&prefix)? else {
                return Ok(false);
            };
            tree.extend(schedule, prefix.len());
            match tree.next_prefix() {
                Some(p) => prefix = p,
                None => return Ok(true),
            }
        }
    }

    /// The schedules [`Explorer::dfs`] covers with no reduction, by preemption level
    /// ([`Levels`]); stops, not exhausted, as soon as the runs made and the schedules
    /// still to run outnumber the budget (`schedules_at_least`). True when exhausted.
    fn by_level(&mut self, bound: u32) -> Result<bool, ExploreError> {
        let mut prefix: Vec<u32> = Vec::new();
        let mut levels = Levels::new(bound);
        loop {
            let Some(schedule) = self.run_prefix(&prefix)? else {
                return Ok(false);
            };
            levels.extend(&schedule, prefix.len());
            let at_least = self.runs + levels.untried();
            if at_least > self.dfs_budget() {
                self.schedules_at_least = Some(at_least);
                return Ok(false);
            }
            match levels.next_prefix() {
                Some(p) => prefix = p,
                None => return Ok(true),
            }
        }
    }

    /// Runs `prefix` (the runtime goes on with the default strategy past its end) and
    /// returns the run's schedule; `None` when the run ended the search, or did not
    /// follow the prefix (the program is not deterministic under a fixed schedule) or
    /// was too long to record: then the search cannot claim to cover its space.
    fn run_prefix(&mut self, prefix: &[u32]) -> Result<Option<Schedule>, ExploreError> {
        let replay_file = self.work.join("prefix.schedule");
        std::fs::write(&replay_file, schedule::replay_text(prefix))
            .map_err(|e| ExploreError::Io(format!("{}: {e}", replay_file.display())))?;
        let outcome = self.run(&format!("replay:{}", replay_file.display()), prefix.len())?;
        let schedule = outcome.schedule;
        let covered = !outcome.stop && !schedule.truncated && schedule.diverged.is_none();
        Ok(covered.then_some(schedule))
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

/// SHA-256 of a schedule's choices (each as 4 little-endian bytes, then their count):
/// two schedules share it only by a collision, which would count a new schedule as a
/// repeat, never the reverse.
fn choices_digest(choices: impl Iterator<Item = u32>) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    let mut n = 0u64;
    for c in choices {
        hash.update(c.to_le_bytes());
        n += 1;
    }
    hash.update(n.to_le_bytes());
    hash.finalize().into()
}

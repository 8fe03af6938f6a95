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

use std::collections::HashSet;
use std::path::Path;
use syncmut_mutator::Catalogue;
use syncmut_runtime::exec::{Execution, Status};
use syncmut_runtime::schedule::{self, Choice, ChoiceKind, Schedule};
use syncmut_runtime::races::{self, Race, RaceFile};
use syncmut_runtime::trace::{self, EndKind, Trace};
use syncmut_runtime::{status, Invocation};

use crate::schedules::Strategy;

/// What to explore and how much.
#[derive(Debug, Clone)]
pub struct ExploreSettings {
    pub strategy: Strategy,
    /// Run budget: at most this many executions.
    pub schedules: usize,
    /// `SYNCMUT_MAX_STEPS` of each run (livelock bound).
    pub max_steps: u64,
    /// Run the runtime's race detector (`SYNCMUT_RACES_OUT`; the metamutant must be built
    /// with its accesses instrumented): a data race is a bug.
    pub races: bool,
}

impl Default for ExploreSettings {
    fn default() -> Self {
        ExploreSettings { strategy: Strategy::Random, schedules: 1000, max_steps: 1_000_000, races: false }
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
    /// Runs that ended in `__VERIFIER_assume(0)` (status 123): not bugs, and not
    /// counted against the program.
    pub assumed: usize,
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
pub fn explore(program: &Invocation, config: &ExploreSettings, work: &Path) -> Result<Report, ExploreError> {
    let mut found: Option<Found> = None;
    let mut assumed = 0usize;
    let dfs = matches!(config.strategy, Strategy::Dfs { .. });
    let search = search(program, config, work, &mut |visit: &Visit| {
        if visit.execution.status == Status::Exited(status::ASSUME) {
            assumed += 1;
        }
        let races = visit.races.map(|f| f.races.clone()).unwrap_or_default();
        let bug = classify(visit.execution, visit.trace).or_else(|| {
            (!races.is_empty()).then(|| (BugKind::DataRace, format!("{} pair(s) of accesses to shared memory not ordered by any synchronization", races.len())))
        });
        let Some((kind, message)) = bug else { return false };
        found = Some(Found {
            kind,
            message,
            // The dfs prefix file is rewritten by the next step: name the path instead.
            schedule_value: if dfs { format!("replay of a {}-choice dfs prefix", visit.prefix_len) } else { visit.schedule_value.to_string() },
            run: visit.run,
            schedule: visit.schedule.clone(),
            schedule_text: visit.schedule_text.to_string(),
            execution: visit.execution.clone(),
            trace: visit.trace.clone(),
            races,
            race_limits: visit.races.and_then(|f| f.limits()),
        });
        true
    })?;
    Ok(Report { strategy: config.strategy, runs: search.runs, distinct: search.distinct, exhausted: search.exhausted, assumed, found })
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
    pub execution: &'a Execution,
    pub trace: &'a Trace,
    /// Where the run's trace is, until the next run overwrites it.
    pub trace_file: &'a Path,
    /// The race detector's file, when the settings ask for races.
    pub races: Option<&'a RaceFile>,
}

/// What a search covered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Search {
    pub runs: usize,
    pub distinct: usize,
    /// dfs: the bounded space was explored completely (the visitor did not stop it).
    pub exhausted: bool,
}

/// Runs `program` under the schedules of `config`'s strategy, calling `visit` after each
/// run; a `true` from it ends the search. Each run sets the schedule, where its choices
/// and trace go, and the step bound on a copy of `program`.
pub fn search(program: &Invocation, config: &ExploreSettings, work: &Path, visit: &mut dyn FnMut(&Visit) -> bool) -> Result<Search, ExploreError> {
    std::fs::create_dir_all(work).map_err(|e| ExploreError::Io(format!("{}: {e}", work.display())))?;
    let mut explorer = Explorer { program, config, work, runs: 0, seen: HashSet::new(), visit };
    match config.strategy {
        Strategy::Default => {
            explorer.run("default", 0)?;
            Ok(explorer.search(false))
        }
        Strategy::Random => explorer.seeded(config.strategy, 0),
        Strategy::Pct { .. } | Strategy::Mixed { .. } => {
            // The run length pct's change points are placed in, measured by a `default` run.
            let first = explorer.run("default", 0)?;
            if first.stop {
                return Ok(explorer.search(false));
            }
            explorer.seeded(config.strategy, first.schedule.steps.unwrap_or(1000).max(1))
        }
        Strategy::Dfs { preemptions, sleep_sets } => explorer.dfs(preemptions, sleep_sets),
    }
}

/// One executed schedule.
struct Outcome {
    schedule: Schedule,
    stop: bool,
}

struct Explorer<'a, 'v> {
    program: &'a Invocation,
    config: &'a ExploreSettings,
    work: &'a Path,
    runs: usize,
    seen: HashSet<Vec<u32>>,
    visit: &'v mut dyn FnMut(&Visit) -> bool,
}

impl Explorer<'_, '_> {
    fn search(&self, exhausted: bool) -> Search {
        Search { runs: self.runs, distinct: self.seen.len(), exhausted }
    }

    /// Runs the seeded strategy's values `1, 2, …` until the budget is spent.
    fn seeded(&mut self, strategy: Strategy, steps: u64) -> Result<Search, ExploreError> {
        let mut k = 1;
        while self.runs < self.config.schedules {
            let Some(value) = strategy.seeded_value(k, steps) else { break };
            if self.run(&value, 0)?.stop {
                return Ok(self.search(false));
            }
            k += 1;
        }
        Ok(self.search(false))
    }

    /// One execution under `schedule_value`, recording its choices.
    fn run(&mut self, schedule_value: &str, prefix_len: usize) -> Result<Outcome, ExploreError> {
        self.runs += 1;
        let out_file = self.work.join("run.schedule");
        let trace_file = self.work.join("run.jsonl");
        let races_file = self.work.join("run.races");
        let _ = std::fs::remove_file(&out_file);
        let _ = std::fs::remove_file(&trace_file);
        let _ = std::fs::remove_file(&races_file);
        let invocation = Invocation {
            schedule: Some(schedule_value.to_string()),
            schedule_out: Some(out_file.clone()),
            races_out: self.config.races.then(|| races_file.clone()),
            trace: Some(trace_file.clone()),
            max_steps: Some(self.config.max_steps),
            ..self.program.clone()
        };
        let execution = invocation.run().map_err(|e| ExploreError::Io(format!("{}: {e}", self.program.program.display())))?;
        if execution.status == Status::Exited(status::CONFIG_ERROR) {
            return Err(ExploreError::Runtime(execution.stderr.text().trim().to_string()));
        }
        let schedule_text = std::fs::read_to_string(&out_file).unwrap_or_default();
        let schedule = schedule::parse(&schedule_text).map_err(|e| ExploreError::Io(format!("{}: {e}", out_file.display())))?;
        let trace = trace::read(&trace_file).map_err(ExploreError::Io)?;
        let races = if self.config.races { races::read(&races_file).map_err(ExploreError::Io)? } else { None };
        self.seen.insert(schedule.choices.iter().map(|c| c.chosen).collect());
        let visit = Visit {
            run: self.runs,
            schedule_value,
            prefix_len,
            schedule: &schedule,
            schedule_text: &schedule_text,
            execution: &execution,
            trace: &trace,
            trace_file: &trace_file,
            races: races.as_ref(),
        };
        let stop = (self.visit)(&visit);
        Ok(Outcome { schedule, stop })
    }

    /// Stateless depth-first search: the stack holds, per choice point of the current
    /// path, the options still to try there; a path is re-executed by replaying its
    /// prefix, the runtime continuing with the default strategy past its end.
    ///
    /// Sleep sets: a thread is asleep at a point when a schedule where it takes its
    /// pending step there has been (or is being) explored from an equivalent state, and
    /// no step dependent on it (same synchronization object) has happened since; such
    /// a thread is not tried there. Sets are kept across `run` points only (emptied at
    /// a `wake`/`timeout` point).
    fn dfs(&mut self, bound: u32, sleep_sets: bool) -> Result<Search, ExploreError> {
        struct Node {
            choice: Choice,
            /// Options tried at this point (the path's own choice first).
            done: Vec<u32>,
            /// Preemptions on the path before this point.
            preemptions: u32,
            /// Threads asleep at this point.
            sleep: Vec<u32>,
        }
        /// The sleep set after `parent` takes its current choice.
        fn child_sleep(parent: &Node, child: &Choice) -> Vec<u32> {
            let u = parent.choice.chosen;
            if parent.choice.kind != ChoiceKind::Run || child.kind != ChoiceKind::Run {
                return Vec::new();
            }
            let mut sleep: Vec<u32> = parent
                .sleep
                .iter()
                .chain(parent.done.iter())
                .copied()
                .filter(|&x| x != u && parent.choice.independent(x, u))
                .collect();
            sleep.sort_unstable();
            sleep.dedup();
            sleep
        }
        let replay_file = self.work.join("prefix.schedule");
        let mut prefix: Vec<u32> = Vec::new();
        let mut stack: Vec<Node> = Vec::new();
        loop {
            if self.runs >= self.config.schedules {
                return Ok(self.search(false));
            }
            std::fs::write(&replay_file, schedule::replay_text(&prefix)).map_err(|e| ExploreError::Io(format!("{}: {e}", replay_file.display())))?;
            let outcome = self.run(&format!("replay:{}", replay_file.display()), prefix.len())?;
            if outcome.stop {
                return Ok(self.search(false));
            }
            let schedule = outcome.schedule;
            if schedule.truncated || schedule.diverged.is_some() {
                // The run did not follow the prefix (the program is not deterministic
                // under a fixed schedule) or was too long to record: the search cannot
                // claim to cover the space.
                return Ok(self.search(false));
            }
            // Extend the stack with the points past the prefix.
            stack.truncate(prefix.len());
            let mut preemptions = stack.last().map(|n| n.preemptions + u32::from(n.choice.preempts(n.choice.chosen))).unwrap_or(0);
            for choice in schedule.choices.into_iter().skip(prefix.len()) {
                let next = preemptions + u32::from(choice.preempts(choice.chosen));
                let sleep = match stack.last() {
                    Some(parent) if sleep_sets => child_sleep(parent, &choice),
                    _ => Vec::new(),
                };
                stack.push(Node { done: vec![choice.chosen], choice, preemptions, sleep });
                preemptions = next;
            }
            // Backtrack to the deepest point with an untried option within the bound.
            let mut next_prefix = None;
            while let Some(node) = stack.last_mut() {
                let untried = node.choice.options.iter().map(|(id, _)| *id).find(|id| {
                    !node.done.contains(id)
                        && !node.sleep.contains(id)
                        && node.preemptions + u32::from(node.choice.preempts(*id)) <= bound
                });
                match untried {
                    Some(id) => {
                        node.done.push(id);
                        node.choice.chosen = id;
                        next_prefix = Some(stack.iter().map(|n| n.choice.chosen).collect::<Vec<u32>>());
                        break;
                    }
                    None => {
                        stack.pop();
                    }
                }
            }
            match next_prefix {
                Some(p) => prefix = p,
                None => return Ok(self.search(true)),
            }
        }
    }
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
            Some((BugKind::Deadlock, first_runtime_line(&stderr, "deadlock: no thread can run")))
        }
        Status::Exited(status::LIVELOCK) => Some((BugKind::Livelock, first_runtime_line(&stderr, "livelock: the step budget ran out"))),
        Status::TimedOut => Some((BugKind::Hang, "the run did not end within the timeout".to_string())),
        _ => None,
    }
}

/// The memory steps (`--interleave memory`) chosen at choice points, in schedule order:
/// the racy interleaving the trace does not show (accesses are not trace events).
fn memory_steps(catalogue: &Catalogue, schedule: &Schedule) -> String {
    let mut lines = Vec::new();
    for choice in &schedule.choices {
        let Some(i) = choice.options.iter().position(|(id, _)| *id == choice.chosen) else { continue };
        let Some(Some(k)) = choice.accesses.get(i) else { continue };
        let Some(access) = catalogue.accesses.get(*k as usize) else { continue };
        let verb = if access.write { "writes" } else { "reads " };
        let preempts = if choice.preempts(choice.chosen) { "  (preempts T".to_string() + &choice.current.unwrap_or(0).to_string() + ")" } else { String::new() };
        lines.push(format!("  T{:<3} {verb} shared memory in {} @ {}:{}{preempts}\n", choice.chosen, access.function, access.file, access.line));
    }
    if lines.is_empty() {
        return String::new();
    }
    format!("\nmemory steps at choice points (--interleave memory; not in the trace), in order:\n{}", lines.concat())
}

/// The run's data races (`--races`), both accesses of each.
fn race_lines(catalogue: &Catalogue, found: &Found) -> String {
    let mut text = String::new();
    let races = crate::races::all_in_source(catalogue, &found.races);
    if !races.is_empty() {
        text.push_str(&format!("\ndata races ({}; each pair of source accesses once):\n", races.len()));
        for race in &races {
            text.push_str(&format!("  {}\n  {}\n    {}\n", race.first, race.second, race.unordered));
        }
    }
    if let Some(limits) = &found.race_limits {
        text.push_str(&format!("\nrace detection: {limits}\n"));
    }
    text
}

fn first_runtime_line(stderr: &str, fallback: &str) -> String {
    stderr.lines().find(|l| l.starts_with("syncmut runtime:")).map(|l| l.trim().to_string()).unwrap_or_else(|| fallback.to_string())
}

/// A readable counterexample: the interleaving, one line per event with the thread in
/// its own column, the site as `file:line` and the call; then where each unfinished
/// thread stopped.
pub fn render_counterexample(catalogue: &Catalogue, found: &Found) -> String {
    let site = |s: u32| match catalogue.sites.get(s as usize) {
        Some(site) => (format!("{}:{}", site.file, site.line), site.call.clone()),
        None => (format!("site {s}"), String::new()),
    };
    let mut threads: Vec<&str> = found.trace.events.iter().map(|e| e.thread.as_str()).collect();
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
        "found by run {} (SYNCMUT_SCHEDULE={}), {} choice points\n\ninterleaving (each thread in its own column):\n",
        found.run,
        found.schedule_value,
        found.schedule.choices.len()
    ));
    let header: Vec<String> = order.iter().map(|t| format!("{t:<4}")).collect();
    text.push_str(&format!("  {:>4}  {}\n", "seq", header.join("")));
    for event in &found.trace.events {
        let (location, call) = site(event.site);
        let indent = "    ".repeat(column(&event.thread));
        let action = if event.action == "original" { String::new() } else { format!(" [{}]", event.action) };
        text.push_str(&format!("  {:>4}  {indent}{:<4}{call}{action}  @ {location}\n", event.seq, event.thread));
    }
    if found.trace.truncated {
        text.push_str("  … (trace truncated)\n");
    }
    text.push_str(&memory_steps(catalogue, &found.schedule));
    text.push_str(&race_lines(catalogue, found));
    if let Some(end) = &found.trace.end {
        if !end.pending.is_empty() {
            text.push_str("\nthreads that did not finish:\n");
            for p in &end.pending {
                match p.site {
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
    let stderr: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).take(5).collect();
    if !stderr.is_empty() {
        text.push_str("\nstderr:\n");
        for line in stderr {
            text.push_str(&format!("  {line}\n"));
        }
    }
    text
}

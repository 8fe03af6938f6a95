//! What an exploration finds: the kinds of bug a run can show and how a run is judged
//! ([`classify`]), the run that showed one ([`Found`]), and [`explore`] itself, which
//! searches until a run shows a bug and reports what was covered ([`Report`]).

use super::bug_kind::BugKind;
use super::pct::PctPlan;
use super::property::{error_call, Judgement};
use super::search::{search, ExploreError, Visit};
use super::settings::ExploreSettings;
use crate::mix::Phase;
use crate::schedules::Strategy;
use std::path::Path;
use syncmut_runner::exec::{Execution, Status};
use syncmut_runner::input_log::Given;
use syncmut_runner::Invocation;
use syncmut_runtime::races::Race;
use syncmut_runtime::schedule::Schedule;
use syncmut_runtime::status;
use syncmut_runtime::trace::{EndKind, Trace};

/// The run that showed a bug.
#[derive(Debug, Clone)]
pub struct Found {
    /// What kind of bug the run showed.
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
    /// The input values handed to the run.
    pub given: Given,
    /// How the run ended and what it printed.
    pub execution: Execution,
    /// The run's trace.
    pub trace: Trace,
    /// `--races`: the data races the run had (also when another bug is the kind).
    pub(crate) races: Vec<Race>,
    /// What the race detector's bounds left unchecked in the run, in words.
    pub(crate) race_limits: Option<String>,
}

/// The outcome of an exploration.
#[derive(Debug, Clone)]
pub struct Report {
    /// The strategy that chose the schedules.
    pub strategy: Strategy,
    /// Executions made.
    pub runs: usize,
    /// Distinct schedules (distinct sequences of choices) among them.
    pub distinct: usize,
    /// DFS only: every schedule within the preemption bound was explored.
    pub exhausted: bool,
    /// Runs whose schedule repeated an earlier one (redrawn when `redraw_repeats`).
    pub repeats: usize,
    /// Redrawing stopped after [`REPEAT_STREAK`](super::REPEAT_STREAK) repeats in a row.
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
    /// Runs cut at the thread bound (status 125): no bug was looked for past it on
    /// their paths, as no dfs looks past its preemption bound.
    pub thread_bounded: usize,
    /// The thread bound those runs were cut at (`--threads`).
    pub thread_bound: Option<u32>,
    /// Runs that passed the step budget without a repeated state (status 126): long runs
    /// cut there, not livelocks; their paths were not run to the end.
    pub step_budget: usize,
    /// The mix: what each phase ran and covered, in order.
    pub phases: Vec<Phase>,
    /// Runs that timed out under the limit but ended under
    /// [`TIMEOUT_CONFIRM_FACTOR`](crate::timeout::TIMEOUT_CONFIRM_FACTOR)× it.
    pub slow: usize,
    /// Findings no property checked forbids, one per kind, in the order of [`BugKind`].
    pub notes: Vec<Note>,
    /// Runs ended by `abort()` under named properties: SV-COMP's discarded paths.
    pub discarded: usize,
    /// The first run that showed a bug the properties checked forbid, if any.
    pub found: Option<Found>,
    /// The search stopped at its deadline (`--time-limit`), not at its budget or a bug.
    pub out_of_time: bool,
    /// The run under way at the deadline was cut there: not in `runs`, not judged.
    pub cut_run: bool,
}

impl Report {
    /// Said after a count of runs: the run cut at the deadline, which the count leaves out.
    pub fn cut_run_note(&self) -> &'static str {
        match self.cut_run {
            true => " (and one more cut at the time limit, not judged)",
            false => "",
        }
    }
}

/// Runs that showed one kind of bug that the properties checked do not forbid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The kind of bug.
    pub kind: BugKind,
    /// How many runs showed it.
    pub runs: usize,
    /// The first such run and what it showed.
    pub first_run: usize,
    /// One line on what the first such run showed.
    pub message: String,
}

impl Note {
    /// The note's runs ended before the program did (a livelock, a hang, a crash), so
    /// what the program does past that point was not run on that path. A run that ended
    /// in an endless loop is whole: nothing can happen in it any more.
    pub fn cuts_paths_short(&self) -> bool {
        matches!(
            self.kind,
            BugKind::Livelock | BugKind::Hang | BugKind::Crash
        )
    }
}

/// Runs `program` (the metamutant, no mutant active) under many schedules until a bug
/// shows. `work` holds the per-run files.
pub fn explore(
    program: &Invocation,
    config: &ExploreSettings,
    work: &Path,
) -> Result<Report, ExploreError> {
    let mut found: Option<Found> = None;
    let mut notes: Vec<Note> = Vec::new();
    let mut discarded = 0usize;
    let mut assumed = 0usize;
    let mut thread_limited = 0usize;
    let mut thread_bounded = 0usize;
    let mut step_budget = 0usize;
    let search = search(program, config, work, &mut |visit: &Visit| {
        if visit.execution.status == Status::Exited(status::ASSUME) {
            assumed += 1;
        }
        if visit.execution.status == Status::Exited(status::THREAD_LIMIT) {
            thread_limited += 1;
        }
        if visit.execution.status == Status::Exited(status::THREAD_BOUND) {
            thread_bounded += 1;
        }
        if visit.execution.status == Status::Exited(status::STEP_BUDGET) {
            step_budget += 1;
        }
        let races = visit.races.map(|f| f.races.clone()).unwrap_or_default();
        let bug = classify(visit.execution, visit.trace).or_else(|| {
            (!races.is_empty()).then(|| (BugKind::DataRace, format!("{} pair(s) of accesses to shared memory not ordered by any synchronization", races.len())))
        });
        // A call of the error function is the error location, whatever its body did
        // after (nothing, or a crash of another kind).
        let called = error_call(&visit.execution.stderr.text())
            .map(|at| format!("error function called at {at}"));
        let bug = match (bug, called) {
            // A property is about the call: glibc's message names the function that
            // aborted in its own words (`void reach_error(): Assertion ...` from clang).
            (Some((BugKind::Assertion, _)), Some(called)) if !config.properties.is_default() => {
                Some((BugKind::Assertion, called))
            }
            (Some((BugKind::Assertion, message)), _) => Some((BugKind::Assertion, message)),
            (_, Some(called)) => Some((BugKind::Assertion, called)),
            (bug, None) => bug,
        };
        let Some((kind, message)) = bug else {
            return false;
        };
        // A hang where timeouts are not confirmed is the granularity's doing until a search
        // at memory level shows otherwise: it ends this search whatever the properties,
        // and the one that follows judges it by them.
        let judgement = if kind == BugKind::Hang && !config.confirm_timeouts {
            Judgement::Violation
        } else {
            config.properties.judge(&kind, &message, visit.execution)
        };
        match judgement {
            Judgement::Violation => {}
            Judgement::Discarded => {
                discarded += 1;
                return false;
            }
            Judgement::Note => {
                match notes.iter_mut().find(|n| n.kind == kind) {
                    Some(note) => note.runs += 1,
                    None => notes.push(Note {
                        kind,
                        runs: 1,
                        first_run: visit.run,
                        message,
                    }),
                }
                return false;
            }
        }
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
        thread_bounded,
        thread_bound: config.thread_bound,
        step_budget,
        phases: search.phases,
        slow: search.slow,
        notes: {
            notes.sort_by_key(|n| n.kind.clone() as u8);
            notes
        },
        discarded,
        found,
        out_of_time: search.out_of_time,
        cut_run: search.cut_run,
    })
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
        Status::Exited(status::LIVELOCK) => {
            let line = first_runtime_line(&stderr, "livelock: the step budget ran out");
            let kind = if line.contains(ENDLESS_LOOP) {
                BugKind::EndlessLoop
            } else {
                BugKind::Livelock
            };
            Some((kind, line))
        }
        Status::TimedOut => Some((
            BugKind::Hang,
            "the run did not end within the timeout".to_string(),
        )),
        _ => None,
    }
}

/// What the runtime says of a run that ended with a thread in a loop that changes nothing
/// (runtime-lib/src/endless_loop.c).
const ENDLESS_LOOP: &str = " loops forever at ";

fn first_runtime_line(stderr: &str, fallback: &str) -> String {
    stderr
        .lines()
        .find(|l| l.starts_with("syncmut runtime:"))
        .map(|l| l.trim().to_string())
        .unwrap_or_else(|| fallback.to_string())
}

//! The original along a mutant run's interleaving: what decides whether a difference is
//! the mutant's or one the original shows under the same interleaving. When the original
//! cannot take the mutant's choices to the end, [`Partial`] says where it stopped and
//! whether the two already differed before. A run with real threads records no choices;
//! the original follows the order of its events instead ([`follow_native`]).

use super::traces::{run_races, trace_error, traced_in, Lens, RunRaces, Unjudged};
use super::{run_served, Lab};
use crate::observation::{Observation, Recorder};
use std::cell::RefCell;
use std::path::Path;
use syncmut_mutator::api::Family;
use syncmut_mutator::metamutant::Build;
use syncmut_runner::exec::{Execution, Limits, Status};
use syncmut_runner::fork_server::ForkServer;
use syncmut_runner::invocation::Invocation;
use syncmut_runner::test_case::TestCase;
use syncmut_runtime::schedule;
use syncmut_runtime::trace;

/// The original's run along a mutant run's interleaving ([`follow_original`]).
pub(super) struct FollowedRun {
    pub(super) execution: Execution,
    pub(super) observation: Observation,
    /// Which original run it is, in words.
    pub(super) label: String,
    pub(super) races: RunRaces,
    /// Where the original stopped following, when it could not follow to the end.
    pub(super) partial: Option<Partial>,
    /// Preemptions in the mutant's run, when its choices could be read back.
    pub(super) mutant_preemptions: Option<u32>,
}

/// An original that could not follow a mutant's interleaving to its end: from the
/// choice point `diverged` (1-based) of the mutant's `all`, it ran other threads than the
/// mutant's. Its run is still the original's, but past that point it is not the
/// mutant's interleaving, so a difference there says nothing about the mutant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Partial {
    pub(super) diverged: usize,
    pub(super) all: usize,
    /// How the mutant's steps differ from the original's before `diverged`, where both
    /// ran the same interleaving: a difference there is one the original cannot
    /// produce under that interleaving, the same claim as a full follow's.
    pub(super) before: Option<String>,
    /// Preemptions in the mutant's run: the original's search that decides it needs as
    /// many.
    pub(super) preemptions: u32,
}

impl Partial {
    /// `choice 9 of 25`.
    pub(super) fn point(&self) -> String {
        format!("choice {} of {}", self.diverged, self.all)
    }
}

/// The original along the interleaving a mutant's run recorded in `choices` (its
/// `SYNCMUT_SCHEDULE_OUT` file), beside the mutant's trace `mutant_trace`. `None` for
/// SystemC or when the run recorded nothing. `lab` is the mutant's: the original runs on
/// the same test under the same limits.
pub(super) fn follow_original(
    lab: &Lab,
    choices: &Path,
    mutant_trace: &Path,
    lens: Lens,
) -> Result<Option<FollowedRun>, Unjudged> {
    let build = lab.build;
    let original = Lab {
        active: "",
        max_steps: None,
        ..*lab
    };
    if build.catalogue.kind != Family::Pthread || !choices.is_file() {
        return Ok(None);
    }
    let trace_file = mutant_trace.with_extension("followed.jsonl");
    let followed_file = mutant_trace.with_extension("followed.schedule");
    let value = schedule::follow_value(choices);
    let (execution, observation, _) = traced_in(
        &original,
        &value,
        &trace_file,
        Some(&followed_file),
        None,
        lens,
    )?;
    let races = run_races(build, &trace_file)?;
    let read = |path: &Path| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| schedule::parse(&t).ok())
    };
    let (mutant_schedule, original_schedule) = (read(choices), read(&followed_file));
    // The runtime counts a recorded choice as taken even when the original first had to
    // decide other points by default (the recorded thread could not run yet), so whether
    // it followed exactly is read from the two recorded files, choice by choice.
    let partial = match (&mutant_schedule, &original_schedule) {
        (Some(mutant), Some(original)) if !same_choices(mutant, original) => {
            let label = |site| crate::diff::site_label(&build.catalogue, site);
            Some(
                partial_follow(
                    mutant,
                    original,
                    mutant_trace,
                    &trace_file,
                    &execution,
                    lens,
                    &label,
                )
                .map_err(|e| trace_error(&trace_file, e))?,
            )
        }
        _ => None,
    };
    let _ = std::fs::remove_file(&trace_file);
    let _ = std::fs::remove_file(&followed_file);
    let label = match (&mutant_schedule, &partial) {
        (_, Some(p)) => format!("the original following the mutant's interleaving up to {} (it could not take that choice)", p.point()),
        (Some(mutant), None) => format!("the original following the mutant's interleaving (all {} choices)", mutant.choices.len()),
        _ => "the original following the mutant's interleaving".to_string(),
    };
    Ok(Some(FollowedRun {
        execution,
        observation,
        label,
        races,
        partial,
        mutant_preemptions: mutant_schedule.as_ref().map(preemptions),
    }))
}

/// Whether two recorded runs made the same choices, in the same order.
fn same_choices(a: &schedule::Schedule, b: &schedule::Schedule) -> bool {
    a.choices.len() == b.choices.len()
        && a.choices
            .iter()
            .zip(&b.choices)
            .all(|(x, y)| same_point(x, y))
}

/// Whether two runs are at the same point of one interleaving: the same kind of choice
/// among the same threads, from the same running thread, and the same one chosen. The
/// same chosen thread alone is not enough: where one program's thread is blocked and the
/// other's ready, the steps between two choice points differ.
fn same_point(a: &schedule::Choice, b: &schedule::Choice) -> bool {
    let ids = |c: &schedule::Choice| c.options.iter().map(|(id, _)| *id).collect::<Vec<_>>();
    a.chosen == b.chosen && a.kind == b.kind && a.current == b.current && ids(a) == ids(b)
}

/// Where the original (`original`, its recorded choices when following) first made
/// another choice than the mutant (`mutant`), and whether the two runs' steps already
/// differ before that point: each run's trace is read up to the events recorded before
/// that choice, and each thread's steps are compared as far as both runs have them
/// (`execution` is the original's; only the steps are compared).
fn partial_follow(
    mutant: &schedule::Schedule,
    original: &schedule::Schedule,
    mutant_trace: &Path,
    original_trace: &Path,
    execution: &Execution,
    lens: Lens,
    label: &dyn Fn(u32) -> String,
) -> Result<Partial, String> {
    let k = mutant
        .choices
        .iter()
        .zip(&original.choices)
        .take_while(|(a, b)| same_point(a, b))
        .count();
    let before = |schedule: &schedule::Schedule| {
        schedule
            .choices
            .get(k)
            .and_then(|c| c.events)
            .unwrap_or(u64::MAX)
    };
    let prefix = |path: &Path, limit: u64| -> Result<Observation, String> {
        let mut recorder = Recorder::new(lens.hidden, lens.mask);
        trace::visit(path, &mut |event| {
            if event.seq < limit {
                recorder.event(event)
            }
        })?;
        Ok(recorder.finish(execution, None))
    };
    let (mut m, mut o) = (
        prefix(mutant_trace, before(mutant))?,
        prefix(original_trace, before(original))?,
    );
    // Past the shorter of a thread's two prefixes nothing is known of the other run.
    for (thread, steps) in m.threads.iter_mut() {
        let theirs = o.threads.entry(thread.clone()).or_default();
        let common = steps.len().min(theirs.len());
        steps.truncate(common);
        theirs.truncate(common);
    }
    o.threads.retain(|thread, _| m.threads.contains_key(thread));
    m.threads.retain(|_, steps| !steps.is_empty());
    o.threads.retain(|_, steps| !steps.is_empty());
    // Each thread's last step compared by site: what it loads may come after the cut,
    // where the original no longer ran the mutant's interleaving.
    let (m, o) = (m.last_steps_by_site(), o.last_steps_by_site());
    let before = o.first_step_difference(&m, label);
    Ok(Partial {
        diverged: k + 1,
        all: mutant.choices.len(),
        before,
        preemptions: preemptions(mutant),
    })
}

/// How many of a run's recorded choices preempted the running thread.
fn preemptions(run: &schedule::Schedule) -> u32 {
    run.choices.iter().filter(|c| c.preempts(c.chosen)).count() as u32
}

/// The original in the order of a run with real threads (a mutant's), which records no
/// choices: its trace (`native_trace`) says which thread recorded each event, and the
/// original, under the controlled scheduler, takes at each choice point the thread that
/// recorded the event it records next (`events:`). Real threads take turns in orders a
/// search within a few preemptions does not reach (two threads alternating at one lock
/// need a preemption at almost every unlock); this is the original in that order, as
/// far as its program lets it. `None` when the trace has no event, or the original's
/// run timed out (a busy-wait may hang under the scheduler that ends with real
/// threads: no behaviour of the original to compare with). Files go to `work`.
pub(super) fn follow_native(
    build: &Build,
    test: &TestCase,
    limits: &Limits,
    native_trace: &Path,
    work: &Path,
    server: Option<&RefCell<ForkServer>>,
) -> Result<Option<Execution>, String> {
    let mut order = String::new();
    trace::visit(native_trace, &mut |event| {
        if let Some(k) = event.thread.strip_prefix('T') {
            order.push_str(k);
            order.push('\n');
        }
    })
    .map_err(|e| format!("{}: {e}", native_trace.display()))?;
    if order.is_empty() {
        return Ok(None);
    }
    let events = work.join("native.events");
    std::fs::write(&events, order).map_err(|e| format!("{}: {e}", events.display()))?;
    let trace = work.join("in-order.trace");
    let _ = std::fs::remove_file(&trace);
    let invocation = Invocation {
        active: Some(String::new()),
        trace: Some(trace),
        schedule: Some(schedule::events_value(&events)),
        limits: *limits,
        ..Invocation::for_test(&build.metamutant, test)
    };
    let execution = run_served(&invocation, server)
        .map_err(|e| format!("{}: {e}", build.metamutant.display()))?;
    Ok((execution.status != Status::TimedOut).then_some(execution))
}

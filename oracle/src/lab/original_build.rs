//! The uninstrumented build's check: the original build, run once with real threads on
//! a test, must end and write as the metamutant without a mutant does in one of its runs.
//! Otherwise instrumenting changed the design, and no mutant can be judged by the test.
//! Before saying so, two other sources of the metamutant's runs are asked, since a run
//! with real threads takes interleavings the baseline's few sampled schedules may not:
//! more runs with real threads, and the original's bounded search. Last, the original
//! build itself runs again: its first run may have taken an interleaving so rare that
//! none of those shows it, and a later run writing as the metamutant does shows that.

use super::baseline::run_native;
use super::follow_check::{
    search_bounded_runs, BoundedSearch, Bounds, Extent, Ticker, FOLLOW_CHECK_PREEMPTIONS,
};
use crate::error::OracleError;
use crate::mask::Mask;
use crate::observation::Compared;
use std::cell::RefCell;
use syncmut_mutator::api::Family;
use syncmut_mutator::metamutant::Build;
use syncmut_runner::exec::{Execution, Limits, Status};
use syncmut_runner::fork_server::ForkServer;
use syncmut_runner::invocation::Invocation;
use syncmut_runner::test_case::TestCase;

/// How the metamutant without a mutant showed what the original build did when none of
/// the baseline's sampled schedules did.
pub(super) enum OriginalBuildShown {
    /// In one of its runs with real threads.
    WithRealThreads,
    /// Under a schedule of the original's bounded search, of this many runs.
    BySearch(usize),
    /// No run of the metamutant showed the original build's first run, but this run of
    /// the original build's [`ORIGINAL_BUILD_RERUNS`] more wrote as one of them did.
    ByOriginalRerun(usize),
    /// The metamutant's runs with real threads that end as the original build's run did
    /// wrote differently from each other (this many from the first): with real threads
    /// the design's output follows timing, so one run of the original build writing
    /// otherwise says nothing about the instrumentation.
    VariesWithRealThreads(usize),
}

impl OriginalBuildShown {
    /// The baseline's note on the test, which stays usable; `native`, the runs with real
    /// threads each survivor gets (`--native`).
    pub(super) fn hint(&self, native: usize) -> String {
        let judged = match native {
            0 => "with --native 0 no mutant is judged on it",
            _ => "the runs with real threads (--native) judge mutants on it",
        };
        match self {
            OriginalBuildShown::WithRealThreads => format!("with real threads the original build wrote what none of the controlled runs of the original did, and so did the metamutant without a mutant: the controlled schedules switch threads only at synchronization calls and do not reach that behaviour; {judged}"),
            OriginalBuildShown::BySearch(runs) => format!("with real threads the original build wrote what none of the sampled schedules of the original did; the original's search of every schedule with at most {FOLLOW_CHECK_PREEMPTIONS} preemptions ({runs} runs) shows it too: a rare interleaving, not a change the instrumentation made"),
            OriginalBuildShown::ByOriginalRerun(run) => format!("with real threads the original build's first run wrote what no run of the metamutant without a mutant did, but its run {run} of {ORIGINAL_BUILD_RERUNS} more wrote as one of them does: the design's output depends on its threads' timing and the first run took a rare interleaving, not a change the instrumentation made"),
            OriginalBuildShown::VariesWithRealThreads(differing) => format!("with real threads the original build wrote what no run of the metamutant without a mutant did, but those of them that end as it did wrote differently from each other too ({differing} from the first): the design's output with real threads depends on timing, not on the instrumentation (a run with real threads kills by output only while the original's own such runs agree)"),
        }
    }
}

/// Runs of the metamutant without a mutant with real threads that may show what the
/// original build wrote when no controlled run did (a design whose output depends on its
/// threads' timing), before the test is set aside.
const REAL_THREAD_CHECK_RUNS: usize = 10;

/// More runs of the original build when no run of the metamutant showed what its first
/// run wrote: one of them agreeing with the metamutant shows the first was a rare
/// interleaving of a design whose output depends on timing.
const ORIGINAL_BUILD_RERUNS: usize = 10;

/// What the check found.
pub(super) struct OriginalBuildCheck {
    /// Why the test is set aside, when no run of the metamutant shows what the original
    /// build did.
    pub(super) set_aside: Option<String>,
    /// How the metamutant showed it when the baseline's sampled runs (`executions`) did
    /// not.
    pub(super) shown: Option<OriginalBuildShown>,
    /// The original's bounded search, when the check made it: the mutants' follow check
    /// uses the same one.
    pub(super) search: Option<BoundedSearch>,
}

/// Runs the original build once on `test` and compares it with the metamutant's runs
/// without a mutant (`executions`, the baseline's), then, on a pthread design, with
/// [`REAL_THREAD_CHECK_RUNS`] runs with real threads, with the original's search of
/// every schedule with at most [`FOLLOW_CHECK_PREEMPTIONS`] preemptions, and last with
/// [`ORIGINAL_BUILD_RERUNS`] more runs of the original build, as long as none agrees.
/// The search runs at most `search_runs` schedules and reports each to `ticker`; the
/// metamutant's runs go through the test's fork `server` when given. An error is a
/// failure of the machine.
pub(super) fn check_original_build(
    build: &Build,
    test: &TestCase,
    executions: &[&Execution],
    mask: &Mask,
    limits: &Limits,
    (search_runs, ticker): (usize, Ticker),
    server: Option<&RefCell<ForkServer>>,
) -> Result<OriginalBuildCheck, OracleError> {
    let native = run_original_build(build, test, limits);
    let mut check = OriginalBuildCheck {
        set_aside: differs_from_original_build(&native, executions, mask),
        shown: None,
        search: None,
    };
    // Every run of the metamutant without a mutant made so far, for the last check.
    let mut free = Vec::new();
    let mut searched = Vec::new();
    if check.set_aside.is_some() && build.catalogue.kind == Family::Pthread {
        // The controlled schedules switch threads only at synchronization calls, so a
        // design whose output depends on its threads' timing may write with real
        // threads what none of them shows. This check is about the instrumentation:
        // the metamutant without a mutant, run with real threads as the original
        // build was, may show it too.
        free = run_native(build, test, "", REAL_THREAD_CHECK_RUNS, limits, server)
            .map_err(|message| OracleError::Environment { message })?;
        let all: Vec<&Execution> = executions.iter().copied().chain(&free).collect();
        if differs_from_original_build(&native, &all, mask).is_none() {
            check.set_aside = None;
            check.shown = Some(OriginalBuildShown::WithRealThreads);
        } else if let Some(differing) = varying_alike(&native, &free, mask) {
            check.set_aside = None;
            check.shown = Some(OriginalBuildShown::VariesWithRealThreads(differing));
        }
    }
    if check.set_aside.is_some() && build.catalogue.kind == Family::Pthread {
        // Or the schedules sampled above missed a rare interleaving that the original
        // build's timing took: the original's search of every schedule with few
        // preemptions (the one that decides the runs the original cannot follow,
        // kept for the mutants) may show it.
        let bounds = Bounds {
            preemptions: FOLLOW_CHECK_PREEMPTIONS,
            budget: search_runs,
            extent: Extent::Whole,
        };
        if let Ok(found) = search_bounded_runs(build, test, mask, limits, bounds, ticker) {
            let (runs, observations): (Vec<_>, Vec<_>) = found.runs.into_iter().unzip();
            searched = runs;
            let all: Vec<&Execution> = executions.iter().copied().chain(&searched).collect();
            if differs_from_original_build(&native, &all, mask).is_none() {
                check.set_aside = None;
                check.shown = Some(OriginalBuildShown::BySearch(searched.len()));
            }
            check.search = Some(BoundedSearch {
                observations,
                exhausted: found.exhausted,
                preemptions: FOLLOW_CHECK_PREEMPTIONS,
                schedules_at_least: None,
            });
        }
    }
    // A SystemC kernel runs one process at a time in a fixed order: its runs take no
    // interleaving by timing, and a rerun would write the same.
    if check.set_aside.is_some() && native.is_ok() && build.catalogue.kind == Family::Pthread {
        let all: Vec<&Execution> = executions
            .iter()
            .copied()
            .chain(&free)
            .chain(&searched)
            .collect();
        if let Some(run) = agreeing_original_rerun(build, test, &all, mask, limits) {
            check.set_aside = None;
            check.shown = Some(OriginalBuildShown::ByOriginalRerun(run));
        }
    }
    Ok(check)
}

/// How many of the metamutant's runs with real threads (`free`) that end as the original
/// build's run (`native`) did and write the same files print otherwise than the first of
/// them; `None` when none does. Where those runs print differently from each other, the
/// original build's run may too (a stamp in an output file is a difference of another
/// kind: [`difference`] names it).
fn varying_alike(
    native: &Result<Execution, String>,
    free: &[Execution],
    mask: &Mask,
) -> Option<usize> {
    let native = native.as_ref().ok()?;
    let alike: Vec<&Execution> = free
        .iter()
        .filter(|r| r.status == native.status && r.outputs == native.outputs)
        .collect();
    let (first, rest) = alike.split_first()?;
    let differing = rest
        .iter()
        .filter(|r| difference(first, r, mask).is_some())
        .count();
    (differing > 0).then_some(differing)
}

/// The first of [`ORIGINAL_BUILD_RERUNS`] more runs of the original build, numbered from
/// one, that ends and writes as one of the metamutant's `runs` does; `None` when none
/// does or the original build cannot be run.
fn agreeing_original_rerun(
    build: &Build,
    test: &TestCase,
    runs: &[&Execution],
    mask: &Mask,
    limits: &Limits,
) -> Option<usize> {
    // A rerun that times out writes nothing to compare (differs_from_original_build
    // lets a native timeout pass): it shows nothing.
    (1..=ORIGINAL_BUILD_RERUNS).find(|_| {
        let rerun = run_original_build(build, test, limits);
        matches!(&rerun, Ok(e) if e.status != Status::TimedOut)
            && differs_from_original_build(&rerun, runs, mask).is_none()
    })
}

/// Why the test is unusable when the uninstrumented original's run (`native`) disagrees
/// with the metamutant running no mutant, or could not be made: what differed, in words.
/// The uninstrumented run agrees when it ends and writes as one of the metamutant's runs
/// (`runs`, the first schedule's first) does: a design
/// whose output depends on the interleaving writes with real threads what some
/// schedule shows, not necessarily what the first one does.
pub(super) fn differs_from_original_build(
    native: &Result<Execution, String>,
    runs: &[&Execution],
    mask: &Mask,
) -> Option<String> {
    let native = match native {
        Ok(native) => native,
        Err(e) => return Some(e.clone()),
    };
    // With real threads a sleep takes real time (under the scheduler, virtual time): a
    // design whose sleeps add up past the limit times out natively and nowhere else.
    // That says nothing about the instrumentation, so it does not set the test aside.
    if native.status == Status::TimedOut && runs.iter().any(|r| r.status != Status::TimedOut) {
        return None;
    }
    if runs
        .iter()
        .any(|execution| difference(native, execution, mask).is_none())
    {
        return None;
    }
    difference(native, runs.first()?, mask)
}

/// The uninstrumented original's run on `test`, once per test: every check above
/// compares the same run. An error says which executable could not be run.
pub(super) fn run_original_build(
    build: &Build,
    test: &TestCase,
    limits: &Limits,
) -> Result<Execution, String> {
    Invocation {
        limits: *limits,
        ..Invocation::for_test(&build.original, test)
    }
    .run()
    .map_err(|e| format!("{}: {e}", build.original.display()))
}

/// What differs between the uninstrumented original's run (`native`) and the
/// metamutant's without a mutant (`execution`), in words; `None` when nothing does.
fn difference(native: &Execution, execution: &Execution, mask: &Mask) -> Option<String> {
    // The same signal is agreement: what a crash prints names the program (glibc's
    // assert message starts with the executable's name, which differs between the two
    // builds), and output cut short by a signal is no course of synchronization. A
    // flaky test's original may abort natively as it did under a flaky schedule.
    if native.status == execution.status && matches!(native.status, Status::Signaled(_)) {
        return None;
    }
    let what = if native.status != execution.status {
        format!(
            "ends with {} but the metamutant without a mutant with {}",
            native.status, execution.status
        )
    } else if native.outputs != execution.outputs {
        let name = native
            .outputs
            .keys()
            .chain(execution.outputs.keys())
            .find(|k| native.outputs.get(*k) != execution.outputs.get(*k))?;
        let file = |outputs: &std::collections::BTreeMap<_, Option<_>>| {
            outputs.get(name).cloned().flatten()
        };
        let difference = match (file(&native.outputs), file(&execution.outputs)) {
            (Some(a), Some(b)) => {
                // A few bytes of a file of the same size are a stamp the design writes
                // (a time, a process id), not a different course of synchronization.
                let few = a.first_difference(&b).filter(|(start, end)| {
                    a.bytes == b.bytes && end - start < 8 && a.head.len() as u64 == a.bytes
                });
                if let Some((start, end)) = few {
                    let bytes = match start == end {
                        true => format!("byte {start}"),
                        false => format!("bytes {start}–{end}"),
                    };
                    return Some(format!(
                        "the original build and the metamutant without a mutant write {name} differently in {bytes} (from 0) only: a time stamp, process id or address the design writes into the file, not a difference in synchronization; leave {name} out of the test's \"outputs\""
                    ));
                }
                format!(
                    "the metamutant's {}",
                    crate::verdict::file_difference(name, &a, &b)
                )
            }
            (Some(_), None) => format!("{name} is missing from the metamutant's run"),
            (None, Some(_)) => format!("{name} is written by the metamutant only"),
            (None, None) => return None,
        };
        format!("and the metamutant without a mutant write different files ({difference})")
    } else {
        let outputs = [
            (
                "stdout",
                Compared::whole(&native.stdout).masking(&mask.stdout_lines),
                Compared::whole(&execution.stdout).masking(&mask.stdout_lines),
            ),
            (
                "stderr",
                Compared::design_stderr(&native.stderr).masking(&mask.stderr_lines),
                Compared::design_stderr(&execution.stderr).masking(&mask.stderr_lines),
            ),
        ];
        match outputs.iter().find(|(_, a, b)| a != b).map(|(name, a, b)| crate::verdict::output_difference(name, a, b)) {
            Some(difference) => format!("and the metamutant without a mutant write different output (the metamutant's {difference})"),
            None => return None,
        }
    };
    Some(format!("the original build {what}: the design behaves differently when syncmut controls its synchronization"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended(status: Status, stderr: &str) -> Execution {
        Execution {
            status,
            stdout: syncmut_runner::output::Output::from_bytes(b"count 11\n"),
            stderr: syncmut_runner::output::Output::from_bytes(stderr.as_bytes()),
            elapsed: std::time::Duration::ZERO,
            outputs: Default::default(),
        }
    }

    /// glibc's assert message names the executable: the original build and the
    /// metamutant aborting at the same assertion agree.
    #[test]
    fn the_same_signal_agrees_whatever_the_crash_message_names() {
        let mask = Mask::default();
        let native = ended(
            Status::Signaled(6),
            "original: order.c:31: main: Assertion failed.\n",
        );
        let controlled = ended(
            Status::Signaled(6),
            "metamutant: order.c:31: main: Assertion failed.\n",
        );
        assert_eq!(difference(&native, &controlled, &mask), None);
        let other_signal = ended(Status::Signaled(11), "");
        assert!(difference(&native, &other_signal, &mask).is_some());
        let passed = ended(Status::Exited(0), "");
        assert!(difference(&native, &passed, &mask).is_some());
        let said_otherwise = ended(Status::Exited(0), "a warning\n");
        assert!(difference(&passed, &said_otherwise, &mask).is_some());
    }
}

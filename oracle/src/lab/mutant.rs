//! One (mutant, test) pair: the mutant run under every schedule (listed, or its own dfs
//! search), then with real threads, each run judged into a [`Tally`], its killing run's
//! trace kept; then the pair's verdict and the reason that explains it (kill fraction,
//! what a survivor was tried on).

use super::baseline::run_native_traced;
use super::follow::{follow_native, follow_original};
use super::follow_check::{search_bounded, Bounds, FOLLOW_CHECK_PREEMPTIONS};
use super::tally::Tally;
use super::traces::{
    divergence_seq, keep_stderr, keep_trace, run_races, traced, traced_in, Lens, RunRaces, Unjudged,
};
use super::{
    dfs_config, dfs_tag, explores, schedule_file, schedule_value, wilson_interval, Lab,
    RunSettings, SearchTick, UsableTest, TIMEOUT_CONFIRM_FACTOR,
};
use crate::explore;
use crate::mask::Mask;
use crate::observation::Observation;
use crate::outcome::Run;
use crate::outdir::{self, OutDir};
use crate::schedules::{self as schedule_plan, Strategy};
use crate::verdict::Verdict;
use std::cell::RefCell;
use std::time::Duration;
use syncmut_mutator::api::Family;
use syncmut_mutator::metamutant::Build;
use syncmut_mutator::Mutant;
use syncmut_runner::exec::{Limits, Status};
use syncmut_runner::fork_server::ForkServer;
use syncmut_runner::invocation::{self, Invocation};
use syncmut_runner::test_case::TestCase;
use syncmut_runtime::status;
use syncmut_runtime::trace::{self, Keep};

/// Runs one mutant on one test under every schedule and judges it.
///
/// An error is a failure of the machine ([`Unjudged::Environment`]): the run stops.
pub(super) fn run_mutant(
    build: &Build,
    mutant: &Mutant,
    (test, baseline, plan): UsableTest,
    out: &OutDir,
    config: &RunSettings,
    server: Option<&RefCell<ForkServer>>,
    on_search: &dyn Fn(SearchTick),
) -> Result<Run, String> {
    let limits = Limits {
        timeout: invocation::timeout_after(Duration::from_millis(baseline.elapsed_ms)),
        ..config.limits
    };
    let explores = explores(build, config);
    let dfs = explores && matches!(config.strategy.strategy, Strategy::Dfs { .. });
    // A budget chosen to find faults stops at the first kill; a named strategy runs
    // every schedule, for its kill fraction, unless the settings ask for the first kill
    // only.
    let stop_at_kill = config.stop_at_first_kill
        || !explores
        || matches!(config.strategy.strategy, Strategy::Alternating { .. });
    let active = if config.self_check {
        String::new()
    } else {
        mutant.activation()
    };
    let search_limits = Limits {
        timeout: config.baseline_timeout,
        ..config.limits
    };
    let budget = config.search_runs;
    let search = Box::new(move |preemptions, extent| {
        let bounds = Bounds {
            preemptions,
            budget,
            extent,
        };
        let ticker = |runs| {
            on_search(SearchTick {
                test: test.name.clone(),
                preemptions,
                runs,
                budget,
            })
        };
        search_bounded(build, test, &plan.mask, &search_limits, bounds, &ticker)
    });
    let mut tally = Tally::new(build, mutant, plan, search);
    let lab = Lab {
        build,
        test,
        out,
        settings: config,
        limits: &limits,
        active: &active,
        max_steps: plan.max_steps,
        server,
    };
    let mut exhaustive = false;
    let mut ran = if dfs {
        search_mutant(&lab, mutant, stop_at_kill, &mut tally)
            .map(|covered| exhaustive = covered && plan.exhausted)
    } else {
        let schedules: &[String] = if explores {
            &plan.mutant_schedules
        } else {
            &plan.mutant_schedules[..1]
        };
        run_mutant_listed(&lab, mutant, schedules, explores, stop_at_kill, &mut tally)
    };
    if ran.is_ok()
        && tally.first_kill.is_none()
        && build.catalogue.kind == Family::Pthread
        && config.native > 0
    {
        let work =
            tempfile::tempdir().map_err(|e| format!("{}: {e}", std::env::temp_dir().display()))?;
        let trace = work.path().join("native.trace");
        for run in 1..=config.native {
            let execution =
                match run_native_traced(build, test, &active, &limits, Some(&trace), server) {
                    Ok(execution) => execution,
                    Err(message) => {
                        ran = Err(Unjudged::Environment(message));
                        break;
                    }
                };
            let mut original_in_order =
                || follow_native(build, test, &limits, &trace, work.path(), server);
            let mut original_again = || run_native_traced(build, test, "", &limits, None, server);
            match tally.add_native(
                build,
                &execution,
                run,
                &mut original_in_order,
                &mut original_again,
            ) {
                Ok(false) => {}
                Ok(true) => break,
                Err(message) => {
                    ran = Err(Unjudged::Environment(message));
                    break;
                }
            }
        }
    }
    match ran {
        Err(Unjudged::Environment(message)) => return Err(message),
        Err(Unjudged::Run(reason)) => return Ok(error_run(mutant, test, reason, &tally)),
        Ok(()) => {}
    }
    let (kills, total) = (tally.kills, tally.runs);
    let tried = schedule_plan::summarise(&tally.tried);
    // Every behaviour of the mutant is one of the original's and every one of the
    // original's is the mutant's, over both whole bounded spaces: equivalent there. A run
    // only the original following it explains is outside the original's search: no claim.
    let equivalent = exhaustive
        && kills == 0
        && tally.refuted == 0
        && tally.unclaimed == 0
        && tally.matched.iter().all(|m| *m);
    let (verdict, reason, schedule) = match tally.first_kill.take() {
        Some((v, r, s)) if explores && !stop_at_kill => {
            let mut reason = format!(
                "{r}; {}",
                kill_fraction(config.strategy.strategy, kills, total, exhaustive)
            );
            // Kills count proven runs only; the others that differed are said apart.
            if let Some(note) = unclaimed_note(&tally) {
                reason.push_str(&format!("; {} more {note}", tally.unclaimed));
            }
            (v, reason, Some(s))
        }
        Some((v, r, s)) if explores || s == "native" => (
            v,
            format!(
                "{r}; found by schedule {s}, the {} of {tried}",
                ordinal(total)
            ),
            Some(s),
        ),
        Some((v, r, _)) => (v, r, None),
        None if equivalent => {
            let Strategy::Dfs { preemptions, por } = config.strategy.strategy else {
                unreachable!("exhaustive only under dfs")
            };
            let originals: Vec<&Observation> = tally
                .matched
                .iter()
                .zip(&tally.original)
                .map(|(_, o)| &o.observation)
                .collect();
            let reason = format!(
                "equivalent (exhaustive): on each of {total} schedules ({}) the mutant showed one of the original's behaviours, and all {} of them",
                schedule_plan::dfs_space(preemptions, por),
                distinct(&originals)
            );
            (Verdict::EquivalentExhaustive, reason, None)
        }
        None => (
            Verdict::Survived,
            survived_reason(build, &tally, config.strategy.strategy, exhaustive, &tried),
            None,
        ),
    };
    Ok(Run {
        mutant: mutant.id.clone(),
        test: test.name.clone(),
        verdict,
        reason,
        elapsed_ms: tally.elapsed.as_millis() as u64,
        schedule,
        kills: explores.then_some(kills),
        schedules: explores.then_some(total),
        exhaustive,
        unclaimed: tally.unclaimed,
        executions: tally.executions,
        search_runs: tally.search_runs,
    })
}

/// How many of `observations` differ from each other.
fn distinct(observations: &[&Observation]) -> usize {
    observations
        .iter()
        .enumerate()
        .filter(|(i, o)| !observations[..*i].contains(o))
        .count()
}

/// What a survivor was tried on: `survived 24 schedules: default, pct×12, random×11`.
fn survived_reason(
    build: &Build,
    tally: &Tally,
    strategy: Strategy,
    exhaustive: bool,
    tried: &str,
) -> String {
    if build.catalogue.kind == Family::Systemc {
        return "survived its one run (a SystemC kernel's process order is deterministic: one run is every schedule)".to_string();
    }
    let total = tally.runs;
    let mut reason = format!(
        "survived {total} schedule{}: {tried}",
        if total == 1 { "" } else { "s" }
    );
    if let Strategy::Dfs { preemptions, por } = strategy {
        reason.push_str(&match exhaustive {
            true => format!(
                " (exhaustive: {})",
                schedule_plan::dfs_space(preemptions, por)
            ),
            false => " (not exhaustive: the budget ended the search)".to_string(),
        });
    }
    if tally.refuted > 0 {
        reason.push_str(&format!(
            "; {} of them differed from every listed run of the original, but the original following the same interleaving did the same",
            tally.refuted
        ));
    }
    if tally.native_refuted > 0 {
        reason.push_str(&format!(
            "; {} run(s) with real threads differed from the baseline's runs of the original, but its search within {FOLLOW_CHECK_PREEMPTIONS} preemptions, its run in the order of that run's events or more of its runs with real threads showed the same",
            tally.native_refuted
        ));
    }
    if tally.timeouts_not_confirmed > 0 {
        reason.push_str(&format!(
            "; {} run(s) timed out under the first limit but finished when run again under {TIMEOUT_CONFIRM_FACTOR}× it (the machine was slow, not the mutant), judged by that run",
            tally.timeouts_not_confirmed
        ));
    }
    if tally.found_by_search > 0 {
        reason.push_str(&format!(
            "; {} of them differed from the original following the mutant's interleaving (or it could not follow to the end), but its search within at most {FOLLOW_CHECK_PREEMPTIONS} preemptions showed the same",
            tally.found_by_search
        ));
    }
    if let Some(note) = unclaimed_note(tally) {
        reason.push_str(&format!("; {} of them {note}", tally.unclaimed));
    }
    reason
}

/// What the unclaimed runs showed and why none is a kill, after their count: a
/// difference seen, not proven against the original.
fn unclaimed_note(tally: &Tally) -> Option<String> {
    let first = tally.first_unclaimed.as_ref()?;
    let doubt = match &first.partial {
        Some(partial) => format!(
            "but only past the point where the original could no longer follow the mutant's interleaving (from {}), agreeing with it up to there, and {}",
            partial.point(),
            first.why
        ),
        None => format!("but {}", first.why),
    };
    Some(format!(
        "differed from every run of the original tried (first: schedule {}, {}), {doubt}: a difference seen but not proven against the original, so not claimed as kills",
        first.schedule, first.difference,
    ))
}

/// `1st`, `2nd`, `3rd`, `4th`…
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The mutant's own dfs search, each run judged into `tally`; the first kill's trace and
/// choices are kept, and the original re-run under them for the diff; with
/// `stop_at_kill` that kill ends the search. Returns whether the search covered its
/// bounded space, or why the pair cannot be judged. The search is the
/// settings' (`lab.settings.strategy`), its livelock bound the plan's (`lab.max_steps`).
fn search_mutant(
    lab: &Lab,
    mutant: &Mutant,
    stop_at_kill: bool,
    tally: &mut Tally,
) -> Result<bool, Unjudged> {
    let Lab {
        build,
        test,
        out,
        limits,
        active,
        ..
    } = *lab;
    let work = tempfile::tempdir().map_err(|e| Unjudged::from_io(&std::env::temp_dir(), e))?;
    let choices = work.path().join("mutant.schedule");
    // Without the test's input values, as the dfs search has always run.
    let program = Invocation {
        active: Some(active.to_string()),
        limits: *limits,
        ..Invocation::in_setting(&build.metamutant, test)
    };
    let mut failed = None;
    let search = explore::search(
        &program,
        &dfs_config(build, lab.settings.strategy, lab.max_steps),
        &work.path().join("search"),
        &mut |visit| {
            let tag = dfs_tag(visit.run);
            let first = tally.first_kill.is_none();
            let mut follow = |lens: Lens| {
                std::fs::write(&choices, visit.schedule_text)
                    .map_err(|e| Unjudged::from_io(&choices, e))?;
                follow_original(lab, &choices, visit.trace_file, lens)
            };
            let observed =
                Observation::new(visit.execution, visit.trace, &tally.hidden, tally.mask);
            let races = visit
                .races
                .map(|f| RunRaces::of(build, f))
                .unwrap_or_default();
            match tally.add(build, visit.execution, &observed, &races, &tag, &mut follow) {
                Ok(true) if first => {
                    // Keep the kill: its trace (capped around where it diverged) and the
                    // choices that replay it.
                    let path =
                        outdir::trace_file(out.root(), &test.name, Some(&mutant.id), Some(&tag));
                    let _ = std::fs::create_dir_all(path.parent().unwrap_or(out.root()));
                    // The search's file is the runtime's binary trace: kept as JSON Lines.
                    let around = tally
                        .divergence
                        .as_ref()
                        .and_then(|d| divergence_seq(visit.trace_file, &tally.hidden, d));
                    let _ = trace::write_capped(
                        visit.trace_file,
                        &path,
                        &Keep {
                            around,
                            ..Keep::DEFAULT
                        },
                    );
                    keep_stderr(&path, &visit.execution.stderr);
                    let _ = std::fs::write(
                        schedule_file(out.root(), &test.name, Some(&mutant.id), &tag),
                        visit.schedule_text,
                    );
                    stop_at_kill
                }
                Ok(_) => false,
                Err(e) => {
                    failed = Some(e);
                    true
                }
            }
        },
    );
    if let Some(e) = failed {
        return Err(e);
    }
    let covered = match search {
        Err(explore::ExploreError::Runtime(e)) => {
            return Err(Unjudged::Run(format!(
                "the runtime rejected the mutant: {e}"
            )))
        }
        Err(e) => return Err(Unjudged::Run(e.to_string())),
        Ok(search) => search.exhausted,
    };
    if let Some((_, _, tag)) = &tally.first_kill {
        // The original under the kill's choices, for the diff and `explain`.
        let value = schedule_value(out.root(), &test.name, Some(&mutant.id), tag);
        let path = outdir::trace_file(out.root(), &test.name, None, Some(tag));
        let nothing = Mask::default();
        let original = Lab {
            active: "",
            max_steps: None,
            ..*lab
        };
        if let Ok((execution, _, _)) = traced(
            &original,
            &value,
            &path,
            Lens {
                hidden: &[],
                mask: &nothing,
            },
        ) {
            tally.executions += 1;
            keep_stderr(&path, &execution.stderr);
            let _ = keep_trace(&path, None);
        }
    }
    Ok(covered)
}

/// Runs the mutant (`lab.active`) under each of `schedules`, judged into `tally`, each run
/// recording its interleaving for the original to follow; only the first killing run's
/// trace is kept (every run's with the settings' `keep_traces`). With `stop_at_kill`, the
/// first kill ends the runs. A first run is limited by the settings' `first_timeout`, if
/// any. An error says why the pair cannot be judged.
fn run_mutant_listed(
    lab: &Lab,
    mutant: &Mutant,
    schedules: &[String],
    tagged: bool,
    stop_at_kill: bool,
    tally: &mut Tally,
) -> Result<(), Unjudged> {
    let Lab {
        build,
        test,
        out,
        limits,
        ..
    } = *lab;
    let keep_all = lab.settings.keep_traces;
    let first_timeout = lab.settings.first_timeout;
    for schedule in schedules {
        let path = outdir::trace_file(
            out.root(),
            &test.name,
            Some(&mutant.id),
            tagged.then_some(schedule.as_str()),
        );
        let choices = path.with_extension("schedule");
        let first = Limits {
            timeout: first_timeout.unwrap_or(limits.timeout),
            ..*limits
        };
        let (mut execution, mut observed, mut workdir) = traced_in(
            &Lab {
                limits: &first,
                ..*lab
            },
            schedule,
            &path,
            Some(&choices),
            None,
            tally.lens(),
        )?;
        tally.timeout_confirmed = None;
        // A first limit of zero (`SYNCMUT_MUTANT_TIMEOUT_MS=0`) has expired whatever the
        // run did: one fast enough to end before its status was read still counts, so
        // the loaded machine it stands for is the same in every run.
        if execution.status == Status::TimedOut || first.timeout.is_zero() {
            // A run can time out for the machine's load alone: the same run (mutant,
            // test, schedule) under a larger limit tells a slow machine from a hang.
            let longer = Limits {
                timeout: limits.timeout * TIMEOUT_CONFIRM_FACTOR,
                ..*limits
            };
            let waited = execution.elapsed;
            drop(workdir);
            (execution, observed, workdir) = traced_in(
                &Lab {
                    limits: &longer,
                    ..*lab
                },
                schedule,
                &path,
                Some(&choices),
                None,
                tally.lens(),
            )?;
            tally.elapsed += waited;
            tally.executions += 1;
            tally.timeout_confirmed = Some(match execution.status {
                Status::TimedOut => format!(
                    "confirmed: the same run timed out again under {} ms, {TIMEOUT_CONFIRM_FACTOR}× its limit of {} ms",
                    longer.timeout.as_millis(),
                    limits.timeout.as_millis()
                ),
                _ => String::new(),
            });
            if execution.status != Status::TimedOut {
                tally.timeouts_not_confirmed += 1;
            }
        }
        if execution.status == Status::Exited(status::CONFIG_ERROR) {
            let _ = std::fs::remove_file(&choices);
            return Err(Unjudged::Run(format!(
                "the runtime rejected the mutant: {}",
                execution.stderr.text().trim()
            )));
        }
        let first = tally.first_kill.is_none();
        let races = run_races(build, &path)?;
        let killed = tally.add(
            build,
            &execution,
            &observed,
            &races,
            schedule,
            &mut |lens| follow_original(lab, &choices, &path, lens),
        );
        let _ = std::fs::remove_file(&choices);
        if killed? && first {
            // Keep this trace, it explains the kill (capped around where it diverged);
            // and what the run left behind.
            let around = tally
                .divergence
                .as_ref()
                .and_then(|d| divergence_seq(&path, &tally.hidden, d));
            keep_trace(&path, around)?;
            keep_stderr(&path, &execution.stderr);
            let _ = workdir.keep(&outdir::kept_workdir(out.root(), &test.name, &mutant.id));
            if stop_at_kill {
                return Ok(());
            }
        } else if keep_all {
            keep_trace(&path, None)?;
        } else {
            // Only killing runs are explained by a diff; spinning mutants write traces of
            // a million events, which must not pile up on disk.
            let _ = std::fs::remove_file(&path);
        }
    }
    Ok(())
}

/// How often the mutant was killed, for the reason: dfs says whether the search was
/// exhaustive, sampled strategies give a 95% Wilson interval.
fn kill_fraction(strategy: Strategy, kills: usize, total: usize, exhaustive: bool) -> String {
    match strategy {
        Strategy::Dfs { preemptions, por } if exhaustive => {
            format!("killed in {kills} of {total} schedules (exhaustive: {})", schedule_plan::dfs_space(preemptions, por))
        }
        Strategy::Dfs { .. } => format!("killed in {kills} of {total} dfs schedules (not exhaustive: the budget ended the search)"),
        _ => {
            let (lo, hi) = wilson_interval(kills, total);
            format!("killed in {kills} of {total} schedules (95% CI {:.0}–{:.0}%)", lo * 100.0, hi * 100.0)
        }
    }
}

fn error_run(mutant: &Mutant, test: &TestCase, reason: String, tally: &Tally) -> Run {
    Run {
        mutant: mutant.id.clone(),
        test: test.name.clone(),
        verdict: Verdict::Error,
        reason,
        elapsed_ms: tally.elapsed.as_millis() as u64,
        schedule: None,
        kills: None,
        schedules: None,
        exhaustive: false,
        unclaimed: 0,
        executions: tally.executions,
        search_runs: tally.search_runs,
    }
}

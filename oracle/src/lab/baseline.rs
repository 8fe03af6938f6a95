//! The baseline: the original on each test, under the first schedule twice (in two
//! virtual worlds, whose differences make the mask), then every other schedule once (or
//! its own dfs search), then the uninstrumented build once. It decides whether a test is
//! usable and keeps the original's runs every mutant is judged against
//! ([`OriginalRuns`]), and the original's dfs searches: its own under `--strategy dfs`,
//! and those that decide a mutant run the original could not follow (`follow_check.rs`). Apart from the mutants' side,
//! which only reads what it leaves.
//!
//! Why a test is set aside, in words, is `set_aside.rs`; the uninstrumented build's check
//! is `original_build.rs`.

use super::follow_check::{
    deciding, shared_searches, BoundedSearch, Extent, SharedSearches, Ticker,
    FOLLOW_CHECK_PREEMPTIONS, WHOLE,
};
use super::original_build::check_original_build;
use super::run_length::{measure, Measured};
use super::set_aside::{fails_expectation, missing_files_hint, unusable};
use super::traces::{
    keep_stderr, keep_trace, observe, run_races, traced_in, Lens, RunRaces, Unjudged,
};
use super::{dfs_config, dfs_tag, explores, run_served, Entropy, Lab, RunSettings, SearchTick};
use crate::error::OracleError;
use crate::explore;
use crate::mask::Mask;
use crate::observation::Observation;
use crate::outcome::{Baseline, FlakySchedule, LostNotifications};
use crate::outdir::{self, OutDir};
use crate::schedules::{Schedules, Strategy};
use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;
use syncmut_mutator::api::Family;
use syncmut_mutator::metamutant::Build;
use syncmut_runner::exec::{Execution, Limits, Status};
use syncmut_runner::fork_server::{self, ForkServer};
use syncmut_runner::invocation::Invocation;
use syncmut_runner::test_case::TestCase;

/// The schedules of one usable test and the original's executions under them.
#[derive(Debug, Clone)]
pub(super) struct OriginalRuns {
    /// `SYNCMUT_SCHEDULE` values every mutant runs under: the original's (empty for dfs:
    /// each mutant's own search chooses its schedules), or, in a self-check, others.
    pub(super) mutant_schedules: Vec<String>,
    /// The original's executions, one per schedule explored, each with what it showed
    /// (nothing hidden, the mask applied): compact, whatever the length of the trace.
    pub(super) originals: Vec<(Execution, Observation)>,
    /// The schedule each of `originals` ran under (`default`, `random:3`, `dfs:7`).
    pub(super) labels: Vec<String>,
    /// The original's runs with real threads (`--native N`): how it ends without the
    /// controlled scheduler.
    pub(super) native: Vec<Execution>,
    /// The original's runs under the schedules that made the test flaky: a mutant that
    /// fails as one of them did is no kill by that failure alone.
    pub(super) flaky: Vec<Execution>,
    /// dfs: the original's search covered its whole bounded space.
    pub(super) exhausted: bool,
    /// pthread: the mutants' livelock bound (`SYNCMUT_MAX_STEPS`), a multiple of the
    /// original's own scheduling points on this test.
    pub(super) max_steps: Option<u64>,
    /// What the original does not repeat across virtual worlds, left out of comparisons.
    pub(super) mask: Mask,
    /// `run --races`: the data races of the original's runs (never kills), and whether
    /// the detector left something unchecked in them (then no race kills on this test:
    /// the original might have had the race unseen).
    pub(super) races: RunRaces,
    /// The original's bounded searches on this test, each made the first time a mutant's
    /// run needs it (the original could not follow that run's interleaving to its end)
    /// and shared by every mutant; under dfs, the baseline's own search, whatever the
    /// bound.
    pub(super) searched: Arc<SharedSearches>,
    /// Under `--strategy dfs`, its preemption bound: the baseline's own search (in
    /// `searched[0]`) covers every run of a mutant with up to this many preemptions, also
    /// past [`FOLLOW_CHECK_PREEMPTIONS`].
    pub(super) dfs_bound: Option<u32>,
}

/// The follow check's search keeps at most about this many steps (16 bytes each) of the
/// original's runs: 256 MB.
pub(super) const FOLLOW_CHECK_STEPS: usize = 16 << 20;

/// A mutant that takes this many times the original's scheduling points (at least
/// `MIN_MUTANT_STEPS`) is a livelock. A bound relative to the original ends a spinning
/// mutant in milliseconds, long before its timeout, so the verdict does not depend on
/// how loaded the machine is (the runtime's fixed 10M-step default could lose that race).
const MUTANT_STEPS_FACTOR: u64 = 100;
const MIN_MUTANT_STEPS: u64 = 100_000;

/// Runs the original on a test and decides whether the test is usable: the first
/// schedule twice (the runs must agree), then every other schedule once (dfs: a search),
/// then the uninstrumented build once. A search of the original made here reports its
/// runs to `on_search`.
pub(super) fn baseline(
    build: &Build,
    test: &TestCase,
    out: &OutDir,
    config: &RunSettings,
    on_search: &dyn Fn(SearchTick),
) -> Result<(Baseline, Option<OriginalRuns>), OracleError> {
    let limits = Limits {
        timeout: config.baseline_timeout,
        ..config.limits
    };
    let explores = explores(build, config);
    let dfs = explores && matches!(config.strategy.strategy, Strategy::Dfs { .. });
    // The original's run length (pthread) places pct's change points and bounds the
    // mutants' steps; random and pct schedules are fixed in advance.
    // The original's runs start from a fork server, as the mutants' do: a
    // design with hundreds of tests spent most of its run exec'ing the original (the
    // measurement of its length included).
    let server = fork_server::enabled().then(|| RefCell::new(ForkServer::new()));
    let measured = (build.catalogue.kind == Family::Pthread)
        .then(|| measure(build, test, out, &limits, server.as_ref()));
    if let Some(Measured {
        timed_out: Some((execution, observation)),
        ..
    }) = measured
    {
        // The first run below would be this run again and time out again: the test is
        // set aside now, and a spin at sync level is built at memory level one timeout
        // sooner.
        let reason = unusable(&execution, &limits);
        return Ok((summarise(test, &[(execution, observation)], reason), None));
    }
    let steps = measured.map(|m| m.steps);
    let mut schedules = planned_schedules(config.strategy, explores, steps, 0);
    let listed = if dfs { &schedules[..1] } else { &schedules[..] };
    let tagged = explores && !dfs;
    let lab = Lab {
        build,
        test,
        out,
        settings: config,
        limits: &limits,
        active: "",
        max_steps: None,
        server: server.as_ref(),
    };
    let Listed {
        mut runs,
        mut set_aside,
        mask,
        mut races,
        flaky,
    } = run_original_listed(
        &lab,
        listed,
        tagged,
        config.baseline_repeats.max(1),
        config.keep_traces,
    );
    let mut labels: Vec<String> = listed.to_vec();
    let mut exhausted = false;
    // How the metamutant showed what the original build did, when the sampled schedules
    // did not; and the original's bounded search, when that made it.
    let mut original_build_shown = None;
    let mut searched_here = None;
    if dfs && set_aside.is_none() {
        // The original's own search replaces the runs above; its first run (no prefix) is
        // the default schedule already run.
        let work = tempfile::tempdir().map_err(|e| OracleError::Write {
            path: std::env::temp_dir(),
            source: e,
        })?;
        match search_original(
            build,
            test,
            config.strategy,
            &mask,
            &limits,
            work.path(),
            Searching::Baseline {
                races: &mut races,
                ticker: &|runs| {
                    on_search(SearchTick {
                        test: test.name.clone(),
                        preemptions: match config.strategy.strategy {
                            Strategy::Dfs { preemptions, .. } => preemptions,
                            _ => 0,
                        },
                        runs,
                        budget: config.strategy.budget,
                    })
                },
            },
        ) {
            Ok(search) => {
                labels = (1..=search.runs.len()).map(dfs_tag).collect();
                (runs, exhausted) = (search.runs, search.exhausted);
                set_aside = search.failure;
            }
            Err(e) => set_aside = Some(e),
        }
        schedules.clear();
    }
    // A flaky schedule is no schedule of this test: the original passes under the others.
    let is_flaky = |s: &String| flaky.iter().any(|f| f.finding.schedule == *s);
    labels.retain(|l| !is_flaky(l));
    schedules.retain(|s| !is_flaky(s));
    labels.truncate(runs.len());
    let Some((execution, _)) = runs.first() else {
        let reason = set_aside.unwrap_or_else(|| "the original could not be run".to_string());
        return Ok((not_started(test, reason), None));
    };
    if set_aside.is_none() {
        set_aside = fails_expectation(test, execution);
    }
    if set_aside.is_none() {
        // With real threads a flaky test may fail as it did under a flaky schedule.
        let executions: Vec<&Execution> = runs
            .iter()
            .map(|(e, _)| e)
            .chain(flaky.iter().map(|f| &f.execution))
            .collect();
        let ticker = |runs| {
            on_search(SearchTick {
                test: test.name.clone(),
                preemptions: FOLLOW_CHECK_PREEMPTIONS,
                runs,
                budget: config.search_runs,
            })
        };
        let check = check_original_build(
            build,
            test,
            &executions,
            &mask,
            &limits,
            (config.search_runs, &ticker),
            server.as_ref(),
        )?;
        set_aside = check.set_aside;
        original_build_shown = check.shown;
        searched_here = check.search;
    }
    let label = |site| crate::diff::site_label(&build.catalogue, site);
    let mut baseline = Baseline {
        nondeterministic: mask.describe(&label),
        races: races.races.clone(),
        races_unchecked: races.limits.clone(),
        flaky: flaky.iter().map(|f| f.finding.clone()).collect(),
        ..summarise(test, &runs, set_aside)
    };
    baseline.hint = original_build_shown.map(|shown| shown.hint(config.native));
    if let Some(hint) = missing_files_hint(build, test, baseline.status) {
        match &mut baseline.set_aside_because {
            Some(reason) => *reason = format!("{reason}; {hint}"),
            None => {
                baseline.hint = Some(match baseline.hint.take() {
                    Some(first) => format!("{first}; {hint}"),
                    None => hint,
                })
            }
        }
    }
    let max_steps = steps.map(|s| s.saturating_mul(MUTANT_STEPS_FACTOR).max(MIN_MUTANT_STEPS));
    // A self-check runs the original as a mutant under schedules the baseline did not
    // sample, as a mutant that consumes the scheduler's choices differently would.
    let mutant_schedules = match config.self_check && tagged {
        true => planned_schedules(config.strategy, explores, steps, config.strategy.budget),
        false => schedules.clone(),
    };
    let native = match baseline.usable && build.catalogue.kind == Family::Pthread {
        true => run_native(
            build,
            test,
            "",
            config.native * NATIVE_REFERENCE_FACTOR,
            &limits,
            server.as_ref(),
        )
        .map_err(|message| OracleError::Environment { message })?,
        false => Vec::new(),
    };
    let searched = Arc::new(shared_searches());
    if let Some(search) = searched_here {
        // It ran its whole budget: it decides as well as a search that may stop early.
        let _ = searched[deciding(FOLLOW_CHECK_PREEMPTIONS)].set(Ok(search.clone()));
        let _ = searched[WHOLE].set(Ok(search));
    }
    if let (true, Strategy::Dfs { preemptions, .. }) = (dfs, config.strategy.strategy) {
        // A mutant's dfs runs have at most the same bound.
        let observations: Vec<Observation> = runs.iter().map(|(_, o)| o.clone()).collect();
        for cell in searched.iter() {
            let _ = cell.set(Ok(BoundedSearch {
                observations: observations.clone(),
                exhausted,
                preemptions,
                schedules_at_least: None,
            }));
        }
    }
    let plan = baseline.usable.then_some(OriginalRuns {
        mutant_schedules,
        originals: runs,
        labels,
        native,
        flaky: flaky.into_iter().map(|f| f.execution).collect(),
        exhausted,
        max_steps,
        mask,
        races,
        searched,
        dfs_bound: match (dfs, config.strategy.strategy) {
            (true, Strategy::Dfs { preemptions, .. }) => Some(preemptions),
            _ => None,
        },
    });
    Ok((baseline, plan))
}

/// The `SYNCMUT_SCHEDULE` values the original and every mutant run under: the seeded
/// strategy's values (the k-th from `skip + 1` on), else the one `default` schedule (dfs
/// starts there).
fn planned_schedules(
    schedules: Schedules,
    explores: bool,
    steps: Option<u64>,
    skip: usize,
) -> Vec<String> {
    let seeded: Option<Vec<String>> = (skip + 1..=skip + schedules.budget)
        .map(|k| schedules.strategy.seeded_value(k, steps.unwrap_or(1000)))
        .collect();
    match seeded {
        Some(values) if explores => values,
        _ => vec!["default".to_string()],
    }
}

/// The original's runs with real threads per test, per run a mutant gets: an output the
/// original prints only now and then with real threads is less likely to be missed by
/// its sample, and so to kill a mutant that prints it too.
const NATIVE_REFERENCE_FACTOR: usize = 2;

/// `runs` runs of the metamutant with `active` and real threads: no controlled
/// scheduler, no trace; through the test's fork `server` when given. An error is a
/// failure of the machine.
pub(super) fn run_native(
    build: &Build,
    test: &TestCase,
    active: &str,
    runs: usize,
    limits: &Limits,
    server: Option<&RefCell<ForkServer>>,
) -> Result<Vec<Execution>, String> {
    (0..runs)
        .map(|_| run_native_traced(build, test, active, limits, None, server))
        .collect()
}

/// One run of the metamutant with `active` and real threads, traced into `trace` when
/// given (its events' order is what the original can follow: `follow::follow_native`);
/// through the test's fork `server` when given. An error is a failure of the machine.
pub(super) fn run_native_traced(
    build: &Build,
    test: &TestCase,
    active: &str,
    limits: &Limits,
    trace: Option<&Path>,
    server: Option<&RefCell<ForkServer>>,
) -> Result<Execution, String> {
    if let Some(trace) = trace {
        let _ = std::fs::remove_file(trace);
    }
    let invocation = Invocation {
        active: Some(active.to_string()),
        trace: trace.map(Path::to_path_buf),
        limits: *limits,
        ..Invocation::for_test(&build.metamutant, test)
    };
    run_served(&invocation, server).map_err(|e| format!("{}: {e}", build.metamutant.display()))
}

/// Runs the original on `lab.test` under the first schedule `repeats` times, each repeat
/// in another virtual world (`SYNCMUT_ENTROPY`), and then under each other schedule,
/// keeping each schedule's trace in the run directory (tagged by schedule when `tagged`;
/// the repeats' only when `keep_repeats`). What differs between the repeats is masked
/// ([`Mask`]); a difference that cannot be masked makes the test unusable. Returns one
/// run per schedule, observed through the mask, why the test is unusable if it is
/// (stopping at the first reason), and the mask.
fn run_original_listed(
    lab: &Lab,
    schedules: &[String],
    tagged: bool,
    repeats: usize,
    keep_repeats: bool,
) -> Listed {
    let Lab {
        build,
        test,
        out,
        limits,
        ..
    } = *lab;
    let original = Lab {
        active: "",
        max_steps: None,
        ..*lab
    };
    let mut runs: Vec<(Execution, Observation)> = Vec::new();
    let mut flaky = Vec::new();
    let mut mask = Mask::default();
    let mut races = RunRaces::default();
    let unmasked = Mask::default();
    let label = |site| crate::diff::site_label(&build.catalogue, site);
    let first_path = outdir::trace_file(
        out.root(),
        &test.name,
        None,
        tagged.then_some(schedules[0].as_str()),
    );
    let order = std::iter::repeat_n(&schedules[0], repeats).chain(&schedules[1..]);
    for (i, schedule) in order.enumerate() {
        let repeat_of_first = i > 0 && i < repeats;
        let path = if repeat_of_first {
            out.path(
                Path::new(outdir::TRACE_DIR)
                    .join(&test.name)
                    .join(format!("original.{}.jsonl", i + 1)),
            )
        } else {
            outdir::trace_file(
                out.root(),
                &test.name,
                None,
                tagged.then_some(schedule.as_str()),
            )
        };
        let entropy =
            (repeat_of_first && lab.settings.entropy == Entropy::Vary).then(|| other_world(i));
        // The first schedule's runs make the mask, so they are observed without it.
        let lens = Lens {
            hidden: &[],
            mask: if i < repeats { &unmasked } else { &mask },
        };
        // A repeat starts by exec, not from the test's fork server: every run the server
        // forks inherits one address layout, so only a fresh process shows a design that
        // writes addresses (a thread id, a pointer) as differing between runs, and such
        // output is then masked instead of killing every mutant that allocates otherwise.
        let lab = match repeat_of_first {
            true => Lab {
                server: None,
                ..original
            },
            false => original,
        };
        let observed = traced_in(&lab, schedule, &path, None, entropy, lens);
        let (execution, observation) = match observed {
            Ok((execution, observation, _)) => (execution, observation),
            Err(Unjudged::Environment(message)) => {
                return Listed {
                    runs,
                    set_aside: Some(message),
                    mask,
                    races,
                    flaky,
                }
            }
            Err(e) => {
                return Listed {
                    runs,
                    set_aside: Some(format!("its trace could not be read: {e}")),
                    mask,
                    races,
                    flaky,
                }
            }
        };
        match run_races(build, &path) {
            Ok(found) => races.merge(found),
            Err(e) => {
                return Listed {
                    runs,
                    set_aside: Some(format!("its race file could not be read: {e}")),
                    mask,
                    races,
                    flaky,
                }
            }
        }
        let failed = unusable(&execution, limits).or_else(|| fails_expectation(test, &execution));
        if let Some(failure) = failed.as_ref().filter(|_| i >= repeats) {
            // The original passed under the first schedule and fails under this one: the
            // test assumes an order the design does not guarantee. That is a finding,
            // and the test still judges mutants under the schedules where it passes.
            let _ = keep_trace(&path, None);
            flaky.push(Flaky {
                finding: FlakySchedule {
                    schedule: schedule.clone(),
                    failure: failure.clone(),
                },
                execution,
            });
            continue;
        }
        let mut set_aside = unusable(&execution, limits);
        if set_aside.is_none() && repeat_of_first {
            match Mask::between(&runs[0].1, &observation, &label) {
                Ok(found) => mask = mask.union(found),
                Err(what) => {
                    set_aside = Some(match entropy {
                        // Same schedule, another clock start and random stream: what
                        // differs came from them (or from addresses, pids).
                        Some(world) => format!(
                            "the original's output depends on the clock, on random values or on addresses: run again under the same schedule in another virtual world (SYNCMUT_ENTROPY={world}) and address layout, {what}; --entropy fixed runs every run in one world, so a design whose output depends only on the clock or random values can be scored"
                        ),
                        None => format!(
                            "the original is not deterministic on this test: run again under the same schedule in the same virtual world (another address layout), {what}; something outside syncmut's control differs between runs (addresses, process ids, signals from timers, files or the network)"
                        ),
                    })
                }
            }
        }
        if repeat_of_first {
            match keep_repeats {
                true => drop(keep_trace(&path, None)),
                false => drop(std::fs::remove_file(&path)),
            }
        } else {
            keep_stderr(&path, &execution.stderr);
            runs.push((execution, observation));
            if i > 0 {
                // A failure to keep the trace costs the diff, not the verdict.
                let _ = keep_trace(&path, None);
            }
        }
        if i < repeats && (set_aside.is_some() || i + 1 == repeats) {
            // The reference run, now observed through the mask, and its trace kept.
            if !mask.is_empty() {
                if let Ok(observation) = observe(
                    &runs[0].0,
                    &first_path,
                    Lens {
                        hidden: &[],
                        mask: &mask,
                    },
                ) {
                    runs[0].1 = observation;
                }
            }
            let _ = keep_trace(&first_path, None);
        }
        if set_aside.is_some() {
            return Listed {
                runs,
                set_aside,
                mask,
                races,
                flaky,
            };
        }
    }
    Listed {
        runs,
        set_aside: None,
        mask,
        races,
        flaky,
    }
}

/// The virtual world of the original's k-th repeat: k worlds after syncmut's own
/// (`SYNCMUT_ENTROPY` in its environment, else 0), so the repeat sees another clock start
/// and random stream than the reference run and the mutants.
fn other_world(k: usize) -> u32 {
    let own: u32 = std::env::var(syncmut_runtime::env::ENTROPY)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    own.wrapping_add(k as u32)
}

/// What the original's dfs search is for: the baseline's own (`run --strategy dfs`),
/// whose data races are recorded, or the follow check's (`follow_check.rs`).
pub(super) enum Searching<'r> {
    Baseline {
        races: &'r mut RunRaces,
        ticker: Ticker<'r>,
    },
    FollowCheck(Extent, Ticker<'r>),
}

impl Searching<'_> {
    /// Told the runs made so far after each run.
    fn ticker(&self) -> Ticker<'_> {
        match self {
            Searching::Baseline { ticker, .. } | Searching::FollowCheck(_, ticker) => *ticker,
        }
    }
}

/// What the original's dfs search made.
pub(super) struct OriginalSearch {
    pub(super) runs: Vec<(Execution, Observation)>,
    /// It covered the bounded space.
    pub(super) exhausted: bool,
    /// Why the test is unusable, if some run made it so.
    pub(super) failure: Option<String>,
    /// It stopped early: the bounded space has at least this many schedules, more than
    /// its budget ([`Extent::WhileCoverable`]).
    pub(super) schedules_at_least: Option<usize>,
}

/// The original's dfs search (per-run files in `work`); an error when the search itself
/// failed.
pub(super) fn search_original(
    build: &Build,
    test: &TestCase,
    schedules: Schedules,
    mask: &Mask,
    limits: &Limits,
    work: &Path,
    mut purpose: Searching,
) -> Result<OriginalSearch, String> {
    let for_follow_check = matches!(purpose, Searching::FollowCheck(..));
    let mut runs = Vec::new();
    let mut failure = None;
    let mut kept_steps = 0usize;
    // The baseline's search runs without the test's input values, as a mutant's dfs
    // search does; the follow check decides runs that had them, so it passes them too.
    let invocation = match for_follow_check {
        true => Invocation::for_test,
        false => Invocation::in_setting,
    };
    let original = Invocation {
        active: Some(String::new()),
        limits: *limits,
        ..invocation(&build.metamutant, test)
    };
    let config = explore::ExploreSettings {
        dfs_only_if_coverable: matches!(purpose, Searching::FollowCheck(Extent::WhileCoverable, _)),
        ..dfs_config(build, schedules, None)
    };
    let search = explore::search(&original, &config, work, &mut |visit| {
        if let (Some(file), Searching::Baseline { races, .. }) = (visit.races, &mut purpose) {
            races.merge(RunRaces::of(build, file));
        }
        failure = unusable(visit.execution, limits);
        let observation = Observation::new(visit.execution, visit.trace, &[], mask);
        // The follow check only asks whether some run shows an observation: the
        // steps' details (kept to describe a difference in words) are not needed,
        // and past a memory budget the search stops, not exhausted, deciding
        // nothing (a memory-level run has hundreds of thousands of points).
        let observation = match for_follow_check {
            true => observation.without_details(),
            false => observation,
        };
        kept_steps += observation.step_count();
        runs.push((visit.execution.clone(), observation));
        purpose.ticker()(runs.len());
        failure.is_some() || (for_follow_check && kept_steps > FOLLOW_CHECK_STEPS)
    });
    match search {
        Ok(search) => Ok(OriginalSearch {
            runs,
            exhausted: search.exhausted,
            failure: failure.map(|f| format!("{f} under a dfs schedule")),
            schedules_at_least: search.schedules_at_least,
        }),
        Err(e) => Err(format!("schedule exploration failed: {e}")),
    }
}

/// The baseline of a test on which the original could not even start (its trace never
/// appeared): set aside, with status 127, what a shell reports for a program it could
/// not run.
fn not_started(test: &TestCase, reason: String) -> Baseline {
    Baseline {
        test: test.name.clone(),
        args: test.args.clone(),
        usable: false,
        set_aside_because: Some(reason),
        status: Status::Exited(127),
        elapsed_ms: 0,
        reached: Vec::new(),
        deadlock: false,
        pending: Vec::new(),
        lost_notifications: LostNotifications::default(),
        nondeterministic: Vec::new(),
        races: Vec::new(),
        races_unchecked: None,
        hint: None,
        stderr_head: None,
        observed: None,
        flaky: Vec::new(),
    }
}

/// The saved baseline of a test from the original's runs (the first one is the reference).
fn summarise(
    test: &TestCase,
    runs: &[(Execution, Observation)],
    set_aside: Option<String>,
) -> Baseline {
    let (execution, observation) = &runs[0];
    let mut reached: Vec<u32> = runs.iter().flat_map(|(_, o)| o.reached()).collect();
    reached.sort_unstable();
    reached.dedup();
    Baseline {
        test: test.name.clone(),
        args: test.args.clone(),
        usable: set_aside.is_none(),
        set_aside_because: set_aside,
        status: execution.status,
        elapsed_ms: runs
            .iter()
            .map(|(e, _)| e.elapsed.as_millis() as u64)
            .max()
            .unwrap_or(0),
        reached,
        deadlock: observation.deadlock,
        pending: observation.pending.clone(),
        lost_notifications: LostNotifications::count(&observation.lost_notifications),
        nondeterministic: Vec::new(),
        races: Vec::new(),
        races_unchecked: None,
        hint: None,
        stderr_head: (execution.status != Status::Exited(0))
            .then(|| stderr_head(&execution.stderr))
            .flatten(),
        observed: Some(observation.digest()),
        flaky: Vec::new(),
    }
}

/// What the original's runs under the listed schedules gave: one run per schedule (the
/// first's repeats and the flaky ones left out), why the test is unusable if it is, the
/// mask, the races, and the flaky schedules.
struct Listed {
    runs: Vec<(Execution, Observation)>,
    set_aside: Option<String>,
    mask: Mask,
    races: RunRaces,
    flaky: Vec<Flaky>,
}

/// A schedule under which the original failed a test it passed under the first one.
struct Flaky {
    finding: FlakySchedule,
    execution: Execution,
}

/// The first lines of a failing original's stderr, without the runtime's own lines,
/// each cut to a readable length; `None` when it wrote nothing.
fn stderr_head(stderr: &syncmut_runner::output::Output) -> Option<String> {
    use crate::outcome::{STDERR_HEAD_CHARS, STDERR_HEAD_LINES};
    let text = String::from_utf8_lossy(stderr.head()).into_owned();
    let lines: Vec<String> = text
        .lines()
        .filter(|l| {
            !l.trim().is_empty() && !l.as_bytes().starts_with(crate::observation::RUNTIME_LINE)
        })
        .take(STDERR_HEAD_LINES)
        .map(|l| match l.char_indices().nth(STDERR_HEAD_CHARS) {
            Some((cut, _)) => format!("{}…", &l[..cut]),
            None => l.to_string(),
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

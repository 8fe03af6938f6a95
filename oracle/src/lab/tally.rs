//! Judging a mutant's runs on one test against the original's: [`Tally`] takes them one
//! by one (under the controlled scheduler, with real threads, their data races) and keeps
//! the counts, the first kill and what the survivor's reason says. A kill is a behaviour
//! no run of the original shows, the original following the run's interleaving and its
//! bounded search included. Apart from running them ([`super::mutant`]), so that the
//! rules of a kill read in one place.

mod search_question;

use super::baseline::OriginalRuns;
use super::follow::{FollowedRun, Partial};
use super::follow_check::{BoundedSearch, Extent, SharedSearches, FOLLOW_CHECK_PREEMPTIONS, WHOLE};
use super::traces::{Lens, RunRaces, Unjudged};
use crate::mask::Mask;
use crate::observation::Observation;
use crate::races::SourceRace;
use crate::verdict::{self, Verdict};
use search_question::{Asked, Question, RunAt};
use std::collections::HashMap;
use std::time::Duration;
use syncmut_mutator::metamutant::Build;
use syncmut_mutator::Mutant;
use syncmut_runner::exec::{Execution, Status};
use syncmut_runtime::status;
use syncmut_runtime::trace::Trace;

/// How many more runs of the original with real threads look for what a mutant's run
/// with real threads showed before it kills. An output the original prints once in 20
/// runs with real threads is missed by these and the baseline's 10 (the default
/// `--native 5`) about once in 13 such kills; by the baseline's alone, 3 times in 5.
const NATIVE_CONFIRM_RUNS: usize = 40;

/// Whether two runs ended alike as a run with real threads is judged (it has no trace):
/// the same failure, or the same exit status and output.
fn ends_alike(original: &Observation, observed: &Observation) -> bool {
    match failure(observed) {
        Some(what) => failure(original).as_deref() == Some(what.as_str()),
        None => {
            original.status == observed.status
                && original.stdout == observed.stdout
                && original.stderr == observed.stderr
        }
    }
}

/// An observation of the original that mutant runs are compared with, and the run that
/// showed it.
pub(super) struct OriginalRun {
    pub(super) observation: Observation,
    /// `default`, `random:3`, `dfs:7`, or the original following a mutant's run.
    label: String,
}

/// What ends a run as a failure whatever its output: a signal, a deadlock, a livelock,
/// a timeout, the thread limit. Such a failure that no run of the original shows kills
/// directly; anything else must first survive the original following the mutant's
/// interleaving.
fn failure(o: &Observation) -> Option<String> {
    match o.status {
        Status::Signaled(signal) => Some(format!("signal {signal}")),
        Status::TimedOut => Some("timeout".to_string()),
        Status::Exited(status::THREAD_LIMIT) => Some("thread limit".to_string()),
        _ if o.deadlock => Some("deadlock".to_string()),
        _ if o.livelock => Some("livelock".to_string()),
        _ => None,
    }
}

/// How far a mutant's observation is from an original one, to name the closest original
/// run in a reason: a different end weighs most, then the output, then who was left
/// waiting, then each differing step.
fn distance(a: &Observation, b: &Observation) -> usize {
    let mut d = 0;
    d += 1000
        * usize::from(a.status != b.status || a.deadlock != b.deadlock || a.livelock != b.livelock);
    d += 100 * usize::from(a.stdout != b.stdout);
    d += 10 * usize::from(a.pending != b.pending);
    let empty = Vec::new();
    for thread in a
        .threads
        .keys()
        .chain(b.threads.keys().filter(|t| !a.threads.contains_key(*t)))
    {
        let (x, y) = (
            a.threads.get(thread).unwrap_or(&empty),
            b.threads.get(thread).unwrap_or(&empty),
        );
        d += (0..x.len().max(y.len()))
            .filter(|&i| x.get(i) != y.get(i))
            .count();
    }
    d
}

/// [`BoundedSearch`] as a mutant's runs are seen: its sites hidden.
struct Searched {
    observations: Vec<Observation>,
    exhausted: bool,
    preemptions: u32,
    schedules_at_least: Option<usize>,
}

/// A run whose difference from the original was seen but not proven: the original
/// stopped following it at `partial`, and its search could not decide (`why`).
pub(super) struct Unclaimed {
    pub(super) schedule: String,
    /// Where the original stopped following the mutant's run, when that was the doubt.
    pub(super) partial: Option<Partial>,
    pub(super) why: String,
    /// What differed, as a kill's reason would have said it (`exit 1 instead of exit 0`).
    pub(super) difference: String,
}

/// What one (mutant, test) pair showed over its schedules.
pub(super) struct Tally<'a> {
    pub(super) kills: usize,
    pub(super) runs: usize,
    /// Every program execution this pair cost: the mutant's runs (a timeout's confirming
    /// run included), the original following them, and the original's bounded search
    /// when this pair was the first to need it (`runs per mutant` in the summary).
    pub(super) executions: usize,
    /// Of `executions`, the original's bounded searches this pair made.
    pub(super) search_runs: usize,
    pub(super) elapsed: Duration,
    /// The schedule of every run, in order, for the survivor's reason.
    pub(super) tried: Vec<String>,
    /// Runs whose observation no listed run of the original showed, but the original
    /// following their interleaving did: not kills.
    pub(super) refuted: usize,
    /// Runs whose observation no run of the original showed, but the original could not
    /// follow their interleaving to the end and the two agreed as far as it did: the
    /// difference may be the original's under another interleaving, so it is not claimed.
    /// The first one's schedule and the point where the original stopped following.
    pub(super) unclaimed: usize,
    /// The first unclaimed run, for the survivor's reason.
    pub(super) first_unclaimed: Option<Unclaimed>,
    /// Runs the original could not follow, or followed to another end, whose observation
    /// its bounded search showed.
    pub(super) found_by_search: usize,
    /// The run being judged timed out and ran again under a larger limit: how that
    /// ended (empty: it finished, and is judged by that).
    pub(super) timeout_confirmed: Option<String>,
    /// Runs that timed out under their first limit but finished under the larger one.
    pub(super) timeouts_not_confirmed: usize,
    /// Runs with real threads that differed from the baseline's runs of the original,
    /// but not from its bounded search's, its run in their order or its further runs with
    /// real threads: not kills.
    pub(super) native_refuted: usize,
    /// Where `native_originals` holds the original's runs in the order of a mutant's run
    /// with real threads (controlled, not free runs).
    followed_at: Vec<usize>,
    /// The original's bounded search on this test, shared by every mutant, and how to
    /// make it.
    shared_search: &'a SharedSearches,
    /// [`OriginalRuns::dfs_bound`].
    dfs_bound: Option<u32>,
    search: Box<dyn Fn(u32, Extent) -> Result<BoundedSearch, String> + 'a>,
    /// Those searches' runs as this mutant's are seen (its sites hidden), by their place
    /// in [`SharedSearches`], once needed.
    searched: HashMap<usize, Result<Searched, String>>,
    /// Verdict, reason and schedule tag of the first killing run.
    pub(super) first_kill: Option<(Verdict, String, String)>,
    /// Where the first killing run's steps left the closest original's (thread, step
    /// index), for the part of its trace that is kept.
    pub(super) divergence: Option<(String, usize)>,
    pub(super) original: Vec<OriginalRun>,
    /// Which of the baseline's original runs (the first ones of `original`) some run of
    /// the mutant showed too: all of them, over an exhaustive search, make the mutant
    /// equivalent there.
    pub(super) matched: Vec<bool>,
    /// How the original ended in its runs with real threads (`--native`).
    native_failures: Vec<String>,
    /// The original's runs with real threads, as observed (no trace).
    native_originals: Vec<Observation>,
    /// The mutant places synchronization calls where the original has none
    /// (`Operator::places_calls`).
    places_calls: bool,
    /// Sites whose events the mutant takes away by construction (`Catalogue::hidden_sites`).
    pub(super) hidden: Vec<u32>,
    /// The baseline's mask on this test.
    pub(super) mask: &'a Mask,
    /// The original's data races on this test (`run --races`), grown by the races of the
    /// original following a mutant's interleaving.
    original_races: RunRaces,
}

/// Runs the original along a mutant run's interleaving: the run's execution, what it
/// showed (through the tally's lens), how closely it followed and its data races, or
/// `None` when the run recorded no interleaving.
pub(super) type Follow<'f> = dyn FnMut(Lens) -> Result<Option<FollowedRun>, Unjudged> + 'f;

impl<'a> Tally<'a> {
    pub(super) fn new(
        build: &Build,
        mutant: &'a Mutant,
        plan: &'a OriginalRuns,
        search: Box<dyn Fn(u32, Extent) -> Result<BoundedSearch, String> + 'a>,
    ) -> Tally<'a> {
        let hidden = build.catalogue.hidden_sites(mutant);
        let original = plan
            .originals
            .iter()
            .zip(&plan.labels)
            .map(|((_, o), label)| OriginalRun {
                observation: o.hiding(&hidden),
                label: format!("the original under {label}"),
            })
            .collect::<Vec<_>>();
        let matched = vec![false; original.len()];
        // How the original ends with real threads and under the schedules that made the
        // test flaky: a mutant run that ends so is not a kill by its ending alone.
        let native_failures = plan
            .native
            .iter()
            .chain(&plan.flaky)
            .filter_map(|e| failure(&Observation::new(e, &Trace::default(), &[], &plan.mask)))
            .collect();
        Tally {
            kills: 0,
            runs: 0,
            executions: 0,
            search_runs: 0,
            elapsed: Duration::ZERO,
            tried: Vec::new(),
            refuted: 0,
            unclaimed: 0,
            first_unclaimed: None,
            found_by_search: 0,
            timeout_confirmed: None,
            timeouts_not_confirmed: 0,
            native_refuted: 0,
            followed_at: Vec::new(),
            shared_search: &plan.searched,
            dfs_bound: plan.dfs_bound,
            search,
            searched: HashMap::new(),
            first_kill: None,
            divergence: None,
            original,
            matched,
            native_failures,
            places_calls: mutant.operator.places_calls(),
            native_originals: plan
                .native
                .iter()
                .map(|e| Observation::new(e, &Trace::default(), &[], &plan.mask))
                .collect(),
            hidden,
            mask: &plan.mask,
            original_races: plan.races.clone(),
        }
    }

    /// Counts a run whose difference the original's search could not decide: no kill;
    /// the first such run's difference and why are kept for the survivor's reason.
    fn unclaim(&mut self, tag: &str, partial: Option<Partial>, why: String, difference: String) {
        self.unclaimed += 1;
        self.first_unclaimed.get_or_insert_with(|| Unclaimed {
            schedule: tag.to_string(),
            partial,
            why,
            difference,
        });
    }

    /// How this tally observes a run of the mutant.
    pub(super) fn lens(&self) -> Lens<'_> {
        Lens {
            hidden: &self.hidden,
            mask: self.mask,
        }
    }

    /// A run of the original, with its label, that ended and wrote as `observed` did:
    /// one of the listed runs, or one of the original's searches made so far.
    fn original_writing(&self, observed: &Observation) -> Option<(Observation, String)> {
        let listed = self
            .original
            .iter()
            .find(|o| o.observation.same_output(observed))
            .map(|o| (o.observation.clone(), o.label.clone()));
        listed.or_else(|| {
            self.searched.values().flatten().find_map(|s| {
                s.observations
                    .iter()
                    .find(|o| o.same_output(observed))
                    .map(|o| {
                        let label = format!(
                            "a run of its search with at most {} preemptions",
                            s.preemptions
                        );
                        (o.clone(), label)
                    })
            })
        })
    }

    /// Whether some run of the original ended with the failure `what`.
    fn original_fails_so(&self, what: &str) -> bool {
        self.original
            .iter()
            .any(|o| failure(&o.observation).as_deref() == Some(what))
            || self.native_failures.iter().any(|f| f == what)
    }

    /// Judges one run under the controlled scheduler; true when it kills. A kill is an
    /// observation no run of the original shows: not one of the listed runs' (those of
    /// the baseline), and, unless it is a failure the original never shows, not the
    /// original's when it follows this run's interleaving (`follow`), which is then one
    /// more original run compared with later ones.
    ///
    /// A run that no verdict but killed-by-trace kills is killed by a data race
    /// (`races`, `run --races`) that no run of the original had, the original following
    /// it included.
    pub(super) fn add(
        &mut self,
        build: &Build,
        execution: &Execution,
        observed: &Observation,
        races: &RunRaces,
        tag: &str,
        follow: &mut Follow,
    ) -> Result<bool, Unjudged> {
        self.runs += 1;
        self.executions += 1;
        self.elapsed += execution.elapsed;
        self.tried.push(tag.to_string());
        let mut shown = false;
        for (i, original) in self.original.iter().enumerate() {
            if original.observation == *observed {
                shown = true;
                if let Some(matched) = self.matched.get_mut(i) {
                    *matched = true;
                }
            }
        }
        let mut followed_yet = false;
        if shown {
            return self.add_races(races, tag, followed_yet, follow);
        }
        let observed = observed.clone();
        let absolute = failure(&observed).is_some_and(|what| !self.original_fails_so(&what));
        // Where the original stopped following this run, and what differed before.
        let mut partial = None;
        let mut preempted = None;
        if !absolute {
            followed_yet = true;
            if let Some(followed) = follow(self.lens())? {
                self.executions += 1;
                self.elapsed += followed.execution.elapsed;
                self.original_races.merge(followed.races);
                let same = followed.observation == observed;
                self.original.push(OriginalRun {
                    observation: followed.observation,
                    label: followed.label,
                });
                if same {
                    self.refuted += 1;
                    return self.add_races(races, tag, followed_yet, follow);
                }
                partial = followed.partial;
                preempted = followed.mutant_preemptions;
            }
        }
        let closest = self
            .original
            .iter()
            .min_by_key(|o| distance(&o.observation, &observed))
            .expect("the baseline ran the original");
        let label = |site| crate::diff::site_label(&build.catalogue, site);
        let (verdict, reason) = verdict::judge(&closest.observation, &observed, &label);
        let closest_label = closest.label.clone();
        let divergence = closest.observation.first_step_index(&observed);
        // A new data race says more than a difference in synchronization behaviour: it
        // names the two unordered accesses.
        if matches!(verdict, Verdict::Survived | Verdict::KilledByTrace)
            && self.add_races(races, tag, followed_yet, follow)?
        {
            return Ok(true);
        }
        if verdict == Verdict::Survived {
            return Ok(false); // differs only in what no verdict looks at
        }
        // A difference in synchronization alone (the steps, the values they see, who is
        // left waiting) depends on the interleaving: when the original could not take the
        // mutant's to its end and the two agree as far as it did, the follow shows
        // nothing. The original's bounded search decides: it shows this observation (no
        // kill), or it covered its whole bound without it (a kill, within that bound), or
        // it could not tell (no claim). An output or exit-status difference is asked the
        // same question: an output that depends on the interleaving (a pool printing in
        // completion order) can be the original's under one its search did not reach, so
        // what the search cannot decide is not claimed either.
        let searchable = matches!(verdict, Verdict::KilledByTrace | Verdict::KilledByOutput);
        let question = match partial.clone() {
            Some(p) if p.before.is_none() && searchable => Some(Question {
                bound: p.preemptions,
                // The original may need more preemptions than the mutant's run for the
                // same observation: where the mutant removed a lock, its thread runs on,
                // and the original's must be preempted to do the same.
                refute_within_follow_bound: p.preemptions < FOLLOW_CHECK_PREEMPTIONS,
                lead: format!(
                    "the original could not follow the mutant's interleaving past {}",
                    p.point()
                ),
                whose: "its",
                aside: format!("; the mutant's run had {}", p.preemptions),
                partial: Some(p),
            }),
            // A follow is no proof either when the mutant has scheduling points of its
            // own (a split critical section's new unlock and lock): the original takes
            // the choice made there at its next point instead, so a preemption lands
            // elsewhere in its run, and the two differ by that alone, before the end of
            // the follow or after it.
            _ if self.places_calls && searchable && !absolute => {
                let bound = preempted.unwrap_or(FOLLOW_CHECK_PREEMPTIONS);
                Some(Question {
                    bound,
                    refute_within_follow_bound: bound != FOLLOW_CHECK_PREEMPTIONS,
                    lead: "the mutant's own scheduling points move where the original, following it, is preempted".to_string(),
                    whose: "the original's",
                    aside: String::new(),
                    partial: None,
                })
            }
            _ => None,
        };
        let mut beyond_follow = None;
        if let Some(question) = question {
            let run = RunAt {
                races,
                tag,
                followed_yet,
            };
            match self.ask_search(question, &observed, verdict, &reason, run, follow)? {
                Asked::Proven(note) => beyond_follow = Some(note),
                Asked::Settled(kills) => return Ok(kills),
            }
        }
        self.kills += 1;
        if self.first_kill.is_none() {
            // An output the original writes too, under another schedule, proves nothing:
            // the kill is what differs from that run (the steps, who is left waiting).
            let (verdict, reason, closest_label) = match self.original_writing(&observed) {
                Some((same, same_label)) if verdict == Verdict::KilledByOutput => {
                    let (v, r) = verdict::judge(&same, &observed, &label);
                    if v == Verdict::Survived {
                        (verdict, reason, closest_label)
                    } else {
                        (
                            v,
                            format!("{r}; its output the original writes too"),
                            same_label,
                        )
                    }
                }
                _ => (verdict, reason, closest_label),
            };
            let mut reason = match self.original.len() {
                1 => reason,
                n if absolute => format!("{reason}; no run of the original ends so ({n} runs)"),
                _ => format!("{reason}; closest original run: {closest_label}"),
            };
            if let Some(Partial {
                before: Some(difference),
                ..
            }) = &partial
            {
                let point = partial.as_ref().map(Partial::point).unwrap_or_default();
                reason.push_str(&format!(
                    "; the original followed the mutant's interleaving only up to {point}, and already before it: {difference}"
                ));
            }
            if let Some(note) = beyond_follow {
                reason.push_str(&format!("; {note}"));
            }
            if let Some(note) = self
                .timeout_confirmed
                .as_ref()
                .filter(|n| !n.is_empty() && verdict == Verdict::KilledByTimeout)
            {
                reason.push_str(&format!("; {note}"));
            }
            self.divergence = divergence;
            self.first_kill = Some((verdict, reason, tag.to_string()));
        }
        Ok(true)
    }

    /// Judges a run's data races (the run otherwise kills nothing, or only by trace);
    /// true when it kills:
    /// a race whose pair of source locations no run of the original had, also after the
    /// original followed this run's interleaving (`follow`, unless `followed_yet`).
    fn add_races(
        &mut self,
        races: &RunRaces,
        tag: &str,
        followed_yet: bool,
        follow: &mut Follow,
    ) -> Result<bool, Unjudged> {
        // A detector bound in the original's runs could hide the race there: no kill.
        if self.original_races.limits.is_some() {
            return Ok(false);
        }
        let fresh = |known: &RunRaces| races.races.iter().filter(|r| !known.has(&r.key)).count();
        if fresh(&self.original_races) == 0 {
            return Ok(false);
        }
        if !followed_yet {
            if let Some(followed) = follow(self.lens())? {
                self.executions += 1;
                self.elapsed += followed.execution.elapsed;
                self.original_races.merge(followed.races);
            }
        }
        let new: Vec<&SourceRace> = races
            .races
            .iter()
            .filter(|r| !self.original_races.has(&r.key))
            .collect();
        let Some(first) = new.first() else {
            return Ok(false);
        };
        self.kills += 1;
        if self.first_kill.is_none() {
            let others = match new.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            let reason = format!("data race the original does not have: {first}{others}");
            self.first_kill = Some((Verdict::KilledByRace, reason, tag.to_string()));
        }
        Ok(true)
    }

    /// Whether some run of the original, controlled or with real threads, showed how
    /// `observed` (a run with real threads) ended, when it is a failure, or else its
    /// exit status and output.
    fn original_shows_natively(&self, observed: &Observation) -> bool {
        match failure(observed) {
            Some(what) => self.original_fails_so(&what),
            None => {
                self.original
                    .iter()
                    .any(|o| ends_alike(&o.observation, observed))
                    || self
                        .native_originals
                        .iter()
                        .any(|o| ends_alike(o, observed))
            }
        }
    }

    /// Whether a run with real threads that ended without failing but otherwise than
    /// every run of the original (`difference`) is not claimed, because the original's
    /// own runs with real threads end or write differently from each other: what such a
    /// run shows then depends on the threads' timing (a count of tasks done when a
    /// pool is stopped), and one the original did not happen to write proves nothing.
    /// Counted as unclaimed when so.
    fn unclaimed_natively(&mut self, observed: &Observation, difference: &str) -> bool {
        if failure(observed).is_some() {
            return false;
        }
        let free: Vec<&Observation> = (self.native_originals.iter().enumerate())
            .filter(|(i, _)| !self.followed_at.contains(i))
            .map(|(_, o)| o)
            .collect();
        let Some((first, rest)) = free.split_first() else {
            return false;
        };
        let differing = rest.iter().filter(|o| !ends_alike(first, o)).count();
        if differing == 0 {
            return false;
        }
        let why = format!(
            "the original's own runs with real threads end or write differently from each other ({differing} of {} differ from its first), so what a run with real threads writes depends on timing",
            free.len()
        );
        self.unclaim(
            "native",
            None,
            why,
            format!("{difference} with real threads"),
        );
        true
    }

    /// Whether the original's search of every schedule with at most
    /// [`FOLLOW_CHECK_PREEMPTIONS`] preemptions on this test (made once per test, its
    /// whole budget run) shows how `observed` ended; false when that search could not be
    /// made.
    fn original_search_shows(&mut self, observed: &Observation) -> bool {
        match self.searched(FOLLOW_CHECK_PREEMPTIONS, Extent::Whole) {
            Ok(searched) => searched
                .observations
                .iter()
                .any(|o| ends_alike(o, observed)),
            Err(_) => false,
        }
    }

    /// Judges one run with real threads (the `run`-th); true when it kills. It kills by
    /// what no run of the original showed, controlled or native: a failure (crash,
    /// assertion, hang), or an exit status and output. The baseline's sample of the
    /// original is small, so a difference from it is first looked for in the original's
    /// bounded search (every schedule with at most [`FOLLOW_CHECK_PREEMPTIONS`]
    /// preemptions), then in the original's run in the order of this run's events
    /// (`original_in_order`, `None` when it has none), then in up to
    /// [`NATIVE_CONFIRM_RUNS`] more runs of the original with real threads
    /// (`original_again` makes one). Their errors are failures of the machine.
    pub(super) fn add_native(
        &mut self,
        build: &Build,
        execution: &Execution,
        run: usize,
        original_in_order: &mut dyn FnMut() -> Result<Option<Execution>, String>,
        original_again: &mut dyn FnMut() -> Result<Execution, String>,
    ) -> Result<bool, String> {
        self.runs += 1;
        self.executions += 1;
        self.elapsed += execution.elapsed;
        self.tried.push("native".to_string());
        let observed = Observation::new(execution, &Trace::default(), &self.hidden, self.mask);
        if self.original_shows_natively(&observed) {
            return Ok(false);
        }
        // A failure is compared with the original's controlled runs, whose traces say
        // how it ended; an exit status or output with its runs with real threads, whose
        // observations have no trace either.
        let reference = match failure(&observed) {
            Some(_) => &self.original[0].observation,
            None => match self.native_originals.first() {
                Some(o) => o,
                None => return Ok(false),
            },
        };
        let label = |site| crate::diff::site_label(&build.catalogue, site);
        let (verdict, reason) = verdict::judge(reference, &observed, &label);
        if verdict == Verdict::Survived {
            return Ok(false);
        }
        // The baseline ran the original under a few schedules; under others it may
        // print what real threads showed here (a race-free program's outputs are all
        // reachable at synchronization granularity), so its bounded search is asked.
        if self.original_search_shows(&observed) {
            self.native_refuted += 1;
            return Ok(false);
        }
        let in_order = original_in_order()?;
        if in_order.is_some() {
            self.followed_at.push(self.native_originals.len());
        }
        for again in in_order
            .into_iter()
            .map(Ok)
            .chain((0..NATIVE_CONFIRM_RUNS).map(|_| original_again()))
        {
            let again = again?;
            self.executions += 1;
            self.elapsed += again.elapsed;
            let seen = Observation::new(&again, &Trace::default(), &[], self.mask);
            self.native_failures.extend(failure(&seen));
            self.native_originals.push(seen);
            if self.original_shows_natively(&observed) {
                self.native_refuted += 1;
                return Ok(false);
            }
        }
        // Last, as no run of the original refuted it: a kill only if the original's own
        // runs with real threads agree.
        if self.unclaimed_natively(&observed, &reason) {
            return Ok(false);
        }
        self.kills += 1;
        if self.first_kill.is_none() {
            let searched = match self.searched.get(&WHOLE) {
                Some(Ok(s)) => format!(
                    ", {} in its search of every schedule with at most {FOLLOW_CHECK_PREEMPTIONS} preemptions{}",
                    s.observations.len(),
                    if s.exhausted { "" } else { " (not exhausted)" }
                ),
                _ => String::new(),
            };
            let reason = format!(
                "{reason} with real threads (native run {run}); no run of the original showed it ({} under the scheduler{searched}{}, {} with real threads)",
                self.original.len(),
                match self.followed_at.len() {
                    0 => String::new(),
                    n => format!(", {n} in the order of a run's events with real threads"),
                },
                self.native_originals.len() - self.followed_at.len()
            );
            self.first_kill = Some((verdict, reason, "native".to_string()));
        }
        Ok(true)
    }
}

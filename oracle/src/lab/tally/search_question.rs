//! What the original's search says of a mutant run's difference that following the
//! original could not decide: the original shows it (no kill), the search covered every
//! schedule within the run's preemptions without it (a kill, within that bound), or the
//! search could not tell (not claimed).

use super::{Follow, Searched, Tally};
use crate::lab::follow::Partial;
use crate::lab::follow_check::{deciding, Extent, FOLLOW_CHECK_PREEMPTIONS, WHOLE};
use crate::lab::traces::{RunRaces, Unjudged};
use crate::observation::Observation;
use crate::verdict::Verdict;

/// A difference the follow could not decide, put to the original's search.
pub(super) struct Question {
    /// The search's preemption bound: as many as the mutant's run had.
    pub(super) bound: u32,
    /// Ask the search within [`FOLLOW_CHECK_PREEMPTIONS`] first: what it shows is the
    /// original's, whatever the mutant run's preemptions, and what it covers includes
    /// every schedule within `bound`.
    pub(super) refute_within_follow_bound: bool,
    /// Why the follow decided nothing, for the kill's reason, and for the survivor's
    /// when there is no `partial` follow to name instead.
    pub(super) lead: String,
    /// Whose search the kill's reason names (`its`, `the original's`).
    pub(super) whose: &'static str,
    /// Added inside the reason's parentheses.
    pub(super) aside: String,
    /// Where the original stopped following, kept with an unclaimed run.
    pub(super) partial: Option<Partial>,
}

/// What the original's search made of a [`Question`].
pub(super) enum Asked {
    /// None of its runs shows the difference and it covered its bound: a kill, with the
    /// note for its reason.
    Proven(String),
    /// Decided without a kill by the difference (the original shows it, or the search
    /// could not tell), or killed by a data race: what [`Tally::add`] answers.
    Settled(bool),
}

/// The run being judged, as [`Tally::add_races`] needs it.
pub(super) struct RunAt<'r> {
    pub(super) races: &'r RunRaces,
    pub(super) tag: &'r str,
    pub(super) followed_yet: bool,
}

impl Tally<'_> {
    /// The original's search of every schedule with at most `preemptions` preemptions on
    /// this test, its runs seen as this mutant's: made (once per test, bound and extent)
    /// the first time it is needed.
    pub(super) fn searched(
        &mut self,
        preemptions: u32,
        extent: Extent,
    ) -> Result<&Searched, String> {
        let slot = match (self.dfs_bound, extent) {
            (_, Extent::Whole) => WHOLE,
            (Some(bound), _) if preemptions > FOLLOW_CHECK_PREEMPTIONS && preemptions <= bound => {
                deciding(0)
            }
            (_, Extent::WhileCoverable) if preemptions <= FOLLOW_CHECK_PREEMPTIONS => {
                deciding(preemptions)
            }
            _ => return Err(format!("the mutant's run preempted {preemptions} times, more than the original's search covers ({FOLLOW_CHECK_PREEMPTIONS})")),
        };
        if !self.searched.contains_key(&slot) {
            // A deciding search that was not cut short is the whole one: the same runs.
            let cell = match self.shared_search[deciding(FOLLOW_CHECK_PREEMPTIONS)].get() {
                Some(Ok(s)) if slot == WHOLE && s.schedules_at_least.is_none() => {
                    deciding(FOLLOW_CHECK_PREEMPTIONS)
                }
                _ => slot,
            };
            let mut made = false;
            let shared = self.shared_search[cell].get_or_init(|| {
                made = true;
                (self.search)(preemptions, extent)
            });
            if made {
                let runs = shared.as_ref().map_or(0, |b| b.observations.len());
                self.executions += runs;
                self.search_runs += runs;
            }
            let hidden = &self.hidden;
            let seen = shared.as_ref().map_err(Clone::clone).map(|b| Searched {
                observations: b.observations.iter().map(|o| o.hiding(hidden)).collect(),
                exhausted: b.exhausted,
                preemptions: b.preemptions,
                schedules_at_least: b.schedules_at_least,
            });
            self.searched.insert(slot, seen);
        }
        self.searched[&slot].as_ref().map_err(Clone::clone)
    }

    /// What the original's search with at most `preemptions` preemptions says of
    /// `observed`: `Ok(None)` when one of its runs shows it, `Ok(Some((runs, bound)))`
    /// when none of its runs, which cover every schedule within the bound, does; else
    /// why it cannot tell.
    fn decide(
        &mut self,
        preemptions: u32,
        observed: &Observation,
    ) -> Result<Option<(usize, u32)>, String> {
        let s = self.searched(preemptions, Extent::WhileCoverable)?;
        match (s.observations.contains(observed), s.exhausted) {
            (true, _) => Ok(None),
            (false, true) => Ok(Some((s.observations.len(), s.preemptions))),
            (false, false) => Err(match s.schedules_at_least {
                Some(at_least) => format!(
                    "the original's search with at most {} preemptions could not cover them: they are at least {at_least} schedules, more than --search-runs allows",
                    s.preemptions
                ),
                None => format!(
                    "the original's search with at most {} preemptions did not finish within {} schedules (run --search-runs)",
                    s.preemptions,
                    s.observations.len()
                ),
            }),
        }
    }

    /// Puts `question` to the original's search: a kill when the search covers its bound
    /// without `observed`; no kill when a run of it shows `observed` (counted as found by
    /// the search) or when it cannot tell (the run is unclaimed, `difference` kept for
    /// the survivor's reason). An output difference that is no kill may still have a
    /// data race the original does not (a trace difference's races were judged before).
    pub(super) fn ask_search(
        &mut self,
        question: Question,
        observed: &Observation,
        verdict: Verdict,
        difference: &str,
        run: RunAt,
        follow: &mut Follow,
    ) -> Result<Asked, Unjudged> {
        let Question {
            bound,
            refute_within_follow_bound,
            lead,
            whose,
            aside,
            partial,
        } = question;
        // The search within the follow bound is asked first: a run of it that shows the
        // observation refutes the kill whatever the bound, and when it covers every
        // schedule within its bound it covers the narrower one too. Only when it does
        // neither is the narrower search made, and its verdict is what that search alone
        // and the wider one would have said together.
        let wider = match refute_within_follow_bound {
            true => self.decide(FOLLOW_CHECK_PREEMPTIONS, observed).ok(),
            false => None,
        };
        let decided = match wider {
            Some(d) => Ok(d),
            None => self.decide(bound, observed),
        };
        let decided = match decided {
            Ok(d) => Ok(d.map(|(runs, bound)| format!(
                "{lead}, and none of the {runs} runs of {whose} search with at most {bound} preemptions (every such schedule{aside}) shows this"
            ))),
            Err(why) if partial.is_none() => Err(format!("{lead}, and {why}")),
            Err(why) => Err(why),
        };
        if !matches!(decided, Ok(Some(_)))
            && verdict == Verdict::KilledByOutput
            && self.add_races(run.races, run.tag, run.followed_yet, follow)?
        {
            return Ok(Asked::Settled(true));
        }
        match decided {
            Ok(None) => {
                self.found_by_search += 1;
                Ok(Asked::Settled(false))
            }
            Ok(Some(note)) => Ok(Asked::Proven(note)),
            Err(why) => {
                self.unclaim(run.tag, partial, why, difference.to_string());
                Ok(Asked::Settled(false))
            }
        }
    }
}

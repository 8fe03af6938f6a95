//! Budgets of test generation: how long, how much memory and how large a formula one
//! design and one site may take. A real design's shape decides how far the backward
//! walk goes (a call chain through a TLM socket, a fully unrolled FFT); without a
//! limit a user waits in silence for an answer that may never come. With one, a site
//! that runs out is `unknown: budget: …` (its own reason, counted in the summary) and
//! generation goes on with the next.
//!
//! The formula builder calls `Meter::check` at its recursive steps; the check is
//! cheap (a counter) and looks at the clock and the resident memory every
//! `CHECK_EVERY` calls. Once spent, a meter stays spent, so an error that some step
//! swallows (a value it can do without) comes back at the next step.

use crate::error::{AnalysisError, Result};
use std::time::{Duration, Instant};

/// The limits of one generation; `syncmut gen`/`run` flags and `syncmut.toml` keys set
/// them (docs/configuration.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Wall time for analysing every site (formulas and solving; the confirming runs
    /// have their own per-run timeouts).
    pub total: Duration,
    /// Wall time for one site: building its formulas and solving them.
    pub site: Duration,
    /// Resident memory of syncmut while a formula is built; z3's own limit too.
    pub memory_mb: u64,
    /// Largest formula solved, in distinct terms (its size as built, shared subterms
    /// counted once).
    pub max_terms: usize,
    /// Bytes of `formulas/` in all: three quarters for the formula files (beyond it a
    /// file says how large its formula was instead), one quarter for the solver
    /// session's log (cut there).
    pub formula_bytes: u64,
}

/// Defaults chosen so that the public SystemC and TLM examples finish generation
/// (compiling, analysing, confirming) within 2 minutes and 1 GB on a 2-core machine
/// (BENCHMARKS.md, "Test generation on real designs"). The memory budget leaves a
/// margin: the meter is not looked at while a formula is printed or handed to the
/// solver, and a TLM design's peak passed a 768 MB budget by 80–230 MB there. The
/// formula files are capped well below the 50 MB a whole run directory should stay
/// within: on risc_cpu the solver log alone filled a 32 MB budget.
impl Default for Budget {
    fn default() -> Self {
        Budget {
            total: Duration::from_secs(60),
            site: Duration::from_secs(15),
            memory_mb: 512,
            max_terms: 2_000_000,
            formula_bytes: 8 << 20,
        }
    }
}

/// Calls of [`Meter::check`] between two looks at the clock and the memory.
const CHECK_EVERY: u32 = 1024;

/// The budget of one formula being built: a deadline and a memory limit.
#[derive(Debug, Clone)]
pub(crate) struct Meter {
    deadline: Option<(Instant, String)>,
    memory: Option<u64>,
    ticks: u32,
    spent: Option<String>,
}

impl Meter {
    /// No limit (the random baseline's input vector, tests of the builder).
    pub(crate) fn unlimited() -> Self {
        Meter {
            deadline: None,
            memory: None,
            ticks: 0,
            spent: None,
        }
    }

    /// Ends at `deadline` (what ran out is `why`) or when syncmut's resident memory
    /// passes `memory_mb`.
    pub(crate) fn new(deadline: Instant, why: String, memory_mb: u64) -> Self {
        Meter {
            deadline: Some((deadline, why)),
            memory: Some(memory_mb << 20),
            ticks: 0,
            spent: None,
        }
    }

    /// `Err(Budget)` once the time or memory is spent.
    pub(crate) fn check(&mut self) -> Result<()> {
        if let Some(why) = &self.spent {
            return Err(AnalysisError::Budget(why.clone()));
        }
        self.ticks += 1;
        if self.ticks < CHECK_EVERY {
            return Ok(());
        }
        self.ticks = 0;
        self.spent = self.exceeded();
        match &self.spent {
            Some(why) => Err(AnalysisError::Budget(why.clone())),
            None => Ok(()),
        }
    }

    /// Whether the deadline has passed (the solver's extra queries stop there).
    pub(crate) fn out_of_time(&self) -> bool {
        self.deadline
            .as_ref()
            .is_some_and(|(d, _)| Instant::now() >= *d)
    }

    /// Time left before the deadline (a long time when there is none).
    pub(crate) fn remaining(&self) -> Duration {
        match &self.deadline {
            Some((d, _)) => d.saturating_duration_since(Instant::now()),
            None => Duration::from_secs(3600),
        }
    }

    /// What running out of time means for this meter ("the site's time budget …").
    pub(crate) fn why(&self) -> &str {
        self.deadline.as_ref().map_or("", |(_, why)| why.as_str())
    }

    fn exceeded(&self) -> Option<String> {
        if let Some((d, why)) = &self.deadline {
            if Instant::now() >= *d {
                return Some(why.clone());
            }
        }
        let limit = self.memory?;
        let rss = resident_bytes()?;
        (rss > limit).then(|| {
            format!(
                "syncmut's memory reached {} MB while building the formula, over the budget of {} MB (--gen-memory)",
                rss >> 20,
                limit >> 20
            )
        })
    }
}

/// The resident set size of this process, from `/proc/self/statm` (Linux).
pub(crate) fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf reads a constant of the system; no memory is involved.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}

/// Runs `f` with at least `RED_ZONE` bytes of stack, growing it on the heap when the
/// thread's own is nearly used up. The formula builder recurses along the program's
/// paths (block to predecessor, value to operand), so the depth is the analysed
/// program's to choose: a fully unrolled FFT went past 8 MB. Memory spent this way
/// counts in the resident memory the [`Meter`] watches.
pub(crate) fn deep<T>(f: impl FnOnce() -> T) -> T {
    const RED_ZONE: usize = 256 * 1024;
    const SEGMENT: usize = 16 * 1024 * 1024;
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spent_meter_stays_spent() {
        let mut m = Meter::new(Instant::now(), "the site's time".into(), 1 << 20);
        let first = (0..CHECK_EVERY).map(|_| m.check()).find(Result::is_err);
        assert!(matches!(first, Some(Err(AnalysisError::Budget(ref w))) if w == "the site's time"));
        assert!(m.check().is_err());
        assert!(m.out_of_time());
    }

    #[test]
    fn an_unlimited_meter_never_ends() {
        let mut m = Meter::unlimited();
        assert!((0..10 * CHECK_EVERY).all(|_| m.check().is_ok()));
    }

    #[test]
    fn a_memory_limit_below_what_is_used_ends_the_meter() {
        let far = Instant::now() + Duration::from_secs(3600);
        let mut m = Meter::new(far, "time".into(), 0);
        let first = (0..CHECK_EVERY).map(|_| m.check()).find(Result::is_err);
        let Some(Err(AnalysisError::Budget(why))) = first else {
            panic!("{first:?}")
        };
        assert!(why.contains("memory"), "{why}");
    }

    #[test]
    fn deep_recursion_does_not_overflow_the_stack() {
        fn depth(n: u64) -> u64 {
            if n == 0 {
                return 0;
            }
            let pad = [n; 64];
            deep(|| depth(n - 1)) + pad[(n % 64) as usize] / n
        }
        // 200k frames of over 512 bytes: far past a thread's 2 MB stack.
        assert_eq!(depth(200_000), 200_000);
    }
}

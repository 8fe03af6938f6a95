//! The progress of `run`'s two phases, the original's baseline (counted in tests) and
//! the mutants (counted in runs, one mutant on one test), with an estimate of the time
//! left. A kill that ends a mutant's remaining tests lowers the estimated total instead
//! of counting those runs as done, so the last figure is the runs executed.
//!
//! On a terminal a bar; otherwise (a CI log) a line when the first unit finishes (the
//! first estimate), then at most one every [`LINE_EVERY`], and one when the phase ends.
//! The original's searches (one can take minutes on a slow design) show how many runs
//! they have made. Everything goes to stderr: stdout and the reports
//! do not change.

use indicatif::{ProgressBar, ProgressStyle};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use syncmut_oracle::lab::{Progress, SearchTick};
use syncmut_oracle::outcome::{Baseline, Run};

/// The least time between two progress lines when stderr is not a terminal.
const LINE_EVERY: Duration = Duration::from_secs(5);

/// One phase's counts: units finished and expected, since when.
struct Phase {
    name: &'static str,
    unit: &'static str,
    started: Instant,
    done: u64,
    total: u64,
    skipped: u64,
    /// When the last line was printed (not a terminal).
    printed: Option<Instant>,
}

impl Phase {
    fn new(name: &'static str, unit: &'static str, total: u64) -> Phase {
        Phase {
            name,
            unit,
            started: Instant::now(),
            done: 0,
            total,
            skipped: 0,
            printed: None,
        }
    }

    /// The time the units not done yet should take at the pace of those done so far
    /// (wall time per unit, so it accounts for the workers running side by side).
    fn left(&self, now: Instant) -> Option<Duration> {
        if self.done == 0 {
            return None;
        }
        let per = now.duration_since(self.started).as_secs_f64() / self.done as f64;
        Some(Duration::from_secs_f64(
            per * self.total.saturating_sub(self.done) as f64,
        ))
    }

    fn skipped_note(&self) -> String {
        match self.skipped {
            0 => String::new(),
            n => format!(", {n} skipped after kills"),
        }
    }

    /// `mutants: 120/480 runs done, about 1m05s left`.
    fn line(&self, now: Instant) -> String {
        let left = self
            .left(now)
            .map(|d| format!(", about {} left", clock(d)))
            .unwrap_or_default();
        format!(
            "{}: {}/{} {} done{}{left}",
            self.name,
            self.done,
            self.total,
            self.unit,
            self.skipped_note()
        )
    }

    /// `mutants: 470 runs done in 35s, 10 skipped after kills`.
    fn last_line(&self, now: Instant) -> String {
        format!(
            "{}: {} {} done in {}{}",
            self.name,
            self.done,
            self.unit,
            clock(now.duration_since(self.started)),
            self.skipped_note()
        )
    }
}

/// `45s`, `1m05s`, `2h03m`.
fn clock(d: Duration) -> String {
    let s = d.as_secs_f64().round() as u64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, s / 60 % 60),
    }
}

/// The progress of `run`: a bar on a terminal, sparse lines otherwise.
pub struct Bar {
    bar: ProgressBar,
    phase: Mutex<Option<Phase>>,
}

impl Bar {
    pub fn new() -> Bar {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{prefix:>10} [{bar:30}] {pos}/{len} {msg}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        Bar {
            bar,
            phase: Mutex::new(None),
        }
    }

    /// Ends the current phase (its last line when not on a terminal).
    pub fn finish(&self) {
        self.end_phase();
        self.bar.finish_and_clear();
    }

    fn end_phase(&self) {
        let mut phase = self.phase.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = phase.take() {
            if self.bar.is_hidden() {
                eprintln!("syncmut: {}", p.last_line(Instant::now()));
            }
        }
    }

    fn start_phase(&self, phase: Phase) {
        self.end_phase();
        self.bar.set_prefix(phase.name);
        self.bar.set_length(phase.total);
        self.bar.set_position(0);
        self.bar.set_message("");
        *self.phase.lock().unwrap_or_else(|e| e.into_inner()) = Some(phase);
    }

    /// Applies `change` to the current phase, then shows it: the bar, or a line when
    /// the first estimate appears or the last line is old enough.
    fn update(&self, change: impl FnOnce(&mut Phase), last: Option<String>) {
        let mut guard = self.phase.lock().unwrap_or_else(|e| e.into_inner());
        let Some(phase) = guard.as_mut() else {
            return;
        };
        change(phase);
        let now = Instant::now();
        if self.bar.is_hidden() {
            let due = match phase.printed {
                None => phase.done > 0,
                Some(at) => now.duration_since(at) >= LINE_EVERY,
            };
            if due && phase.done < phase.total {
                eprintln!("syncmut: {}", phase.line(now));
                phase.printed = Some(now);
            }
            return;
        }
        self.bar.set_length(phase.total);
        self.bar.set_position(phase.done);
        let left = phase
            .left(now)
            .map(|d| format!("about {} left", clock(d)))
            .unwrap_or_default();
        self.bar.set_message(match last {
            Some(last) => format!("{left}  {last}"),
            None => left,
        });
    }
}

impl Progress for Bar {
    fn baseline_started(&self, tests: usize) {
        self.start_phase(Phase::new("baseline", "tests", tests as u64));
    }

    fn baseline_finished(&self, baseline: &Baseline) {
        let last = format!("original on {}", baseline.test);
        self.update(|p| p.done += 1, Some(last));
    }

    fn runs_started(&self, runs: usize) {
        self.start_phase(Phase::new("mutants", "runs", runs as u64));
    }

    fn run_finished(&self, run: &Run) {
        let last = format!("{} on {}: {}", run.mutant, run.test, run.verdict);
        self.update(|p| p.done += 1, Some(last));
    }

    fn runs_skipped(&self, runs: usize) {
        self.update(
            |p| {
                p.total = p.total.saturating_sub(runs as u64);
                p.skipped += runs as u64;
            },
            None,
        );
    }

    fn search_ran(&self, search: &SearchTick) {
        let text = search_line(search);
        let mut guard = self.phase.lock().unwrap_or_else(|e| e.into_inner());
        let Some(phase) = guard.as_mut() else {
            return;
        };
        if !self.bar.is_hidden() {
            self.bar.set_message(text);
            return;
        }
        // A search can take minutes on a slow design, with no run finishing meanwhile:
        // a line says what is going on, no more often than the others.
        let now = Instant::now();
        if phase
            .printed
            .is_none_or(|at| now.duration_since(at) >= LINE_EVERY)
        {
            eprintln!("syncmut: {}: {text}", phase.name);
            phase.printed = Some(now);
        }
    }
}

/// `the original's search within 2 preemptions on three_steps: run 120 of at most 600`.
fn search_line(search: &SearchTick) -> String {
    format!(
        "the original's search within {} preemptions on {}: run {} of at most {}",
        search.preemptions, search.test, search.runs, search.budget
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_says_where_it_is() {
        let search = SearchTick {
            test: "three_steps".to_string(),
            preemptions: 2,
            runs: 120,
            budget: 600,
        };
        assert_eq!(
            search_line(&search),
            "the original's search within 2 preemptions on three_steps: run 120 of at most 600"
        );
    }

    #[test]
    fn clock_reads_as_seconds_minutes_or_hours() {
        assert_eq!(clock(Duration::from_millis(44_600)), "45s");
        assert_eq!(clock(Duration::from_secs(65)), "1m05s");
        assert_eq!(clock(Duration::from_secs(2 * 3600 + 3 * 60 + 9)), "2h03m");
    }

    #[test]
    fn time_left_is_the_pace_so_far_times_the_units_left() {
        let mut phase = Phase::new("mutants", "runs", 100);
        let now = phase.started + Duration::from_secs(10);
        assert_eq!(phase.left(now), None);
        assert_eq!(phase.line(now), "mutants: 0/100 runs done");
        phase.done = 20;
        assert_eq!(phase.left(now), Some(Duration::from_secs(40)));
        // Skipped runs shrink the total, so the estimate falls, not the pace.
        phase.total -= 40;
        phase.skipped = 40;
        assert_eq!(phase.left(now), Some(Duration::from_secs(20)));
        assert_eq!(
            phase.line(now),
            "mutants: 20/60 runs done, 40 skipped after kills, about 20s left"
        );
        assert_eq!(
            phase.last_line(now),
            "mutants: 20 runs done in 10s, 40 skipped after kills"
        );
    }
}
